/* The ptxas half of a compile: PTX -> cubin plus the kernel's resource usage, in one
 * `ptxas -v -O3 -arch=sm_XX` run under a timeout. MLIR 22 does not keep ptxas' log
 * (shared/notes/MLIR22-FACTS.md), so the tuner runs ptxas itself: the registers, spills,
 * stack and shared memory it reports feed the draft model and the verifier. */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compile_internal.h"

extern char **environ;

#define DEFAULT_PTXAS "/usr/local/cuda/bin/ptxas"
#define LOG_LIMIT (64 * 1024)

double prunerCompileNow(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *ptxasPath(const PrunerCompileOptions *opts) {
  if (opts && opts->ptxas_path)
    return opts->ptxas_path;
  return access(DEFAULT_PTXAS, X_OK) == 0 ? DEFAULT_PTXAS : "ptxas";
}

static PrunerStatus writeFile(const char *path, const char *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return prunerStatusError("cannot write %s: %s", path, strerror(errno));
  size_t written = fwrite(data, 1, size, f);
  if (fclose(f) != 0 || written != size)
    return prunerStatusError("cannot write %s: %s", path, strerror(errno));
  return prunerStatusOk();
}

static PrunerStatus readFile(const char *path, unsigned char **data, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return prunerStatusError("ptxas wrote no cubin at %s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || st.st_size <= 0) {
    fclose(f);
    return prunerStatusError("ptxas wrote an empty cubin at %s", path);
  }
  *data = malloc((size_t)st.st_size);
  *size = *data ? fread(*data, 1, (size_t)st.st_size, f) : 0;
  fclose(f);
  if (!*data || *size != (size_t)st.st_size) {
    free(*data);
    *data = NULL;
    return prunerStatusError("cannot read cubin %s", path);
  }
  return prunerStatusOk();
}

/* Runs argv with stdout and stderr into `log`, killing it after `timeout_seconds`.
 * *exit_status gets the waitpid status. */
static PrunerStatus runWithTimeout(char *const argv[], double timeout_seconds, char *log,
                                   size_t log_size, int *exit_status) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return prunerStatusError("pipe for %s: %s", argv[0], strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  pid_t pid;
  int err = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (err != 0) {
    close(fds[0]);
    return prunerStatusError("cannot run %s: %s", argv[0], strerror(err));
  }
  double deadline = prunerCompileNow() + timeout_seconds;
  size_t len = 0;
  bool timedOut = false;
  for (;;) {
    double left = deadline - prunerCompileNow();
    if (left <= 0) {
      timedOut = true;
      break;
    }
    struct pollfd p = {.fd = fds[0], .events = POLLIN};
    int ready = poll(&p, 1, (int)(left * 1000.0) + 1);
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready <= 0)
      continue; /* re-checks the deadline */
    char chunk[4096];
    ssize_t n = read(fds[0], chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break; /* EOF: the child closed its output, it is exiting */
    size_t keep = (size_t)n < log_size - 1 - len ? (size_t)n : log_size - 1 - len;
    memcpy(log + len, chunk, keep);
    len += keep;
  }
  log[len] = '\0';
  close(fds[0]);
  if (timedOut)
    kill(pid, SIGKILL);
  while (waitpid(pid, exit_status, 0) < 0 && errno == EINTR) {
  }
  if (timedOut)
    return prunerStatusError("timeout after %gs in %s", timeout_seconds, argv[0]);
  return prunerStatusOk();
}

/* First line of the log that says "error" (ptxas prints "ptxas fatal : ..." or
 * "ptxas <file>, line N; error : ..."), else its first line. */
static void firstErrorLine(const char *log, char *buf, size_t size) {
  const char *line = strstr(log, "error");
  if (!line)
    line = strstr(log, "fatal");
  if (line)
    while (line > log && line[-1] != '\n')
      --line;
  else
    line = log;
  size_t n = strcspn(line, "\n");
  snprintf(buf, size, "%.*s", (int)n, line);
}

PrunerStatus prunerCompileRunPtxas(const char *ptx, const PrunerTargetDesc *t,
                                   const PrunerCompileOptions *opts, double timeout_seconds,
                                   bool want_cubin, PrunerCompileResult *out) {
  double start = prunerCompileNow();
  const char *tmp = getenv("TMPDIR");
  char dir[512];
  snprintf(dir, sizeof(dir), "%s/pruner-ptxas-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir))
    return prunerStatusError("cannot create a directory for ptxas under %s: %s",
                             tmp && *tmp ? tmp : "/tmp", strerror(errno));
  char ptxPath[600], cubinPath[600], arch[40];
  snprintf(ptxPath, sizeof(ptxPath), "%s/kernel.ptx", dir);
  snprintf(cubinPath, sizeof(cubinPath), "%s/kernel.cubin", dir);
  snprintf(arch, sizeof(arch), "-arch=%s", t->arch);
  PrunerStatus status = writeFile(ptxPath, ptx, strlen(ptx));
  char *log = malloc(LOG_LIMIT);
  if (!log)
    status = prunerStatusError("out of memory for the ptxas log");
  int exitStatus = 0;
  if (status.ok) {
    char *argv[] = {(char *)ptxasPath(opts),
                    "-v",
                    "-O3",
                    arch,
                    ptxPath,
                    "-o",
                    want_cubin ? cubinPath : "/dev/null",
                    NULL};
    status = runWithTimeout(argv, timeout_seconds, log, LOG_LIMIT, &exitStatus);
  }
  if (status.ok) {
    char line[400];
    if (WIFSIGNALED(exitStatus)) {
      status = prunerStatusError("ptxas killed by signal %d", WTERMSIG(exitStatus));
    } else if (WEXITSTATUS(exitStatus) != 0) {
      firstErrorLine(log, line, sizeof(line));
      status =
          prunerStatusError("ptxas rejected the PTX (exit %d): %s", WEXITSTATUS(exitStatus), line);
    } else if (!prunerCompileParsePtxasLog(log, out->kernel_name, &out->resources)) {
      firstErrorLine(log, line, sizeof(line));
      status = prunerStatusError("no resource usage for %s in ptxas -v output: %s",
                                 out->kernel_name, line);
    }
  }
  if (status.ok && want_cubin)
    status = readFile(cubinPath, &out->binary, &out->binary_size);
  free(log);
  unlink(ptxPath);
  unlink(cubinPath);
  rmdir(dir);
  out->ptxas_seconds = prunerCompileNow() - start;
  return status;
}

/* Reads the comma-separated items of a "Used N registers, ..." line. */
static void parseUsedLine(const char *line, PrunerKernelResources *out) {
  const char *p = line;
  while (p && *p && *p != '\n') {
    int value;
    char unit[32];
    if (sscanf(p, " Used %d registers", &value) == 1)
      out->registers = value;
    else if (sscanf(p, " used %d barriers", &value) == 1)
      ; /* barriers are not part of PrunerKernelResources */
    else if (sscanf(p, " %d bytes %31[a-z]", &value, unit) == 2) {
      if (strcmp(unit, "smem") == 0)
        out->shared_bytes = value;
      else if (strcmp(unit, "cmem") == 0)
        out->constant_bytes += value;
    }
    p = strchr(p, ',');
    if (p)
      ++p;
  }
}

bool prunerCompileParsePtxasLog(const char *log, const char *kernel, PrunerKernelResources *out) {
  memset(out, 0, sizeof(*out));
  const char *p = log;
  if (kernel && *kernel) {
    char needle[200];
    snprintf(needle, sizeof(needle), "entry function '%s'", kernel);
    const char *at = strstr(log, needle);
    if (at)
      p = at;
  }
  const char *props = strstr(p, "bytes stack frame");
  if (props) {
    while (props > log && props[-1] != '\n')
      --props;
    sscanf(props, " %d bytes stack frame, %d bytes spill stores, %d bytes spill loads",
           &out->stack_bytes, &out->spill_store_bytes, &out->spill_load_bytes);
  }
  const char *used = strstr(p, "Used ");
  if (!used)
    return false;
  parseUsedLine(used, out);
  return true;
}

/* The ptxas half of a compile: PTX -> cubin plus the kernel's resource usage, in one
 * `ptxas -v -O3 -arch=sm_XX` run under a timeout. MLIR 22 does not keep ptxas' log
 * (gpu-module-to-binary drops it; docs/compile.md), so the tuner runs ptxas itself: the registers, spills,
 * stack and shared memory it reports feed the draft model and the verifier. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compile_internal.h"
#include "pruner/file.h"
#include "pruner/process.h"

#define DEFAULT_PTXAS "/usr/local/cuda/bin/ptxas"
#define LOG_LIMIT (64 * 1024)

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

/* The cubin ptxas wrote at `path`; an empty file counts as none. */
static PrunerStatus readCubin(const char *path, unsigned char **data, size_t *size) {
  char *bytes = NULL;
  PrunerStatus st = prunerReadFile(path, &bytes, size);
  if (!st.ok)
    return prunerStatusError("ptxas wrote no cubin: %s", st.message);
  if (*size == 0) {
    free(bytes);
    return prunerStatusError("ptxas wrote an empty cubin at %s", path);
  }
  *data = (unsigned char *)bytes;
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
  double start = prunerNowSeconds();
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
    status = prunerProcessRun(argv, timeout_seconds, log, LOG_LIMIT, &exitStatus);
  }
  if (status.ok) {
    char line[400];
    if (WIFSIGNALED(exitStatus)) {
      status = prunerStatusError("ptxas killed by signal %d", WTERMSIG(exitStatus));
    } else if (WEXITSTATUS(exitStatus) != 0) {
      firstErrorLine(log, line, sizeof(line));
      status =
          prunerStatusError("ptxas rejected the PTX (exit %d): %s", WEXITSTATUS(exitStatus), line);
    } else if (!prunerCompileParsePtxasLog(log, out->launch.kernel_name, &out->launch.resources)) {
      firstErrorLine(log, line, sizeof(line));
      status = prunerStatusError("no resource usage for %s in ptxas -v output: %s",
                                 out->launch.kernel_name, line);
    }
  }
  if (status.ok && want_cubin)
    status = readCubin(cubinPath, &out->binary, &out->binary_size);
  free(log);
  unlink(ptxPath);
  unlink(cubinPath);
  rmdir(dir);
  out->ptxas_seconds = prunerNowSeconds() - start;
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

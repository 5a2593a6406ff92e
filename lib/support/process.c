/* lib/support/process.c: prunerProcessRun (pruner/process.h), the spawn-and-wait that
 * lib/backend/gpu's ptxas run and lib/measure's pruner-run share. */
#define _GNU_SOURCE /* pipe2 */
#include "pruner/clock.h"
#include "pruner/process.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* How often a wait looks at the caller's stop flag (as pruner/worker.h's workers do). */
#define STOP_POLL_MS 50

static bool stopped(const volatile sig_atomic_t *stop) { return stop && *stop; }

/* Reads the child's output into log until EOF, the deadline or the stop flag; true when
 * it ended for the deadline or the flag (the child is still running). */
static bool collect(int fd, double deadline, const volatile sig_atomic_t *stop, char *log,
                    size_t log_size) {
  size_t len = 0;
  bool timed_out = false;
  for (;;) {
    int wait_ms = -1;
    if (stopped(stop)) {
      timed_out = true;
      break;
    }
    if (deadline > 0) {
      double left = deadline - prunerNowSeconds();
      if (left <= 0) {
        timed_out = true;
        break;
      }
      wait_ms = (int)(left * 1000.0) + 1;
    }
    if (stop && (wait_ms < 0 || wait_ms > STOP_POLL_MS))
      wait_ms = STOP_POLL_MS;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int ready = poll(&p, 1, wait_ms);
    if (ready <= 0)
      continue; /* EINTR or the deadline: checked above */
    char chunk[4096];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break; /* EOF: the child closed its output, it is exiting */
    size_t keep = (size_t)n < log_size - 1 - len ? (size_t)n : log_size - 1 - len;
    memcpy(log + len, chunk, keep);
    len += keep;
  }
  log[len] = '\0';
  return timed_out;
}

/* Waits for pid until the deadline (<= 0: none) or the stop flag, polling every 10 ms
 * when there is either; true when it ended for one of them (the child is still running). */
static bool waitUntil(pid_t pid, double deadline, const volatile sig_atomic_t *stop,
                      int *wait_status) {
  for (;;) {
    pid_t r = waitpid(pid, wait_status, deadline > 0 || stop ? WNOHANG : 0);
    if (r == pid)
      return false;
    if (r < 0 && errno != EINTR)
      return false; /* nothing left to wait for */
    if ((deadline > 0 && prunerNowSeconds() >= deadline) || stopped(stop))
      return true;
    if (r == 0)
      nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
  }
}

PrunerStatus prunerProcessRun(char *const argv[], double timeout_seconds, char *log,
                              size_t log_size, int *wait_status) {
  return prunerProcessRunStoppable(argv, timeout_seconds, NULL, log, log_size, wait_status);
}

/* An MPI launcher's variables, which tell a program it is a rank of a job: a tool the
 * tuner runs is not one. IREE's runtime, for one, checks OMPI_COMM_WORLD_SIZE and calls
 * MPI_Init, which aborted every iree-run-module started by a rank under mpirun (Open MPI:
 * OMPI_*, PMIX_*; MPICH's Hydra: PMI_*, HYDI_*, MPI_LOCALRANKID, MPI_LOCALNRANKS). */
static bool launcherVariable(const char *entry) {
  static const char *const prefixes[] = {
      "OMPI_", "PMIX_", "PMI_", "HYDI_", "MPI_LOCALRANKID=", "MPI_LOCALNRANKS="};
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; ++i)
    if (strncmp(entry, prefixes[i], strlen(prefixes[i])) == 0)
      return true;
  return false;
}

/* Our environment without the launcher's variables (a new array of the same strings;
 * free the array only), or NULL when out of memory. */
static char **childEnvironment(void) {
  size_t n = 0;
  while (environ[n])
    ++n;
  char **env = malloc((n + 1) * sizeof *env);
  if (!env)
    return NULL;
  size_t j = 0;
  for (size_t i = 0; i < n; ++i)
    if (!launcherVariable(environ[i]))
      env[j++] = environ[i];
  env[j] = NULL;
  return env;
}

/* The spawn and wait of both public forms; `stdout_to_stderr` (without a log): the
 * child's stdout is our stderr. */
static PrunerStatus spawnAndWait(char *const argv[], double timeout_seconds,
                                 const volatile sig_atomic_t *stop, char *log, size_t log_size,
                                 bool stdout_to_stderr, int *wait_status) {
  int fds[2] = {-1, -1};
  if (log && pipe2(fds, O_CLOEXEC) != 0)
    return prunerStatusError("pipe for %s: %s", argv[0], strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (log) {
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  } else if (stdout_to_stderr) {
    posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  }
  pid_t pid;
  char **env = childEnvironment();
  int err = env ? posix_spawnp(&pid, argv[0], &actions, NULL, argv, env) : ENOMEM;
  free(env);
  posix_spawn_file_actions_destroy(&actions);
  if (log)
    close(fds[1]);
  if (err != 0) {
    if (log)
      close(fds[0]);
    return prunerStatusError("cannot run %s: %s", argv[0], strerror(err));
  }
  double deadline = timeout_seconds > 0 ? prunerNowSeconds() + timeout_seconds : 0;
  bool timed_out = false;
  if (log) {
    timed_out = collect(fds[0], deadline, stop, log, log_size);
    close(fds[0]);
  }
  if (!timed_out)
    timed_out = waitUntil(pid, deadline, stop, wait_status);
  if (timed_out) {
    kill(pid, SIGKILL);
    while (waitpid(pid, wait_status, 0) < 0 && errno == EINTR) {
    }
    if (stopped(stop))
      return prunerStatusError("%s: " PRUNER_PROCESS_INTERRUPTED, argv[0]);
    return prunerStatusError("timeout after %gs in %s", timeout_seconds, argv[0]);
  }
  return prunerStatusOk();
}

PrunerStatus prunerProcessRunStoppable(char *const argv[], double timeout_seconds,
                                       const volatile sig_atomic_t *stop, char *log,
                                       size_t log_size, int *wait_status) {
  return spawnAndWait(argv, timeout_seconds, stop, log, log_size, false, wait_status);
}

PrunerStatus prunerProcessRunToStderr(char *const argv[], double timeout_seconds,
                                      const volatile sig_atomic_t *stop, int *wait_status) {
  return spawnAndWait(argv, timeout_seconds, stop, NULL, 0, true, wait_status);
}

bool prunerProcessInterrupted(PrunerStatus status) {
  return !status.ok && strstr(status.message, PRUNER_PROCESS_INTERRUPTED) != NULL;
}

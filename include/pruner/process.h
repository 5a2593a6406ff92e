/* pruner/process.h: running another program (ptxas, pruner-run) and waiting for it.
 *
 * One spawn-and-wait for the library: optional capture of the child's stdout and stderr
 * into a buffer, optional wall-clock limit after which the child is killed. (Isolated
 * workers that run our own code after fork() are pruner/worker.h.) MLIR-free. */
#ifndef PRUNER_PROCESS_H
#define PRUNER_PROCESS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "pruner/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs argv[0] (searched in PATH) with arguments argv (NULL-terminated) and waits for it.
 * log != NULL: stdout and stderr go to `log` (NUL-terminated, the rest beyond log_size - 1
 * bytes dropped); log == NULL: the child shares ours. timeout_seconds > 0: the child is
 * killed (SIGKILL) when it runs longer, and the status says "timeout after Ns in argv[0]";
 * <= 0: no limit. On success *wait_status holds waitpid's status (use WIFSIGNALED /
 * WEXITSTATUS). Fails, naming argv[0], when it cannot be started. The child gets our
 * environment without an MPI launcher's variables (OMPI_*, PMIX_*, PMI_*, HYDI_*,
 * MPI_LOCALRANKID, MPI_LOCALNRANKS): a tool run by a rank is not a rank itself. */
PrunerStatus prunerProcessRun(char *const argv[], double timeout_seconds, char *log,
                              size_t log_size, int *wait_status);

/* The message tail of a run ended by the stop flag: "<argv[0]>: interrupted; ...". */
#define PRUNER_PROCESS_INTERRUPTED "interrupted; child killed"

/* prunerProcessRun with the caller's Ctrl-C flag: once *stop is set (checked at least every
 * 50 ms), the child is killed (SIGKILL) and the status says "<argv[0]>: interrupted; child
 * killed" (prunerProcessInterrupted tells it apart). stop == NULL: prunerProcessRun. */
PrunerStatus prunerProcessRunStoppable(char *const argv[], double timeout_seconds,
                                       const volatile sig_atomic_t *stop, char *log,
                                       size_t log_size, int *wait_status);

/* prunerProcessRunStoppable with no capture, the child's stdout sent to our stderr: for
 * a library call whose caller's stdout is its own output (a table, Google Benchmark's
 * JSON), which the child's messages would otherwise land in. */
PrunerStatus prunerProcessRunToStderr(char *const argv[], double timeout_seconds,
                                      const volatile sig_atomic_t *stop, int *wait_status);

/* True when `status` is the failure of a run ended by its stop flag. */
bool prunerProcessInterrupted(PrunerStatus status);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_PROCESS_H */

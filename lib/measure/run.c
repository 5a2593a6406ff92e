/* prunerMeasureRunBundle (pruner/measure.h): pruner-run as a child process. The tuner
 * never loads CUDA itself, so a faulting kernel cannot take it down. */
#include "pruner/measure.h"
#include "pruner/process.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

PrunerRunOptions prunerRunDefaultOptions(void) {
  PrunerRunOptions o;
  o.timeout_seconds = 10.0;
  o.samples = 10;
  o.seed = 0;
  o.only_baseline = false;
  o.stop = NULL;
  return o;
}

PrunerStatus prunerMeasureRunBundle(const char *runner, const char *bundle_dir,
                                    const char *records_path, const PrunerRunOptions *opts) {
  PrunerRunOptions o = opts ? *opts : prunerRunDefaultOptions();
  const char *exe = runner && *runner ? runner : "pruner-run";
  char timeout[64], samples[64], seed[64];
  snprintf(timeout, sizeof(timeout), "--timeout=%g", o.timeout_seconds);
  snprintf(samples, sizeof(samples), "--samples=%d", o.samples);
  snprintf(seed, sizeof(seed), "--seed=%" PRIu64, o.seed);
  char *argv[10];
  int n = 0;
  argv[n++] = (char *)exe;
  argv[n++] = (char *)bundle_dir;
  argv[n++] = "-o";
  argv[n++] = (char *)records_path;
  argv[n++] = timeout;
  argv[n++] = samples;
  if (o.seed)
    argv[n++] = seed;
  if (o.only_baseline)
    argv[n++] = "--only-baseline";
  argv[n] = NULL;

  /* No limit here: pruner-run keeps each candidate under --timeout itself. Its messages
   * go to our stderr: our caller's stdout is its own output (pruner-tune's table,
   * pruner-bench's JSON, which they used to break). */
  int st = 0;
  PrunerStatus spawned = prunerProcessRunToStderr(argv, 0, o.stop, &st);
  if (!spawned.ok)
    return spawned;
  if (WIFSIGNALED(st))
    return prunerStatusError("%s on bundle '%s' was killed by signal %d", exe, bundle_dir,
                             WTERMSIG(st));
  int code = WEXITSTATUS(st);
  if (code == PRUNER_RUN_EXIT_OK)
    return prunerStatusOk();
  if (code == PRUNER_RUN_EXIT_NO_DEVICE)
    return prunerStatusError("%s: no CUDA device on this machine (measure elsewhere with a "
                             "bundle, or replay records)",
                             exe);
  return prunerStatusError("%s on bundle '%s' failed with exit code %d (see its messages)",
                           exe, bundle_dir, code);
}

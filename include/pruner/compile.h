/* pruner/compile.h: one (workload, config, target) to a GPU binary and how to launch it.
 *
 * Compilation happens in-process through the MLIR C API: the workload is rebuilt as a
 * linalg function, the config's transform schedule (pruner/schedule.h) is applied, the
 * result is lowered to NVVM and PTX, and ptxas turns the PTX into a cubin while reporting
 * registers, spills and shared memory. Many candidates compile in parallel in worker
 * processes, each under a timeout (ptxas and some pattern sets can hang or explode).
 * A config that MLIR or ptxas rejects is an error result carrying the compiler's message,
 * never a crash of the caller. */
#ifndef PRUNER_COMPILE_H
#define PRUNER_COMPILE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "pruner/kernel.h"
#include "pruner/space.h"
#include "pruner/status.h"
#include "pruner/target.h"
#include "pruner/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum PrunerBinaryFormat {
  PRUNER_BINARY_CUBIN = 0,
  PRUNER_BINARY_PTX = 1,
} PrunerBinaryFormat;

typedef struct PrunerCompileOptions {
  PrunerBinaryFormat format;
  double timeout_seconds;   /* per candidate; default 60                   */
  int64_t memory_limit_mb;  /* per worker address space; default 6000      */
  int jobs;                 /* worker processes; 0 = number of cores       */
  const char *ptxas_path;   /* NULL: /usr/local/cuda/bin/ptxas or PATH     */
  /* The caller's Ctrl-C flag (NULL: none): once set, prunerCompileMany kills its workers
   * and starts nothing more; the candidates it did not finish come back `interrupted`. */
  const volatile sig_atomic_t *stop;
} PrunerCompileOptions;

PrunerCompileOptions prunerCompileDefaultOptions(void);

/* The NVVM lowering pipeline applied after a schedule, as pass-pipeline text
 * ("builtin.module(...)"): cleanups, launch index sinking, kernel outlining, NVVM/LLVM
 * lowering, nvvm-attach-target for t->arch, gpu-module-to-binary in `format` (PTX or
 * cubin). The one definition shared by prunerCompileOne and the plugin's
 * pruner-gpu-pipeline (docs/compile.md). Returns the length snprintf would write. */
int prunerCompileLoweringPipeline(const PrunerTargetDesc *t, PrunerBinaryFormat format,
                                  char *buf, size_t size);

/* Compiles one candidate in the calling process (no timeout protection). */
PrunerCompileResult prunerCompileOne(const PrunerWorkload *w, const PrunerConfig *config,
                                     const PrunerTargetDesc *t,
                                     const PrunerCompileOptions *opts);

/* Compiles `n` candidates of one workload in parallel worker processes, each under the
 * timeout; results[i] belongs to configs[i]. Never fails as a whole: a candidate that
 * times out, crashes its worker or is rejected gets an error status. */
void prunerCompileMany(const PrunerWorkload *w, const PrunerConfig *configs, size_t n,
                       const PrunerTargetDesc *t, const PrunerCompileOptions *opts,
                       PrunerCompileResult *results);

void prunerCompileResultRelease(PrunerCompileResult *result);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_COMPILE_H */

/* pruner/apply.h: applying the `pruner.config` attributes of a module, in memory.
 *
 * This is what `pruner-apply-config` (and the first pass of `pruner-gpu-pipeline` and
 * `pruner-cpu-pipeline`) runs, callable from a compiler that holds an MlirModule and
 * loads no plugin (docs/embedding.md). Every linalg op of the module carrying
 * `pruner.config` gets the schedule the tuner measured it with:
 *  - a GPU target (sm_80, h200, ...): tiled by its schedule (lib/schedule), the module
 *    bufferized once, each op's block forall mapped to its own gpu.launch
 *    (docs/schedule.md);
 *  - a host target (host, host:avx2, ...): outlined into a private function scheduled as
 *    the tuner's JIT ran it, the module bufferized (docs/host.md).
 * Ops without a config are left alone (still on tensors for GPU targets: the rest of
 * pruner-gpu-pipeline lowers them). Configured ops of a nested module are not applied:
 * a warning on that module says how to reach them.
 *
 * Diagnostics go to the context's diagnostic handlers, on the op they concern (an error
 * names the op and the offending key). The module's context must have the linalg, tensor,
 * arith, func, scf, bufferization, memref, vector and transform dialects and their
 * extensions registered (prunerIrContextCreate's context has them; so has mlir-opt's). */
#ifndef PRUNER_APPLY_H
#define PRUNER_APPLY_H

#include <stdbool.h>

#include <mlir-c/IR.h>

#include "pruner/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct PrunerApplyOptions {
  /* GPU targets: map block and thread foralls to gpu.launch (default true); false keeps
   * the scf.forall loops (the host tests run GPU schedules that way). */
  bool gpu_mapping;
  /* Host targets: `llvm.emit_c_interface` on the module's public functions (default
   * false; pruner-cpu-pipeline sets it). */
  bool c_interface;
} PrunerApplyOptions;

PrunerApplyOptions prunerApplyDefaultOptions(void);

/* Applies every `pruner.config` in `module` (a builtin.module; anything else is an error
 * on it) for `target` (a prunerTargetLookup name). The module is borrowed: it stays the
 * caller's, and so does its context. Every config is checked against the target before
 * anything is transformed: an invalid, unparsable or unbuildable config is an error on
 * its op (each such op is reported) and the module is left unchanged. A failure after
 * the first transform (a schedule the transform interpreter rejects) leaves the module
 * partly transformed; the status carries the first error. Never aborts on bad input.
 * `opts` may be NULL (the defaults). */
PrunerStatus prunerApplyConfig(MlirOperation module, const char *target,
                               const PrunerApplyOptions *opts);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_APPLY_H */

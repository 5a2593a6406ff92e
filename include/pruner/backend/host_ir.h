/* pruner/host_ir.h: the host schedule applied to a module over the MLIR C API.
 *
 * One function does what the tuner's measurements do to a kernel before the LLVM lowering
 * (docs/host.md, "Schedule and lowering"): bufferize the function (one-shot, identity
 * layouts at the function boundary, results equal to an argument dropped, so the op's
 * output argument is written in place), then apply the host transform schedule of the
 * config (prunerHostScheduleBuild). lib/backend/host's JIT path and the plugin's
 * pruner-cpu-pipeline both call it, so the kernel a user compiles is scheduled exactly as
 * the one the tuner timed. Kept apart from pruner/backend/host.h because it links MLIR (the
 * machine and space parts, pruner/backend/host_rules.h, are MLIR-free). */
#ifndef PRUNER_HOST_IR_H
#define PRUNER_HOST_IR_H

#include <mlir-c/IR.h>

#include "pruner/space.h"
#include "pruner/status.h"
#include "pruner/target.h"
#include "pruner/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `module` holds exactly one func.func whose body is one linalg op of workload `w` on
 * tensors (plus constants and the return). Bufferizes it and, unless `config` is NULL
 * (the untiled lowering: bufferized only), applies the host schedule of `config`, which
 * the caller has checked against `target` (prunerHostConfigCheck) and which is not
 * checked again (one check per path: pruner-cpu-pipeline checks every op before it
 * outlines any). 2-D convolutions are scheduled
 * on tensors and bufferized by their schedule (docs/host.md). The module is changed in
 * place. A failure names the phase (bufferize, schedule), the workload and the config;
 * MLIR's own diagnostics go to the context's handlers (the caller may capture them).
 * Does not lower to LLVM: prunerHostLoweringPipeline (pruner/backend/host.h) does that. */
PrunerStatus prunerHostScheduleModuleChecked(MlirModule module, const PrunerWorkload *w,
                                             const PrunerConfig *config,
                                             const PrunerTargetDesc *target);

/* The same for a config not checked yet (it is checked here first: a failure is
 * prunerHostConfigCheck's message), stopping after the bufferization when `schedule` is
 * false (stage 0 of prunerHostLowerText). */
PrunerStatus prunerHostPrepareModule(MlirModule module, const PrunerWorkload *w,
                                     const PrunerConfig *config, const PrunerTargetDesc *target,
                                     bool schedule);

/* Keeps the machine code of a module already lowered to the LLVM dialect within the ISA
 * `target` describes: every top-level llvm.func gets `target_cpu` (this CPU, as LLVM's
 * host detection names it) and `target_features`: this CPU's features, then those that
 * switch off what the description lacks (prunerHostTargetFeatures: "-avx512f" for
 * host:avx2 on an AVX-512 CPU). The JIT and `llc` without -mcpu/-mattr (which llc
 * appends after a function's own features) then make code for this CPU within the
 * narrowed ISA (docs/host.md). Fails only if the attribute cannot be built. */
PrunerStatus prunerHostSetTargetFeatures(MlirOperation module, const PrunerTargetDesc *target);

/* The bufferization both apply ("builtin.module(...)" pass pipeline text; static). */
const char *prunerHostBufferizePipeline(void);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_HOST_IR_H */

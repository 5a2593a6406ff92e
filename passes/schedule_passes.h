/* passes/schedule_passes.h: the C side of pruner-apply-config and pruner-gpu-pipeline.
 * Registered by PluginRegistration.cpp (see docs/schedule.md). */
#ifndef PRUNER_SCHEDULE_PASSES_H
#define PRUNER_SCHEDULE_PASSES_H

#include <stdbool.h>
#include <stddef.h>

#include <mlir-c/IR.h>

#include "pruner/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* pruner-apply-config{target=... gpu-mapping=...} on a builtin.module (any other op: an
 * error on it): every linalg op carrying `pruner.config` is checked against `target`
 * before anything is transformed (invalid or unbuildable: an error on the op naming the
 * key, every such op is reported, and the pass fails with the module unchanged), tagged,
 * and transformed by its schedule (lib/schedule); all configured ops are tiled first, the
 * module is bufferized once, then each op's block forall becomes its own gpu.launch. Ops
 * without a config are left alone; configured ops of a nested module too, with a warning
 * on that module. Ends with canonicalize, cse and gpu-launch-sink-index-computations.
 * Errors after the first transform go to the op's captured location (the op may be
 * gone); the returned status carries the first error. */
PrunerStatus prunerApplyConfigRun(MlirOperation module, const char *target, bool gpu_mapping);

/* The pass pipeline text that follows pruner-apply-config inside
 * `pruner-gpu-pipeline{chip=... format=bin|isa}`: NVVM lowering with nvvm-attach-target
 * for `chip` and gpu-module-to-binary in `format`. Returns the length written (as
 * snprintf); fails for an unknown chip or format. */
PrunerStatus prunerGpuPipelineText(const char *chip, const char *format, char *buf, size_t size);

/* pruner-apply-config{target=<host target>} and the first pass of pruner-cpu-pipeline
 * (cpu_pipeline.c): every op carrying `pruner.config` is checked with the host rules
 * (invalid: an error on the op, the module left unchanged), outlined into a private
 * function scheduled exactly as the tuner measured it (pruner/host_ir.h), and the module
 * is bufferized (identity layouts at function boundaries). With `c_interface`, public
 * functions get `llvm.emit_c_interface`. Fails for a target that is not a host. */
PrunerStatus prunerCpuApplyConfigRun(MlirOperation module, const char *target, bool c_interface);

/* The pass pipeline text that follows it inside pruner-cpu-pipeline: the host lowering
 * (prunerHostLoweringPipeline) without its builtin.module anchor. */
PrunerStatus prunerCpuPipelineText(char *buf, size_t size);

/* The first pass of pruner-gpu-pipeline: a module nested in `module` that still holds
 * linalg or tensor ops would come out of the lowering unlowered (one-shot bufferization
 * and kernel outlining do not enter nested modules), so it is an error on that module,
 * naming the nesting that lowers it. */
PrunerStatus prunerGpuPipelineCheckModule(MlirOperation module);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_SCHEDULE_PASSES_H */

/* passes/schedule_passes.h: the C side of pruner-apply-config and pruner-gpu-pipeline.
 * Registered by PluginRegistration.cpp (see docs/schedule.md). */
#ifndef PRUNER_SCHEDULE_PASSES_H
#define PRUNER_SCHEDULE_PASSES_H

#include <stdbool.h>
#include <stddef.h>

#include <mlir-c/IR.h>

#include "pruner/status.h"
#include "pruner/target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* pruner-apply-config itself is prunerApplyConfig (pruner/apply.h, lib/apply). */

/* The pass pipeline text that follows pruner-apply-config inside
 * `pruner-gpu-pipeline{chip=... format=bin|isa}`: NVVM lowering with nvvm-attach-target
 * for `chip` and gpu-module-to-binary in `format`, written NUL-terminated into `buf`.
 * Fails, with a message, for an unknown chip or format or when `size` bytes are too few. */
PrunerStatus prunerGpuPipelineText(const char *chip, const char *format, char *buf, size_t size);

/* pruner-cpu-pipeline's target option: a host target (its message says "pruner-cpu-
 * pipeline: target: ..."); `target` receives its description. Checked when the pipeline
 * is built, so that a wrong target is the error reported, and again by the run. */
PrunerStatus prunerCpuPipelineCheckTarget(const char *target_name, PrunerTargetDesc *target);

/* The first pass of pruner-cpu-pipeline (cpu_pipeline.c): prunerApplyConfig for a host
 * target (every configured op outlined into a private function scheduled exactly as the
 * tuner measured it, the module bufferized); with `c_interface`, public functions get
 * `llvm.emit_c_interface`. Fails, with an error on the module, for a target that is not
 * a host. */
PrunerStatus prunerCpuApplyConfigRun(MlirOperation module, const char *target, bool c_interface);

/* The pass pipeline text that follows it inside pruner-cpu-pipeline: the host lowering
 * (prunerHostLoweringPipeline) without its builtin.module anchor. */
PrunerStatus prunerCpuPipelineText(char *buf, size_t size);

/* The last pass of pruner-cpu-pipeline: on the module lowered to the LLVM dialect, every
 * llvm.func gets the target features that keep the code within the host target
 * `target` (prunerHostSetTargetFeatures: "-avx512f" for host:avx2 on an AVX-512 CPU), so
 * llc -mcpu=native makes the object the tuner measured. Fails, with an error on the
 * module, for an unknown target. */
PrunerStatus prunerCpuTargetFeaturesRun(MlirOperation module, const char *target);

/* The first pass of pruner-gpu-pipeline and pruner-cpu-pipeline (`pipeline`, their
 * name): a module nested in `module` that still holds linalg or tensor ops would come out
 * of the lowering unlowered or half lowered (one-shot bufferization, kernel outlining and
 * the host's kernel extraction do not enter nested modules), so it is an error on that
 * module, naming the nesting that lowers it. */
PrunerStatus prunerPipelineCheckNestedModules(MlirOperation module, const char *pipeline);

/* The last pass of both pipelines: a linalg op still in the module (one no pass lowers,
 * linalg.softmax) is an error on it; the pipeline used to succeed with the op in its
 * output, which mlir-translate then refused. */
PrunerStatus prunerPipelineCheckLowered(MlirOperation module, const char *pipeline);
/* The GPU pipeline's check before gpu-module-to-binary: an op inside a gpu.module that the
 * NVVM lowering left outside the LLVM and NVVM dialects (arithmetic on a type NVVM has no
 * conversion for, such as f8) is an error at that op; LLVM's translation otherwise failed
 * with "LLVM Translation failed for operation: builtin.unrealized_conversion_cast" and no
 * location. */
PrunerStatus prunerPipelineCheckGpuModulesLowered(MlirOperation module, const char *pipeline);
/* The CPU pipeline's last check: prunerPipelineCheckLowered, then any op left outside the
 * LLVM and OpenMP dialects (complex.*, a math op without a conversion): an error on that op, since
 * mlir-translate would refuse the module. */
PrunerStatus prunerPipelineCheckLoweredToLLVM(MlirOperation module, const char *pipeline);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_SCHEDULE_PASSES_H */

/* Internal interfaces of lib/backend/gpu: the MLIR half (payload + schedule text to PTX and a
 * launch description), the ptxas half (PTX to cubin and resource usage) and the worker
 * pool. Not installed; only lib/backend/gpu and its unit tests include it. */
#ifndef PRUNER_COMPILE_INTERNAL_H
#define PRUNER_COMPILE_INTERNAL_H

#include <stddef.h>

#include <mlir-c/IR.h>

#include "pruner/clock.h"
#include "pruner/compile.h"
#include "pruner/ir_context.h"

/* prunerCompileOne in a given context (NULL: a fresh one, destroyed afterwards). Workers
 * keep one context for many candidates: dialects then load once instead of per compile. */
PrunerCompileResult prunerCompileOneInContext(MlirContext ctx, const PrunerWorkload *w,
                                              const PrunerConfig *config, const PrunerTargetDesc *t,
                                              const PrunerCompileOptions *opts);

/* Runs the MLIR half on text that is already built, in `ctx` (NULL: a fresh context,
 * destroyed afterwards): parses `payload` and `schedule`, applies the schedule (lib/schedule's
 * five named sequences one at a time, else the schedule's @__transform_main), lowers to PTX
 * and fills the launch fields of `out` (kernel name, grid, block, dynamic smem, args) and
 * out->mlir_seconds. On success *ptx is the malloc'ed NUL-terminated PTX. On failure the
 * status carries the compiler's messages. `num_operands` is the number of payload
 * function arguments (workload operands). `pad_step_tag`: for a pipelined tensor-core
 * config (prunerConfigIsPipelinedMma), the K-step op's tag, whose tiles get padded rows
 * after @pruner_bufferize (prunerSchedulePadStagedRows; the schedule must be
 * lib/schedule's); NULL for every other config. */
PrunerStatus prunerCompileMlirToPtx(MlirContext ctx, const char *payload, const char *schedule,
                                    int num_operands, const PrunerTargetDesc *t,
                                    const char *pad_step_tag, PrunerCompileResult *out,
                                    char **ptx);

/* Runs ptxas -v on `ptx` for t->arch under `timeout_seconds`: fills out->launch.resources,
 * out->ptxas_seconds and (if want_cubin) out->binary / binary_size. */
PrunerStatus prunerCompileRunPtxas(const char *ptx, const PrunerTargetDesc *t,
                                   const PrunerCompileOptions *opts, double timeout_seconds,
                                   bool want_cubin, PrunerCompileResult *out);

/* Parses ptxas -v output (the "Used N registers" and "bytes stack frame" lines) for
 * `kernel`; false if no usage line was found. */
bool prunerCompileParsePtxasLog(const char *log, const char *kernel, PrunerKernelResources *out);

#endif /* PRUNER_COMPILE_INTERNAL_H */

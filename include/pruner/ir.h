/* pruner/ir.h: the bridge between MLIR IR and pruner's plain-C descriptions.
 *
 * Reading: a linalg op becomes a PrunerWorkload (or a status saying why it is not
 * tunable: dynamic shapes, an unsupported op); a `pruner.config` attribute becomes a
 * PrunerConfig. Writing: a config or a space becomes an attribute. All through the MLIR
 * C API; this is the only part of the core library that links MLIR. The plugin's passes
 * and pruner-tune both use it, so the IR they read and write is the same. */
#ifndef PRUNER_IR_H
#define PRUNER_IR_H

#include <mlir-c/IR.h>
#include <mlir-c/Pass.h>

#include "pruner/space.h"
#include "pruner/status.h"
#include "pruner/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PRUNER_CONFIG_ATTR "pruner.config"
#define PRUNER_SPACE_ATTR "pruner.space"

/* True for ops of the linalg dialect that pruner looks at (everything named "linalg.*"
 * that implements the structured-op interface, including linalg.fill). */
bool prunerIsLinalgOp(MlirOperation op);

/* True for linalg ops pruner never tunes on their own because they fuse into a tuned
 * neighbour (linalg.fill, linalg.copy, linalg.transpose, linalg.broadcast): the passes
 * skip them without a remark. */
bool prunerIsFusedLinalgOp(MlirOperation op);

/* True when `op` has results and every use of them is by a linalg op for which this holds
 * too (no use at all, or only dead users, up to a bound: false beyond it): a linalg op on
 * tensors that is dead code (canonicalization erases it, its dead users first), so it is
 * neither tuned nor scheduled. */
bool prunerIrResultsDead(MlirOperation op);

/* Replaces each input of the linalg op `op` (tensor semantics) that is a `tensor.cast`
 * from a type with dynamic sizes to a static one by a `tensor.extract_slice` of the
 * cast's source at offset 0 with the static sizes (the same value wherever the cast is
 * defined). A cast bufferizes to a `memref.cast`, which linalg's folder folds into the op:
 * a GPU schedule that tiles the op on buffers then got dynamic loop bounds ("requires
 * statically sized, normalized forall op", docs/schedule.md); a slice keeps the sizes.
 * Returns how many inputs it replaced. */
int prunerIrSliceDynamicCastInputs(MlirOperation op);

/* Replaces each input i of the linalg op `op` (tensor semantics) with bit i set in
 * `inputs` that is a splat `arith.constant` by a `linalg.fill` of its value into a
 * `tensor.empty`. A tile's slice of a splat constant folds into a smaller splat, which
 * bufferizes to a global rather than a view, and a schedule that stages that input in
 * shared memory (promote_operands) found nothing to promote ("failed to apply") or one
 * copy fewer than it expects (docs/schedule.md). Returns how many inputs it replaced. */
int prunerIrMaterializeSplatInputs(MlirOperation op, uint32_t inputs);

/* Describes `op`. Fails, with a message naming the op, for ops pruner does not tune
 * (fills, copies, unsupported named ops, non-affine generics), dynamic shapes, tensor
 * semantics violations and element types outside PrunerDType. */
PrunerStatus prunerWorkloadFromOperation(MlirOperation op, PrunerWorkload *out);

/* Called by prunerWalkTunableOps for each linalg op it looks at: `w` is the op's workload
 * when pruner tunes it, NULL otherwise, and then `why` says why not. Returning
 * MlirWalkResultInterrupt stops the walk. */
typedef MlirWalkResult (*PrunerTunableOpCallback)(MlirOperation op, const PrunerWorkload *w,
                                                  const PrunerStatus *why, void *user);

/* Walks `root` in pre-order and calls `fn` for every linalg op except the fused ones
 * (prunerIsFusedLinalgOp: skipped silently), with prunerWorkloadFromOperation's result.
 * Ops inside a builtin.module nested in `root` are reported as not tunable (the passes
 * bufferize and outline per module, so they belong to a run on that module).
 * The one walk the passes, the tools and lib/tune share, so they agree on which ops are
 * tunable and in which order they are numbered. */
void prunerWalkTunableOps(MlirOperation root, PrunerTunableOpCallback fn, void *user);

/* Rewrites every linalg.conv_2d_nhwc_hwcf under `root` whose filter is 1x1, whose strides
 * are 1 and whose input has the output's height and width (static tensors) into the GEMM
 * it is: tensor.collapse_shape of the input to (N*H*W) x C, of the filter to C x F and of
 * the output (or of a linalg.fill's destination, with the fill moved past the reshape) to
 * (N*H*W) x F, a linalg.matmul at the conv's location, and a tensor.expand_shape of its
 * result to the conv's type (docs/plugin.md, "pruner-conv1x1-to-matmul"). Every other
 * conv_2d_nhwc_hwcf gets a remark saying why it stays a conv, e.g. a filter other than
 * 1x1 or a pruner.config of its own (whose tiles are the conv's loops). Other ops are
 * untouched. *rewritten (may be NULL) counts the rewritten convs. Fails, before changing
 * anything, only when out of memory or when the context lacks an op the rewrite creates
 * (tensor.collapse_shape, tensor.expand_shape, linalg.matmul, linalg.fill). */
PrunerStatus prunerIrConv1x1ToMatmul(MlirOperation root, int *rewritten);

/* How many convs under `root` prunerIrConv1x1ToMatmul would rewrite; changes nothing and
 * emits nothing (pruner-tune's hint when the rewrite is off). A list it cannot allocate
 * counts what it could collect. */
int prunerIrCountConv1x1AsMatmul(MlirOperation root);

/* mlirParsePassPipeline of `pipeline` into `pm` with the parser's message, which MLIR
 * otherwise hands to a NULL callback and so ends the process (std::bad_function_call),
 * emitted as an error diagnostic at `where`; an unknown pass usually means MLIR's passes
 * were never registered in this process (mlirRegisterAllPasses), which the message says. */
MlirLogicalResult prunerIrParsePipeline(MlirOpPassManager pm, const char *pipeline,
                                        MlirLocation where);

/* Whether the GPU schedule can place `op`: it distributes the op's own loops over blocks
 * and threads in one top-level scf.forall, so an op already inside an scf.forall (a
 * tiled loop nest) is refused, with where that forall is. Ok otherwise. Shared by
 * pruner-apply-config's GPU path and pruner-tune on GPU targets, so that the tuner writes
 * no config the pass then refuses. */
PrunerStatus prunerIrCheckGpuPlacement(MlirOperation op);

/* The public func.func ops with a body directly in `module` whose arguments and results
 * are all tensors of static shape and supported element types (f32, f16, bf16, f64, i8,
 * i32), at most PRUNER_MAX_OPERANDS of each: up to `cap` of them into `out`, in module
 * order; returns how many there are (may exceed cap). The first public function left out
 * and why go to `skipped` ("" if none; `size` bytes). */
size_t prunerIrTensorFunctions(MlirModule module, PrunerFunctionSignature *out, size_t cap,
                               char *skipped, size_t size);

/* The op whose kernel a contraction `op` (workload `w`) shares when configured without
 * promotion: its only user, when that is an elementwise linalg.generic reading the
 * result and writing its output with identity maps over the contraction's output shape
 * (docs/schedule.md, "Bias add / consumers"). A null op otherwise. Whether the consumer
 * carries its own pruner.config (then it keeps its own kernel) and whether the config
 * promotes are the caller's to check. pruner-apply-config fuses by it; lib/tune does not
 * tune such a consumer of a tuned contraction on its own (docs/tune.md). */
MlirOperation prunerFusibleConsumer(MlirOperation op, const PrunerWorkload *w);

/* Reads a config attribute (a dictionary with IREE's key names; arrays may be written
 * as [..] of integers or as array<i64: ..>). Unknown keys, wrong lengths and
 * non-integers are errors naming the key. Does not check the config against a target:
 * call prunerConfigCheck for that. */
PrunerStatus prunerConfigFromAttribute(const PrunerWorkload *w, MlirAttribute attr,
                                       PrunerConfig *out);

/* The dictionary attribute for a config (the form of docs/config.md). */
MlirAttribute prunerConfigToAttribute(MlirContext ctx, const PrunerWorkload *w,
                                      const PrunerConfig *config);

/* The op's location as MLIR prints it (`loc("model.mlir":12:8)`), truncated to fit `buf`;
 * for tools that report an op outside MLIR's diagnostics. */
void prunerOperationLocationString(MlirOperation op, char *buf, size_t size);

/* How many ops under `root` (itself included) carry the discardable attribute `tag`; the
 * last one in walk order in `*found` (may be NULL; a null op when none). The schedules
 * and pruner-apply-config find their ops by such tags. */
int prunerIrCountTagged(MlirOperation root, const char *tag, MlirOperation *found);

/* How many ops under `root` (itself included) are named `name` ("memref.alloc"); the first
 * `cap` of them in walk order (pre-order) in `out` (may be NULL with cap 0). */
int prunerIrOpsNamed(MlirOperation root, const char *name, MlirOperation *out, int cap);

/* The `pruner.space` dictionary: workload, knobs, target limits, valid count. */
MlirAttribute prunerSpaceToAttribute(MlirContext ctx, PrunerSpace space);

/* Diagnostics attached to an op, through the context's diagnostic engine (the C API has
 * only mlirEmitError at a location; these are Operation::emitRemark / emitWarning /
 * emitError, lib/ir/emit.cpp). The passes and lib/apply report with them. */
void prunerEmitRemark(MlirOperation op, const char *message);
void prunerEmitWarning(MlirOperation op, const char *message);
void prunerEmitError(MlirOperation op, const char *message);
/* A remark at a location, for an op that may no longer exist. */
void prunerEmitRemarkAt(MlirLocation loc, const char *message);

/* Registers pruner's own MLIR passes that run inside its lowering pipelines (today
 * `pruner-approximate-math`, lib/ir/math_approx.cpp, which prunerHostLoweringPipeline
 * names) in the process-wide pass registry; idempotent and thread-safe. Programs call
 * it through prunerIrContextCreate, the plugin from its entry point. */
void prunerIrRegisterPasses(void);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_IR_H */

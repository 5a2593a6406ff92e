/* pruner/schedule_ir.h: the IR rewrites of a schedule that the transform dialect cannot
 * express, applied over the MLIR C API to a module the schedule has transformed.
 *
 * Vector access alignment: vector.load/vector.store default to the element's alignment,
 * so LLVM emits 32-bit global accesses (ld.global.b32) even for 4-wide f32 vectors. The
 * rewrite proves, per access, the byte alignment of its address (base alignment of the
 * memref it reads, plus the divisibility of every index times its stride, through
 * subviews, views, affine.apply and loop induction variables) and writes it as the op's
 * `alignment` attribute when it is larger than the element's. It never claims more than
 * it proves. Device workspaces: split-K's partials buffer moved to device memory (below).
 * Kept in its own header because it links MLIR (lib/schedule's text generation does
 * not). */
#ifndef PRUNER_SCHEDULE_IR_H
#define PRUNER_SCHEDULE_IR_H

#include <stdint.h>

#include <mlir-c/IR.h>

#include "pruner/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Base alignment (bytes) assumed for the buffers a function receives: cudaMalloc returns
 * 256-byte aligned pointers (CUDA C++ Programming Guide, "Device Memory Accesses"); 16 is
 * all a 4 x f32 vector needs, so the weaker claim is made. */
#define PRUNER_ARG_ALIGNMENT 16

/* Sets `alignment` on the vector.load / vector.store ops of `module` whose address is
 * provably aligned beyond their element size, assuming function arguments are
 * `arg_alignment`-byte aligned; gives shared-memory (address space 3) memref.globals an
 * alignment of 16 first, so that their vector accesses can be proven. `num_aligned`
 * (may be NULL) receives the number of accesses changed. */
PrunerStatus prunerScheduleAlignVectorAccesses(MlirOperation module, int64_t arg_alignment,
                                               int *num_aligned);

/* Split-K's partials (docs/schedule.md): every static host-level memref.alloc of `module`
 * whose only uses are on the device (in gpu.launch bodies or gpu.launch_func operands,
 * directly or through views) becomes an async gpu.alloc, freed by a gpu.dealloc before
 * its block ends; bufferization leaves it a host allocation the kernels could not
 * dereference. An error (nothing left half-done for that one) when such an allocation
 * sits in a region with several blocks, where a use may lie past the block's end.
 * `num_moved` (may be NULL) receives how many moved. */
PrunerStatus prunerScheduleDeviceWorkspaces(MlirOperation module, int *num_moved);

/* Pipelined tensor-core K loops (stages > 1) commit one cp.async group per staged
 * operand and K step; MLIR's pipeliner counts its waits' `numGroups` in steps. Scales each
 * counted `nvgpu.device_async_wait` of a function by the groups its one pipelined loop
 * commits per iteration, so that `stages - 1` steps of copies stay in flight (before, one
 * step fewer). Functions with several pipelined loops are left alone (a larger count is
 * only slower). Idempotent. `num_scaled` (may be NULL) receives how many waits changed. */
PrunerStatus prunerSchedulePipelineWaits(MlirOperation module, int *num_scaled);

/* The tiles of a pipelined staged tensor-core config (prunerConfigIsPipelinedMma) get rows
 * padded against ldmatrix bank conflicts (prunerStagedRowElems, pruner/space.h;
 * docs/schedule.md "Padded rows"). Call it for such configs only, after @pruner_bufferize
 * and before @pruner_promote: operands 0 and 1 of the op tagged `step_tag` (the K-step
 * op, "<match_attr>.promote") are the `memref.allocs` promote_tensor made beside it, and
 * each becomes a subview of an allocation with longer rows (rows already of an odd
 * number of 16-byte units stay). An error, with nothing changed, when not exactly one op
 * carries the tag, or an operand is not such an allocation (a static, identity-layout
 * float buffer in the op's block): the config's shared memory counts the padding, so a
 * tile left unpadded would not be the kernel it describes. `num_padded` (may be NULL)
 * receives how many buffers were padded. */
PrunerStatus prunerSchedulePadStagedRows(MlirOperation root, const char *step_tag,
                                         int *num_padded);

/* Every `#gpu.address_space<workgroup>` memref type of `module` (values, function
 * signatures, globals) becomes NVVM's shared space, the integer 3, which the NVVM lowering
 * maps the attribute to anyway. The staged tensor-core schedules need the attribute until
 * convert-vector-to-gpu has made their fragment reads ldmatrix; after that it only hurts:
 * the pipelined schedule passes its stage buffers to the outlined K-step function, and
 * the lowering's convert-func-to-llvm cannot map the attribute in a signature.
 * Idempotent. `num_retyped` (may be NULL) receives how many values and attributes
 * changed. */
PrunerStatus prunerScheduleSharedSpaceAsNumber(MlirOperation module, int *num_retyped);

/* The rewrites above that every GPU-mapped module gets after its schedules ran, in the
 * order they need: vector alignment (which reads the buffers' alignment), split-K's
 * device workspaces, pipelined waits in groups, shared space as a number. Both the
 * tuner's compile and pruner-apply-config call this, so that what is measured is what a
 * user's pipeline gets. */
PrunerStatus prunerScheduleFinishGpuModule(MlirOperation module);

/* Gives every arith.addf under `op` (a configured linalg op: its body) that adds the
 * result of an arith.mulf, and that mulf, `#arith.fastmath<contract>`, so that the lowering
 * fuses them into one FMA (`fma.rn.f32`), as nvcc does by default; without it the NVPTX
 * backend writes `mul.rn` + `add.rn`, which ptxas may not fuse. Tiling and the loop
 * lowering clone the body with its flags. Lone adds and multiplies, and ops with fastmath
 * flags of their own, are left alone. `num_marked` (may be NULL) receives how many ops
 * changed. */
PrunerStatus prunerScheduleContractMulAdd(MlirOperation op, int *num_marked);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_SCHEDULE_IR_H */

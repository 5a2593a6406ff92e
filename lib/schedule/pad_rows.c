/* lib/schedule/pad_rows.c: the pipelined staged tensor-core tiles get padded rows
 * (prunerSchedulePadStagedRows, pruner/schedule_ir.h).
 *
 * An ldmatrix 8x8 piece is 8 rows of 16 bytes, read in one shared-memory wavefront only
 * when the rows fall in distinct groups of 4 banks. An unpadded tile row of 64 bytes puts
 * rows r and r + 2 in the same banks (4-way conflict), one of 128 bytes all 8 (8-way).
 * A row whose length in 16-byte units is odd avoids that (prunerStagedRowElems). No
 * transform op pads a buffer's rows (structured.pad pads the iteration space, which would
 * add mma work), so between @pruner_bufferize and @pruner_promote this rewrite replaces
 * each staged operand's `memref.alloc` [.., n] by an alloc [.., n + pad] and a subview
 * [.., n] of it. The K-step op and the copy into the tile take the subview (linalg ops
 * accept any layout); memref.multibuffer then expands the padded alloc per stage, and the
 * copies and ldmatrix address its rows through the subview's strides. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <mlir-c/AffineMap.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/IR.h>

#include "ir_util.h"
#include "pruner/ir.h"
#include "pruner/schedule_ir.h"
#include "pruner/space.h"

#define MAX_RANK 8

static MlirNamedAttribute named(MlirContext ctx, const char *name, MlirAttribute a) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, mlirStringRefCreateFromCString(name)), a);
}

/* Whether `alloc` (a memref.alloc) is a buffer padAlloc can pad: static, identity layout,
 * a float element type, rank 2 to MAX_RANK. */
static bool paddable(MlirOperation alloc) {
  MlirType type = mlirValueGetType(mlirOperationGetResult(alloc, 0));
  if (!mlirTypeIsAMemRef(type) || !mlirShapedTypeHasStaticShape(type) ||
      mlirOperationGetNumOperands(alloc) != 0 ||
      !mlirAttributeIsAAffineMap(mlirMemRefTypeGetLayout(type)) ||
      !mlirAffineMapIsIdentity(mlirAffineMapAttrGetValue(mlirMemRefTypeGetLayout(type))))
    return false;
  int64_t rank = mlirShapedTypeGetRank(type);
  return rank >= 2 && rank <= MAX_RANK && mlirTypeIsAFloat(mlirShapedTypeGetElementType(type));
}

/* Pads the rows of `alloc` (paddable) where they want it: 1 when padded, 0 when its rows
 * are already conflict-free. */
static int padAlloc(MlirOperation alloc) {
  MlirValue old = mlirOperationGetResult(alloc, 0);
  MlirType type = mlirValueGetType(old);
  int64_t rank = mlirShapedTypeGetRank(type);
  MlirType elem = mlirShapedTypeGetElementType(type);
  int64_t elem_bytes = (int64_t)mlirFloatTypeGetWidth(elem) / 8;
  int64_t shape[MAX_RANK], padded[MAX_RANK], strides[MAX_RANK], zeros[MAX_RANK], ones[MAX_RANK];
  for (int64_t d = 0; d < rank; ++d) {
    shape[d] = padded[d] = mlirShapedTypeGetDimSize(type, (intptr_t)d);
    zeros[d] = 0;
    ones[d] = 1;
  }
  padded[rank - 1] = prunerStagedRowElems(shape[rank - 1], elem_bytes);
  if (padded[rank - 1] == shape[rank - 1])
    return 0;
  strides[rank - 1] = 1;
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * padded[d + 1];

  MlirContext ctx = mlirOperationGetContext(alloc);
  MlirLocation loc = mlirOperationGetLocation(alloc);
  MlirAttribute space = mlirMemRefTypeGetMemorySpace(type);
  MlirType big = mlirMemRefTypeContiguousGet(elem, (intptr_t)rank, padded, space);
  MlirType view =
      mlirMemRefTypeGet(elem, (intptr_t)rank, shape,
                        mlirStridedLayoutAttrGet(ctx, 0, (intptr_t)rank, strides), space);

  MlirOperationState st =
      mlirOperationStateGet(mlirStringRefCreateFromCString("memref.alloc"), loc);
  mlirOperationStateAddResults(&st, 1, &big);
  int32_t no_operands[2] = {0, 0};
  MlirNamedAttribute alloc_attrs[2];
  intptr_t n_attrs = 0;
  alloc_attrs[n_attrs++] =
      named(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, no_operands));
  MlirAttribute align =
      mlirOperationGetAttributeByName(alloc, mlirStringRefCreateFromCString("alignment"));
  if (!mlirAttributeIsNull(align))
    alloc_attrs[n_attrs++] = named(ctx, "alignment", align);
  mlirOperationStateAddAttributes(&st, n_attrs, alloc_attrs);
  MlirOperation new_alloc = mlirOperationCreate(&st);

  MlirValue base = mlirOperationGetResult(new_alloc, 0);
  st = mlirOperationStateGet(mlirStringRefCreateFromCString("memref.subview"), loc);
  mlirOperationStateAddOperands(&st, 1, &base);
  mlirOperationStateAddResults(&st, 1, &view);
  int32_t segments[4] = {1, 0, 0, 0};
  MlirNamedAttribute view_attrs[4] = {
      named(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 4, segments)),
      named(ctx, "static_offsets", mlirDenseI64ArrayGet(ctx, (intptr_t)rank, zeros)),
      named(ctx, "static_sizes", mlirDenseI64ArrayGet(ctx, (intptr_t)rank, shape)),
      named(ctx, "static_strides", mlirDenseI64ArrayGet(ctx, (intptr_t)rank, ones)),
  };
  mlirOperationStateAddAttributes(&st, 4, view_attrs);
  MlirOperation subview = mlirOperationCreate(&st);

  MlirBlock block = mlirOperationGetBlock(alloc);
  mlirBlockInsertOwnedOperationBefore(block, alloc, new_alloc);
  mlirBlockInsertOwnedOperationBefore(block, alloc, subview);
  mlirValueReplaceAllUsesOfWith(old, mlirOperationGetResult(subview, 0));
  mlirOperationDestroy(alloc);
  return 1;
}

/* The tile allocation behind operand `i` of `step`, or a null op when it is not one (an
 * allocation of the step's own block, where promote_tensor's tiles are). */
static MlirOperation tileAlloc(MlirOperation step, intptr_t i) {
  MlirValue v = mlirOperationGetOperand(step, i);
  if (!mlirValueIsAOpResult(v))
    return (MlirOperation){NULL};
  MlirOperation owner = mlirOpResultGetOwner(v);
  if (!prunerScheduleIrIsOp(owner, "memref.alloc") ||
      !mlirBlockEqual(mlirOperationGetBlock(owner), mlirOperationGetBlock(step)))
    return (MlirOperation){NULL};
  return owner;
}

PrunerStatus prunerSchedulePadStagedRows(MlirOperation root, const char *step_tag,
                                         int *num_padded) {
  if (num_padded)
    *num_padded = 0;
  MlirOperation step;
  int count = prunerIrCountTagged(root, step_tag, &step);
  if (count != 1)
    return prunerStatusError("padding staged rows: %d ops tagged %s, expected one", count,
                             step_tag);
  if (mlirOperationGetNumOperands(step) < 2)
    return prunerStatusError("padding staged rows: the op tagged %s has no A and B operands",
                             step_tag);
  /* Both checked before either changes. */
  MlirOperation allocs[2];
  for (intptr_t i = 0; i < 2; ++i) {
    allocs[i] = tileAlloc(step, i);
    if (mlirOperationIsNull(allocs[i]) || !paddable(allocs[i]))
      return prunerStatusError("padding staged rows: operand %d of the op tagged %s is not a "
                               "tile allocation beside it (a static float memref.alloc with "
                               "an identity layout)",
                               (int)i, step_tag);
  }
  int padded = 0;
  for (int i = 0; i < 2; ++i)
    padded += padAlloc(allocs[i]);
  if (num_padded)
    *num_padded = padded;
  return prunerStatusOk();
}

/* lib/ir/cast_inputs.c: prunerIrSliceDynamicCastInputs (pruner/ir.h). */
#include <stdint.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/IR.h>

#include "ir_internal.h"
#include "pruner/ir.h"

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

static bool isOp(MlirOperation op, const char *name) {
  return mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(op)), str(name));
}

/* A tensor.cast whose source has a dynamic size and whose result has none. */
static bool isDynamicToStaticCast(MlirOperation cast) {
  if (mlirOperationIsNull(cast) || !isOp(cast, "tensor.cast"))
    return false;
  MlirType from = mlirValueGetType(mlirOperationGetOperand(cast, 0));
  MlirType to = mlirValueGetType(mlirOperationGetResult(cast, 0));
  return mlirTypeIsARankedTensor(from) && mlirTypeIsARankedTensor(to) &&
         !mlirShapedTypeHasStaticShape(from) && mlirShapedTypeHasStaticShape(to);
}

/* tensor.extract_slice %source[0, ...] [sizes of `type`] [1, ...] before `before`. */
static MlirValue staticSlice(MlirValue source, MlirType type, MlirOperation before) {
  MlirContext ctx = mlirTypeGetContext(type);
  intptr_t rank = mlirShapedTypeGetRank(type);
  int64_t zeros[PRUNER_IR_MAX_ARRAY] = {0}, ones[PRUNER_IR_MAX_ARRAY], sizes[PRUNER_IR_MAX_ARRAY];
  for (intptr_t d = 0; d < rank; ++d) {
    ones[d] = 1;
    sizes[d] = mlirShapedTypeGetDimSize(type, d);
  }
  const int32_t segments[4] = {1, 0, 0, 0}; /* source, no dynamic offsets/sizes/strides */
  MlirNamedAttribute attrs[] = {
      prunerIrNamed(ctx, "static_offsets", mlirDenseI64ArrayGet(ctx, rank, zeros)),
      prunerIrNamed(ctx, "static_sizes", mlirDenseI64ArrayGet(ctx, rank, sizes)),
      prunerIrNamed(ctx, "static_strides", mlirDenseI64ArrayGet(ctx, rank, ones)),
      prunerIrNamed(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 4, segments)),
  };
  MlirOperationState st =
      mlirOperationStateGet(str("tensor.extract_slice"), mlirOperationGetLocation(before));
  mlirOperationStateAddOperands(&st, 1, &source);
  mlirOperationStateAddResults(&st, 1, &type);
  mlirOperationStateAddAttributes(&st, (intptr_t)(sizeof attrs / sizeof attrs[0]), attrs);
  MlirOperation slice = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before, slice);
  return mlirOperationGetResult(slice, 0);
}

int prunerIrSliceDynamicCastInputs(MlirOperation op) {
  /* A linalg op on tensors: its outputs are its last num-results operands. */
  intptr_t inputs = mlirOperationGetNumOperands(op) - mlirOperationGetNumResults(op);
  int replaced = 0;
  for (intptr_t i = 0; i < inputs; ++i) {
    MlirValue v = mlirOperationGetOperand(op, i);
    if (!mlirValueIsAOpResult(v))
      continue;
    MlirOperation cast = mlirOpResultGetOwner(v);
    if (!isDynamicToStaticCast(cast) ||
        mlirShapedTypeGetRank(mlirValueGetType(v)) > PRUNER_IR_MAX_ARRAY)
      continue;
    mlirOperationSetOperand(
        op, i, staticSlice(mlirOperationGetOperand(cast, 0), mlirValueGetType(v), op));
    ++replaced;
  }
  return replaced;
}

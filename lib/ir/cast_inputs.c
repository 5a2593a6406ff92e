/* lib/ir/cast_inputs.c: inputs a GPU schedule needs as buffers of their own
 * (prunerIrSliceDynamicCastInputs, prunerIrMaterializeSplatInputs; pruner/ir.h). */
#include <stdbool.h>
#include <stdint.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Dialect/Linalg.h>
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

/* `name` with the given operands, one result of `type` and attributes, before `before`;
 * with one empty region when `region` (a named op's, for its builder to fill). */
static MlirOperation createBefore(const char *name, intptr_t num_operands,
                                  const MlirValue *operands, MlirType type,
                                  intptr_t num_attrs, const MlirNamedAttribute *attrs,
                                  bool region, MlirOperation before) {
  MlirOperationState st = mlirOperationStateGet(str(name), mlirOperationGetLocation(before));
  mlirOperationStateAddOperands(&st, num_operands, operands);
  mlirOperationStateAddResults(&st, 1, &type);
  mlirOperationStateAddAttributes(&st, num_attrs, attrs);
  if (region) {
    MlirRegion r = mlirRegionCreate();
    mlirOperationStateAddOwnedRegions(&st, 1, &r);
  }
  MlirOperation op = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before, op);
  return op;
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
  MlirOperation slice = createBefore("tensor.extract_slice", 1, &source, type,
                                     (intptr_t)(sizeof attrs / sizeof attrs[0]), attrs, false,
                                     before);
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

int prunerIrMaterializeSplatInputs(MlirOperation op, uint32_t inputs) {
  intptr_t num_inputs = mlirOperationGetNumOperands(op) - mlirOperationGetNumResults(op);
  int replaced = 0;
  for (intptr_t i = 0; i < num_inputs && i < 32; ++i) {
    MlirValue v = mlirOperationGetOperand(op, i);
    if (!(inputs >> i & 1u) || !mlirValueIsAOpResult(v))
      continue;
    MlirOperation cst = mlirOpResultGetOwner(v);
    MlirType type = mlirValueGetType(v);
    MlirAttribute value = mlirOperationGetAttributeByName(cst, str("value"));
    if (!isOp(cst, "arith.constant") || !mlirTypeIsARankedTensor(type) ||
        mlirAttributeIsNull(value) || !mlirAttributeIsADenseElements(value) ||
        !mlirDenseElementsAttrIsSplat(value))
      continue;
    MlirContext ctx = mlirTypeGetContext(type);
    MlirNamedAttribute scalar_attr = prunerIrNamed(ctx, "value",
                                                   mlirDenseElementsAttrGetSplatValue(value));
    MlirValue scalar = mlirOperationGetResult(
        createBefore("arith.constant", 0, NULL, mlirShapedTypeGetElementType(type), 1,
                     &scalar_attr, false, op),
        0);
    MlirValue empty =
        mlirOperationGetResult(createBefore("tensor.empty", 0, NULL, type, 0, NULL, false, op), 0);
    const int32_t segments[2] = {1, 1};
    MlirNamedAttribute seg =
        prunerIrNamed(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, segments));
    MlirValue fill_operands[2] = {scalar, empty};
    MlirOperation fill = createBefore("linalg.fill", 2, fill_operands, type, 1, &seg, true, op);
    mlirLinalgFillBuiltinNamedOpRegion(fill);
    mlirOperationSetOperand(op, i, mlirOperationGetResult(fill, 0));
    ++replaced;
  }
  return replaced;
}

/* lib/schedule/contract.c: a configured op's multiplies and adds may contract into fused
 * multiply-adds (prunerScheduleContractMulAdd, pruner/schedule_ir.h).
 *
 * Without a fastmath flag MLIR lowers arith.mulf / arith.addf to LLVM fmul / fadd that may
 * not fuse, and the NVPTX backend then writes them as `mul.rn.f32` and `add.rn.f32`: the
 * explicit rounding mode is what keeps ptxas from fusing them (LLVM's
 * test/CodeGen/NVPTX/fp-contract.ll). A scalar GPU kernel (vector_width 1,
 * the cross-thread GEMV's partial loop) then spends two instructions per multiply-add,
 * at half the FMA pipe's rate, while vectorized ones get `fma.rn.f32` through
 * vector.contract. `contract` on both ops lets LLVM's DAG combiner fuse them into one
 * `fma.rn`, which is what nvcc does by default (`--fmad=true`) and what cuBLAS does. */
#include <stdbool.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/IR.h>

#include "ir_util.h"
#include "pruner/schedule_ir.h"

typedef struct Marking {
  MlirAttribute contract, none;
  int marked;
} Marking;

/* Whether `op` has no fastmath flags (none, or `none`): flags of the user's own stay. */
static bool noFlags(MlirOperation op, MlirAttribute none) {
  MlirAttribute have = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("fastmath"));
  return mlirAttributeIsNull(have) || mlirAttributeEqual(have, none);
}

static void mark(MlirOperation op, Marking *m) {
  mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString("fastmath"), m->contract);
  ++m->marked;
}

/* An arith.addf with an operand that an arith.mulf computes: both may fuse. Lone adds and
 * multiplies keep their exact rounding. */
static MlirWalkResult markOne(MlirOperation op, void *user) {
  Marking *m = user;
  if (!prunerScheduleIrIsOp(op, "arith.addf") || !noFlags(op, m->none))
    return MlirWalkResultAdvance;
  bool fused = false;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirValue v = mlirOperationGetOperand(op, i);
    if (!mlirValueIsAOpResult(v))
      continue;
    MlirOperation def = mlirOpResultGetOwner(v);
    if (!prunerScheduleIrIsOp(def, "arith.mulf"))
      continue;
    if (!mlirAttributeEqual(mlirOperationGetAttributeByName(
                                def, mlirStringRefCreateFromCString("fastmath")),
                            m->contract)) {
      if (!noFlags(def, m->none))
        continue;
      mark(def, m);
    }
    fused = true;
  }
  if (fused)
    mark(op, m);
  return MlirWalkResultAdvance;
}

PrunerStatus prunerScheduleContractMulAdd(MlirOperation op, int *num_marked) {
  if (num_marked)
    *num_marked = 0;
  if (mlirOperationIsNull(op))
    return prunerStatusError("prunerScheduleContractMulAdd: no op");
  MlirContext ctx = mlirOperationGetContext(op);
  Marking m = {
      mlirAttributeParseGet(ctx, mlirStringRefCreateFromCString("#arith.fastmath<contract>")),
      mlirAttributeParseGet(ctx, mlirStringRefCreateFromCString("#arith.fastmath<none>")), 0};
  if (mlirAttributeIsNull(m.contract) || mlirAttributeIsNull(m.none))
    return prunerStatusError("prunerScheduleContractMulAdd: the arith dialect is not loaded");
  mlirOperationWalk(op, markOne, &m, MlirWalkPreOrder);
  if (num_marked)
    *num_marked = m.marked;
  return prunerStatusOk();
}

/* lib/ir/fusion.c: prunerFusibleConsumer (pruner/ir.h), the one statement of when a
 * contraction's consumer shares its kernel. pruner-apply-config fuses by it and
 * lib/tune skips tuning by it, so the two cannot disagree (docs/schedule.md, "Bias add /
 * consumers"; docs/tune.md, "Fused consumers"). */
#include <string.h>

#include "pruner/ir.h"

static bool isIdentity(const PrunerOperand *o, int loops) {
  if (o->rank != loops)
    return false;
  for (int d = 0; d < o->rank; ++d)
    for (int l = 0; l < loops; ++l)
      if (o->index_coeff[d][l] != (d == l))
        return false;
  return true;
}

MlirOperation prunerFusibleConsumer(MlirOperation op, const PrunerWorkload *w) {
  MlirOperation none = {NULL};
  if (w->num_outputs != 1 || mlirOperationGetNumResults(op) != 1 ||
      !(w->kind == PRUNER_OP_MATMUL || w->kind == PRUNER_OP_BATCH_MATMUL ||
        w->kind == PRUNER_OP_CONTRACTION))
    return none;
  MlirOpOperand use = mlirValueGetFirstUse(mlirOperationGetResult(op, 0));
  if (mlirOpOperandIsNull(use) || !mlirOpOperandIsNull(mlirOpOperandGetNextUse(use)))
    return none;
  MlirOperation user = mlirOpOperandGetOwner(use);
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(user));
  if (name.length != strlen("linalg.generic") || memcmp(name.data, "linalg.generic", name.length))
    return none;
  PrunerWorkload cw;
  if (!prunerWorkloadFromOperation(user, &cw).ok || cw.kind != PRUNER_OP_ELEMENTWISE ||
      cw.num_outputs != 1)
    return none;
  const PrunerOperand *out = &w->operands[w->num_inputs];
  unsigned k = mlirOpOperandGetOperandNumber(use);
  if ((int)k >= cw.num_inputs || cw.num_loops != out->rank ||
      !isIdentity(&cw.operands[k], cw.num_loops) ||
      !isIdentity(&cw.operands[cw.num_inputs], cw.num_loops))
    return none;
  for (int d = 0; d < out->rank; ++d)
    if (cw.bounds[d] != out->shape[d])
      return none;
  return user;
}

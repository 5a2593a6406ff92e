/* lib/ir/functions.c: prunerIrTensorFunctions (pruner/ir.h), the functions of a module a
 * whole-module check can feed with random tensors, prunerIrCheckGpuPlacement and
 * prunerIrParsePipeline. */
#include <stdio.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Diagnostics.h>

#include "ir_internal.h"
#include "pruner/ir.h"

/* `t` as an operand; false with why (`what` names it) for anything but a static tensor of
 * a supported element type. */
static bool tensorOperand(MlirType t, const char *what, int i, PrunerOperand *o, char *why,
                          size_t size) {
  char text[96];
  memset(o, 0, sizeof *o);
  if (!mlirTypeIsARankedTensor(t) || !mlirShapedTypeHasStaticShape(t) ||
      mlirShapedTypeGetRank(t) > PRUNER_MAX_RANK ||
      !prunerIrDTypeFromType(mlirShapedTypeGetElementType(t), &o->dtype)) {
    prunerIrTypeToString(t, text, sizeof text);
    snprintf(why, size, "%s %d is %s, not a static tensor of rank <= %d and a supported "
             "element type", what, i, text, PRUNER_MAX_RANK);
    return false;
  }
  o->rank = (int)mlirShapedTypeGetRank(t);
  for (int d = 0; d < o->rank; ++d)
    o->shape[d] = mlirShapedTypeGetDimSize(t, d);
  return true;
}

static bool signatureOf(MlirOperation func, PrunerFunctionSignature *sig, char *why,
                        size_t size) {
  MlirAttribute type_attr =
      mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString("function_type"));
  MlirType type = mlirAttributeIsNull(type_attr) ? (MlirType){NULL}
                                                 : mlirTypeAttrGetValue(type_attr);
  if (mlirTypeIsNull(type) || !mlirTypeIsAFunction(type)) {
    snprintf(why, size, "no function type");
    return false;
  }
  intptr_t n_in = mlirFunctionTypeGetNumInputs(type), n_out = mlirFunctionTypeGetNumResults(type);
  if (n_in > PRUNER_MAX_OPERANDS || n_out > PRUNER_MAX_OPERANDS || n_out < 1) {
    snprintf(why, size, "%d arguments and %d results (0-%d and 1-%d checked)", (int)n_in,
             (int)n_out, PRUNER_MAX_OPERANDS, PRUNER_MAX_OPERANDS);
    return false;
  }
  sig->num_args = (int)n_in;
  sig->num_results = (int)n_out;
  for (intptr_t i = 0; i < n_in; ++i)
    if (!tensorOperand(mlirFunctionTypeGetInput(type, i), "argument", (int)i, &sig->args[i],
                       why, size))
      return false;
  for (intptr_t i = 0; i < n_out; ++i)
    if (!tensorOperand(mlirFunctionTypeGetResult(type, i), "result", (int)i, &sig->results[i],
                       why, size))
      return false;
  return true;
}

size_t prunerIrTensorFunctions(MlirModule module, PrunerFunctionSignature *out, size_t cap,
                               char *skipped, size_t size) {
  if (size)
    skipped[0] = '\0';
  size_t n = 0;
  MlirBlock body = mlirModuleGetBody(module);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    char name[64];
    prunerIrOpName(op, name, sizeof name);
    if (strcmp(name, "func.func") != 0 || mlirRegionIsNull(mlirOperationGetRegion(op, 0)) ||
        mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))))
      continue; /* a declaration: nothing to run */
    MlirAttribute vis =
        mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_visibility"));
    if (!mlirAttributeIsNull(vis) && mlirAttributeIsAString(vis))
      continue; /* private (or nested): not an entry point */
    MlirAttribute sym =
        mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"));
    MlirStringRef fname = mlirStringAttrGetValue(sym);
    PrunerFunctionSignature sig;
    memset(&sig, 0, sizeof sig);
    char why[200] = "";
    if (fname.length >= sizeof sig.name) {
      snprintf(why, sizeof why, "a name of %zu characters", fname.length);
    } else {
      memcpy(sig.name, fname.data, fname.length);
      if (signatureOf(op, &sig, why, sizeof why)) {
        if (n < cap)
          out[n] = sig;
        ++n;
        continue;
      }
    }
    if (size && !skipped[0])
      snprintf(skipped, size, "@%.*s: %s", (int)(fname.length > 100 ? 100 : fname.length),
               fname.data, why);
  }
  return n;
}

PrunerStatus prunerIrCheckGpuPlacement(MlirOperation op) {
  for (MlirOperation p = mlirOperationGetParentOperation(op); !mlirOperationIsNull(p);
       p = mlirOperationGetParentOperation(p)) {
    char name[64];
    prunerIrOpName(p, name, sizeof name);
    if (strcmp(name, "scf.forall") != 0)
      continue;
    char where[200];
    prunerOperationLocationString(p, where, sizeof where);
    return prunerStatusError("inside the scf.forall at %s: the GPU schedule maps the op's "
                             "own loops to blocks and threads in one top-level scf.forall "
                             "and cannot nest it in another; move the op out of the loop "
                             "or lower it with the host pipeline",
                             where);
  }
  return prunerStatusOk();
}

#define PARSE_ERROR_SIZE 400

static void appendParseError(MlirStringRef s, void *user) {
  char *buf = user;
  size_t len = strlen(buf);
  snprintf(buf + len, PARSE_ERROR_SIZE - len, "%.*s", (int)s.length, s.data);
}

MlirLogicalResult prunerIrParsePipeline(MlirOpPassManager pm, const char *pipeline,
                                        MlirLocation where) {
  char error[PARSE_ERROR_SIZE] = "";
  MlirLogicalResult r =
      mlirParsePassPipeline(pm, mlirStringRefCreateFromCString(pipeline), appendParseError, error);
  if (mlirLogicalResultIsFailure(r)) {
    char msg[600];
    snprintf(msg, sizeof msg,
             "the pass pipeline does not parse: %s (an unknown pass: are MLIR's passes "
             "registered in this process? mlirRegisterAllPasses)",
             error[0] ? error : "no message");
    mlirEmitError(where, msg);
  }
  return r;
}

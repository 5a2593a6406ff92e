/* lib/ir/workload_from_op.c: a linalg op on tensors -> PrunerWorkload.
 *
 * Classification (docs/plugin.md): named contractions and convolutions by name, checked
 * against linalg's own interface predicates; generics by their iterator types (all
 * parallel: elementwise; contraction-shaped per linalg: contraction; else reduction).
 * Roles come from linalg's contraction / convolution dimension inference, indexing from
 * the affine maps (only sums of loop * constant), the body from the op's region. */
#include <stdio.h>
#include <string.h>

#include <mlir-c/AffineExpr.h>
#include <mlir-c/AffineMap.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Dialect/Linalg.h>

#include "ir_internal.h"
#include "pruner/checked.h"
#include "pruner/ir.h"

/* Named ops that only ever appear fused into a tuned neighbour. */
static const char *const kFusedOps[] = {"linalg.fill", "linalg.copy", "linalg.transpose",
                                        "linalg.broadcast"};

static bool nameIs(const char *name, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (strcmp(name, list[i]) == 0)
      return true;
  return false;
}

bool prunerIsLinalgOp(MlirOperation op) {
  if (mlirOperationIsNull(op))
    return false;
  char name[64];
  prunerIrOpName(op, name, sizeof name);
  if (strncmp(name, "linalg.", 7) != 0)
    return false;
  /* Null unless the op implements LinalgOp (the structured-op interface). */
  return !mlirAttributeIsNull(mlirLinalgGetIndexingMapsAttribute(op));
}

/* `*budget` bounds the ops visited (a use graph can fan out): out of it, not dead. */
static bool resultsDead(MlirOperation op, int *budget) {
  intptr_t n = mlirOperationGetNumResults(op);
  if (n == 0 || --*budget < 0)
    return false;
  for (intptr_t i = 0; i < n; ++i)
    for (MlirOpOperand u = mlirValueGetFirstUse(mlirOperationGetResult(op, i));
         !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
      MlirOperation user = mlirOpOperandGetOwner(u);
      if (!prunerIsLinalgOp(user) || !resultsDead(user, budget))
        return false;
    }
  return true;
}

bool prunerIrResultsDead(MlirOperation op) {
  int budget = 256;
  return resultsDead(op, &budget);
}

bool prunerIsFusedLinalgOp(MlirOperation op) {
  char name[64];
  prunerIrOpName(op, name, sizeof name);
  return nameIs(name, kFusedOps, sizeof kFusedOps / sizeof kFusedOps[0]);
}

/* ---- element types -------------------------------------------------------------- */

bool prunerIrDTypeFromType(MlirType t, PrunerDType *out) {
  if (mlirTypeIsAF32(t))
    *out = PRUNER_DTYPE_F32;
  else if (mlirTypeIsAF16(t))
    *out = PRUNER_DTYPE_F16;
  else if (mlirTypeIsABF16(t))
    *out = PRUNER_DTYPE_BF16;
  else if (mlirTypeIsAF64(t))
    *out = PRUNER_DTYPE_F64;
  else if (mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 8)
    *out = PRUNER_DTYPE_I8;
  else if (mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 32)
    *out = PRUNER_DTYPE_I32;
  else
    return false;
  return true;
}

/* ---- operands --------------------------------------------------------------------- */

static PrunerStatus readOperands(MlirOperation op, const char *name, PrunerWorkload *w) {
  intptr_t n = mlirOperationGetNumOperands(op);
  intptr_t results = mlirOperationGetNumResults(op);
  char text[128];
  for (intptr_t i = 0; i < n; ++i) {
    MlirType t = mlirValueGetType(mlirOperationGetOperand(op, i));
    if (mlirTypeIsAMemRef(t))
      return prunerStatusError("%s: operand %d is a memref: buffer semantics are not "
                               "tuned (pruner tunes linalg on tensors)",
                               name, (int)i);
    if (!mlirTypeIsARankedTensor(t)) {
      prunerIrTypeToString(t, text, sizeof text);
      return prunerStatusError("%s: operand %d has type %s, not a ranked tensor", name, (int)i,
                               text);
    }
    if (!mlirShapedTypeHasStaticShape(t)) {
      prunerIrTypeToString(t, text, sizeof text);
      return prunerStatusError("%s: dynamic shape %s of operand %d (static shapes only)", name,
                               text, (int)i);
    }
  }
  if (results == 0 || results > n)
    return prunerStatusError("%s: %d results for %d operands: not a linalg op on tensors", name,
                             (int)results, (int)n);
  if (n > PRUNER_MAX_OPERANDS)
    return prunerStatusError("%s: %d operands, more than the %d supported", name, (int)n,
                             PRUNER_MAX_OPERANDS);
  w->num_inputs = (int)(n - results);
  w->num_outputs = (int)results;
  for (intptr_t i = 0; i < n; ++i) {
    MlirType t = mlirValueGetType(mlirOperationGetOperand(op, i));
    PrunerOperand *o = &w->operands[i];
    int64_t rank = mlirShapedTypeGetRank(t);
    if (rank > PRUNER_MAX_RANK)
      return prunerStatusError("%s: operand %d has rank %d, more than the %d supported", name,
                               (int)i, (int)rank, PRUNER_MAX_RANK);
    o->rank = (int)rank;
    for (int d = 0; d < o->rank; ++d)
      o->shape[d] = mlirShapedTypeGetDimSize(t, d);
    MlirType elem = mlirShapedTypeGetElementType(t);
    if (!prunerIrDTypeFromType(elem, &o->dtype)) {
      prunerIrTypeToString(elem, text, sizeof text);
      return prunerStatusError("%s: element type %s of operand %d is not supported "
                               "(f32, f16, bf16, f64, i8, i32)",
                               name, text, (int)i);
    }
    o->is_output = i >= w->num_inputs;
  }
  return prunerStatusOk();
}

/* ---- indexing maps ------------------------------------------------------------------ */

/* Adds expr (a sum of dim * constant terms, or the constant 0) into coeff, scaled by
 * `scale`; false for anything else (mod, floordiv, symbols, non-zero offsets) and for
 * coefficients past 64 bits (checked: the constants are the user's). */
static bool accumulateExpr(MlirAffineExpr e, int64_t scale, int64_t *coeff, int num_loops) {
  if (mlirAffineExprIsADim(e)) {
    intptr_t pos = mlirAffineDimExprGetPosition(e);
    if (pos < 0 || pos >= num_loops)
      return false;
    return prunerCheckedAdd(coeff[pos], scale, &coeff[pos]);
  }
  if (mlirAffineExprIsAConstant(e))
    return mlirAffineConstantExprGetValue(e) == 0;
  if (mlirAffineExprIsAAdd(e))
    return accumulateExpr(mlirAffineBinaryOpExprGetLHS(e), scale, coeff, num_loops) &&
           accumulateExpr(mlirAffineBinaryOpExprGetRHS(e), scale, coeff, num_loops);
  if (mlirAffineExprIsAMul(e)) {
    MlirAffineExpr lhs = mlirAffineBinaryOpExprGetLHS(e);
    MlirAffineExpr rhs = mlirAffineBinaryOpExprGetRHS(e);
    int64_t scaled;
    if (mlirAffineExprIsAConstant(rhs))
      return prunerCheckedMul(scale, mlirAffineConstantExprGetValue(rhs), &scaled) &&
             accumulateExpr(lhs, scaled, coeff, num_loops);
    if (mlirAffineExprIsAConstant(lhs))
      return prunerCheckedMul(scale, mlirAffineConstantExprGetValue(lhs), &scaled) &&
             accumulateExpr(rhs, scaled, coeff, num_loops);
  }
  return false;
}

static PrunerStatus readIndexing(MlirOperation op, const char *name, PrunerWorkload *w) {
  MlirAttribute maps = mlirLinalgGetIndexingMapsAttribute(op);
  int n = w->num_inputs + w->num_outputs;
  if (mlirAttributeIsNull(maps) || mlirArrayAttrGetNumElements(maps) != n)
    return prunerStatusError("%s: expected %d indexing maps", name, n);
  char text[160];
  for (int i = 0; i < n; ++i) {
    MlirAffineMap map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i));
    intptr_t dims = mlirAffineMapGetNumDims(map);
    if (i == 0) {
      if (dims > PRUNER_MAX_LOOPS)
        return prunerStatusError("%s: %d loops, more than the %d supported", name, (int)dims,
                                 PRUNER_MAX_LOOPS);
      w->num_loops = (int)dims;
    }
    PrunerOperand *o = &w->operands[i];
    if (mlirAffineMapGetNumSymbols(map) != 0 || dims != w->num_loops ||
        mlirAffineMapGetNumResults(map) != o->rank) {
      prunerIrAttrToString(mlirArrayAttrGetElement(maps, i), text, sizeof text);
      return prunerStatusError("%s: indexing map %s of operand %d is not supported", name, text, i);
    }
    for (int d = 0; d < o->rank; ++d) {
      MlirAffineExpr e = mlirAffineMapGetResult(map, d);
      if (!accumulateExpr(e, 1, o->index_coeff[d], w->num_loops)) {
        prunerIrAttrToString(mlirArrayAttrGetElement(maps, i), text, sizeof text);
        return prunerStatusError("%s: indexing map %s of operand %d: dimension %d is not a "
                                 "sum of loop * constant (64-bit coefficients)",
                                 name, text, i, d);
      }
    }
  }
  return prunerStatusOk();
}

/* A loop's bound is the size of an operand dimension indexed by that loop alone. */
static PrunerStatus inferBounds(const char *name, PrunerWorkload *w) {
  int n = w->num_inputs + w->num_outputs;
  for (int l = 0; l < w->num_loops; ++l) {
    w->bounds[l] = 0;
    for (int i = 0; i < n && w->bounds[l] == 0; ++i) {
      const PrunerOperand *o = &w->operands[i];
      for (int d = 0; d < o->rank; ++d) {
        bool alone = o->index_coeff[d][l] == 1;
        for (int k = 0; k < w->num_loops && alone; ++k)
          if (k != l && o->index_coeff[d][k] != 0)
            alone = false;
        if (alone) {
          /* An empty dimension is named as such, not as a loop without a bound. */
          if (o->shape[d] < 1)
            return prunerStatusError("%s: operand %d dimension %d has size %lld (empty "
                                     "tensors have nothing to tune)",
                                     name, i, d, (long long)o->shape[d]);
          w->bounds[l] = o->shape[d];
          break;
        }
      }
    }
    if (w->bounds[l] <= 0)
      return prunerStatusError("%s: the bound of loop d%d follows from no operand dimension", name,
                               l);
  }
  return prunerStatusOk();
}

/* Iterator kinds: a generic states them; a named op's reduction loops are exactly the
 * loops its outputs are not indexed by. */
static PrunerStatus readIterators(MlirOperation op, const char *name, PrunerWorkload *w) {
  MlirAttribute its =
      mlirOperationGetInherentAttributeByName(op, mlirStringRefCreateFromCString("iterator_types"));
  if (!mlirAttributeIsNull(its) && mlirAttributeIsAArray(its)) {
    if (mlirArrayAttrGetNumElements(its) != w->num_loops)
      return prunerStatusError("%s: %d iterator types for %d loops", name,
                               (int)mlirArrayAttrGetNumElements(its), w->num_loops);
    char text[96];
    for (int l = 0; l < w->num_loops; ++l) {
      prunerIrAttrToString(mlirArrayAttrGetElement(its, l), text, sizeof text);
      w->loop_kinds[l] = strstr(text, "reduction") ? PRUNER_LOOP_REDUCTION : PRUNER_LOOP_PARALLEL;
    }
    return prunerStatusOk();
  }
  for (int l = 0; l < w->num_loops; ++l) {
    bool in_output = false;
    for (int i = w->num_inputs; i < w->num_inputs + w->num_outputs; ++i)
      for (int d = 0; d < w->operands[i].rank; ++d)
        if (w->operands[i].index_coeff[d][l] != 0)
          in_output = true;
    w->loop_kinds[l] = in_output ? PRUNER_LOOP_PARALLEL : PRUNER_LOOP_REDUCTION;
  }
  return prunerStatusOk();
}

/* ---- roles ---------------------------------------------------------------------- */

/* Reads a DenseI32/I64 array attribute (or an ArrayAttr of integers) into out. */
static int readIntList(MlirAttribute a, int64_t *out, int cap) {
  if (mlirAttributeIsNull(a))
    return 0;
  int n = 0;
  if (mlirAttributeIsADenseI32Array(a) || mlirAttributeIsADenseI64Array(a)) {
    n = (int)mlirDenseArrayGetNumElements(a);
    for (int i = 0; i < n && i < cap; ++i)
      out[i] = mlirAttributeIsADenseI32Array(a) ? mlirDenseI32ArrayGetElement(a, i)
                                                : mlirDenseI64ArrayGetElement(a, i);
  } else if (mlirAttributeIsAArray(a)) {
    n = (int)mlirArrayAttrGetNumElements(a);
    for (int i = 0; i < n && i < cap; ++i)
      out[i] = mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(a, i));
  }
  return n < cap ? n : cap;
}

static void assignRoles(MlirAttribute dims, const PrunerLoopRole *roles, int nroles,
                        PrunerWorkload *w) {
  int64_t loops[PRUNER_MAX_LOOPS];
  int n = readIntList(dims, loops, PRUNER_MAX_LOOPS);
  for (int i = 0; i < n; ++i) {
    PrunerLoopRole role = roles[i < nroles ? i : nroles - 1];
    if (loops[i] >= 0 && loops[i] < w->num_loops)
      w->loop_roles[loops[i]] = role;
  }
}

static PrunerStatus contractionRoles(MlirOperation op, const char *name, PrunerWorkload *w) {
  MlirLinalgContractionDimensions dims = mlirLinalgInferContractionDimensions(op);
  if (mlirAttributeIsNull(dims.m) && mlirAttributeIsNull(dims.n) && mlirAttributeIsNull(dims.k))
    return prunerStatusError("%s: linalg infers no contraction dimensions", name);
  PrunerLoopRole b = PRUNER_ROLE_BATCH, m = PRUNER_ROLE_M, n = PRUNER_ROLE_N, k = PRUNER_ROLE_K;
  assignRoles(dims.batch, &b, 1, w);
  assignRoles(dims.m, &m, 1, w);
  assignRoles(dims.n, &n, 1, w);
  assignRoles(dims.k, &k, 1, w);
  return prunerStatusOk();
}

static PrunerStatus convolutionRoles(MlirOperation op, const char *name, PrunerWorkload *w) {
  if (!mlirLinalgIsAConvolutionOp(op))
    return prunerStatusError("%s: linalg does not recognize it as a convolution", name);
  MlirLinalgConvolutionDimensions dims = mlirLinalgInferConvolutionDimensions(op);
  if (mlirAttributeIsNull(dims.outputImage))
    return prunerStatusError("%s: linalg infers no convolution dimensions", name);
  const PrunerLoopRole img = PRUNER_ROLE_IMAGE, f = PRUNER_ROLE_OUT_CHANNEL,
                       c = PRUNER_ROLE_IN_CHANNEL;
  const PrunerLoopRole out_hw[2] = {PRUNER_ROLE_OUT_H, PRUNER_ROLE_OUT_W};
  const PrunerLoopRole filter_hw[2] = {PRUNER_ROLE_FILTER_H, PRUNER_ROLE_FILTER_W};
  assignRoles(dims.batch, &img, 1, w);
  assignRoles(dims.outputImage, out_hw, 2, w);
  assignRoles(dims.outputChannel, &f, 1, w);
  assignRoles(dims.filterLoop, filter_hw, 2, w);
  assignRoles(dims.inputChannel, &c, 1, w);
  /* A depthwise conv's channel is in input, filter and output: its output channel. */
  assignRoles(dims.depth, &f, 1, w);
  int64_t v[PRUNER_MAX_LOOPS];
  if (readIntList(dims.strides, v, PRUNER_MAX_LOOPS) == 2) {
    w->strides[0] = v[0];
    w->strides[1] = v[1];
  }
  if (readIntList(dims.dilations, v, PRUNER_MAX_LOOPS) == 2) {
    w->dilations[0] = v[0];
    w->dilations[1] = v[1];
  }
  return prunerStatusOk();
}

/* ---- body ---------------------------------------------------------------------- */

typedef struct BodyMap {
  const char *name;
  PrunerBodyOpcode opcode;
  int arity; /* 0: constant, 1: unary (cast, neg, exp), 2: binary */
} BodyMap;

static const BodyMap kBodyOps[] = {
    {"arith.addf", PRUNER_BODY_ADD, 2},     {"arith.addi", PRUNER_BODY_ADD, 2},
    {"arith.subf", PRUNER_BODY_SUB, 2},     {"arith.subi", PRUNER_BODY_SUB, 2},
    {"arith.mulf", PRUNER_BODY_MUL, 2},     {"arith.muli", PRUNER_BODY_MUL, 2},
    {"arith.divf", PRUNER_BODY_DIV, 2},     {"arith.maximumf", PRUNER_BODY_MAX, 2},
    {"arith.maxnumf", PRUNER_BODY_MAX, 2},  {"arith.maxsi", PRUNER_BODY_MAX, 2},
    {"arith.minimumf", PRUNER_BODY_MIN, 2}, {"arith.minnumf", PRUNER_BODY_MIN, 2},
    {"arith.minsi", PRUNER_BODY_MIN, 2},    {"arith.negf", PRUNER_BODY_NEG, 1},
    {"math.exp", PRUNER_BODY_EXP, 1},       {"arith.constant", PRUNER_BODY_CONST, 0},
    {"arith.extf", PRUNER_BODY_CAST, 1},    {"arith.truncf", PRUNER_BODY_CAST, 1},
    {"arith.sitofp", PRUNER_BODY_CAST, 1},  {"arith.fptosi", PRUNER_BODY_CAST, 1},
    {"arith.extsi", PRUNER_BODY_CAST, 1},   {"arith.trunci", PRUNER_BODY_CAST, 1},
    {"math.tanh", PRUNER_BODY_TANH, 1},     {"math.log", PRUNER_BODY_LOG, 1},
    {"math.sqrt", PRUNER_BODY_SQRT, 1},     {"math.rsqrt", PRUNER_BODY_RSQRT, 1},
    {"math.erf", PRUNER_BODY_ERF, 1},       {"math.absf", PRUNER_BODY_ABS, 1},
};

typedef struct BodyValues {
  MlirValue values[PRUNER_MAX_OPERANDS + PRUNER_MAX_BODY_OPS];
  int count;
} BodyValues;

static int lookupValue(const BodyValues *vals, MlirValue v) {
  for (int i = 0; i < vals->count; ++i)
    if (mlirValueEqual(vals->values[i], v))
      return i;
  return -1;
}

static PrunerStatus readConstant(MlirOperation inner, const char *name, PrunerBodyOp *b) {
  MlirAttribute v =
      mlirOperationGetInherentAttributeByName(inner, mlirStringRefCreateFromCString("value"));
  if (mlirAttributeIsAFloat(v))
    b->constant = mlirFloatAttrGetValueDouble(v);
  else if (mlirAttributeIsAInteger(v))
    b->constant = (double)mlirIntegerAttrGetValueInt(v);
  else
    return prunerStatusError("%s: body constant is not a scalar number", name);
  return prunerStatusOk();
}

/* The value number of v; a scalar arith.constant defined outside the op (a captured
 * constant, as in `arith.maximumf %in, %zero` for a ReLU) becomes a CONST body op. */
static PrunerStatus valueNumber(MlirValue v, const char *name, const char *inner_name,
                                BodyValues *vals, PrunerWorkload *w, int *number) {
  *number = lookupValue(vals, v);
  if (*number >= 0)
    return prunerStatusOk();
  MlirOperation def = mlirValueIsAOpResult(v) ? mlirOpResultGetOwner(v) : (MlirOperation){NULL};
  char def_name[64] = "";
  if (!mlirOperationIsNull(def))
    prunerIrOpName(def, def_name, sizeof def_name);
  if (strcmp(def_name, "arith.constant") != 0)
    return prunerStatusError("%s: body op %s uses a value defined outside the op that is not "
                             "a scalar constant",
                             name, inner_name);
  if (w->body_len >= PRUNER_MAX_BODY_OPS)
    return prunerStatusError("%s: body has more than %d ops", name, PRUNER_MAX_BODY_OPS);
  PrunerBodyOp *b = &w->body[w->body_len];
  *b = (PrunerBodyOp){PRUNER_BODY_CONST, {-1, -1}, 0.0, PRUNER_DTYPE_F32};
  if (!prunerIrDTypeFromType(mlirValueGetType(v), &b->dtype))
    return prunerStatusError("%s: captured constant of unsupported type", name);
  PrunerStatus s = readConstant(def, name, b);
  if (!s.ok)
    return s;
  vals->values[vals->count++] = v;
  w->body_len++;
  *number = vals->count - 1;
  return prunerStatusOk();
}

static PrunerStatus readBodyOp(MlirOperation inner, const char *name, const char *inner_name,
                               BodyValues *vals, PrunerWorkload *w) {
  const BodyMap *m = NULL;
  for (size_t i = 0; i < sizeof kBodyOps / sizeof kBodyOps[0]; ++i)
    if (strcmp(inner_name, kBodyOps[i].name) == 0)
      m = &kBodyOps[i];
  if (!m)
    return prunerStatusError("%s: unsupported body op %s", name, inner_name);
  if (mlirOperationGetNumResults(inner) != 1 || mlirOperationGetNumOperands(inner) != m->arity)
    return prunerStatusError("%s: body op %s has an unexpected form", name, inner_name);
  int args[2] = {-1, -1};
  for (int a = 0; a < m->arity; ++a) {
    PrunerStatus s =
        valueNumber(mlirOperationGetOperand(inner, a), name, inner_name, vals, w, &args[a]);
    if (!s.ok)
      return s;
  }
  if (w->body_len >= PRUNER_MAX_BODY_OPS)
    return prunerStatusError("%s: body has more than %d ops", name, PRUNER_MAX_BODY_OPS);
  PrunerBodyOp *b = &w->body[w->body_len];
  *b = (PrunerBodyOp){m->opcode, {args[0], args[1]}, 0.0, PRUNER_DTYPE_F32};
  MlirValue result = mlirOperationGetResult(inner, 0);
  char text[64];
  if (!prunerIrDTypeFromType(mlirValueGetType(result), &b->dtype)) {
    prunerIrTypeToString(mlirValueGetType(result), text, sizeof text);
    return prunerStatusError("%s: body op %s produces %s (unsupported type)", name, inner_name,
                             text);
  }
  if (m->opcode == PRUNER_BODY_CONST) {
    PrunerStatus s = readConstant(inner, name, b);
    if (!s.ok)
      return s;
  }
  if (m->opcode != PRUNER_BODY_CONST && m->opcode != PRUNER_BODY_CAST)
    w->body_ops++;
  vals->values[vals->count++] = result;
  w->body_len++;
  return prunerStatusOk();
}

static PrunerStatus readBody(MlirOperation op, const char *name, PrunerWorkload *w) {
  int n = w->num_inputs + w->num_outputs;
  if (mlirOperationGetNumRegions(op) < 1)
    return prunerStatusError("%s: no body region", name);
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  if (mlirBlockIsNull(block) || mlirBlockGetNumArguments(block) != n)
    return prunerStatusError("%s: body block does not have one argument per operand", name);
  BodyValues vals = {.count = 0};
  for (int i = 0; i < n; ++i)
    vals.values[vals.count++] = mlirBlockGetArgument(block, i);
  w->body_len = 0;
  w->body_ops = 0;
  char inner_name[64];
  for (MlirOperation inner = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(inner);
       inner = mlirOperationGetNextInBlock(inner)) {
    prunerIrOpName(inner, inner_name, sizeof inner_name);
    if (strcmp(inner_name, "linalg.yield") == 0) {
      if (mlirOperationGetNumOperands(inner) != w->num_outputs)
        return prunerStatusError("%s: linalg.yield yields %d values for %d outputs", name,
                                 (int)mlirOperationGetNumOperands(inner), w->num_outputs);
      for (int o = 0; o < w->num_outputs; ++o) {
        PrunerStatus s = valueNumber(mlirOperationGetOperand(inner, o), name, inner_name, &vals, w,
                                     &w->body_yield[o]);
        if (!s.ok)
          return s;
      }
      return prunerStatusOk();
    }
    PrunerStatus s = readBodyOp(inner, name, inner_name, &vals, w);
    if (!s.ok)
      return s;
  }
  return prunerStatusError("%s: body has no linalg.yield", name);
}

/* ---- classification --------------------------------------------------------------- */

/* True if operand i's indexing equals `rows` (one row of loop indices per dimension). */
static bool indexedAs(const PrunerWorkload *w, int i, const int *loops, int rank) {
  const PrunerOperand *o = &w->operands[i];
  if (o->rank != rank)
    return false;
  for (int d = 0; d < rank; ++d)
    for (int l = 0; l < w->num_loops; ++l)
      if (o->index_coeff[d][l] != (l == loops[d] ? 1 : 0))
        return false;
  return true;
}

static bool isPlainMatmul(const PrunerWorkload *w) {
  const int a[] = {0, 2}, b[] = {2, 1}, c[] = {0, 1};
  return w->num_loops == 3 && w->num_inputs == 2 && w->num_outputs == 1 && indexedAs(w, 0, a, 2) &&
         indexedAs(w, 1, b, 2) && indexedAs(w, 2, c, 2);
}

static bool isPlainBatchMatmul(const PrunerWorkload *w) {
  const int a[] = {0, 1, 3}, b[] = {0, 3, 2}, c[] = {0, 1, 2};
  return w->num_loops == 4 && w->num_inputs == 2 && w->num_outputs == 1 && indexedAs(w, 0, a, 3) &&
         indexedAs(w, 1, b, 3) && indexedAs(w, 2, c, 3);
}

static PrunerStatus classify(MlirOperation op, const char *name, PrunerWorkload *w) {
  bool has_reduction = false;
  for (int l = 0; l < w->num_loops; ++l) {
    w->loop_roles[l] =
        w->loop_kinds[l] == PRUNER_LOOP_REDUCTION ? PRUNER_ROLE_REDUCED : PRUNER_ROLE_PARALLEL;
    has_reduction |= w->loop_kinds[l] == PRUNER_LOOP_REDUCTION;
  }
  if (strcmp(name, "linalg.matmul") == 0 || strcmp(name, "linalg.batch_matmul") == 0 ||
      strcmp(name, "linalg.contract") == 0) {
    if (!mlirLinalgIsAContractionOp(op))
      return prunerStatusError("%s: linalg does not recognize it as a contraction", name);
    /* A linalg.contract with a matmul's (or batch_matmul's) maps and the default signed
     * cast (absent or written out) is that op, so it gets its kind: the same key, spaces,
     * OpenBLAS baseline and IREE configs (IREE configures it as a matmul; as a
     * contraction iree-cpu refused it). The host apply makes it the named op the tuner
     * measured (apply_host.c). */
    MlirContext ctx = mlirOperationGetContext(op);
    MlirAttribute cast =
        mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("cast"));
    MlirAttribute signed_cast = mlirAttributeParseGet(
        ctx, mlirStringRefCreateFromCString("#linalg.type_fn<cast_signed>"));
    bool contract_plain = strcmp(name, "linalg.contract") == 0 &&
                          (mlirAttributeIsNull(cast) || mlirAttributeEqual(cast, signed_cast));
    if ((strcmp(name, "linalg.matmul") == 0 || contract_plain) && isPlainMatmul(w))
      w->kind = PRUNER_OP_MATMUL;
    else if ((strcmp(name, "linalg.batch_matmul") == 0 || contract_plain) &&
             isPlainBatchMatmul(w))
      w->kind = PRUNER_OP_BATCH_MATMUL;
    else
      w->kind = PRUNER_OP_CONTRACTION;
    return contractionRoles(op, name, w);
  }
  if (strcmp(name, "linalg.conv_2d_nhwc_hwcf") == 0) {
    w->kind = PRUNER_OP_CONV_2D_NHWC_HWCF;
    return convolutionRoles(op, name, w);
  }
  if (strcmp(name, "linalg.conv_2d_nchw_fchw") == 0) {
    w->kind = PRUNER_OP_CONV_2D_NCHW_FCHW;
    return convolutionRoles(op, name, w);
  }
  if (strcmp(name, "linalg.depthwise_conv_2d_nhwc_hwc") == 0) {
    w->kind = PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC;
    return convolutionRoles(op, name, w);
  }
  if (strcmp(name, "linalg.generic") == 0) {
    if (!has_reduction) {
      w->kind = PRUNER_OP_ELEMENTWISE;
      return prunerStatusOk();
    }
    if (mlirLinalgIsAContractionOp(op)) {
      w->kind = PRUNER_OP_CONTRACTION;
      return contractionRoles(op, name, w);
    }
    w->kind = PRUNER_OP_REDUCTION;
    return prunerStatusOk();
  }
  return prunerStatusError("%s: unsupported named op (pruner tunes matmul, batch_matmul, "
                           "contract, conv_2d_nhwc_hwcf, conv_2d_nchw_fchw, "
                           "depthwise_conv_2d_nhwc_hwc and generic)",
                           name);
}

PrunerStatus prunerWorkloadFromOperation(MlirOperation op, PrunerWorkload *out) {
  memset(out, 0, sizeof *out);
  char name[64];
  if (mlirOperationIsNull(op))
    return prunerStatusError("null operation");
  prunerIrOpName(op, name, sizeof name);
  if (!prunerIsLinalgOp(op))
    return prunerStatusError("%s: not a linalg structured op", name);
  if (prunerIsFusedLinalgOp(op))
    return prunerStatusError("%s: not tuned on its own (it fuses into a tuned neighbour)", name);
  snprintf(out->op_name, sizeof out->op_name, "%.47s", name);
  out->strides[0] = out->strides[1] = 1;
  out->dilations[0] = out->dilations[1] = 1;
  PrunerStatus s = readOperands(op, name, out);
  if (s.ok)
    s = readIndexing(op, name, out);
  if (s.ok)
    s = inferBounds(name, out);
  if (s.ok)
    s = readIterators(op, name, out);
  if (s.ok)
    s = classify(op, name, out);
  if (s.ok)
    s = readBody(op, name, out);
  if (!s.ok)
    return s;
  prunerWorkloadComputeKey(out);
  s = prunerWorkloadVerify(out);
  if (!s.ok)
    return prunerStatusError("%s: %s", name, s.message);
  return prunerStatusOk();
}

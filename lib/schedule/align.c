/* lib/schedule/align.c: provable alignment of vector loads and stores (schedule_ir.h).
 *
 * Alignments are powers of two in bytes, capped at CAP (nothing here needs more than
 * 16). For an index value we compute the largest power of two known to divide it; for a
 * memref value the alignment of its first element's address; for an access
 * m[i_0, ..., i_n] the address alignment is min(start(m), elem * min_k(div(i_k) *
 * pow2(stride_k))). Anything not understood counts as divisible by 1 (no claim). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <mlir-c/AffineExpr.h>
#include <mlir-c/AffineMap.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include "ir_util.h"
#include "pruner/schedule_ir.h"

#define CAP 1024
#define MAX_DEPTH 48
#define VECTOR_ALIGN 16 /* widest PTX vector access: v4 x 32 bit (PTX ISA, ld/st) */

/* Every func.call of the module by callee name, sorted, built once per walk: looking the
 * call sites up by walking the module per argument made the walk quadratic in the number
 * of outlined K loops (160 promoted matmuls: 16 s of the apply's 28). */
typedef struct CallSite {
  MlirStringRef callee;
  MlirOperation call;
} CallSite;

/* Symbol tables of the modules globals are looked up in, created once each. */
#define MAX_SCOPES 8

typedef struct AlignCtx {
  int64_t arg_alignment;
  int changed;
  CallSite *calls;
  size_t num_calls, cap_calls;
  bool oom;
  MlirOperation scopes[MAX_SCOPES];
  MlirSymbolTable tables[MAX_SCOPES];
  int num_scopes;
  /* scf.for iter_args being followed (a pipelined K loop rotates its stage buffers
   * through them). */
  MlirValue following[MAX_DEPTH + 1];
  int num_following;
} AlignCtx;

static bool isOp(MlirOperation op, const char *name) { return prunerScheduleIrIsOp(op, name); }

static MlirAttribute attr(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
}

static int64_t pow2Divisor(int64_t v) {
  if (v == 0)
    return CAP;
  if (v < 0)
    v = -v;
  int64_t d = 1;
  while (d < CAP && v % (2 * d) == 0)
    d *= 2;
  return d;
}

static int64_t minI(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t mulCap(int64_t a, int64_t b) { return a * b > CAP ? CAP : a * b; }

static int64_t indexDivisor(MlirValue v, const AlignCtx *c, int depth);

static int compareName(MlirStringRef a, MlirStringRef b) {
  size_t n = a.length < b.length ? a.length : b.length;
  int r = memcmp(a.data, b.data, n);
  return r ? r : (a.length > b.length) - (a.length < b.length);
}

static int compareCallSite(const void *a, const void *b) {
  return compareName(((const CallSite *)a)->callee, ((const CallSite *)b)->callee);
}

static MlirWalkResult collectCall(MlirOperation op, void *user) {
  AlignCtx *c = user;
  if (!isOp(op, "func.call"))
    return MlirWalkResultAdvance;
  MlirAttribute callee = attr(op, "callee");
  if (mlirAttributeIsNull(callee) || !mlirAttributeIsAFlatSymbolRef(callee))
    return MlirWalkResultAdvance;
  if (c->num_calls == c->cap_calls) {
    size_t cap = c->cap_calls ? 2 * c->cap_calls : 64;
    CallSite *grown = realloc(c->calls, cap * sizeof *grown);
    if (!grown) {
      c->oom = true;
      return MlirWalkResultInterrupt;
    }
    c->calls = grown;
    c->cap_calls = cap;
  }
  c->calls[c->num_calls++] = (CallSite){mlirFlatSymbolRefAttrGetValue(callee), op};
  return MlirWalkResultAdvance;
}

static bool isInside(MlirOperation op, MlirOperation scope) {
  for (MlirOperation p = mlirOperationGetParentOperation(op); !mlirOperationIsNull(p);
       p = mlirOperationGetParentOperation(p))
    if (mlirOperationEqual(p, scope))
      return true;
  return false;
}

/* For an argument of a private function called once (the K loops the schedules outline,
 * docs/schedule.md), the value its call passes; null otherwise. The outlined body then
 * gets the alignments its code had inside the kernel. */
static MlirValue callSiteOperand(MlirValue arg, const AlignCtx *c) {
  MlirValue none = {NULL};
  MlirBlock block = mlirBlockArgumentGetOwner(arg);
  MlirOperation fn = mlirBlockGetParentOperation(block);
  if (mlirOperationIsNull(fn) || !isOp(fn, "func.func"))
    return none;
  MlirAttribute vis = attr(fn, "sym_visibility"), name = attr(fn, "sym_name");
  if (mlirAttributeIsNull(vis) || !mlirAttributeIsAString(vis) || mlirAttributeIsNull(name) ||
      !mlirAttributeIsAString(name))
    return none;
  MlirStringRef v = mlirStringAttrGetValue(vis);
  if (v.length != 7 || memcmp(v.data, "private", 7) != 0)
    return none;
  MlirOperation scope = mlirOperationGetParentOperation(fn);
  if (mlirOperationIsNull(scope) || c->num_calls == 0)
    return none;
  /* The calls to it anywhere under its module: exactly one. */
  CallSite key = {mlirStringAttrGetValue(name), {NULL}};
  const CallSite *hit = bsearch(&key, c->calls, c->num_calls, sizeof key, compareCallSite);
  if (!hit)
    return none;
  size_t lo = (size_t)(hit - c->calls), hi = lo;
  while (lo > 0 && compareName(c->calls[lo - 1].callee, key.callee) == 0)
    --lo;
  while (hi + 1 < c->num_calls && compareName(c->calls[hi + 1].callee, key.callee) == 0)
    ++hi;
  MlirOperation call = {NULL};
  int count = 0;
  for (size_t k = lo; k <= hi; ++k)
    if (isInside(c->calls[k].call, scope)) {
      call = c->calls[k].call;
      ++count;
    }
  intptr_t i = mlirBlockArgumentGetArgNumber(arg);
  if (count != 1 || i >= mlirOperationGetNumOperands(call))
    return none;
  return mlirOperationGetOperand(call, i);
}

static int64_t affineDivisor(MlirAffineExpr e, MlirOperation apply, intptr_t num_dims,
                             const AlignCtx *c, int depth) {
  if (mlirAffineExprIsAConstant(e))
    return pow2Divisor(mlirAffineConstantExprGetValue(e));
  if (mlirAffineExprIsADim(e))
    return indexDivisor(mlirOperationGetOperand(apply, mlirAffineDimExprGetPosition(e)), c, depth);
  if (mlirAffineExprIsASymbol(e))
    return indexDivisor(
        mlirOperationGetOperand(apply, num_dims + mlirAffineSymbolExprGetPosition(e)), c, depth);
  if (!mlirAffineExprIsABinary(e))
    return 1;
  MlirAffineExpr l = mlirAffineBinaryOpExprGetLHS(e), r = mlirAffineBinaryOpExprGetRHS(e);
  if (mlirAffineExprIsAAdd(e))
    return minI(affineDivisor(l, apply, num_dims, c, depth), affineDivisor(r, apply, num_dims, c, depth));
  if (mlirAffineExprIsAMul(e))
    return mulCap(affineDivisor(l, apply, num_dims, c, depth), affineDivisor(r, apply, num_dims, c, depth));
  /* x mod c = x - q*c: divisible by what divides both x and c. */
  if (mlirAffineExprIsAMod(e) && mlirAffineExprIsAConstant(r))
    return minI(affineDivisor(l, apply, num_dims, c, depth),
                pow2Divisor(mlirAffineConstantExprGetValue(r)));
  return 1; /* floordiv, ceildiv: no claim */
}

/* Largest power of two (<= CAP) known to divide the index value v. */
static int64_t indexDivisor(MlirValue v, const AlignCtx *c, int depth) {
  if (depth > MAX_DEPTH)
    return 1;
  if (mlirValueIsABlockArgument(v)) {
    MlirOperation parent = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
    /* scf.for's induction variable: lb + j * step. */
    if (!mlirOperationIsNull(parent) && isOp(parent, "scf.for") &&
        mlirBlockArgumentGetArgNumber(v) == 0)
      return minI(indexDivisor(mlirOperationGetOperand(parent, 0), c, depth + 1),
                  indexDivisor(mlirOperationGetOperand(parent, 2), c, depth + 1));
    MlirValue passed = callSiteOperand(v, c);
    if (!mlirValueIsNull(passed))
      return indexDivisor(passed, c, depth + 1);
    return 1; /* thread/block ids, function arguments, iter_args */
  }
  MlirOperation op = mlirOpResultGetOwner(v);
  if (isOp(op, "arith.constant")) {
    MlirAttribute a = attr(op, "value");
    return !mlirAttributeIsNull(a) && mlirAttributeIsAInteger(a)
               ? pow2Divisor(mlirIntegerAttrGetValueInt(a))
               : 1;
  }
  if (isOp(op, "arith.addi") || isOp(op, "arith.subi"))
    return minI(indexDivisor(mlirOperationGetOperand(op, 0), c, depth + 1),
                indexDivisor(mlirOperationGetOperand(op, 1), c, depth + 1));
  if (isOp(op, "arith.muli"))
    return mulCap(indexDivisor(mlirOperationGetOperand(op, 0), c, depth + 1),
                  indexDivisor(mlirOperationGetOperand(op, 1), c, depth + 1));
  if (isOp(op, "arith.index_cast") || isOp(op, "arith.index_castui"))
    return indexDivisor(mlirOperationGetOperand(op, 0), c, depth + 1);
  if (isOp(op, "affine.apply")) {
    MlirAffineMap map = mlirAffineMapAttrGetValue(attr(op, "map"));
    if (mlirAffineMapGetNumResults(map) != 1)
      return 1;
    return affineDivisor(mlirAffineMapGetResult(map, 0), op, mlirAffineMapGetNumDims(map), c,
                         depth + 1);
  }
  return 1;
}

static int64_t elementBytes(MlirType memref) {
  MlirType e = mlirShapedTypeGetElementType(memref);
  if (mlirTypeIsAInteger(e))
    return (mlirIntegerTypeGetWidth(e) + 7) / 8;
  if (mlirTypeIsAFloat(e))
    return (mlirFloatTypeGetWidth(e) + 7) / 8;
  return 1;
}

/* The memref.global `name` in the nearest module (builtin or gpu) above `from`. */
static MlirOperation findGlobal(MlirOperation from, MlirStringRef name, AlignCtx *c) {
  MlirOperation scope = mlirOperationGetParentOperation(from);
  while (!mlirOperationIsNull(scope) && !isOp(scope, "builtin.module") &&
         !isOp(scope, "gpu.module"))
    scope = mlirOperationGetParentOperation(scope);
  if (mlirOperationIsNull(scope))
    return scope;
  for (int k = 0; k < c->num_scopes; ++k)
    if (mlirOperationEqual(c->scopes[k], scope))
      return mlirSymbolTableLookup(c->tables[k], name);
  MlirSymbolTable table = mlirSymbolTableCreate(scope);
  if (c->num_scopes < MAX_SCOPES) {
    c->scopes[c->num_scopes] = scope;
    c->tables[c->num_scopes++] = table;
    return mlirSymbolTableLookup(table, name);
  }
  MlirOperation g = mlirSymbolTableLookup(table, name);
  mlirSymbolTableDestroy(table);
  return g;
}

/* Alignment term of `index * stride` in elements (stride may be dynamic). */
static int64_t termDivisor(MlirValue index, bool index_is_static, int64_t static_index,
                           int64_t stride, const AlignCtx *c) {
  int64_t di = index_is_static ? pow2Divisor(static_index) : indexDivisor(index, c, 0);
  if (di == CAP)
    return CAP; /* a zero index contributes nothing, whatever the stride */
  if (stride == mlirShapedTypeGetDynamicStrideOrOffset())
    return 1;
  return mulCap(di, pow2Divisor(stride));
}

static int64_t startAlignment(MlirValue m, AlignCtx *c, int depth);

/* An scf.for iter_arg holds its init value, then whatever the body yields for it: its
 * alignment is the least of the two. The yield may lead back to an iter_arg being
 * followed (the pipeliner rotates stage buffers: yield %b1, %b2, new view of stage k);
 * such a revisit adds no source of its own, so it counts as CAP (neutral for the min) and
 * the result is the least over every init and new view the rotation reaches. Sound
 * because every rule here is a min over its sources' alignments. */
static int64_t iterArgAlignment(MlirValue arg, MlirOperation loop, AlignCtx *c, int depth) {
  int64_t elem = elementBytes(mlirValueGetType(arg));
  intptr_t n = mlirBlockArgumentGetArgNumber(arg);
  MlirOperation yield = mlirBlockGetTerminator(mlirBlockArgumentGetOwner(arg));
  /* Operands of scf.for: lb, ub, step, then the inits; argument 0 is the induction var. */
  if (n < 1 || mlirOperationIsNull(yield) || 3 + n - 1 >= mlirOperationGetNumOperands(loop) ||
      n - 1 >= mlirOperationGetNumOperands(yield))
    return elem;
  for (int k = 0; k < c->num_following; ++k)
    if (mlirValueEqual(c->following[k], arg))
      return CAP;
  if (c->num_following > MAX_DEPTH)
    return elem;
  c->following[c->num_following++] = arg;
  int64_t a = minI(startAlignment(mlirOperationGetOperand(loop, 3 + n - 1), c, depth + 1),
                   startAlignment(mlirOperationGetOperand(yield, n - 1), c, depth + 1));
  c->num_following--;
  return a;
}

/* Byte alignment of the first element of memref value m. */
static int64_t startAlignment(MlirValue m, AlignCtx *c, int depth) {
  MlirType type = mlirValueGetType(m);
  int64_t elem = elementBytes(type);
  if (depth > MAX_DEPTH)
    return elem;
  if (mlirValueIsABlockArgument(m)) {
    MlirOperation parent = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(m));
    /* A function's buffers: cudaMalloc'd (schedule_ir.h). Identity layout means the
     * aligned pointer is the first element (offset 0). */
    if (!mlirOperationIsNull(parent) && isOp(parent, "func.func") &&
        mlirMemRefTypeGetAffineMap(type).ptr && mlirAffineMapIsIdentity(mlirMemRefTypeGetAffineMap(type)))
      return c->arg_alignment;
    MlirValue passed = callSiteOperand(m, c);
    if (!mlirValueIsNull(passed))
      return startAlignment(passed, c, depth + 1);
    if (!mlirOperationIsNull(parent) && isOp(parent, "scf.for"))
      return iterArgAlignment(m, parent, c, depth);
    return elem;
  }
  MlirOperation op = mlirOpResultGetOwner(m);
  if (isOp(op, "memref.get_global")) {
    MlirAttribute name = attr(op, "name");
    if (mlirAttributeIsNull(name) || !mlirAttributeIsAFlatSymbolRef(name))
      return elem;
    MlirOperation g = findGlobal(op, mlirFlatSymbolRefAttrGetValue(name), c);
    MlirAttribute a = mlirOperationIsNull(g) ? (MlirAttribute){NULL} : attr(g, "alignment");
    return !mlirAttributeIsNull(a) && mlirAttributeIsAInteger(a)
               ? minI(pow2Divisor(mlirIntegerAttrGetValueInt(a)), CAP)
               : elem;
  }
  if (isOp(op, "memref.alloc") || isOp(op, "memref.alloca")) {
    MlirAttribute a = attr(op, "alignment");
    return !mlirAttributeIsNull(a) && mlirAttributeIsAInteger(a)
               ? pow2Divisor(mlirIntegerAttrGetValueInt(a))
               : elem;
  }
  if (isOp(op, "memref.view")) /* source + byte shift (operand 1) */
    return minI(startAlignment(mlirOperationGetOperand(op, 0), c, depth + 1),
                indexDivisor(mlirOperationGetOperand(op, 1), c, 0));
  if (isOp(op, "memref.cast") || isOp(op, "memref.expand_shape") ||
      isOp(op, "memref.collapse_shape"))
    return startAlignment(mlirOperationGetOperand(op, 0), c, depth + 1);
  if (isOp(op, "memref.subview")) {
    MlirValue src = mlirOperationGetOperand(op, 0);
    MlirType src_type = mlirValueGetType(src);
    int64_t rank = mlirShapedTypeGetRank(src_type);
    int64_t strides[16], offset;
    MlirAttribute offsets = attr(op, "static_offsets");
    if (rank > 16 || mlirAttributeIsNull(offsets) ||
        mlirLogicalResultIsFailure(mlirMemRefTypeGetStridesAndOffset(src_type, strides, &offset)))
      return elem;
    int64_t align = startAlignment(src, c, depth + 1);
    intptr_t next_dynamic = 1; /* dynamic offsets follow the source operand */
    for (int64_t k = 0; k < rank; ++k) {
      int64_t off = mlirDenseI64ArrayGetElement(offsets, k);
      bool is_static = off != mlirShapedTypeGetDynamicStrideOrOffset();
      MlirValue dyn = is_static ? (MlirValue){NULL} : mlirOperationGetOperand(op, next_dynamic++);
      align = minI(align, mulCap(elem, termDivisor(dyn, is_static, off, strides[k], c)));
    }
    return align;
  }
  return elem;
}

/* vector.load: memref operand 0, indices 1..; vector.store: value 0, memref 1, indices 2... */
static void alignAccess(MlirOperation op, intptr_t memref_pos, AlignCtx *c) {
  MlirValue m = mlirOperationGetOperand(op, memref_pos);
  MlirType type = mlirValueGetType(m);
  if (!mlirTypeIsAMemRef(type))
    return;
  int64_t rank = mlirShapedTypeGetRank(type);
  int64_t strides[16], offset;
  if (rank > 16 ||
      mlirLogicalResultIsFailure(mlirMemRefTypeGetStridesAndOffset(type, strides, &offset)))
    return;
  int64_t elem = elementBytes(type);
  int64_t align = startAlignment(m, c, 0);
  for (int64_t k = 0; k < rank; ++k)
    align = minI(align, mulCap(elem, termDivisor(mlirOperationGetOperand(op, memref_pos + 1 + k),
                                                 false, 0, strides[k], c)));
  MlirType vec = mlirValueGetType(memref_pos ? mlirOperationGetOperand(op, 0) : mlirOperationGetResult(op, 0));
  int64_t bytes = mlirShapedTypeGetRank(vec) >= 1 ? elem : 0;
  for (int64_t d = 0; d < mlirShapedTypeGetRank(vec); ++d)
    bytes *= mlirShapedTypeGetDimSize(vec, d);
  /* The largest power of two not above the vector's size and the PTX maximum. */
  int64_t want = 1;
  while (want * 2 <= bytes && want * 2 <= VECTOR_ALIGN)
    want *= 2;
  align = minI(align, want);
  MlirAttribute have = attr(op, "alignment");
  int64_t current = !mlirAttributeIsNull(have) && mlirAttributeIsAInteger(have)
                        ? mlirIntegerAttrGetValueInt(have)
                        : elem;
  if (align <= current)
    return;
  MlirContext ctx = mlirOperationGetContext(op);
  mlirOperationSetAttributeByName(
      op, mlirStringRefCreateFromCString("alignment"),
      mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), align));
  c->changed++;
}

/* NVVM's shared address space: 3, or the GPU dialect's workgroup space (the staged
 * tensor-core tiles use it so that convert-vector-to-gpu emits ldmatrix). */
static bool isSharedMemorySpace(MlirAttribute space) {
  if (mlirAttributeIsNull(space))
    return false;
  if (mlirAttributeIsAInteger(space))
    return mlirIntegerAttrGetValueInt(space) == 3;
  return prunerScheduleIrIsWorkgroupSpace(space);
}

static MlirWalkResult alignGlobal(MlirOperation op, void *user) {
  (void)user;
  if (!isOp(op, "memref.global"))
    return MlirWalkResultAdvance;
  MlirAttribute type = attr(op, "type");
  if (mlirAttributeIsNull(type) || !mlirAttributeIsAType(type) ||
      !mlirTypeIsAMemRef(mlirTypeAttrGetValue(type)) ||
      !isSharedMemorySpace(mlirMemRefTypeGetMemorySpace(mlirTypeAttrGetValue(type))))
    return MlirWalkResultAdvance;
  MlirAttribute have = attr(op, "alignment");
  if (!mlirAttributeIsNull(have) && mlirAttributeIsAInteger(have) &&
      mlirIntegerAttrGetValueInt(have) >= VECTOR_ALIGN)
    return MlirWalkResultAdvance;
  MlirContext ctx = mlirOperationGetContext(op);
  mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString("alignment"),
                                  mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), VECTOR_ALIGN));
  return MlirWalkResultAdvance;
}

static MlirWalkResult alignVector(MlirOperation op, void *user) {
  if (isOp(op, "vector.load"))
    alignAccess(op, 0, user);
  else if (isOp(op, "vector.store"))
    alignAccess(op, 1, user);
  return MlirWalkResultAdvance;
}

PrunerStatus prunerScheduleAlignVectorAccesses(MlirOperation module, int64_t arg_alignment,
                                               int *num_aligned) {
  if (num_aligned)
    *num_aligned = 0;
  if (arg_alignment < 1 || (arg_alignment & (arg_alignment - 1)))
    return prunerStatusError("vector alignment: argument alignment %lld is not a power of two",
                             (long long)arg_alignment);
  AlignCtx c;
  memset(&c, 0, sizeof c);
  c.arg_alignment = arg_alignment > CAP ? CAP : arg_alignment;
  mlirOperationWalk(module, collectCall, &c, MlirWalkPreOrder);
  if (c.oom) {
    free(c.calls);
    return prunerStatusError("vector alignment: out of memory");
  }
  if (c.num_calls > 1)
    qsort(c.calls, c.num_calls, sizeof *c.calls, compareCallSite);
  mlirOperationWalk(module, alignGlobal, NULL, MlirWalkPreOrder);
  mlirOperationWalk(module, alignVector, &c, MlirWalkPreOrder);
  for (int k = 0; k < c.num_scopes; ++k)
    mlirSymbolTableDestroy(c.tables[k]);
  free(c.calls);
  if (num_aligned)
    *num_aligned = c.changed;
  return prunerStatusOk();
}

/* Workloads: names, sizes, flops and bytes, the stable key, verification and the
 * builders for the named ops. Loop orders follow linalg's own (checked with
 * `mlir-opt -linalg-generalize-named-ops`, MLIR 22): matmul (m, n, k); batch_matmul
 * (b, m, n, k); conv_2d_nhwc_hwcf (n, oh, ow, f, kh, kw, c); conv_2d_nchw_fchw
 * (n, f, oh, ow, c, kh, kw). */
#include "pruner/workload.h"

#include "pruner/checked.h"
#include "pruner/space.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char *const kOpKindNames[PRUNER_OP_KIND_COUNT] = {
    "matmul",          "batch_matmul",     "contraction",
    "conv_2d_nhwc_hwcf", "conv_2d_nchw_fchw", "depthwise_conv_2d_nhwc_hwc",
    "elementwise",     "reduction",
};

static const char *const kRoleNames[PRUNER_ROLE_COUNT] = {
    "b", "m", "n", "k", "img", "oh", "ow", "f", "kh", "kw", "c", "p", "r",
};

static const char *const kDTypeNames[PRUNER_DTYPE_COUNT] = {"f32", "f16", "bf16",
                                                            "f64", "i8",  "i32"};
static const int kDTypeBytes[PRUNER_DTYPE_COUNT] = {4, 2, 2, 8, 1, 4};

const char *prunerOpKindName(PrunerOpKind kind) {
  return (unsigned)kind < PRUNER_OP_KIND_COUNT ? kOpKindNames[kind] : "unknown";
}

const char *prunerLoopRoleName(PrunerLoopRole role) {
  return (unsigned)role < PRUNER_ROLE_COUNT ? kRoleNames[role] : "?";
}

const char *prunerDTypeName(PrunerDType dtype) {
  return (unsigned)dtype < PRUNER_DTYPE_COUNT ? kDTypeNames[dtype] : "?";
}

int prunerDTypeBytes(PrunerDType dtype) {
  return (unsigned)dtype < PRUNER_DTYPE_COUNT ? kDTypeBytes[dtype] : 0;
}

int prunerDTypeParse(const char *name, PrunerDType *out) {
  if (!name) return 0;
  for (int i = 0; i < PRUNER_DTYPE_COUNT; ++i) {
    if (strcmp(name, kDTypeNames[i]) == 0) {
      if (out) *out = (PrunerDType)i;
      return 1;
    }
  }
  return 0;
}

static int isMacKind(PrunerOpKind kind) {
  return kind == PRUNER_OP_MATMUL || kind == PRUNER_OP_BATCH_MATMUL ||
         kind == PRUNER_OP_CONTRACTION || kind == PRUNER_OP_CONV_2D_NHWC_HWCF ||
         kind == PRUNER_OP_CONV_2D_NCHW_FCHW || kind == PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC;
}

static int isConvKind(PrunerOpKind kind) {
  return kind == PRUNER_OP_CONV_2D_NHWC_HWCF || kind == PRUNER_OP_CONV_2D_NCHW_FCHW ||
         kind == PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC;
}

double prunerWorkloadFlops(const PrunerWorkload *w) {
  double points = 1.0;
  for (int l = 0; l < w->num_loops; ++l) points *= (double)w->bounds[l];
  return points * (isMacKind(w->kind) ? 2.0 : (double)w->body_ops);
}

double prunerWorkloadBytes(const PrunerWorkload *w) {
  double bytes = 0.0;
  for (int i = 0; i < w->num_inputs + w->num_outputs; ++i) {
    const PrunerOperand *o = &w->operands[i];
    double elems = 1.0;
    for (int d = 0; d < o->rank; ++d) elems *= (double)o->shape[d];
    bytes += elems * prunerDTypeBytes(o->dtype);
  }
  return bytes;
}

/* FNV-1a over 64-bit values (fixed width, so the key is the same on every machine). */
#define FNV_OFFSET 14695981039346656037ULL
#define FNV_PRIME 1099511628211ULL
static uint64_t fnvMix(uint64_t h, uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    h ^= (v >> (8 * i)) & 0xff;
    h *= FNV_PRIME;
  }
  return h;
}

static uint64_t bodyHash(const PrunerWorkload *w) {
  uint64_t h = FNV_OFFSET;
  h = fnvMix(h, (uint64_t)w->body_len);
  for (int i = 0; i < w->body_len; ++i) {
    const PrunerBodyOp *op = &w->body[i];
    uint64_t bits;
    double c = op->opcode == PRUNER_BODY_CONST ? op->constant : 0.0;
    memcpy(&bits, &c, sizeof(bits));
    h = fnvMix(h, (uint64_t)op->opcode);
    h = fnvMix(h, (uint64_t)(int64_t)op->args[0]);
    h = fnvMix(h, (uint64_t)(int64_t)op->args[1]);
    h = fnvMix(h, bits);
    h = fnvMix(h, (uint64_t)op->dtype);
  }
  for (int i = 0; i < w->num_outputs; ++i) h = fnvMix(h, (uint64_t)(int64_t)w->body_yield[i]);
  return h;
}

/* Hash of everything the readable part of the key leaves out: loop kinds, operand shapes
 * and indexing coefficients, strides, dilations and the body. */
static uint64_t structureHash(const PrunerWorkload *w) {
  uint64_t h = FNV_OFFSET;
  h = fnvMix(h, (uint64_t)w->kind);
  h = fnvMix(h, (uint64_t)w->num_loops);
  for (int l = 0; l < w->num_loops; ++l) {
    h = fnvMix(h, (uint64_t)w->bounds[l]);
    h = fnvMix(h, (uint64_t)w->loop_kinds[l]);
  }
  h = fnvMix(h, (uint64_t)w->num_inputs);
  h = fnvMix(h, (uint64_t)w->num_outputs);
  for (int i = 0; i < w->num_inputs + w->num_outputs; ++i) {
    const PrunerOperand *o = &w->operands[i];
    h = fnvMix(h, (uint64_t)o->rank);
    h = fnvMix(h, (uint64_t)o->dtype);
    for (int d = 0; d < o->rank; ++d) {
      h = fnvMix(h, (uint64_t)o->shape[d]);
      for (int l = 0; l < w->num_loops; ++l) h = fnvMix(h, (uint64_t)o->index_coeff[d][l]);
    }
  }
  h = fnvMix(h, w->body_hash);
  return h;
}

static int countBodyOps(const PrunerWorkload *w) {
  int n = 0;
  for (int i = 0; i < w->body_len; ++i)
    if (w->body[i].opcode != PRUNER_BODY_CONST && w->body[i].opcode != PRUNER_BODY_CAST) ++n;
  return n;
}

/* Key: <kind>:<bounds in loop order>:<input dtypes>-><output dtypes>, then for
 * convolutions :s<sh>x<sw>d<dh>x<dw>, and for generic kinds (contraction, elementwise,
 * reduction) :<8 hex digits of structureHash>. See docs/space.md. */
void prunerWorkloadComputeKey(PrunerWorkload *w) {
  if (w->body_len > 0) {
    w->body_ops = countBodyOps(w);
    w->body_hash = bodyHash(w);
  }
  char *buf = w->key;
  size_t size = sizeof(w->key), len = 0;
#define APPEND(...)                                                                            \
  do {                                                                                         \
    if (len < size) {                                                                          \
      int n_ = snprintf(buf + len, size - len, __VA_ARGS__);                                   \
      if (n_ > 0) len += (size_t)n_;                                                           \
    }                                                                                          \
  } while (0)
  APPEND("%s:", prunerOpKindName(w->kind));
  for (int l = 0; l < w->num_loops; ++l) APPEND("%s%lld", l ? "x" : "", (long long)w->bounds[l]);
  APPEND(":");
  for (int i = 0; i < w->num_inputs; ++i)
    APPEND("%s%s", i ? "," : "", prunerDTypeName(w->operands[i].dtype));
  APPEND("->");
  for (int i = 0; i < w->num_outputs; ++i)
    APPEND("%s%s", i ? "," : "", prunerDTypeName(w->operands[w->num_inputs + i].dtype));
  if (isConvKind(w->kind))
    APPEND(":s%lldx%lldd%lldx%lld", (long long)w->strides[0], (long long)w->strides[1],
           (long long)w->dilations[0], (long long)w->dilations[1]);
  if (!isConvKind(w->kind) && w->kind != PRUNER_OP_MATMUL && w->kind != PRUNER_OP_BATCH_MATMUL) {
    uint64_t h = structureHash(w);
    APPEND(":%08llx", (unsigned long long)((h ^ (h >> 32)) & 0xffffffffULL));
  }
#undef APPEND
}

PrunerStatus prunerWorkloadVerify(const PrunerWorkload *w) {
  const char *op = w->op_name[0] ? w->op_name : prunerOpKindName(w->kind);
  if ((unsigned)w->kind >= PRUNER_OP_KIND_COUNT)
    return prunerStatusError("workload of %s: unknown op kind %d", op, (int)w->kind);
  if (w->num_loops < 1 || w->num_loops > PRUNER_MAX_LOOPS)
    return prunerStatusError("workload of %s: %d loops (supported: 1 to %d)", op, w->num_loops,
                             PRUNER_MAX_LOOPS);
  int num_operands = w->num_inputs + w->num_outputs;
  if (w->num_inputs < 0 || w->num_outputs < 1 || num_operands > PRUNER_MAX_OPERANDS)
    return prunerStatusError("workload of %s: %d inputs and %d outputs (at most %d operands, "
                             "at least one output)",
                             op, w->num_inputs, w->num_outputs, PRUNER_MAX_OPERANDS);
  for (int l = 0; l < w->num_loops; ++l) {
    if (w->bounds[l] < 1)
      return prunerStatusError("workload of %s: loop %d has bound %lld (must be >= 1)", op, l,
                               (long long)w->bounds[l]);
    if (w->loop_kinds[l] != PRUNER_LOOP_PARALLEL && w->loop_kinds[l] != PRUNER_LOOP_REDUCTION)
      return prunerStatusError("workload of %s: loop %d has unknown kind %d", op, l,
                               (int)w->loop_kinds[l]);
    if ((unsigned)w->loop_roles[l] >= PRUNER_ROLE_COUNT)
      return prunerStatusError("workload of %s: loop %d has unknown role %d", op, l,
                               (int)w->loop_roles[l]);
  }
  for (int i = 0; i < num_operands; ++i) {
    const PrunerOperand *o = &w->operands[i];
    int expect_output = i >= w->num_inputs;
    if (!!o->is_output != expect_output)
      return prunerStatusError("workload of %s: operand %d is_output=%d but outputs come after "
                               "the %d inputs",
                               op, i, o->is_output, w->num_inputs);
    if ((unsigned)o->dtype >= PRUNER_DTYPE_COUNT)
      return prunerStatusError("workload of %s: operand %d has unknown dtype %d", op, i,
                               (int)o->dtype);
    if (o->rank < 0 || o->rank > PRUNER_MAX_RANK)
      return prunerStatusError("workload of %s: operand %d has rank %d (at most %d)", op, i,
                               o->rank, PRUNER_MAX_RANK);
    for (int d = 0; d < o->rank; ++d) {
      int64_t last = 0; /* largest index this dimension is accessed at */
      for (int l = 0; l < w->num_loops; ++l) {
        int64_t c = o->index_coeff[d][l];
        if (c < 0)
          return prunerStatusError("workload of %s: operand %d dim %d has negative coefficient "
                                   "%lld for loop %d",
                                   op, i, d, (long long)c, l);
        if (c && expect_output && w->loop_kinds[l] == PRUNER_LOOP_REDUCTION)
          return prunerStatusError("workload of %s: output operand %d dim %d is indexed by "
                                   "reduction loop %d",
                                   op, i, d, l);
        /* Checked: a hand-written or parsed workload may carry huge values. */
        int64_t step;
        if (__builtin_mul_overflow(c, w->bounds[l] - 1, &step) ||
            __builtin_add_overflow(last, step, &last))
          return prunerStatusError("workload of %s: operand %d dim %d: index range "
                                   "overflows 64 bits (coefficient %lld, loop %d bound %lld)",
                                   op, i, d, (long long)c, l, (long long)w->bounds[l]);
      }
      if (o->shape[d] < 1 || o->shape[d] <= last || (expect_output && o->shape[d] != last + 1))
        return prunerStatusError("workload of %s: operand %d dim %d has size %lld but the loops "
                                 "index it up to %lld",
                                 op, i, d, (long long)o->shape[d], (long long)last);
    }
  }
  for (int i = 0; i < w->body_len && i < PRUNER_MAX_BODY_OPS; ++i) {
    const PrunerBodyOp *b = &w->body[i];
    if ((unsigned)b->opcode >= PRUNER_BODY_OPCODE_COUNT)
      return prunerStatusError("workload of %s: body op %d has unknown opcode %d", op, i,
                               (int)b->opcode);
    for (int a = 0; a < 2; ++a)
      if (b->args[a] < -1 || b->args[a] >= num_operands + i)
        return prunerStatusError("workload of %s: body op %d argument %d refers to value %d, "
                                 "not yet defined",
                                 op, i, a, b->args[a]);
  }
  if (w->body_len < 0 || w->body_len > PRUNER_MAX_BODY_OPS)
    return prunerStatusError("workload of %s: body of %d ops (at most %d)", op, w->body_len,
                             PRUNER_MAX_BODY_OPS);
  if (w->body_len > 0)
    for (int i = 0; i < w->num_outputs; ++i)
      if (w->body_yield[i] < 0 || w->body_yield[i] >= num_operands + w->body_len)
        return prunerStatusError("workload of %s: output %d yields undefined value %d", op, i,
                                 w->body_yield[i]);
  return prunerStatusOk();
}

/* The loop walking the last dimension with coefficient 1; a parallel loop is preferred
 * when several qualify (an NCHW input's iw = ow + kw at stride 1), since threads walk
 * parallel loops. */
int prunerWorkloadContiguousLoop(const PrunerWorkload *w, int operand) {
  if (operand < 0 || operand >= w->num_inputs + w->num_outputs) return -1;
  const PrunerOperand *o = &w->operands[operand];
  if (o->rank < 1) return -1;
  int found = -1;
  for (int l = 0; l < w->num_loops; ++l) {
    if (o->index_coeff[o->rank - 1][l] != 1) continue;
    if (w->loop_kinds[l] == PRUNER_LOOP_PARALLEL) return l;
    if (found < 0) found = l;
  }
  return found;
}

/* ---- builders ---------------------------------------------------------------------- */

static void beginWorkload(PrunerWorkload *w, PrunerOpKind kind, const char *op_name) {
  memset(w, 0, sizeof(*w));
  w->kind = kind;
  snprintf(w->op_name, sizeof(w->op_name), "%s", op_name);
  w->strides[0] = w->strides[1] = 1;
  w->dilations[0] = w->dilations[1] = 1;
}

static void addLoop(PrunerWorkload *w, int64_t bound, PrunerLoopKind kind, PrunerLoopRole role) {
  int l = w->num_loops++;
  w->bounds[l] = bound;
  w->loop_kinds[l] = kind;
  w->loop_roles[l] = role;
}

/* Adds an operand whose dims are indexed by single loops (dims[d] = loop index). */
static PrunerOperand *addOperand(PrunerWorkload *w, PrunerDType dtype, int is_output, int rank,
                                 const int *dims) {
  PrunerOperand *o = &w->operands[w->num_inputs + w->num_outputs];
  if (is_output)
    ++w->num_outputs;
  else
    ++w->num_inputs;
  o->rank = rank;
  o->dtype = dtype;
  o->is_output = is_output;
  for (int d = 0; d < rank; ++d) {
    if (dims[d] >= 0) {
      o->index_coeff[d][dims[d]] = 1;
      o->shape[d] = w->bounds[dims[d]];
    }
  }
  return o;
}

/* Body of a named contraction or convolution: out += cast(a) * cast(b), casting the two
 * inputs to the output type when they differ (as linalg's named ops do: extf / extsi). */
static void macBody(PrunerWorkload *w) {
  PrunerDType acc = w->operands[2].dtype;
  const int num_operands = 3;
  int value[2] = {0, 1};
  int len = 0;
  for (int i = 0; i < 2; ++i) {
    if (w->operands[i].dtype != acc) {
      w->body[len] = (PrunerBodyOp){PRUNER_BODY_CAST, {i, -1}, 0.0, acc};
      value[i] = num_operands + len++;
    }
  }
  w->body[len] = (PrunerBodyOp){PRUNER_BODY_MUL, {value[0], value[1]}, 0.0, acc};
  int product = num_operands + len++;
  w->body[len] = (PrunerBodyOp){PRUNER_BODY_ADD, {2, product}, 0.0, acc};
  w->body_yield[0] = num_operands + len++;
  w->body_len = len;
}

void prunerWorkloadMatmul(PrunerWorkload *w, int64_t m, int64_t n, int64_t k, PrunerDType in,
                          PrunerDType out) {
  beginWorkload(w, PRUNER_OP_MATMUL, "linalg.matmul");
  addLoop(w, m, PRUNER_LOOP_PARALLEL, PRUNER_ROLE_M);
  addLoop(w, n, PRUNER_LOOP_PARALLEL, PRUNER_ROLE_N);
  addLoop(w, k, PRUNER_LOOP_REDUCTION, PRUNER_ROLE_K);
  addOperand(w, in, 0, 2, (const int[]){0, 2});
  addOperand(w, in, 0, 2, (const int[]){2, 1});
  addOperand(w, out, 1, 2, (const int[]){0, 1});
  macBody(w);
  prunerWorkloadComputeKey(w);
}

void prunerWorkloadBatchMatmul(PrunerWorkload *w, int64_t b, int64_t m, int64_t n, int64_t k,
                               PrunerDType in, PrunerDType out) {
  beginWorkload(w, PRUNER_OP_BATCH_MATMUL, "linalg.batch_matmul");
  addLoop(w, b, PRUNER_LOOP_PARALLEL, PRUNER_ROLE_BATCH);
  addLoop(w, m, PRUNER_LOOP_PARALLEL, PRUNER_ROLE_M);
  addLoop(w, n, PRUNER_LOOP_PARALLEL, PRUNER_ROLE_N);
  addLoop(w, k, PRUNER_LOOP_REDUCTION, PRUNER_ROLE_K);
  addOperand(w, in, 0, 3, (const int[]){0, 1, 3});
  addOperand(w, in, 0, 3, (const int[]){0, 3, 2});
  addOperand(w, out, 1, 3, (const int[]){0, 1, 2});
  macBody(w);
  prunerWorkloadComputeKey(w);
}

/* The generics pruner-compile and the benchmarks use, exactly as lib/ir reads them from
 * linalg.generic text (test/unit/ir checks that the keys agree). */
void prunerWorkloadElementwiseAdd(PrunerWorkload *w, const int64_t *dims, int rank,
                                  PrunerDType dtype) {
  beginWorkload(w, PRUNER_OP_ELEMENTWISE, "linalg.generic");
  int loops[PRUNER_MAX_RANK];
  for (int d = 0; d < rank; ++d) {
    addLoop(w, dims[d], PRUNER_LOOP_PARALLEL, PRUNER_ROLE_PARALLEL);
    loops[d] = d;
  }
  for (int i = 0; i < 3; ++i)
    addOperand(w, dtype, i == 2, rank, loops);
  w->body_len = 1;
  w->body[0] = (PrunerBodyOp){PRUNER_BODY_ADD, {0, 1}, 0.0, dtype};
  w->body_yield[0] = 3;
  prunerWorkloadComputeKey(w);
}

void prunerWorkloadReduceSum(PrunerWorkload *w, const int64_t *dims, int rank,
                             PrunerDType dtype) {
  beginWorkload(w, PRUNER_OP_REDUCTION, "linalg.generic");
  int loops[PRUNER_MAX_RANK];
  for (int d = 0; d < rank; ++d) {
    bool last = d + 1 == rank;
    addLoop(w, dims[d], last ? PRUNER_LOOP_REDUCTION : PRUNER_LOOP_PARALLEL,
            last ? PRUNER_ROLE_REDUCED : PRUNER_ROLE_PARALLEL);
    loops[d] = d;
  }
  addOperand(w, dtype, 0, rank, loops);
  addOperand(w, dtype, 1, rank - 1, loops);
  w->body_len = 1;
  w->body[0] = (PrunerBodyOp){PRUNER_BODY_ADD, {0, 1}, 0.0, dtype};
  w->body_yield[0] = 2;
  prunerWorkloadComputeKey(w);
}

PrunerStatus prunerWorkloadBuild(const char *kind, const int64_t *d, int n, PrunerDType dtype,
                                 PrunerWorkload *w) {
  for (int i = 0; i < n; ++i)
    if (d[i] <= 0)
      return prunerStatusError("%s: size %d is %lld; sizes are >= 1", kind, i, (long long)d[i]);
  /* Half-precision contractions accumulate in f32 (as cuBLAS' default compute type). */
  bool half = dtype == PRUNER_DTYPE_F16 || dtype == PRUNER_DTYPE_BF16;
  PrunerDType acc = half ? PRUNER_DTYPE_F32 : dtype;
  if (strcmp(kind, "matmul") == 0 && n == 3)
    prunerWorkloadMatmul(w, d[0], d[1], d[2], dtype, acc);
  else if (strcmp(kind, "batch_matmul") == 0 && n == 4)
    prunerWorkloadBatchMatmul(w, d[0], d[1], d[2], d[3], dtype, acc);
  else if (strcmp(kind, "conv_2d_nhwc_hwcf") == 0 && n >= 7 && n <= 9)
    prunerWorkloadConv2dNhwcHwcf(w, d[0], d[1], d[2], d[3], d[4], d[5], d[6], n > 7 ? d[7] : 1,
                                 n > 8 ? d[8] : 1, dtype);
  else if (strcmp(kind, "conv_2d_nchw_fchw") == 0 && n >= 7 && n <= 9)
    prunerWorkloadConv2dNchwFchw(w, d[0], d[1], d[2], d[3], d[4], d[5], d[6], n > 7 ? d[7] : 1,
                                 n > 8 ? d[8] : 1, dtype);
  else if (strcmp(kind, "elementwise") == 0 && n >= 1 && n <= 4)
    prunerWorkloadElementwiseAdd(w, d, n, dtype);
  else if (strcmp(kind, "reduction") == 0 && n >= 2 && n <= 4)
    prunerWorkloadReduceSum(w, d, n, dtype);
  else
    return prunerStatusError("%s with %d sizes is not a workload pruner builds (matmul MxNxK, "
                             "batch_matmul BxMxNxK, conv_2d_nhwc_hwcf NxIHxIWxCxKHxKWxF"
                             "[xSTRIDE[xDILATION]], conv_2d_nchw_fchw NxCxIHxIWxFxKHxKW"
                             "[xSTRIDE[xDILATION]], elementwise D0x..xD3, reduction D0x..xD3)",
                             kind, n);
  return prunerWorkloadVerify(w);
}

/* Output extent of a window: floor((in - dilation * (k - 1) - 1) / stride) + 1. */
static int64_t convOut(int64_t in, int64_t k, int64_t stride, int64_t dilation) {
  int64_t span = dilation * (k - 1) + 1;
  return in >= span ? (in - span) / stride + 1 : 0;
}

/* Sets a window dimension: operand dim d = stride * out_loop + dilation * filter_loop. */
static void windowDim(PrunerOperand *o, int d, int out_loop, int filter_loop, int64_t stride,
                      int64_t dilation, int64_t size) {
  o->index_coeff[d][out_loop] = stride;
  o->index_coeff[d][filter_loop] = dilation;
  o->shape[d] = size;
}

/* A 2-D conv's start: its kind and op name, its stride and dilation both ways (made 1 in
 * place where not positive, for the window dims the builder adds next). */
static void beginConv(PrunerWorkload *w, PrunerOpKind kind, const char *op_name, int64_t *stride,
                      int64_t *dilation) {
  if (*stride <= 0)
    *stride = 1;
  if (*dilation <= 0)
    *dilation = 1;
  beginWorkload(w, kind, op_name);
  w->strides[0] = w->strides[1] = *stride;
  w->dilations[0] = w->dilations[1] = *dilation;
}

void prunerWorkloadConv2dNhwcHwcf(PrunerWorkload *w, int64_t n, int64_t ih, int64_t iw,
                                  int64_t c, int64_t kh, int64_t kw, int64_t f, int64_t stride,
                                  int64_t dilation, PrunerDType dtype) {
  beginConv(w, PRUNER_OP_CONV_2D_NHWC_HWCF, "linalg.conv_2d_nhwc_hwcf", &stride, &dilation);
  /* Loops (n, oh, ow, f, kh, kw, c) = d0 .. d6. */
  addLoop(w, n, PRUNER_LOOP_PARALLEL, PRUNER_ROLE_IMAGE);
  addLoop(w, convOut(ih, kh, stride, dilation), PRUNER_LOOP_PARALLEL, PRUNER_ROLE_OUT_H);
  addLoop(w, convOut(iw, kw, stride, dilation), PRUNER_LOOP_PARALLEL, PRUNER_ROLE_OUT_W);
  addLoop(w, f, PRUNER_LOOP_PARALLEL, PRUNER_ROLE_OUT_CHANNEL);
  addLoop(w, kh, PRUNER_LOOP_REDUCTION, PRUNER_ROLE_FILTER_H);
  addLoop(w, kw, PRUNER_LOOP_REDUCTION, PRUNER_ROLE_FILTER_W);
  addLoop(w, c, PRUNER_LOOP_REDUCTION, PRUNER_ROLE_IN_CHANNEL);
  PrunerOperand *in = addOperand(w, dtype, 0, 4, (const int[]){0, -1, -1, 6});
  windowDim(in, 1, 1, 4, stride, dilation, ih);
  windowDim(in, 2, 2, 5, stride, dilation, iw);
  addOperand(w, dtype, 0, 4, (const int[]){4, 5, 6, 3});
  addOperand(w, dtype, 1, 4, (const int[]){0, 1, 2, 3});
  macBody(w);
  prunerWorkloadComputeKey(w);
}

void prunerWorkloadConv2dNchwFchw(PrunerWorkload *w, int64_t n, int64_t c, int64_t ih,
                                  int64_t iw, int64_t f, int64_t kh, int64_t kw, int64_t stride,
                                  int64_t dilation, PrunerDType dtype) {
  beginConv(w, PRUNER_OP_CONV_2D_NCHW_FCHW, "linalg.conv_2d_nchw_fchw", &stride, &dilation);
  /* Loops (n, f, oh, ow, c, kh, kw) = d0 .. d6. */
  addLoop(w, n, PRUNER_LOOP_PARALLEL, PRUNER_ROLE_IMAGE);
  addLoop(w, f, PRUNER_LOOP_PARALLEL, PRUNER_ROLE_OUT_CHANNEL);
  addLoop(w, convOut(ih, kh, stride, dilation), PRUNER_LOOP_PARALLEL, PRUNER_ROLE_OUT_H);
  addLoop(w, convOut(iw, kw, stride, dilation), PRUNER_LOOP_PARALLEL, PRUNER_ROLE_OUT_W);
  addLoop(w, c, PRUNER_LOOP_REDUCTION, PRUNER_ROLE_IN_CHANNEL);
  addLoop(w, kh, PRUNER_LOOP_REDUCTION, PRUNER_ROLE_FILTER_H);
  addLoop(w, kw, PRUNER_LOOP_REDUCTION, PRUNER_ROLE_FILTER_W);
  PrunerOperand *in = addOperand(w, dtype, 0, 4, (const int[]){0, 4, -1, -1});
  windowDim(in, 2, 2, 5, stride, dilation, ih);
  windowDim(in, 3, 3, 6, stride, dilation, iw);
  addOperand(w, dtype, 0, 4, (const int[]){1, 4, 5, 6});
  addOperand(w, dtype, 1, 4, (const int[]){0, 1, 2, 3});
  macBody(w);
  prunerWorkloadComputeKey(w);
}

void prunerWorkloadDepthwiseConv2dNhwcHwc(PrunerWorkload *w, int64_t n, int64_t ih, int64_t iw,
                                          int64_t c, int64_t kh, int64_t kw, int64_t stride,
                                          int64_t dilation, PrunerDType dtype) {
  beginConv(w, PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC, "linalg.depthwise_conv_2d_nhwc_hwc", &stride,
            &dilation);
  /* Loops (n, oh, ow, c, kh, kw) = d0 .. d5: each channel is its own filter. */
  addLoop(w, n, PRUNER_LOOP_PARALLEL, PRUNER_ROLE_IMAGE);
  addLoop(w, convOut(ih, kh, stride, dilation), PRUNER_LOOP_PARALLEL, PRUNER_ROLE_OUT_H);
  addLoop(w, convOut(iw, kw, stride, dilation), PRUNER_LOOP_PARALLEL, PRUNER_ROLE_OUT_W);
  addLoop(w, c, PRUNER_LOOP_PARALLEL, PRUNER_ROLE_OUT_CHANNEL);
  addLoop(w, kh, PRUNER_LOOP_REDUCTION, PRUNER_ROLE_FILTER_H);
  addLoop(w, kw, PRUNER_LOOP_REDUCTION, PRUNER_ROLE_FILTER_W);
  PrunerOperand *in = addOperand(w, dtype, 0, 4, (const int[]){0, -1, -1, 3});
  windowDim(in, 1, 1, 4, stride, dilation, ih);
  windowDim(in, 2, 2, 5, stride, dilation, iw);
  addOperand(w, dtype, 0, 3, (const int[]){4, 5, 3});
  addOperand(w, dtype, 1, 4, (const int[]){0, 1, 2, 3});
  macBody(w);
  prunerWorkloadComputeKey(w);
}

/* The GEMM that transform.structured.convert_conv2d_to_img2col makes of a
 * conv_2d_nhwc_hwcf: loops (n, m = oh * ow, f, k = kh * kw * c), A = the im2col tensor
 * [n, m, k], B = the filter collapsed to [k, f], C = the output collapsed to [n, m, f]. */
bool prunerWorkloadImplicitGemm(const PrunerWorkload *conv, PrunerWorkload *gemm) {
  if (conv->kind != PRUNER_OP_CONV_2D_NHWC_HWCF || conv->num_loops != 7 ||
      conv->num_inputs != 2 || conv->num_outputs != 1)
    return false;
  const int64_t *b = conv->bounds; /* (n, oh, ow, f, kh, kw, c) */
  beginWorkload(gemm, PRUNER_OP_CONTRACTION, "linalg.generic");
  addLoop(gemm, b[0], PRUNER_LOOP_PARALLEL, PRUNER_ROLE_BATCH);
  addLoop(gemm, b[1] * b[2], PRUNER_LOOP_PARALLEL, PRUNER_ROLE_M);
  addLoop(gemm, b[3], PRUNER_LOOP_PARALLEL, PRUNER_ROLE_N);
  addLoop(gemm, b[4] * b[5] * b[6], PRUNER_LOOP_REDUCTION, PRUNER_ROLE_K);
  addOperand(gemm, conv->operands[0].dtype, 0, 3, (const int[]){0, 1, 3});
  addOperand(gemm, conv->operands[1].dtype, 0, 2, (const int[]){3, 2});
  addOperand(gemm, conv->operands[2].dtype, 1, 3, (const int[]){0, 1, 2});
  macBody(gemm);
  prunerWorkloadComputeKey(gemm);
  return true;
}

/* ---- sizes against the target --------------------------------------------------------- */

PrunerStatus prunerWorkloadCheckSize(const PrunerWorkload *w, const PrunerTargetDesc *t) {
  const char *op = w->op_name[0] ? w->op_name : "op";
  int64_t points;
  if (!prunerCheckedProduct(w->bounds, w->num_loops, &points))
    return prunerStatusError("%s %s: the iteration space has at least 2^63 points", op, w->key);
  int64_t total = 0;
  for (int i = 0; i < w->num_inputs + w->num_outputs; ++i) {
    const PrunerOperand *o = &w->operands[i];
    int64_t elems, bytes;
    if (!prunerCheckedProduct(o->shape, o->rank, &elems) ||
        !prunerCheckedMul(elems, prunerDTypeBytes(o->dtype), &bytes) ||
        !prunerCheckedAdd(total, bytes, &total))
      return prunerStatusError("%s %s: operand %d has at least 2^63 bytes; no kernel can "
                               "index it",
                               op, w->key, i);
  }
  if (t && t->dram_bytes > 0 && total > t->dram_bytes)
    return prunerStatusError("%s %s: its operands need %lld bytes (%.4g GB), more than the "
                             "%.4g GB of memory of %s",
                             op, w->key, (long long)total, (double)total * 1e-9,
                             (double)t->dram_bytes * 1e-9, t->name);
  return prunerStatusOk();
}

/* Config validity (prunerConfigCheck and friends), the launch shape a config implies,
 * and its printed forms. The rules are listed in docs/space.md and docs/config.md; the
 * space (space.c) enumerates exactly the candidates these rules accept, through its own
 * precomputed fast path, and the unit tests compare the two. */
#include "pruner/space.h"

#include "pruner/backend/host_rules.h"
#include "pruner/backend/iree_rules.h"
#include "space_igemm.h"
#include "space_mma.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* CUDA programming guide, "Technical Specifications per Compute Capability" (all of
 * sm_75 .. sm_90): grid x up to 2^31-1, grid y and z up to 65535, block x and y up to
 * 1024, block z up to 64. */
#define GRID_X_MAX 2147483647LL
#define GRID_YZ_MAX 65535LL
#define BLOCK_XY_MAX 1024LL
#define BLOCK_Z_MAX 64LL

/* Products and sums of tile extents saturate at INT64_MAX instead of overflowing: a config
 * or workload from a file may hold any 64-bit values, and a saturated size still fails
 * every limit it is compared with. Operands are >= 0 here. */
static int64_t satMul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}
static int64_t satAdd(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

PrunerSpaceOptions prunerSpaceDefaultOptions(void) {
  PrunerSpaceOptions o;
  o.max_workgroup_tile = 256;
  o.max_thread_tile = 16;
  /* 64 accumulators plus operand fragments stay under the 255-register cap per thread. */
  o.max_thread_elements = 64;
  o.min_threads = 32; /* a full warp */
  /* Compile cost, measured on 1,200 random valid configs (docs/space.md): with
   * te * rs < 2048 and threads * te < 32768, 1,111 were kept, none of them spilling
   * 256 B or more, and all 14 large spillers (up to 25 s in ptxas) were dropped. */
  o.max_unrolled_body = 2047;
  o.max_block_elements = 32767;
  return o;
}

/* Fewest threads a block must have: opts->min_threads, unless the workload cannot give
 * that many at all (product of its parallel bounds, capped by the target). */
int64_t prunerSpaceMinThreads(const PrunerWorkload *w, const PrunerTargetDesc *t,
                              const PrunerSpaceOptions *opts) {
  int64_t possible = 1;
  for (int l = 0; l < w->num_loops; ++l) {
    if (w->loop_kinds[l] != PRUNER_LOOP_PARALLEL)
      continue;
    possible = satMul(possible, w->bounds[l]);
    if (possible > t->max_threads_per_block) {
      possible = t->max_threads_per_block;
      break;
    }
  }
  return opts->min_threads < possible ? opts->min_threads : possible;
}

int64_t prunerConfigOperandFootprint(const PrunerWorkload *w, const PrunerConfig *c, int operand,
                                     int dim) {
  const PrunerOperand *o = &w->operands[operand];
  int64_t extent = 1;
  for (int l = 0; l < w->num_loops; ++l) {
    int64_t coeff = o->index_coeff[dim][l];
    if (!coeff)
      continue;
    int64_t tile = w->loop_kinds[l] == PRUNER_LOOP_PARALLEL ? c->workgroup[l] : c->reduction[l];
    extent = satAdd(extent, satMul(coeff, tile > 1 ? tile - 1 : 0));
  }
  return extent;
}

/* Largest divisor of n that is <= limit (>= 1). */
static int64_t largestDivisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = limit < n ? limit : n; d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

int64_t prunerConfigCopySpread(const PrunerWorkload *w, const PrunerConfig *c, int64_t threads,
                               int operand, int64_t vector, int64_t *tile, int *dim) {
  int rank = w->operands[operand].rank;
  int64_t left = threads, used = 1;
  int next_dim = 0;
  for (int d = rank - 1; d >= 0; --d) {
    int64_t extent = prunerConfigOperandFootprint(w, c, operand, d);
    int64_t base = d == rank - 1 && extent % vector == 0 ? vector : 1;
    int64_t n = next_dim < 3 ? largestDivisorAtMost(extent / base, left) : 1;
    tile[d] = n > 1 ? extent / n : 0;
    dim[d] = n > 1 ? next_dim++ : -1;
    left /= n;
    used *= n;
  }
  if (next_dim == 0) { /* one thread copies the whole tile: still a (1-iteration) forall */
    tile[rank - 1] = prunerConfigOperandFootprint(w, c, operand, rank - 1);
    dim[rank - 1] = 0;
  }
  return used;
}

int64_t prunerConfigSharedBytes(const PrunerWorkload *w, const PrunerConfig *c) {
  PrunerWorkload gemm;
  PrunerConfig gc;
  if (prunerConfigImplicitGemm(w, c, &gemm, &gc)) /* the im2col and filter tiles */
    return prunerConfigSharedBytes(&gemm, &gc);
  int64_t bytes = 0;
  int num_operands = w->num_inputs + w->num_outputs;
  for (int i = 0; i < num_operands; ++i) {
    if (!(c->promote_operands & (1u << i)))
      continue;
    int64_t elems = 1;
    for (int d = 0; d < w->operands[i].rank; ++d)
      elems = satMul(elems, prunerConfigOperandFootprint(w, c, i, d));
    bytes = satAdd(bytes, satMul(elems, prunerDTypeBytes(w->operands[i].dtype)));
  }
  return bytes;
}

static int lastOutputLoop(const PrunerWorkload *w);

int64_t prunerConfigPartialBytes(const PrunerWorkload *w, const PrunerConfig *c) {
  int32_t r = prunerConfigReductionThreads(c);
  if (r <= 1 || w->num_outputs < 1)
    return 0;
  int64_t outs = 1;
  for (int l = 0; l < w->num_loops; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_PARALLEL)
      outs = satMul(outs, c->workgroup[l]);
  int64_t per_out = r + (prunerConfigCombineFirstTile(w, c) ? PRUNER_COMBINE_LANES : 0);
  return satMul(satMul(outs, per_out), prunerDTypeBytes(w->operands[w->num_inputs].dtype));
}

int64_t prunerConfigCombineFirstTile(const PrunerWorkload *w, const PrunerConfig *c) {
  int64_t r = prunerConfigReductionThreads(c);
  int last = lastOutputLoop(w);
  if (r < 2 * PRUNER_COMBINE_LANES || last < 0 || c->workgroup[last] < 1)
    return 0;
  /* The first level's threads: (elements / tile) x 32 lanes, at most the block's R; the
   * tile divides the elements (no partial tiles, no predicated lanes within a warp). */
  int64_t elems = c->workgroup[last];
  int64_t tile = (elems * PRUNER_COMBINE_LANES + r - 1) / r;
  while (elems % tile)
    ++tile;
  /* Two levels only when their chains are shorter than the one level's R folds: with as
   * many elements as threads (tile 32 on R = 64), the first level alone would be as long. */
  if (tile * (r / PRUNER_COMBINE_LANES) + PRUNER_COMBINE_LANES >= r)
    return 0;
  return tile;
}

int64_t prunerConfigWorkspaceBytes(const PrunerWorkload *w, const PrunerConfig *c) {
  int32_t s = prunerConfigSplitK(c);
  if (s <= 1 || w->num_outputs < 1)
    return 0;
  const PrunerOperand *out = &w->operands[w->num_inputs];
  int64_t elems = s;
  for (int d = 0; d < out->rank; ++d)
    elems = satMul(elems, out->shape[d]);
  return satMul(elems, prunerDTypeBytes(out->dtype));
}

/* "[64, 64, 0]" over the workload's loops. */
static const char *formatArray(char *buf, size_t size, const int64_t *a, int n) {
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < n && len < size; ++i) {
    int k = snprintf(buf + len, size - len, "%s%lld", i ? ", " : "[", (long long)a[i]);
    if (k > 0)
      len += (size_t)k;
  }
  if (len < size)
    snprintf(buf + len, size - len, n ? "]" : "[]");
  return buf;
}

const char *prunerConfigFormatPromote(uint32_t mask, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = '\0';
  int first = 1;
  len += (size_t)snprintf(buf, size, "[");
  for (int i = 0; i < 32 && len < size; ++i) {
    if (!(mask & (1u << i)))
      continue;
    int k = snprintf(buf + len, size - len, "%s%d", first ? "" : ", ", i);
    if (k > 0)
      len += (size_t)k;
    first = 0;
  }
  if (len < size)
    snprintf(buf + len, size - len, "]");
  return buf;
}

#define FAIL(...)                                                                                  \
  do {                                                                                             \
    if (status)                                                                                    \
      *status = prunerStatusError(__VA_ARGS__);                                                    \
    return false;                                                                                  \
  } while (0)
#define ARR(name, a) formatArray(name, sizeof(name), a, w->num_loops)

static bool isNamedConv(PrunerOpKind kind) {
  return kind == PRUNER_OP_CONV_2D_NHWC_HWCF || kind == PRUNER_OP_CONV_2D_NCHW_FCHW ||
         kind == PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC;
}

/* Every operand dim indexed by one loop with coefficient 1 (or by none): MLIR's linalg
 * vectorizer needs projected-permutation indexing maps; it rewrites only the named
 * convolutions (which the schedule decomposes to 1-D convs) beyond that. */
static bool hasPermutationMaps(const PrunerWorkload *w) {
  for (int i = 0; i < w->num_inputs + w->num_outputs; ++i)
    for (int d = 0; d < w->operands[i].rank; ++d) {
      int terms = 0;
      for (int l = 0; l < w->num_loops; ++l) {
        int64_t c = w->operands[i].index_coeff[d][l];
        if (c != 0 && c != 1)
          return false;
        terms += c != 0;
      }
      if (terms > 1)
        return false;
    }
  return true;
}

bool prunerWorkloadCombinerIsReduction(const PrunerWorkload *w) {
  bool reduces = false;
  for (int l = 0; l < w->num_loops; ++l)
    reduces = reduces || w->loop_kinds[l] == PRUNER_LOOP_REDUCTION;
  if (!reduces || w->body_len == 0)
    return true;
  int base = w->num_inputs + w->num_outputs;
  for (int o = 0; o < w->num_outputs; ++o) {
    int acc = w->num_inputs + o, uses = 0, user = -1;
    for (int i = 0; i < w->body_len; ++i)
      for (int a = 0; a < 2; ++a)
        if (w->body[i].args[a] == acc) {
          ++uses;
          user = i;
        }
    if (uses != 1 || w->body_yield[o] != base + user)
      return false;
    PrunerBodyOpcode op = w->body[user].opcode;
    if (op != PRUNER_BODY_ADD && op != PRUNER_BODY_MUL && op != PRUNER_BODY_MAX &&
        op != PRUNER_BODY_MIN)
      return false;
  }
  return true;
}

bool prunerWorkloadVectorizable(const PrunerWorkload *w) {
  return isNamedConv(w->kind) || hasPermutationMaps(w);
}

int32_t prunerWorkloadMaxVectorWidth(const PrunerWorkload *w) {
  int widest = 1;
  for (int i = 0; i < w->num_inputs; ++i)
    if (prunerDTypeBytes(w->operands[i].dtype) > widest)
      widest = prunerDTypeBytes(w->operands[i].dtype);
  return widest <= 2 ? 8 : 4;
}

/* An elementwise op whose maps are all the identity and which yields input o for output
 * o unchanged, with equal types: linalg's canonicalization erases it (the result is the
 * input), so it vanishes before any schedule can reach it. */
static bool isIdentityCopy(const PrunerWorkload *w) {
  if (w->kind != PRUNER_OP_ELEMENTWISE || w->num_outputs > w->num_inputs)
    return false;
  for (int i = 0; i < w->num_inputs + w->num_outputs; ++i) {
    const PrunerOperand *o = &w->operands[i];
    if (o->rank != w->num_loops)
      return false;
    for (int d = 0; d < o->rank; ++d)
      for (int l = 0; l < w->num_loops; ++l)
        if (o->index_coeff[d][l] != (d == l))
          return false;
  }
  for (int o = 0; o < w->num_outputs; ++o)
    if (w->body_yield[o] != o || w->operands[o].dtype != w->operands[w->num_inputs + o].dtype)
      return false;
  return true;
}

static bool checkWorkload(const PrunerWorkload *w, PrunerStatus *status) {
  bool parallel = false;
  for (int l = 0; l < w->num_loops; ++l)
    parallel |= w->loop_kinds[l] == PRUNER_LOOP_PARALLEL;
  if (!parallel)
    FAIL("%s has no parallel loop (a full reduction to a rank-0 result): the GPU schedule "
         "maps parallel loops to blocks and threads",
         w->op_name);
  if (isIdentityCopy(w))
    FAIL("%s only copies its input (identity maps, the body yields the input): "
         "canonicalization folds it away, there is nothing to schedule",
         w->op_name);
  return true;
}

PrunerStatus prunerWorkloadCheckSchedulable(const PrunerWorkload *w, const PrunerTargetDesc *t) {
  PrunerStatus status = prunerStatusOk();
  if (t->kind == PRUNER_TARGET_HOST)
    return status; /* lib/backend/host states its own rules (prunerHostConfigCheck) */
  checkWorkload(w, &status);
  return status;
}

/* The rules of a GPU config (docs/config.md), one function per group, each in the order
 * its messages are reported. With status == NULL each is the silent boolean form. */

/* vector_width is a width the schedule emits, on an op the vectorizer can vectorize. */
static bool checkVectorWidthValue(const PrunerWorkload *w, const PrunerConfig *c,
                                  PrunerStatus *status) {
  int32_t vw = c->vector_width;
  if (vw != 1 && vw != 2 && vw != 4 && !(vw == 8 && prunerWorkloadMaxVectorWidth(w) == 8))
    FAIL("vector_width = %d is not one of 1, 2, 4 (and 8 when every input is 16-bit or "
         "narrower: 16-byte loads)",
         (int)c->vector_width);
  if (c->vector_width > 1 && !prunerWorkloadCombinerIsReduction(w))
    FAIL("vector_width = %d on a reduction whose accumulator is not combined by one add, "
         "mul, max or min yielded last: the vectorizer cannot recognize the reduction; use "
         "vector_width = 1",
         (int)c->vector_width);
  if (c->vector_width > 1 && !prunerWorkloadVectorizable(w))
    FAIL("vector_width = %d on an op whose indexing maps are not projected permutations "
         "(e.g. a convolution written as linalg.generic): the vectorizer cannot vectorize "
         "it; use vector_width = 1",
         (int)c->vector_width);
  return true;
}

/* Arrays only in the right loops: workgroup and thread tiles in parallel loops, steps in
 * reduction loops, nothing past the op's loops. */
static bool checkLoopEntries(const PrunerWorkload *w, const PrunerConfig *c,
                             PrunerStatus *status) {
  char a1[160];
  const int n = w->num_loops;
  for (int l = 0; l < PRUNER_MAX_LOOPS; ++l) {
    int par = l < n && w->loop_kinds[l] == PRUNER_LOOP_PARALLEL;
    int red = l < n && w->loop_kinds[l] == PRUNER_LOOP_REDUCTION;
    if (!par && c->workgroup[l])
      FAIL("workgroup tile %s has an entry for %s %d; parallel loops only", ARR(a1, c->workgroup),
           red ? "reduction loop" : "nonexistent loop", l);
    if (!par && c->thread[l])
      FAIL("thread tile %s has an entry for %s %d; parallel loops only", ARR(a1, c->thread),
           red ? "reduction loop" : "nonexistent loop", l);
    if (!red && c->reduction[l])
      FAIL("reduction %s has an entry for %s %d; reduction loops only", ARR(a1, c->reduction),
           par ? "parallel loop" : "nonexistent loop", l);
  }
  return true;
}

/* Tiles >= 1 and dividing: steps divide the bounds, workgroup tiles divide the bounds,
 * thread tiles divide the workgroup tiles. */
static bool checkTileDivisibility(const PrunerWorkload *w, const PrunerConfig *c,
                                  PrunerStatus *status) {
  char a1[160], a2[160];
  for (int l = 0; l < w->num_loops; ++l) {
    const char *role = prunerLoopRoleName(w->loop_roles[l]);
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION) {
      if (c->reduction[l] < 1)
        FAIL("reduction %s is %lld for reduction loop %d (%s); steps are >= 1",
             ARR(a1, c->reduction), (long long)c->reduction[l], l, role);
      if (w->bounds[l] % c->reduction[l])
        FAIL("reduction %s does not divide the loop bounds %s", ARR(a1, c->reduction),
             ARR(a2, w->bounds));
      continue;
    }
    if (c->workgroup[l] < 1)
      FAIL("workgroup tile %s is %lld for parallel loop %d (%s); tiles are >= 1",
           ARR(a1, c->workgroup), (long long)c->workgroup[l], l, role);
    if (c->thread[l] < 1)
      FAIL("thread tile %s is %lld for parallel loop %d (%s); tiles are >= 1", ARR(a1, c->thread),
           (long long)c->thread[l], l, role);
    if (w->bounds[l] % c->workgroup[l])
      FAIL("workgroup tile %s does not divide the loop bounds %s", ARR(a1, c->workgroup),
           ARR(a2, w->bounds));
    if (c->workgroup[l] % c->thread[l])
      FAIL("thread tile %s does not divide workgroup tile %s", ARR(a1, c->thread),
           ARR(a2, c->workgroup));
  }
  return true;
}

/* The loop of the output's last dim (the combine's thread dim), -1 if none. */
static int lastOutputLoop(const PrunerWorkload *w) {
  const PrunerOperand *o = &w->operands[w->num_inputs];
  if (o->rank < 1)
    return -1;
  for (int l = 0; l < w->num_loops; ++l)
    if (o->index_coeff[o->rank - 1][l])
      return l;
  return -1;
}

/* reduction_threads > 1: the cross-thread form of docs/schedule.md. R threads of the block
 * each reduce every R-th element of the last (only) reduction loop for every output element
 * of the block, partials in shared memory, then the block combines them (in two levels
 * from R = 64: prunerConfigCombineFirstTile). */
static bool checkReductionThreads(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                  const PrunerConfig *c, PrunerStatus *status) {
  char a1[160], a2[160];
  int32_t r = c->reduction_threads;
  if (r == 0 || r == 1)
    return true;
  if (r < 32 || r % 32 || (r & (r - 1)))
    FAIL("reduction_threads = %d is not 1 or a power of two that is a multiple of 32 (a "
         "warp)",
         (int)r);
  if (r > t->max_threads_per_block)
    FAIL("reduction_threads = %d is more than the %d threads per block of %s", (int)r,
         t->max_threads_per_block, t->name);
  if ((w->kind != PRUNER_OP_REDUCTION && w->kind != PRUNER_OP_MATMUL &&
       w->kind != PRUNER_OP_BATCH_MATMUL && w->kind != PRUNER_OP_CONTRACTION) ||
      w->num_outputs != 1)
    FAIL("reduction_threads = %d applies to a reduction or a contraction with one output; "
         "%s is not one",
         (int)r, w->op_name);
  int red = -1, reductions = 0;
  for (int l = 0; l < w->num_loops; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION) {
      red = l;
      ++reductions;
    }
  if (reductions != 1 || red != w->num_loops - 1)
    FAIL("reduction_threads = %d needs exactly one reduction loop, the innermost; %s has %d",
         (int)r, w->op_name, reductions);
  if (w->bounds[red] % r)
    FAIL("reduction_threads = %d does not divide the bound %lld of reduction loop %d", (int)r,
         (long long)w->bounds[red], red);
  int64_t chunk = w->bounds[red] / r;
  if (chunk % c->reduction[red])
    FAIL("reduction %s does not divide the %lld elements each of the %d reduction threads "
         "reduces",
         ARR(a1, c->reduction), (long long)chunk, (int)r);
  for (int l = 0; l < w->num_loops; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_PARALLEL && c->thread[l] != c->workgroup[l])
      FAIL("reduction_threads = %d needs thread tile %s equal to workgroup tile %s: the "
           "block's threads all go to the reduction",
           (int)r, ARR(a1, c->thread), ARR(a2, c->workgroup));
  if (c->vector_width != 1)
    FAIL("reduction_threads = %d needs vector_width = 1 (the cross-thread schedule is not "
         "vectorized)",
         (int)r);
  if (c->promote_operands)
    FAIL("reduction_threads = %d with promote_operands %s; the partials are the only "
         "shared-memory buffer of the cross-thread schedule",
         (int)r, prunerConfigFormatPromote(c->promote_operands, a1, sizeof(a1)));
  int last = lastOutputLoop(w);
  if (last < 0 || c->workgroup[last] > r)
    FAIL("reduction_threads = %d is fewer than workgroup tile %s's extent along the output's "
         "last dim: one thread combines each of its elements",
         (int)r, ARR(a1, c->workgroup));
  int64_t bytes = prunerConfigPartialBytes(w, c);
  if (bytes > t->smem_per_block_static)
    FAIL("reduction_threads = %d keeps %lld bytes of partials in shared memory; %s allows %d "
         "per block (static allocation limit)",
         (int)r, (long long)bytes, t->name, t->smem_per_block_static);
  return true;
}

/* Grid and block dimensions (innermost parallel loop -> x): at most 3 of each, within
 * the CUDA limits, and at most max_threads_per_block threads. Returns the threads per
 * block and elements per thread (saturating products) for the budgets. */
static bool checkLaunchDims(const PrunerWorkload *w, const PrunerTargetDesc *t,
                            const PrunerConfig *c, int64_t *threads_out, int64_t *elements_out,
                            PrunerStatus *status) {
  char a1[160], a2[160];
  int64_t threads = 1, elements = 1;
  int grid_dims = 0, block_dims = 0;
  for (int l = w->num_loops - 1; l >= 0; --l) {
    if (w->loop_kinds[l] != PRUNER_LOOP_PARALLEL)
      continue;
    int64_t blocks = w->bounds[l] / c->workgroup[l];
    int64_t per_block = c->workgroup[l] / c->thread[l];
    const char *role = prunerLoopRoleName(w->loop_roles[l]);
    threads = satMul(threads, per_block);
    elements = satMul(elements, c->thread[l]);
    if (blocks > 1) {
      if (grid_dims == 3)
        FAIL("workgroup tile %s leaves more than 3 parallel loops with several blocks; the "
             "grid has 3 dimensions",
             ARR(a1, c->workgroup));
      int64_t limit = grid_dims == 0 ? GRID_X_MAX : GRID_YZ_MAX;
      if (blocks > limit)
        FAIL("workgroup tile %s gives grid %c = %lld blocks for loop %d (%s); at most %lld",
             ARR(a1, c->workgroup), "xyz"[grid_dims], (long long)blocks, l, role, (long long)limit);
      ++grid_dims;
    }
    if (per_block > 1) {
      if (block_dims == 3)
        FAIL("thread tile %s leaves more than 3 parallel loops with several threads; the "
             "block has 3 dimensions",
             ARR(a1, c->thread));
      int64_t limit = block_dims == 2 ? BLOCK_Z_MAX : BLOCK_XY_MAX;
      if (per_block > limit)
        FAIL("thread tile %s gives block %c = %lld threads for loop %d (%s); at most %lld",
             ARR(a1, c->thread), "xyz"[block_dims], (long long)per_block, l, role,
             (long long)limit);
      ++block_dims;
    }
    if (threads > t->max_threads_per_block)
      break; /* reported below; also keeps the product from overflowing */
  }
  if (threads > t->max_threads_per_block)
    FAIL("workgroup tile %s over thread tile %s gives more than %d threads per block (%s)",
         ARR(a1, c->workgroup), ARR(a2, c->thread), t->max_threads_per_block, t->name);
  *threads_out = threads;
  *elements_out = elements;
  return true;
}

/* The space's budgets (PrunerSpaceOptions): enough threads per block, the register budget
 * per thread, and the compile-cost limits on unrolled body copies and block elements. */
static bool checkBudgets(const PrunerWorkload *w, const PrunerTargetDesc *t,
                         const PrunerSpaceOptions *opts, const PrunerConfig *c, int64_t threads,
                         int64_t elements, PrunerStatus *status) {
  char a1[160], a2[160];
  int64_t min_threads = prunerSpaceMinThreads(w, t, opts);
  if (threads < min_threads)
    FAIL("workgroup tile %s over thread tile %s gives %lld threads per block; at least %lld",
         ARR(a1, c->workgroup), ARR(a2, c->thread), (long long)threads, (long long)min_threads);
  if (elements > opts->max_thread_elements)
    FAIL("thread tile %s gives %lld elements per thread; at most %lld (register budget)",
         ARR(a1, c->thread), (long long)elements, (long long)opts->max_thread_elements);
  int64_t steps = 1;
  for (int l = 0; l < w->num_loops; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION)
      steps = satMul(steps, c->reduction[l]);
  int64_t body = satMul(elements, steps);
  if (opts->max_unrolled_body > 0 && body > opts->max_unrolled_body)
    FAIL("thread tile %s and reduction %s unroll %lld elements x %lld steps = %lld body "
         "copies per thread; at most %lld (compile-cost limit max_unrolled_body)",
         ARR(a1, c->thread), ARR(a2, c->reduction), (long long)elements, (long long)steps,
         (long long)body, (long long)opts->max_unrolled_body);
  int64_t block_elements = satMul(threads, elements);
  if (opts->max_block_elements > 0 && block_elements > opts->max_block_elements)
    FAIL("workgroup tile %s gives %lld threads x %lld elements = %lld elements per block; at "
         "most %lld (compile-cost limit max_block_elements)",
         ARR(a1, c->workgroup), (long long)threads, (long long)elements, (long long)block_elements,
         (long long)opts->max_block_elements);
  return true;
}

/* Promotion: the staged tiles fit the static shared memory, and each is a proper
 * sub-tile: the schedule stages a block's slice of the operand
 * (transform.structured.promote needs a memref.subview), and a tile that is the whole
 * operand has none (docs/schedule.md). */
static bool checkPromotion(const PrunerWorkload *w, const PrunerTargetDesc *t,
                           const PrunerConfig *c, PrunerStatus *status) {
  char a1[160];
  int num_operands = w->num_inputs + w->num_outputs;
  int64_t smem = prunerConfigSharedBytes(w, c);
  if (smem > t->smem_per_block_static)
    FAIL("promote_operands %s needs %lld bytes of shared memory; %s allows %d per block "
         "(static allocation limit)",
         prunerConfigFormatPromote(c->promote_operands, a1, sizeof(a1)), (long long)smem, t->name,
         t->smem_per_block_static);
  for (int i = 0; i < num_operands; ++i) {
    if (!(c->promote_operands & (1u << i)) || w->operands[i].rank < 1)
      continue;
    bool whole = true;
    for (int d = 0; d < w->operands[i].rank && whole; ++d)
      whole = prunerConfigOperandFootprint(w, c, i, d) == w->operands[i].shape[d];
    if (whole)
      FAIL("promote_operands %s stages operand %d whole: its block tile is the entire "
           "operand, which the schedule cannot promote",
           prunerConfigFormatPromote(c->promote_operands, a1, sizeof(a1)), i);
  }
  return true;
}

/* Vector width: divides the output's contiguous thread tile and every promoted tile's
 * contiguous extent. */
static bool checkVectorWidthFit(const PrunerWorkload *w, const PrunerConfig *c,
                                PrunerStatus *status) {
  char a1[160];
  int num_operands = w->num_inputs + w->num_outputs;
  if (c->vector_width <= 1)
    return true;
  for (int i = w->num_inputs; i < num_operands; ++i) {
    int l = prunerWorkloadContiguousLoop(w, i);
    if (l < 0)
      FAIL("vector_width = %d needs a contiguous loop in output operand %d; it has none",
           (int)c->vector_width, i);
    if (c->thread[l] % c->vector_width)
      FAIL("vector_width = %d does not divide thread tile %s at loop %d (%s), the output's "
           "contiguous loop",
           (int)c->vector_width, ARR(a1, c->thread), l, prunerLoopRoleName(w->loop_roles[l]));
  }
  for (int i = 0; i < num_operands; ++i) {
    if (!(c->promote_operands & (1u << i)) || w->operands[i].rank < 1)
      continue;
    int64_t extent = prunerConfigOperandFootprint(w, c, i, w->operands[i].rank - 1);
    if (extent % c->vector_width)
      FAIL("vector_width = %d does not divide the contiguous extent %lld of promoted "
           "operand %d's tile",
           (int)c->vector_width, (long long)extent, i);
  }
  return true;
}

/* The widest vector_width up to `widest` that rule 9 allows for `c` (its thread tiles and
 * promoted tiles; 1 when none above 1 does). */
static int32_t widestFittingWidth(const PrunerWorkload *w, const PrunerConfig *c,
                                  int32_t widest) {
  for (int32_t width = widest; width > 1; width /= 2) {
    PrunerConfig at = *c;
    at.vector_width = width;
    if (checkVectorWidthFit(w, &at, NULL))
      return width;
  }
  return 1;
}

/* One config per kernel (docs/space.md, "VECTOR_WIDTH"). The direct GPU schedule
 * vectorizes the whole thread tile whatever vector_width > 1 says (the vector lowering then
 * issues loads as wide as the tile and the alignment allow), and split-K vectorizes its
 * partials whatever the width: configs that differ only there build byte-identical
 * cubins. iree-cuda's lowering_config carries no width at all. The width that says what
 * the kernel does is the one allowed: 1 (scalar) or the widest that fits for a direct GPU
 * config, the widest that fits for split-K and for iree-cuda. Promoted GPU configs (the
 * copies' width), tensor cores and cross-thread reductions (width 1) have rules of their
 * own. */
static bool checkVectorWidthCanonical(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                      const PrunerConfig *c, PrunerStatus *status) {
  bool iree = t->kind == PRUNER_TARGET_IREE_CUDA;
  if ((t->kind != PRUNER_TARGET_GPU && !iree) || c->mma ||
      prunerConfigReductionThreads(c) > 1 || !prunerWorkloadVectorizable(w) ||
      (c->promote_operands && !iree))
    return true;
  /* iree-cuda lists no 8 (IREE chooses its own vector sizes: 8 would repeat 4). */
  int32_t widest = widestFittingWidth(w, c, iree ? 4 : prunerWorkloadMaxVectorWidth(w));
  bool split = prunerConfigSplitK(c) > 1;
  if (c->vector_width == widest || (!split && !iree && c->vector_width == 1))
    return true;
  if (iree)
    FAIL("vector_width = %d on iree-cuda: IREE's lowering_config carries no width, so the "
         "config is the one with the widest width that fits; use %d",
         (int)c->vector_width, (int)widest);
  if (split)
    FAIL("vector_width = %d with split_k = %d builds the same kernel as vector_width = %d: "
         "split-K vectorizes its partials whatever the width, as wide as the thread tile "
         "allows; use %d",
         (int)c->vector_width, (int)c->split_k, (int)widest, (int)widest);
  FAIL("vector_width = %d builds the same kernel as vector_width = %d: the direct schedule "
       "vectorizes the whole thread tile, with loads as wide as the tile allows; use %d (or "
       "1 for scalar code)",
       (int)c->vector_width, (int)widest, (int)widest);
}

static bool checkConfig(const PrunerWorkload *w, const PrunerTargetDesc *t,
                        const PrunerSpaceOptions *opts, const PrunerConfig *c,
                        PrunerStatus *status);

/* Rule 12: a promoted conv is an implicit GEMM. Its own rules (config_igemm.c), then
 * every rule on the GEMM it denotes, the message saying so. */
static bool checkImplicitGemm(const PrunerWorkload *w, const PrunerTargetDesc *t,
                              const PrunerSpaceOptions *opts, const PrunerConfig *c,
                              PrunerStatus *status) {
  if (!prunerIgemmConfigCheck(w, t, c, status))
    return false;
  PrunerWorkload gemm;
  PrunerConfig gc;
  prunerConfigImplicitGemm(w, c, &gemm, &gc);
  PrunerStatus inner = prunerStatusOk();
  if (checkConfig(&gemm, t, opts, &gc, status ? &inner : NULL))
    return true;
  if (status)
    *status = prunerStatusError("implicit GEMM of %s (loops n, m = oh * ow, f, k = kh * kw * c; "
                                "bounds %lld, %lld, %lld, %lld): %s",
                                w->op_name, (long long)gemm.bounds[0], (long long)gemm.bounds[1],
                                (long long)gemm.bounds[2], (long long)gemm.bounds[3],
                                inner.message);
  return false;
}

/* Largest split-K workspace: far above any model's GEMV (12 MiB for 64 slices of a
 * 1x50257 f32 row), far below a GPU's memory. */
#define MAX_WORKSPACE_BYTES (1LL << 30)

/* Split-K over blocks (docs/config.md, "split_k"): the one reduction loop (the innermost,
 * as for reduction_threads) cut into S slices, each a block of its own along a grid
 * dimension the tiles leave free. Plain FMA configs only: the slices' partial kernel is
 * the plain schedule on one slice. */
static bool checkSplitK(const PrunerWorkload *w, const PrunerConfig *c, PrunerStatus *status) {
  char a1[160];
  int32_t s = prunerConfigSplitK(c);
  if (s == 1)
    return true;
  if (s & (s - 1))
    FAIL("split_k = %d is not a power of two", (int)s);
  if (!prunerWorkloadHasReductionThreads(w))
    FAIL("split_k = %d applies to a reduction or a contraction with one output and one "
         "reduction loop, the innermost; %s is not one",
         (int)s, w->op_name);
  if (c->mma || c->promote_operands || prunerConfigReductionThreads(c) > 1)
    FAIL("split_k = %d combines with none of mma, promote_operands and reduction_threads "
         "(each slice runs the plain schedule)",
         (int)s);
  int red = w->num_loops - 1;
  if (w->bounds[red] % s)
    FAIL("split_k = %d does not divide the bound %lld of reduction loop %d", (int)s,
         (long long)w->bounds[red], red);
  if ((w->bounds[red] / s) % c->reduction[red])
    FAIL("reduction %s does not divide the %lld elements of each of the %d slices",
         ARR(a1, c->reduction), (long long)(w->bounds[red] / s), (int)s);
  int grid_dims = 0;
  for (int l = 0; l < w->num_loops; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_PARALLEL && c->workgroup[l] > 0 &&
        w->bounds[l] / c->workgroup[l] > 1)
      ++grid_dims;
  if (grid_dims == 3)
    FAIL("split_k = %d needs a grid dimension for its slices; workgroup tile %s uses all three",
         (int)s, ARR(a1, c->workgroup));
  int64_t bytes = prunerConfigWorkspaceBytes(w, c);
  if (bytes > MAX_WORKSPACE_BYTES)
    FAIL("split_k = %d needs a %lld-byte workspace for its partials; at most %lld", (int)s,
         (long long)bytes, (long long)MAX_WORKSPACE_BYTES);
  return true;
}

/* All the rules, in the order their messages are reported. With status == NULL it is the
 * silent boolean form. */
static bool checkConfig(const PrunerWorkload *w, const PrunerTargetDesc *t,
                        const PrunerSpaceOptions *opts, const PrunerConfig *c,
                        PrunerStatus *status) {
  char a1[160];
  if (!checkWorkload(w, status) || !checkVectorWidthValue(w, c, status) ||
      !checkLoopEntries(w, c, status) || !checkTileDivisibility(w, c, status))
    return false;
  int num_operands = w->num_inputs + w->num_outputs;
  if (c->promote_operands >> num_operands)
    FAIL("promote_operands %s names an operand beyond the op's %d operands",
         prunerConfigFormatPromote(c->promote_operands, a1, sizeof(a1)), num_operands);
  if (!checkSplitK(w, c, status))
    return false;
  if (c->mma) /* tensor cores: warp tiles, their own rules (config_mma.c) */
    return prunerMmaConfigCheck(w, t, opts, c, status);
  if (c->promote_operands && (w->kind == PRUNER_OP_CONV_2D_NHWC_HWCF ||
                              w->kind == PRUNER_OP_CONV_2D_NCHW_FCHW ||
                              w->kind == PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC))
    return checkImplicitGemm(w, t, opts, c, status);
  if (!checkReductionThreads(w, t, c, status))
    return false;
  int64_t threads, elements;
  if (!checkLaunchDims(w, t, c, &threads, &elements, status))
    return false;
  if (prunerConfigReductionThreads(c) > 1)
    threads = prunerConfigReductionThreads(c); /* every parallel thread tile is the block's */
  return checkBudgets(w, t, opts, c, threads, elements, status) &&
         checkPromotion(w, t, c, status) && checkVectorWidthFit(w, c, status) &&
         checkVectorWidthCanonical(w, t, c, status);
}

PrunerStatus prunerConfigCheckWithOptions(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                          const PrunerSpaceOptions *opts,
                                          const PrunerConfig *config) {
  /* Only staged tensor-core configs pipeline their copies, on every target. */
  if (prunerConfigStages(config) > 1 && !(config->mma && config->promote_operands))
    return prunerStatusError("config on %s: stages = %d; only staged tensor-core configs (mma = "
                             "1 with promote_operands = [0, 1]) have more than one shared "
                             "buffer",
                             w->op_name, (int)prunerConfigStages(config));
  /* Split-K needs a second launch and a workspace: the project's own GPU targets only. */
  if (prunerConfigSplitK(config) > 1 && t->kind != PRUNER_TARGET_GPU)
    return prunerStatusError("config on %s: split_k = %d (two kernels and a workspace) is for "
                             "the project's GPU targets only, not %s",
                             w->op_name, (int)prunerConfigSplitK(config), t->name);
  if (t->kind == PRUNER_TARGET_IREE_CPU)
    return prunerIreeCpuConfigCheck(w, t, opts, config);
  /* Only iree-cpu has a cache level: elsewhere the tiles would describe another kernel. */
  if (prunerConfigHasCache(config))
    return prunerStatusError("config on %s: key 'cache' (a cache tile) is for iree-cpu only; "
                             "target %s has no such level",
                             w->op_name, t->name);
  if (t->kind == PRUNER_TARGET_HOST)
    return prunerHostConfigCheck(w, t, opts, config);
  if (t->kind == PRUNER_TARGET_IREE_CUDA) {
    PrunerStatus st = prunerIreeGpuExpressible(w, config);
    if (!st.ok)
      return st;
  }
  PrunerSpaceOptions defaults = prunerSpaceDefaultOptions();
  PrunerStatus status = prunerStatusOk();
  checkConfig(w, t, opts ? opts : &defaults, config, &status);
  return status;
}

bool prunerConfigIsValidWithOptions(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                    const PrunerSpaceOptions *opts, const PrunerConfig *config) {
  if (prunerConfigStages(config) > 1 && !(config->mma && config->promote_operands))
    return false;
  if (prunerConfigSplitK(config) > 1 && t->kind != PRUNER_TARGET_GPU)
    return false;
  if (t->kind == PRUNER_TARGET_IREE_CPU)
    return prunerIreeCpuConfigIsValid(w, t, opts, config);
  if (prunerConfigHasCache(config))
    return false;
  if (t->kind == PRUNER_TARGET_HOST)
    return prunerHostConfigIsValid(w, t, opts, config);
  if (t->kind == PRUNER_TARGET_IREE_CUDA && !prunerIreeGpuExpressible(w, config).ok)
    return false;
  PrunerSpaceOptions defaults = prunerSpaceDefaultOptions();
  return checkConfig(w, t, opts ? opts : &defaults, config, NULL);
}

PrunerStatus prunerConfigCheck(const PrunerWorkload *w, const PrunerTargetDesc *t,
                               const PrunerConfig *config) {
  return prunerConfigCheckWithOptions(w, t, NULL, config);
}

bool prunerConfigIsValid(const PrunerWorkload *w, const PrunerTargetDesc *t,
                         const PrunerConfig *config) {
  return prunerConfigIsValidWithOptions(w, t, NULL, config);
}

void prunerConfigLaunchShape(const PrunerWorkload *w, const PrunerConfig *config,
                             PrunerLaunchShape *out) {
  if (config->mma) {
    prunerMmaLaunchShape(w, config, out);
    return;
  }
  PrunerWorkload gemm;
  PrunerConfig gc;
  if (prunerConfigImplicitGemm(w, config, &gemm, &gc)) { /* loops of the GEMM */
    prunerConfigLaunchShape(&gemm, &gc, out);
    return;
  }
  memset(out, 0, sizeof(*out));
  int g = 0, b = 0;
  for (int i = 0; i < 3; ++i) {
    out->grid[i] = out->block[i] = 1;
    out->grid_loop[i] = out->block_loop[i] = -1;
  }
  for (int l = w->num_loops - 1; l >= 0; --l) {
    if (w->loop_kinds[l] != PRUNER_LOOP_PARALLEL || config->workgroup[l] < 1 ||
        config->thread[l] < 1)
      continue;
    int64_t blocks = w->bounds[l] / config->workgroup[l];
    int64_t threads = config->workgroup[l] / config->thread[l];
    if (blocks > 1 && g < 3) {
      out->grid[g] = blocks;
      out->grid_loop[g++] = l;
    }
    if (threads > 1 && b < 3) {
      out->block[b] = threads;
      out->block_loop[b++] = l;
    }
  }
  if (prunerConfigSplitK(config) > 1 && g < 3) {
    /* The slices take the first free grid dimension; y when no loop is split, since a
     * one-block output still maps its innermost loop to x (docs/schedule.md). */
    if (g == 0)
      g = 1;
    out->grid[g] = prunerConfigSplitK(config);
    out->grid_loop[g++] = w->num_loops - 1;
  }
  if (prunerConfigReductionThreads(config) > 1) { /* the threads walk the reduction (x) */
    out->block[0] = prunerConfigReductionThreads(config);
    out->block_loop[0] = -1;
  }
  out->blocks = out->grid[0] * out->grid[1] * out->grid[2];
  out->threads_per_block = out->block[0] * out->block[1] * out->block[2];
  out->smem_bytes = satAdd(prunerConfigSharedBytes(w, config), prunerConfigPartialBytes(w, config));
}

int prunerConfigFormat(const PrunerWorkload *w, const PrunerConfig *config, char *buf,
                       size_t size) {
  char wg[160], red[160], th[160], pr[64], rt[40] = "", ca[180] = "", cache[160], mma[40] = "",
       sk[24] = "";
  /* reduction_threads only when > 1, cache and mma only when set: every other config
   * formats as before those knobs. */
  if (prunerConfigReductionThreads(config) > 1)
    snprintf(rt, sizeof rt, ", reduction_threads = %d", (int)config->reduction_threads);
  if (prunerConfigHasCache(config))
    snprintf(ca, sizeof ca, ", cache = %s", ARR(cache, config->cache));
  if (config->mma && prunerConfigStages(config) > 1)
    snprintf(mma, sizeof mma, ", mma = %d, stages = %d", (int)config->mma,
             (int)prunerConfigStages(config));
  else if (config->mma)
    snprintf(mma, sizeof mma, ", mma = %d", (int)config->mma);
  if (prunerConfigSplitK(config) > 1)
    snprintf(sk, sizeof sk, ", split_k = %d", (int)config->split_k);
  return snprintf(buf, size,
                  "{workgroup = %s, reduction = %s, thread = %s, promote_operands = %s, "
                  "vector_width = %d%s%s%s%s}",
                  ARR(wg, config->workgroup), ARR(red, config->reduction), ARR(th, config->thread),
                  prunerConfigFormatPromote(config->promote_operands, pr, sizeof(pr)),
                  (int)config->vector_width, rt, ca, mma, sk);
}

/* "wg64x64 r16 t4x4 p01 v4": parallel loops' tiles, reduction steps, promoted operand
 * digits ("p-" for none), vector width. */
int prunerConfigFormatShort(const PrunerWorkload *w, const PrunerConfig *config, char *buf,
                            size_t size) {
  char wg[96] = "", red[96] = "", th[96] = "", pr[40] = "", ca[96] = "";
  size_t lw = 0, lr = 0, lt = 0, lp = 0, lc = 0;
  for (int l = 0; l < w->num_loops; ++l) {
    if (w->loop_kinds[l] == PRUNER_LOOP_PARALLEL) {
      if (lw < sizeof(wg))
        lw += (size_t)snprintf(wg + lw, sizeof(wg) - lw, "%s%lld", lw ? "x" : "",
                               (long long)config->workgroup[l]);
      if (lc < sizeof(ca))
        lc += (size_t)snprintf(
            ca + lc, sizeof(ca) - lc, "%s%lld", lc ? "x" : " c",
            (long long)(config->cache[l] ? config->cache[l] : config->workgroup[l]));
      if (lt < sizeof(th))
        lt += (size_t)snprintf(th + lt, sizeof(th) - lt, "%s%lld", lt ? "x" : "",
                               (long long)config->thread[l]);
    } else if (lr < sizeof(red)) {
      lr += (size_t)snprintf(red + lr, sizeof(red) - lr, "%s%lld", lr ? "x" : "",
                             (long long)config->reduction[l]);
    }
  }
  for (int i = 0; i < 32 && lp + 1 < sizeof(pr); ++i)
    if (config->promote_operands & (1u << i))
      lp += (size_t)snprintf(pr + lp, sizeof(pr) - lp, "%d", i);
  if (!prunerConfigHasCache(config))
    ca[0] = '\0'; /* " c..." only for configs with a cache tile of their own */
  if (config->mma) { /* "w": the thread entries are warp tiles; "p01": staged; "s3": stages */
    char st[16] = "";
    if (prunerConfigStages(config) > 1)
      snprintf(st, sizeof st, " s%d", (int)prunerConfigStages(config));
    return snprintf(buf, size, "wg%s r%s w%s mma%d%s%s%s", wg, lr ? red : "-", th,
                    (int)config->mma, lp ? " p" : "", lp ? pr : "", st);
  }
  if (prunerConfigReductionThreads(config) > 1)
    return snprintf(buf, size, "wg%s r%s t%s p%s v%d x%d%s", wg, lr ? red : "-", th, lp ? pr : "-",
                    (int)config->vector_width, (int)config->reduction_threads, ca);
  if (prunerConfigSplitK(config) > 1) /* "k8": eight slices of the reduction over blocks */
    return snprintf(buf, size, "wg%s r%s t%s p%s v%d k%d", wg, lr ? red : "-", th, lp ? pr : "-",
                    (int)config->vector_width, (int)config->split_k);
  return snprintf(buf, size, "wg%s r%s t%s p%s v%d%s", wg, lr ? red : "-", th, lp ? pr : "-",
                  (int)config->vector_width, ca);
}

void prunerConfigCacheLoops(const PrunerWorkload *w, int *inner, int *outer) {
  *inner = *outer = -1;
  for (int l = w->num_loops - 1; l >= 0; --l) {
    if (w->loop_kinds[l] != PRUNER_LOOP_PARALLEL)
      continue;
    if (*inner < 0)
      *inner = l;
    else if (*outer < 0)
      *outer = l;
  }
}

static int64_t cacheSplitOf(const PrunerConfig *c, int l) {
  if (l < 0 || c->cache[l] == 0)
    return 1;
  if (c->cache[l] < 0 || c->workgroup[l] % c->cache[l])
    return -1;
  return c->workgroup[l] / c->cache[l];
}

int64_t prunerConfigCacheSplit(const PrunerWorkload *w, const PrunerConfig *c) {
  int inner, outer;
  prunerConfigCacheLoops(w, &inner, &outer);
  int64_t a = cacheSplitOf(c, inner), b = cacheSplitOf(c, outer);
  if (a < 1 || b < 1 || a > 255)
    return -1;
  return a + 256 * b;
}

void prunerConfigSetCacheSplit(const PrunerWorkload *w, int64_t value, PrunerConfig *c) {
  int loops[2];
  prunerConfigCacheLoops(w, &loops[0], &loops[1]);
  int64_t split[2] = {value % 256, value / 256};
  for (int i = 0; i < 2; ++i) {
    int l = loops[i];
    if (l < 0)
      continue;
    int64_t wg = c->workgroup[l];
    /* Split 1 is the workgroup tile (0); one that does not divide it decodes to a tile
     * larger than the workgroup tile, so that no two digits give the same valid config. */
    c->cache[l] = split[i] <= 1 ? 0 : (wg % split[i] ? wg * split[i] : wg / split[i]);
  }
}

bool prunerConfigSameRegisterStep(const PrunerWorkload *w, const PrunerConfig *a,
                                  const PrunerConfig *b) {
  if (memcmp(a->thread, b->thread, sizeof a->thread) != 0)
    return false;
  /* A conv's innermost step unrolls its filter-window steps (kw = 3: three taps' FMAs in
   * one body), so they shape the step as much as the thread tile does. */
  for (int l = 0; l < w->num_loops; ++l) {
    PrunerLoopRole role = w->loop_roles[l];
    if (role != PRUNER_ROLE_FILTER_H && role != PRUNER_ROLE_FILTER_W)
      continue;
    /* 0 is the untiled loop: one step of the whole window. */
    int64_t sa = a->reduction[l] > 0 ? a->reduction[l] : w->bounds[l];
    int64_t sb = b->reduction[l] > 0 ? b->reduction[l] : w->bounds[l];
    if (sa != sb)
      return false;
  }
  return true;
}

void prunerConfigFirstBatchOrder(const PrunerWorkload *w, const PrunerConfig *ranked, size_t n,
                                 size_t batch, double share, size_t *order) {
  for (size_t i = 0; i < n; ++i)
    order[i] = i;
  size_t last = batch < n ? batch : n;
  size_t from = batch - (size_t)lround(fmin(fmax(share, 0.0), 1.0) * (double)batch);
  for (size_t slot = from; slot < last; ++slot) {
    size_t found = n;
    for (size_t k = slot; k < n && found == n; ++k) {
      bool seen = false;
      for (size_t j = 0; j < slot && !seen; ++j)
        seen = prunerConfigSameRegisterStep(w, &ranked[order[j]], &ranked[order[k]]);
      if (!seen)
        found = k;
    }
    if (found == n)
      return; /* every tile is in the batch: rank order from here */
    size_t moved = order[found];
    memmove(&order[slot + 1], &order[slot], (found - slot) * sizeof *order);
    order[slot] = moved;
  }
}

bool prunerConfigEqual(const PrunerConfig *a, const PrunerConfig *b) {
  for (int l = 0; l < PRUNER_MAX_LOOPS; ++l)
    if (a->workgroup[l] != b->workgroup[l] || a->reduction[l] != b->reduction[l] ||
        a->thread[l] != b->thread[l] || a->cache[l] != b->cache[l])
      return false;
  return a->promote_operands == b->promote_operands && a->vector_width == b->vector_width &&
         prunerConfigReductionThreads(a) == prunerConfigReductionThreads(b) && a->mma == b->mma &&
         prunerConfigStages(a) == prunerConfigStages(b) &&
         prunerConfigSplitK(a) == prunerConfigSplitK(b);
}

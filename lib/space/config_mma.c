/* Tensor-core configs (mma = PRUNER_MMA_M16N8K16): their rules, launch shape and the
 * space's candidates. The schedule (lib/schedule/mma.c) tiles blocks, then warps, then K,
 * vectorizes each warp's K step into vector.contract ops unrolled to 16x8x16 and lets
 * MLIR's convert-vector-to-gpu{use-nvgpu} turn them into nvgpu.mma.sync (PTX
 * mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32). With promote_operands = [0, 1] the
 * block's A and B tiles are staged in shared memory per K step (cp.async, ldmatrix); the
 * space lists every tile choice both ways. docs/config.md ("mma") lists the rules and why
 * each exists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "space_mma.h"

/* PTX ISA, "Matrix shape" of mma.m16n8k16 (warp-level matrix multiply-accumulate):
 * A 16x16, B 16x8, C/D 16x8 per warp; f16 inputs need sm_80 for this shape. */
#define MMA_M 16
#define MMA_N 8
#define MMA_K 16
#define WARP 32
/* Accumulator registers per thread: a warp tile of wm x wn f32 holds wm*wn/32 per thread.
 * 64 leaves room under the 255-register cap for the A and B fragments and addresses (the
 * same budget as the FMA space's max_thread_elements). */
#define MAX_ACC_PER_THREAD 64
/* mma.sync ops per warp per K step after unrolling (wm/16 * wn/8 * ks/16): bounds the
 * unrolled body as max_unrolled_body does for FMA configs (compile cost). */
#define MAX_MMA_PER_STEP 64
/* Largest K step the space offers (the schedule accepts any multiple of 16). */
#define MAX_K_STEP 64

#define GRID_X_MAX 2147483647LL
#define GRID_YZ_MAX 65535LL

#define FAIL(...)                                                                                  \
  do {                                                                                             \
    if (status)                                                                                    \
      *status = prunerStatusError(__VA_ARGS__);                                                    \
    return false;                                                                                  \
  } while (0)

/* The loops of a matmul (m, n, k) or batch_matmul (b, m, n, k); -1 when absent. */
typedef struct MmaLoops {
  int b, m, n, k;
} MmaLoops;

static MmaLoops mmaLoops(const PrunerWorkload *w) {
  MmaLoops r = {-1, -1, -1, -1};
  for (int l = 0; l < w->num_loops; ++l) {
    switch (w->loop_roles[l]) {
    case PRUNER_ROLE_BATCH:
      r.b = l;
      break;
    case PRUNER_ROLE_M:
      r.m = l;
      break;
    case PRUNER_ROLE_N:
      r.n = l;
      break;
    case PRUNER_ROLE_K:
      r.k = l;
      break;
    default:
      break;
    }
  }
  return r;
}

/* Operand dim `d` is exactly loop `l` (coefficient 1, no other loop). */
static bool dimIsLoop(const PrunerOperand *o, int d, int l, int num_loops) {
  for (int j = 0; j < num_loops; ++j)
    if (o->index_coeff[d][j] != (j == l ? 1 : 0))
      return false;
  return true;
}

bool prunerMmaWorkloadOk(const PrunerWorkload *w, const PrunerTargetDesc *t, PrunerStatus *status) {
  /* iree-cuda: the same configs, stated as IREE's mma_kind (lib/backend/iree). */
  if ((t->kind != PRUNER_TARGET_GPU && t->kind != PRUNER_TARGET_IREE_CUDA) ||
      t->compute_capability < 80)
    FAIL("mma = %d (mma.sync m16n8k16 with f16 inputs) needs an NVIDIA GPU of compute "
         "capability 8.0 or later; target %s is %d",
         PRUNER_MMA_M16N8K16, t->name, t->compute_capability);
  if (w->kind != PRUNER_OP_MATMUL && w->kind != PRUNER_OP_BATCH_MATMUL)
    FAIL("mma on %s (%s): tensor-core configs are scheduled for linalg.matmul and "
         "linalg.batch_matmul only",
         w->op_name, prunerOpKindName(w->kind));
  if (w->num_inputs != 2 || w->num_outputs != 1)
    FAIL("mma on %s: expected 2 inputs and 1 output", w->op_name);
  PrunerDType a = w->operands[0].dtype, b = w->operands[1].dtype, c = w->operands[2].dtype;
  if (a == PRUNER_DTYPE_BF16 || b == PRUNER_DTYPE_BF16)
    FAIL("mma on %s: bf16 inputs are not supported: MLIR 22's convert-vector-to-gpu "
         "(use-nvgpu) cannot convert a bf16 contract's operand loads, and a bf16 "
         "nvgpu.mma.sync fails in convert-nvgpu-to-nvvm (\"failed to deduce operand PTX "
         "types\"; docs/schedule.md, \"Tensor cores\"); use f16 inputs or an FMA config",
         w->op_name);
  if (a != PRUNER_DTYPE_F16 || b != PRUNER_DTYPE_F16 || c != PRUNER_DTYPE_F32)
    FAIL("mma on %s: inputs %s x %s -> %s; mma.sync m16n8k16 is scheduled for f16 x f16 -> f32",
         w->op_name, prunerDTypeName(a), prunerDTypeName(b), prunerDTypeName(c));
  MmaLoops L = mmaLoops(w);
  bool batched = w->kind == PRUNER_OP_BATCH_MATMUL;
  if (L.m < 0 || L.n < 0 || L.k < 0 || (batched && L.b < 0))
    FAIL("mma on %s: the op's loops are not (b,) m, n, k", w->op_name);
  /* The layout the schedule was checked with: A[.., m, k], B[.., k, n], C[.., m, n]. */
  const PrunerOperand *A = &w->operands[0], *B = &w->operands[1], *C = &w->operands[2];
  int o = batched ? 1 : 0;
  if (A->rank != 2 + o || B->rank != 2 + o || C->rank != 2 + o ||
      !dimIsLoop(A, o, L.m, w->num_loops) || !dimIsLoop(A, o + 1, L.k, w->num_loops) ||
      !dimIsLoop(B, o, L.k, w->num_loops) || !dimIsLoop(B, o + 1, L.n, w->num_loops) ||
      !dimIsLoop(C, o, L.m, w->num_loops) || !dimIsLoop(C, o + 1, L.n, w->num_loops))
    FAIL("mma on %s: operands are not laid out A[m, k], B[k, n], C[m, n] (a transposed "
         "operand); only that layout is scheduled on tensor cores",
         w->op_name);
  return true;
}

/* Warps of a block: the product over M and N of workgroup / warp tile. */
static int64_t mmaWarps(const PrunerConfig *c, MmaLoops L) {
  return (c->workgroup[L.m] / c->thread[L.m]) * (c->workgroup[L.n] / c->thread[L.n]);
}

bool prunerMmaConfigCheck(const PrunerWorkload *w, const PrunerTargetDesc *t,
                          const PrunerSpaceOptions *opts, const PrunerConfig *c,
                          PrunerStatus *status) {
  (void)opts;
  if (c->mma != PRUNER_MMA_M16N8K16)
    FAIL("mma = %d on %s: the only tensor-core kind is %d (mma.sync m16n8k16)", (int)c->mma,
         w->op_name, PRUNER_MMA_M16N8K16);
  if (!prunerMmaWorkloadOk(w, t, status))
    return false;
  MmaLoops L = mmaLoops(w);
  if (c->promote_operands && c->promote_operands != PRUNER_MMA_STAGED_OPERANDS)
    FAIL("mma on %s: promote_operands must be [] (fragments read from global memory) or "
         "[0, 1] (both tiles staged in shared memory)",
         w->op_name);
  if (c->promote_operands && t->kind != PRUNER_TARGET_GPU)
    FAIL("mma on %s: promote_operands = [0, 1] (shared-memory staging) is scheduled for the "
         "project's own GPU targets; %s stages tensor-core operands itself",
         w->op_name, t->name);
  if (c->vector_width != 1)
    FAIL("mma on %s: vector_width = %d; tensor-core configs take 1 (fragment loads are "
         "chosen by the mma lowering)",
         w->op_name, (int)c->vector_width);
  if (prunerConfigReductionThreads(c) > 1)
    FAIL("mma on %s: reduction_threads = %d; tensor-core configs split no reduction across "
         "threads",
         w->op_name, (int)c->reduction_threads);
  if (L.b >= 0 && (c->workgroup[L.b] != 1 || c->thread[L.b] != 1))
    FAIL("mma on %s: batch loop %d needs workgroup and thread (warp) tile 1, got %lld and %lld",
         w->op_name, L.b, (long long)c->workgroup[L.b], (long long)c->thread[L.b]);
  int64_t wm = c->thread[L.m], wn = c->thread[L.n], ks = c->reduction[L.k];
  if (wm % MMA_M || wn % MMA_N)
    FAIL("mma on %s: warp tile %lld x %lld (thread entries of loops m and n) must be "
         "multiples of 16 x 8, the m16n8k16 shape",
         w->op_name, (long long)wm, (long long)wn);
  if (ks % MMA_K)
    FAIL("mma on %s: K step %lld (reduction entry of loop k) must be a multiple of 16", w->op_name,
         (long long)ks);
  if (ks >= w->bounds[L.k])
    FAIL("mma on %s: K step %lld must be smaller than K = %lld: the schedule outlines the "
         "K loop to convert it to mma.sync on its own (docs/schedule.md, \"Tensor cores\")",
         w->op_name, (long long)ks, (long long)w->bounds[L.k]);
  if (wm * wn / WARP > MAX_ACC_PER_THREAD)
    FAIL("mma on %s: warp tile %lld x %lld keeps %lld f32 accumulators per thread; at most %d",
         w->op_name, (long long)wm, (long long)wn, (long long)(wm * wn / WARP), MAX_ACC_PER_THREAD);
  int64_t per_step = (wm / MMA_M) * (wn / MMA_N) * (ks / MMA_K);
  if (per_step > MAX_MMA_PER_STEP)
    FAIL("mma on %s: warp tile %lld x %lld and K step %lld unroll %lld mma.sync per step; at "
         "most %d (compile cost)",
         w->op_name, (long long)wm, (long long)wn, (long long)ks, (long long)per_step,
         MAX_MMA_PER_STEP);
  int64_t threads = WARP * mmaWarps(c, L);
  if (threads > t->max_threads_per_block)
    FAIL("mma on %s: %lld warps per block (%lld threads); %s allows %d threads", w->op_name,
         (long long)mmaWarps(c, L), (long long)threads, t->name, t->max_threads_per_block);
  /* ptxas fits a block into the register file: 1024 threads get 64 registers each, and
   * 64 accumulators then spilled 0.6-2.2 KB per thread in the compile study
   * (docs/compile.md). Accumulators + 24 (the draft's fitted estimate) must fit. */
  int64_t budget = t->regs_per_block / threads;
  if (wm * wn / WARP + 24 > budget)
    FAIL("mma on %s: warp tile %lld x %lld keeps %lld accumulators per thread; with %lld "
         "threads per block ptxas has %lld registers per thread and would spill",
         w->op_name, (long long)wm, (long long)wn, (long long)(wm * wn / WARP), (long long)threads,
         (long long)budget);
  int stages = prunerConfigStages(c);
  if (c->stages < 0 || stages > PRUNER_MAX_STAGES)
    FAIL("mma on %s: stages = %d; 1 to %d", w->op_name, (int)c->stages, PRUNER_MAX_STAGES);
  if (stages > 1 && !c->promote_operands)
    FAIL("mma on %s: stages = %d needs promote_operands = [0, 1] (the stages are shared "
         "buffers)",
         w->op_name, stages);
  if (stages > 1 && w->bounds[L.k] / ks < stages)
    FAIL("mma on %s: stages = %d with %lld K steps; the pipeline fills %d steps ahead, so K / K "
         "step must be at least the stages",
         w->op_name, stages, (long long)(w->bounds[L.k] / ks), stages);
  if (stages > 1) {
    /* nvgpu's pipeliner finds a step's copies only at the top of the K loop: a copy with
     * fewer 16-byte pieces than the block has threads is predicated (scf.if) and is not
     * found ("cannot find stage 0 ops"). */
    for (int i = 0; i < 2; ++i) {
      int64_t tile[PRUNER_MAX_RANK];
      int dim[PRUNER_MAX_RANK];
      int64_t used = prunerConfigCopySpread(w, c, threads, i, 8, tile, dim);
      if (used != threads)
        FAIL("mma on %s: stages = %d: the copy of operand %d's tile keeps %lld of the block's "
             "%lld threads busy; a pipelined copy must use every thread (nvgpu's pipeliner "
             "does not find predicated copies)",
             w->op_name, stages, i, (long long)used, (long long)threads);
    }
  }
  if (c->promote_operands) {
    /* Staged: the A (bm x ks) and B (ks x bn) f16 tiles of one K step in shared memory, one
     * set per stage, statically allocated (module globals), so within the static limit. */
    int64_t smem = prunerMmaStagedBytes(w, c);
    if (smem > t->smem_per_block_static)
      FAIL("mma on %s: promote_operands = [0, 1] stages %lld bytes (A and B tiles of a K "
           "step, %d stage(s)); %s allows %d per block (static allocation limit)",
           w->op_name, (long long)smem, stages, t->name, t->smem_per_block_static);
  }
  /* Grid: M, N and batch blocks on at most three dimensions within CUDA's limits. */
  int g = 0;
  for (int l = w->num_loops - 1; l >= 0; --l) {
    if (w->loop_kinds[l] != PRUNER_LOOP_PARALLEL)
      continue;
    int64_t blocks = w->bounds[l] / c->workgroup[l];
    if (blocks <= 1)
      continue;
    if (blocks > (g == 0 ? GRID_X_MAX : GRID_YZ_MAX))
      FAIL("mma on %s: %lld blocks along loop %d exceed the grid limit", w->op_name,
           (long long)blocks, l);
    ++g;
  }
  return true;
}

void prunerMmaLaunchShape(const PrunerWorkload *w, const PrunerConfig *c, PrunerLaunchShape *out) {
  memset(out, 0, sizeof(*out));
  for (int i = 0; i < 3; ++i) {
    out->grid[i] = out->block[i] = 1;
    out->grid_loop[i] = out->block_loop[i] = -1;
  }
  int g = 0;
  for (int l = w->num_loops - 1; l >= 0 && g < 3; --l) {
    if (w->loop_kinds[l] != PRUNER_LOOP_PARALLEL || c->workgroup[l] < 1)
      continue;
    int64_t blocks = w->bounds[l] / c->workgroup[l];
    if (blocks > 1) {
      out->grid[g] = blocks;
      out->grid_loop[g++] = l;
    }
  }
  MmaLoops L = mmaLoops(w);
  int64_t warps = 1;
  if (L.m >= 0 && L.n >= 0 && c->thread[L.m] > 0 && c->thread[L.n] > 0)
    warps = mmaWarps(c, L);
  out->block[0] = WARP * warps; /* warps are linear ids: thread x / 32 */
  out->blocks = out->grid[0] * out->grid[1] * out->grid[2];
  out->threads_per_block = out->block[0];
  out->smem_bytes = c->promote_operands ? prunerMmaStagedBytes(w, c) : 0;
}

int64_t prunerMmaStagedBytes(const PrunerWorkload *w, const PrunerConfig *c) {
  MmaLoops L = mmaLoops(w);
  if (L.m < 0 || L.n < 0 || L.k < 0)
    return 0;
  int64_t bm = c->workgroup[L.m], bn = c->workgroup[L.n], ks = c->reduction[L.k];
  int stages = prunerConfigStages(c);
  if (stages == 1)
    return (bm * ks + ks * bn) * 2; /* f16 */
  /* Pipelined: the rows padded against ldmatrix bank conflicts, one set per stage. */
  return (bm * prunerStagedRowElems(ks, 2) + ks * prunerStagedRowElems(bn, 2)) * 2 * stages;
}

/* Candidate values: block tiles are powers of two from the mma shape up to
 * max_workgroup_tile; warp tiles from the shape up to 64. */
static int tileValues(int64_t bound, int64_t unit, int64_t max, int64_t *out) {
  int n = 0;
  for (int64_t v = unit; v <= bound && v <= max; v *= 2)
    if (bound % v == 0)
      out[n++] = v;
  return n;
}

long prunerMmaCandidates(const PrunerWorkload *w, const PrunerTargetDesc *t,
                         const PrunerSpaceOptions *opts, PrunerConfig **out) {
  *out = NULL;
  if (!prunerMmaWorkloadOk(w, t, NULL))
    return 0;
  MmaLoops L = mmaLoops(w);
  int64_t wgm[16], wgn[16], wpm[8], wpn[8], ksv[8];
  int nwgm = tileValues(w->bounds[L.m], MMA_M, opts->max_workgroup_tile, wgm);
  int nwgn = tileValues(w->bounds[L.n], MMA_N, opts->max_workgroup_tile, wgn);
  int nwpm = tileValues(w->bounds[L.m], MMA_M, 64, wpm);
  int nwpn = tileValues(w->bounds[L.n], MMA_N, 64, wpn);
  int nks = tileValues(w->bounds[L.k], MMA_K, MAX_K_STEP, ksv);
  size_t cap = (1 + PRUNER_MAX_STAGES) * (size_t)nwgm * nwgn * nwpm * nwpn * nks; /* + staged */
  if (!cap)
    return 0;
  PrunerConfig *list = malloc(cap * sizeof *list);
  if (!list)
    return -1;
  long n = 0;
  for (int a = 0; a < nwgm; ++a)
    for (int b = 0; b < nwgn; ++b)
      for (int i = 0; i < nwpm; ++i)
        for (int j = 0; j < nwpn; ++j)
          for (int k = 0; k < nks; ++k) {
            if (wgm[a] % wpm[i] || wgn[b] % wpn[j])
              continue;
            PrunerConfig c;
            memset(&c, 0, sizeof c);
            c.vector_width = 1;
            c.mma = PRUNER_MMA_M16N8K16;
            if (L.b >= 0)
              c.workgroup[L.b] = c.thread[L.b] = 1;
            c.workgroup[L.m] = wgm[a];
            c.workgroup[L.n] = wgn[b];
            c.thread[L.m] = wpm[i];
            c.thread[L.n] = wpn[j];
            c.reduction[L.k] = ksv[k];
            if (prunerConfigIsValidWithOptions(w, t, opts, &c))
              list[n++] = c;
            /* The same tiles with both operands staged in shared memory (fragments by
             * ldmatrix): one buffer, or a pipeline of 2 or 3. */
            c.promote_operands = PRUNER_MMA_STAGED_OPERANDS;
            for (int s = 1; s <= PRUNER_MAX_STAGES && t->kind == PRUNER_TARGET_GPU; ++s) {
              c.stages = s > 1 ? s : 0;
              if (prunerConfigIsValidWithOptions(w, t, opts, &c))
                list[n++] = c;
            }
          }
  if (!n) {
    free(list);
    return 0;
  }
  *out = list;
  return n;
}

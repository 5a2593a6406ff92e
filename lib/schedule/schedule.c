/* lib/schedule/schedule.c: a config turned into a transform-dialect schedule.
 *
 * The schedule module holds five named sequences so that several configured ops of one
 * module can be transformed together (bufferization is module-wide and must run once):
 *   @pruner_tile      (per op) tile to blocks, fuse the fill, tile to threads, fuse the
 *                     fill again, tile the reduction loops inside each thread, decompose
 *                     convolutions to 1-D, vectorize, hoist the accumulator;
 *   @pruner_bufferize (module) one-shot bufferize, staged vector lowering to 1-D;
 *   @pruner_promote   (per op) promoted configs only: stage operand tiles in shared
 *                     memory with cooperative copies, tile the compute to threads;
 *   @pruner_map       (per op) remaining linalg ops to loops, then map the block forall
 *                     to a gpu.launch and its nested forall to threads;
 *   @pruner_cleanup   (module) canonicalize, cse, sink index math into the launches.
 * @__transform_main runs them in order for one op. docs/schedule.md gives the why of
 * each step and the measured facts behind them (G1-G9). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pruner/schedule.h"
#include "schedule_internal.h"
#include "pruner/text.h"

PrunerScheduleOptions prunerScheduleDefaultOptions(void) {
  PrunerScheduleOptions o;
  o.gpu_mapping = true;
  o.match_attr = NULL;
  o.fuse_consumer = false;
  o.fill = PRUNER_SCHEDULE_FILL_BY_KIND;
  return o;
}

static const char kDim[3] = {'x', 'y', 'z'};

/* Everything the emitter needs about one op's tiling, derived from the config. */
typedef struct Plan {
  int n;                               /* loops */
  int64_t block_tile[PRUNER_MAX_LOOPS];  /* 0: loop not split across blocks */
  int block_dim[PRUNER_MAX_LOOPS];       /* gpu dim (0 x, 1 y, 2 z) per tiled loop */
  int64_t thread_tile[PRUNER_MAX_LOOPS]; /* 0: loop not split across threads */
  int thread_dim[PRUNER_MAX_LOOPS];
  int64_t inner_step[PRUNER_MAX_LOOPS];  /* scf.for steps inside a thread; 0: no loop */
  int64_t grid[3], block[3];
  bool decompose;  /* 2-D conv -> 1-D conv (kh = oh = 1 inside the thread) */
  bool vectorize;
  /* Some block-level reduction loop has two steps or more, so the K-step op has a parent
   * scf.for after tiling (a single step leaves no loop: canonicalization drops it). */
  bool k_loop;
  bool fill;
  /* Shared-memory promotion (contractions): the operands staged per block K step, and
   * for each one the per-thread tile of its cooperative copy (0: dim not split) and the
   * linear thread dimension each split dim maps to. */
  uint32_t promote;
  int num_promoted;
  int promoted[PRUNER_MAX_OPERANDS];
  int copy_rank[PRUNER_MAX_OPERANDS];
  int64_t copy_tile[PRUNER_MAX_OPERANDS][PRUNER_MAX_RANK];
  int copy_dim[PRUNER_MAX_OPERANDS][PRUNER_MAX_RANK];
  /* Block and thread tiling over the output's dims: the fill's own thread forall (promoted
   * path) and the fused elementwise consumer's foralls. */
  int out_rank;
  int64_t out_block_tile[PRUNER_MAX_RANK];
  int out_block_dim[PRUNER_MAX_RANK];
  int64_t fill_tile[PRUNER_MAX_RANK];
  int fill_dim[PRUNER_MAX_RANK];
  bool consumer; /* an elementwise consumer is tiled and the op fused into it */
  /* Cross-thread reduction (reduction_threads > 1): the threads of x split the reduction
   * loop `red_loop`, each stepping by red_step; 0: one thread per output. */
  int64_t xthreads;
  int red_loop;
  int64_t red_step;
  /* The combine's first level (prunerConfigCombineFirstTile): elements of the output's
   * last dim per thread; 0: one level. */
  int64_t combine_tile;
  bool gpu_shared; /* partials in NVVM shared memory (address space 3); off for host checks */
  /* Split-K over blocks (split_k > 1): the slices' grid dimension, and the grid of the
   * combining kernel (the op's own grid, without the slices). */
  int64_t split_k;
  int split_dim;
  int64_t combine_grid[3];
  /* Implicit-GEMM conv (promote_operands on a conv_2d_nhwc_hwcf): the plan is the GEMM's;
   * the im2col op is fused into the block's K step and its tile (rank 3: n, m, k), built
   * in shared memory, is spread over the block's threads like a copy. `promote` then
   * holds the filter (operand 1) only, staged by structured.promote. */
  bool igemm;
  int64_t img_tile[3];
  int img_dim[3];
  /* Tensor cores (mma.c): the config and its launch shape; NULL for FMA schedules. */
  const PrunerConfig *mma;
  const PrunerWorkload *mma_w;
  PrunerLaunchShape mma_shape;
} Plan;

static int findRole(const PrunerWorkload *w, PrunerLoopRole role) {
  for (int l = 0; l < w->num_loops; ++l)
    if (w->loop_roles[l] == role)
      return l;
  return -1;
}

static int innermostParallel(const PrunerWorkload *w) {
  for (int l = w->num_loops - 1; l >= 0; --l)
    if (w->loop_kinds[l] == PRUNER_LOOP_PARALLEL)
      return l;
  return -1;
}

static bool isContractionKind(PrunerOpKind kind) {
  return kind == PRUNER_OP_MATMUL || kind == PRUNER_OP_BATCH_MATMUL ||
         kind == PRUNER_OP_CONTRACTION;
}


static void planCopy(const PrunerWorkload *w, const PrunerConfig *c, int64_t threads, int i,
                     Plan *p) {
  int operand = p->promoted[i];
  p->copy_rank[i] = w->operands[operand].rank;
  prunerConfigCopySpread(w, c, threads, operand, c->vector_width, p->copy_tile[i],
                              p->copy_dim[i]);
}

/* Implicit GEMM: the plan of the GEMM (w, c), less operand 0 from the promoted list (the
 * im2col op writes its tile into shared memory itself, one element per thread and step:
 * scalar, since its index maps have floordiv / mod). */
static void planImplicitGemm(const PrunerWorkload *w, const PrunerConfig *c, Plan *p) {
  p->igemm = true;
  int kept = 0;
  for (int i = 0; i < p->num_promoted; ++i) {
    if (p->promoted[i] == 0)
      continue;
    p->promoted[kept] = p->promoted[i];
    p->copy_rank[kept] = p->copy_rank[i];
    memcpy(p->copy_tile[kept], p->copy_tile[i], sizeof p->copy_tile[i]);
    memcpy(p->copy_dim[kept], p->copy_dim[i], sizeof p->copy_dim[i]);
    ++kept;
  }
  p->num_promoted = kept;
  p->promote &= ~1u;
  int64_t threads = p->block[0] * p->block[1] * p->block[2];
  prunerConfigCopySpread(w, c, threads, 0, 1, p->img_tile, p->img_dim);
}

/* Promotion stages input tiles through shared memory per block-level K step: the K loop
 * moves out of the thread forall to the block, the copies are tiled over the block's
 * threads, and the fill gets its own thread forall (docs/schedule.md). */
static PrunerStatus planPromotion(const PrunerWorkload *w, const PrunerConfig *c,
                                  const PrunerLaunchShape *ls, Plan *p) {
  if (!isContractionKind(w->kind))
    return prunerStatusError("schedule for %s: promote_operands is scheduled for contractions "
                             "only (matmul, batch_matmul, contraction), not %s",
                             w->op_name, prunerOpKindName(w->kind));
  p->promote = c->promote_operands;
  for (int o = 0; o < w->num_inputs + w->num_outputs; ++o) {
    if (!(c->promote_operands & (1u << o)))
      continue;
    if (o >= w->num_inputs)
      return prunerStatusError("schedule for %s: promote_operands names output operand %d; "
                               "only inputs are staged in shared memory",
                               w->op_name, o);
    if (w->operands[o].rank < 1)
      return prunerStatusError("schedule for %s: promote_operands names scalar operand %d",
                               w->op_name, o);
    p->promoted[p->num_promoted++] = o;
  }
  for (int i = 0; i < p->num_promoted; ++i)
    planCopy(w, c, ls->threads_per_block, i, p);
  return prunerStatusOk();
}

/* The op's block and thread tiles carried over to its output's dims (contractions'
 * outputs are projected permutations of the loops). */
static void planOutputTiles(const PrunerWorkload *w, Plan *p) {
  const PrunerOperand *out = &w->operands[w->num_inputs];
  p->out_rank = out->rank;
  for (int d = 0; d < out->rank; ++d) {
    p->fill_tile[d] = p->out_block_tile[d] = 0;
    p->fill_dim[d] = p->out_block_dim[d] = -1;
    for (int l = 0; l < p->n; ++l) {
      if (!out->index_coeff[d][l])
        continue;
      if (p->thread_dim[l] >= 0) {
        p->fill_tile[d] = p->thread_tile[l];
        p->fill_dim[d] = p->thread_dim[l];
      }
      if (p->block_dim[l] >= 0) {
        p->out_block_tile[d] = p->block_tile[l];
        p->out_block_dim[d] = p->block_dim[l];
      }
    }
  }
}

static PrunerStatus makePlan(const PrunerWorkload *w, const PrunerConfig *c,
                             const PrunerScheduleOptions *opts, Plan *p) {
  memset(p, 0, sizeof *p);
  p->n = w->num_loops;
  for (int l = 0; l < p->n; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION && c->reduction[l] > 0 &&
        c->reduction[l] < w->bounds[l])
      p->k_loop = true;
  PrunerLaunchShape ls;
  prunerConfigLaunchShape(w, c, &ls);
  for (int d = 0; d < 3; ++d) {
    p->grid[d] = ls.grid[d];
    p->block[d] = ls.block[d];
  }
  for (int l = 0; l < p->n; ++l)
    p->block_dim[l] = p->thread_dim[l] = -1;
  for (int d = 0; d < 3; ++d)
    p->combine_grid[d] = ls.grid[d];
  for (int d = 0; d < 3; ++d) {
    int l = ls.grid_loop[d];
    if (l >= 0 && l < p->n && w->loop_kinds[l] == PRUNER_LOOP_REDUCTION) {
      /* Split-K: the slices walk this grid dimension (prunerConfigLaunchShape). */
      p->split_k = prunerConfigSplitK(c);
      p->split_dim = d;
      p->combine_grid[d] = 1;
    } else if (l >= 0 && l < p->n) {
      p->block_tile[l] = c->workgroup[l];
      p->block_dim[l] = d;
    }
    l = ls.block_loop[d];
    if (l >= 0 && l < p->n) {
      p->thread_tile[l] = c->thread[l];
      p->thread_dim[l] = d;
    }
  }
  int inner = innermostParallel(w);
  if (inner < 0)
    return prunerStatusError("schedule for %s: the op has no parallel loop to map to threads",
                             w->op_name);
  if (c->mma) { /* warps, not threads: mma.c tiles from the config itself */
    p->mma = c;
    p->mma_w = w;
    p->mma_shape = ls;
    p->gpu_shared = opts->gpu_mapping; /* staged tiles in GPU shared memory */
    p->fill = opts->fill == PRUNER_SCHEDULE_FILL_BY_KIND ? prunerScheduleHasFill(w)
                                                         : opts->fill == PRUNER_SCHEDULE_FILL_TAGGED;
    return prunerStatusOk();
  }
  if (prunerConfigReductionThreads(c) > 1) {
    /* prunerConfigCheck holds: one reduction loop, the last; thread tiles = workgroup tiles. */
    p->xthreads = prunerConfigReductionThreads(c);
    p->red_loop = p->n - 1;
    p->red_step = c->reduction[p->red_loop];
    p->combine_tile = prunerConfigCombineFirstTile(w, c);
    p->gpu_shared = opts->gpu_mapping;
  }
  bool any_block = false, any_thread = false;
  for (int l = 0; l < p->n; ++l) {
    if (w->loop_kinds[l] != PRUNER_LOOP_PARALLEL)
      continue;
    /* The launch shape must account for every split loop, or the schedule would drop it. */
    if (c->workgroup[l] < w->bounds[l] && p->block_dim[l] < 0)
      return prunerStatusError("schedule for %s: workgroup tile %lld of loop %d (bound %lld) "
                               "has no grid dimension",
                               w->op_name, (long long)c->workgroup[l], l, (long long)w->bounds[l]);
    if (c->thread[l] < c->workgroup[l] && p->thread_dim[l] < 0)
      return prunerStatusError("schedule for %s: thread tile %lld of loop %d (workgroup %lld) "
                               "has no block dimension",
                               w->op_name, (long long)c->thread[l], l, (long long)c->workgroup[l]);
    any_block |= p->block_dim[l] >= 0;
    any_thread |= p->thread_dim[l] >= 0;
  }
  /* A one-block (one-thread) launch still needs a mapped forall: tile the innermost
   * parallel loop by its whole extent and map it to x. */
  if (!any_block) {
    p->block_tile[inner] = c->workgroup[inner];
    p->block_dim[inner] = 0;
  }
  if (!any_thread) {
    p->thread_tile[inner] = c->thread[inner];
    p->thread_dim[inner] = 0;
  }
  for (int l = 0; l < p->n; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION && c->reduction[l] < w->bounds[l])
      p->inner_step[l] = c->reduction[l];

  bool conv2d = w->kind == PRUNER_OP_CONV_2D_NHWC_HWCF || w->kind == PRUNER_OP_CONV_2D_NCHW_FCHW ||
                w->kind == PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC;
  if (conv2d) {
    /* The vectorizer handles 1-D convolutions only; `decompose` rewrites a 2-D conv whose
     * kh and oh extents are 1 (docs/schedule.md, G5). So kh steps by 1 and oh is walked
     * one row at a time inside the thread. */
    int kh = findRole(w, PRUNER_ROLE_FILTER_H), oh = findRole(w, PRUNER_ROLE_OUT_H);
    if (kh < 0 || oh < 0)
      return prunerStatusError("schedule for %s: convolution without oh/kh loops", w->op_name);
    if (w->bounds[kh] > 1)
      p->inner_step[kh] = 1;
    if (c->thread[oh] > 1)
      p->inner_step[oh] = 1;
    p->decompose = true;
  }
  p->vectorize = c->vector_width > 1;
  /* A tagged fill (a reduction's init too) is fused like a contraction's: left outside the
   * kernel it would stay a linalg op on the host, which nothing lowers. */
  p->fill = opts->fill == PRUNER_SCHEDULE_FILL_BY_KIND ? prunerScheduleHasFill(w)
                                                       : opts->fill == PRUNER_SCHEDULE_FILL_TAGGED;
  if (p->fill && opts->fill == PRUNER_SCHEDULE_FILL_TAGGED && !opts->match_attr)
    return prunerStatusError("schedule for %s: a tagged fill needs match_attr", w->op_name);
  if (w->num_outputs == 1)
    planOutputTiles(w, p);
  if (c->promote_operands)
    return planPromotion(w, c, &ls, p);
  return prunerStatusOk();
}

/* Emits `tile_sizes [..] (mapping = [..])` for one forall level. */
static int appendForallTiles(PrunerText *t, int n, const int64_t *tile, const int *dim,
                             const char *kind) {
  bool linear = strcmp(kind, "linear") == 0;
  int count = 0, last = -1;
  for (int l = 0; l < n; ++l)
    if (tile[l] > 0)
      last = l;
  prunerTextAppend(t, "tile_sizes [");
  for (int l = 0; l <= last; ++l)
    prunerTextAppend(t, "%s%lld", l ? ", " : "", (long long)tile[l]);
  prunerTextAppend(t, "] (mapping = [");
  for (int l = 0; l <= last; ++l)
    if (tile[l] > 0)
    {
      if (linear)
        prunerTextAppend(t, "%s#gpu.thread<linear_dim_%d>", count++ ? ", " : "", dim[l]);
      else
        prunerTextAppend(t, "%s#gpu.%s<%c>", count++ ? ", " : "", kind, kDim[dim[l]]);
    }
  prunerTextAppend(t, "])");
  return count;
}

static void appendMatch(PrunerText *t, const char *result, const char *op_name,
                        const char *attr, const char *suffix, const char *in) {
  if (attr)
    prunerTextAppend(t, "    %s = transform.structured.match attributes{%s%s} in %s", result,
                     attr, suffix, in);
  else
    prunerTextAppend(t, "    %s = transform.structured.match ops{[\"%s\"]} in %s", result,
                     op_name, in);
  prunerTextAppend(t, " : (!transform.any_op) -> !transform.any_op\n");
}

#define ANY "!transform.any_op"

/* `%func`: the function that holds `of`. @pruner_tile canonicalizes only its own op's
 * function (@pruner_promote only the op's block forall): canonicalizing every function
 * of the module for every op made applying configs quadratic in the number of functions
 * (160 one-op functions: 33.7 s, now 3.5 s); @pruner_cleanup canonicalizes the whole
 * module once at the end. */
static void appendOwnFunction(PrunerText *t, const char *of) {
  prunerTextAppend(t, "    %%func = transform.get_parent_op %s {deduplicate, op_name = \"func.func\"} : (" ANY
                      ") -> " ANY "\n", of);
}

/* `<tiled>, <forall> = transform.structured.tile_using_forall <target> tile_sizes ..` for
 * one level (block, thread or a copy's linear threads). */
static void appendTileUsingForall(PrunerText *t, const char *tiled, const char *forall,
                                  const char *target, int n, const int64_t *tile,
                                  const int *dim, const char *kind) {
  prunerTextAppend(t, "    %s, %s = transform.structured.tile_using_forall %s ", tiled, forall,
                   target);
  appendForallTiles(t, n, tile, dim, kind);
  prunerTextAppend(t, " : (" ANY ") -> (" ANY ", " ANY ")\n");
}

/* Staged lowering of the vectors of `f` (a func handle) to 1-D: one combined pattern set
 * never converges (docs/schedule.md, G2). Idempotent on already lowered code, so the
 * promotion sequence can run it again for what it vectorizes after bufferization. */
static void appendVectorLowering(PrunerText *t, const char *f);

void prunerScheduleAppendVectorLowering(PrunerText *t, const char *f) {
  appendVectorLowering(t, f);
}

/* The outlined function keeps func-to-llvm's external linkage, so the PTX carries an
 * uncalled copy that ptxas leaves out of the cubin (same size either way). Internal
 * linkage would drop it from the PTX, but LLVM then inlines it earlier and the pipelined
 * tensor-core kernel of lit gpu-pipeline/mma-staged.mlir loses 32 of its 48 32-bit shared
 * loads to pairs of 16-bit ones (tried 2026-12-04, docs/schedule.md). */
void prunerScheduleAppendOutline(PrunerText *t, const char *in, const char *tag, const char *loop,
                                 const char *func_name) {
  if (in) {
    /* After the thread mapping: the tagged K loop; LICM takes what does not depend on the
     * step (the C view of the thread or warp, ids) out of it first, so that outlining makes
     * those arguments. */
    prunerTextAppend(t,
                     "    %%kl = transform.structured.match ops{[\"scf.for\"]} attributes{%s.kloop} "
                     "in %s : (" ANY ") -> " ANY "\n"
                     "    transform.apply_licm to %%kl : " ANY "\n",
                     tag, in);
    loop = "%kl";
  }
  prunerTextAppend(t,
                   "    %%kf, %%kcall = transform.loop.outline %s {func_name = \"%s\"} : (" ANY
                   ") -> (" ANY ", " ANY ")\n"
                   "    // Private, and internal to LLVM: LLVM inlines it into the kernel and then\n"
                   "    // drops it (an external one stayed in the PTX, compiled twice by ptxas).\n"
                   "    %%private = transform.param.constant \"private\" -> !transform.any_param\n"
                   "    transform.annotate %%kf \"sym_visibility\" = %%private : " ANY
                   ", !transform.any_param\n"
                   "    %%internal = transform.param.constant #llvm.linkage<internal> -> "
                   "!transform.any_param\n"
                   "    transform.annotate %%kf \"llvm.linkage\" = %%internal : " ANY
                   ", !transform.any_param\n",
                   loop, func_name);
}

static void appendVectorLowering(PrunerText *t, const char *f) {
  prunerTextAppend(
      t,
      "    transform.apply_patterns to %s {\n"
      "      transform.apply_patterns.vector.lower_contraction lowering_strategy = \"outerproduct\"\n"
      "      transform.apply_patterns.vector.transfer_permutation_patterns\n"
      "      transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = \"innerparallel\"\n"
      "    } : " ANY "\n"
      "    transform.apply_patterns to %s {\n"
      "      transform.apply_patterns.vector.transfer_to_scf max_transfer_rank = 1 full_unroll = true\n"
      "      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1\n"
      "    } : " ANY "\n"
      "    transform.apply_patterns to %s {\n"
      "      transform.apply_patterns.vector.lower_outerproduct\n"
      "      transform.apply_patterns.vector.lower_broadcast\n"
      "      transform.apply_patterns.vector.lower_shape_cast\n"
      "      transform.apply_patterns.vector.lower_transpose lowering_strategy = \"shuffle_1d\"\n"
      "    } : " ANY "\n"
      "    transform.apply_patterns to %s { transform.apply_patterns.canonicalization } : " ANY "\n"
      "    // n-D vector.from_elements (the hoisted accumulator) has no NVVM lowering.\n"
      "    transform.apply_patterns to %s {\n"
      "      transform.apply_patterns.vector.unroll_from_elements\n"
      "      transform.apply_patterns.vector.unroll_to_elements\n"
      "    } : " ANY "\n"
      "    transform.apply_cse to %s : " ANY "\n"
      "    transform.apply_patterns to %s { transform.apply_patterns.canonicalization } : " ANY "\n",
      f, f, f, f, f, f, f);
}

/* Tiles `target`'s reduction dimensions by p->inner_step into scf.for loops named
 * %<loop><i>, the tiled op named `result`; returns the handle to go on with (`target` when
 * there is no reduction loop). Shared by the promoted and the direct tile sequences. */
static const char *appendReductionLoops(PrunerText *t, const Plan *p, const char *why,
                                        const char *target, const char *result, char loop) {
  int loops = 0;
  for (int l = 0; l < p->n; ++l)
    loops += p->inner_step[l] > 0;
  if (!loops)
    return target;
  prunerTextAppend(t, "    // Reduction loops %s.\n", why);
  prunerTextAppend(t, "    %s", result);
  for (int i = 0; i < loops; ++i)
    prunerTextAppend(t, ", %%%c%d", loop, i);
  prunerTextAppend(t, " = transform.structured.tile_using_for %s tile_sizes ", target);
  prunerTextAppendI64List(t, p->inner_step, p->n);
  prunerTextAppend(t, " : (" ANY ") -> (" ANY);
  for (int i = 0; i < loops; ++i)
    prunerTextAppend(t, ", " ANY);
  prunerTextAppend(t, ")\n");
  return result;
}

/* Implicit GEMM, first step: the conv becomes im2col + GEMM (a contraction generic whose
 * A is the im2col tensor), both tagged; canonicalization then moves the output's fill
 * through the collapse_shape onto the GEMM's init (linalg's fill-reshape folding), where
 * it is fused like a contraction's. Defines %op (the GEMM), %img and, with a fill, %fill. */
static void appendImplicitGemmConversion(PrunerText *t, const PrunerWorkload *conv,
                                         const Plan *p, const char *attr, const char *prefix) {
  appendMatch(t, "%conv", prunerSchedulePayloadOpName(conv), attr, "", "%root");
  prunerTextAppend(t,
                   "    // Implicit GEMM: im2col + GEMM, the im2col fused into each K step.\n"
                   "    %%img0, %%res0 = transform.structured.convert_conv2d_to_img2col %%conv : (" ANY
                   ") -> (" ANY ", " ANY ")\n"
                   "    %%gemm0 = transform.get_producer_of_operand %%res0[0] : (" ANY ") -> " ANY "\n"
                   "    transform.annotate %%gemm0 \"%s.igemm\" : " ANY "\n"
                   "    transform.annotate %%img0 \"%s.im2col\" : " ANY "\n"
                   "    transform.apply_patterns to %%func { transform.apply_patterns.canonicalization } : " ANY "\n"
                   "    %%op = transform.structured.match attributes{%s.igemm} in %%root : (" ANY
                   ") -> " ANY "\n"
                   "    %%img = transform.structured.match attributes{%s.im2col} in %%root : (" ANY
                   ") -> " ANY "\n",
                   prefix, prefix, prefix, prefix);
  if (p->fill)
    prunerTextAppend(t, "    %%fill = transform.get_producer_of_operand %%op[2] : (" ANY ") -> " ANY "\n");
}

/* Implicit GEMM, in the block: the im2col op fused into the K step (or the block, with
 * one step), its destination a shared-memory buffer (plain memory for host checks), and
 * the op spread over the block's threads (linear ids, innermost dim first: neighbouring
 * threads read neighbouring channels of the input). */
static void appendImplicitGemmStage(PrunerText *t, const Plan *p, bool k_loop) {
  const char *img = "%img1";
  if (k_loop) {
    prunerTextAppend(t, "    %%img2, %%k0i = transform.structured.fuse_into_containing_op %%img1 "
                        "into %%k0 : (" ANY ", " ANY ") -> (" ANY ", " ANY ")\n");
    img = "%img2";
  }
  prunerTextAppend(t,
                   "    %%ibuf, %%inew = transform.structured.bufferize_to_allocation %s "
                   "{%salloc_op = \"memref.alloca\", bufferize_destination_only} : " ANY "\n",
                   img, p->gpu_shared ? "memory_space = 3, " : "");
  prunerTextAppend(t, "    // The block's threads build the im2col tile.\n");
  appendTileUsingForall(t, "%it", "%ifa", img, 3, p->img_tile, p->img_dim, "linear");
}

/* Tiling of a promoted contraction (on tensors): blocks, the fill fused into the block
 * and tiled to threads on its own, then the reduction loops at block level. The block's
 * K-step op is tagged `promote_tag`; @pruner_promote stages its operands after
 * bufferization and only then tiles it to threads (promotion works on buffers). An
 * implicit-GEMM conv enters as its GEMM (`w`), the conv itself in `conv`. */
static void appendTileSequencePromoted(PrunerText *t, const PrunerWorkload *w, const Plan *p,
                                       const char *attr, const char *forall_tag,
                                       const char *promote_tag, const PrunerWorkload *conv,
                                       const char *prefix) {
  if (p->igemm) {
    appendImplicitGemmConversion(t, conv, p, attr, prefix);
  } else {
    appendMatch(t, "%op", prunerSchedulePayloadOpName(w), attr, "", "%root");
    if (p->fill)
      appendMatch(t, "%fill", "linalg.fill", attr, ".fill", "%root");
  }
  prunerTextAppend(t, "    // Blocks: grid [%lld, %lld, %lld].\n", (long long)p->grid[0],
                   (long long)p->grid[1], (long long)p->grid[2]);
  appendTileUsingForall(t, "%tb", "%fb", "%op", p->n, p->block_tile, p->block_dim, "block");
  prunerTextAppend(t, "    transform.annotate %%fb \"%s\" : " ANY "\n", forall_tag);
  if (p->fill) {
    prunerTextAppend(t, "    %%fill1, %%fb1 = transform.structured.fuse_into_containing_op %%fill "
                        "into %%fb : (" ANY ", " ANY ") -> (" ANY ", " ANY ")\n");
    prunerTextAppend(t, "    // The fill gets its own thread forall (same thread tiles as the compute).\n");
    appendTileUsingForall(t, "%tf", "%ff", "%fill1", p->out_rank, p->fill_tile, p->fill_dim,
                          "thread");
    if (p->vectorize)
      prunerTextAppend(t, "    transform.structured.vectorize %%tf : " ANY "\n");
  }
  if (p->igemm)
    prunerTextAppend(t, "    %%img1, %%fbi = transform.structured.fuse_into_containing_op %%img "
                        "into %%fb : (" ANY ", " ANY ") -> (" ANY ", " ANY ")\n");
  const char *staged = appendReductionLoops(
      t, p, "at block level: one shared-memory stage per step", "%tb", "%tk", 'k');
  if (p->igemm)
    appendImplicitGemmStage(t, p, strcmp(staged, "%tb") != 0);
  prunerTextAppend(t, "    transform.annotate %s \"%s\" : " ANY "\n", staged, promote_tag);
  prunerTextAppend(t, "    transform.apply_patterns to %%func {\n"
                      "      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers\n"
                      "      transform.apply_patterns.canonicalization\n"
                      "      transform.apply_patterns.linalg.tiling_canonicalization\n"
                      "    } : " ANY "\n"
                      "    transform.apply_cse to %%func : " ANY "\n"
                      "    transform.yield\n  }\n");
}

/* Per op, after bufferization: stage the tagged op's promoted operands in shared memory
 * (NVVM address space 3, plain memory when gpu_mapping is off, for host checks; not
 * #gpu.address_space<workgroup>: the convert-vector-to-llvm that the lowering runs inside
 * gpu.module before convert-gpu-to-nvvm cannot convert that attribute and reports errors),
 * copy cooperatively (each copy its own thread forall), tile the compute to threads,
 * vectorize, lower vectors and turn the allocas into module globals (a gpu.launch
 * cannot hold a workgroup alloca). map_nested_forall_to_threads later puts a gpu.barrier
 * after every thread forall: after the copies (before the compute reads shared memory)
 * and after the compute (before the next step's copies overwrite it). Empty for ops
 * without promotion. */
static void appendStagedCopies(PrunerText *t, const Plan *p, const char *forall_tag,
                               const char *promote_tag, bool gpu_mapping);
static void appendStagedCompute(PrunerText *t, const Plan *p, const char *promote_tag,
                                bool gpu_mapping);

/* A promoted contraction on the GPU keeps its accumulator in registers across the block's
 * K loop: its vectors are lowered after the thread mapping, when the K loop (then holding
 * the copies, the barriers and the thread's compute) is outlined and C's reads and writes
 * are hoisted out of it (appendPromotedPost). Implicit GEMMs keep the lowering before the
 * mapping: their im2col fill writes a shared tile whose views would not stay in the loop. */
static bool hoistsAfterMapping(const Plan *p, bool gpu_mapping) {
  return gpu_mapping && p->promote && !p->igemm && !p->mma && p->vectorize && p->k_loop;
}

static void appendPromoteSequence(PrunerText *t, const Plan *p, const char *forall_tag,
                                  const char *promote_tag, bool gpu_mapping) {
  prunerTextAppend(t, "  transform.named_sequence @pruner_promote(%%root: " ANY
                      " {transform.readonly}) {\n");
  if (p->xthreads || p->mma || p->promote || p->igemm) {
    /* After bufferization the op's kernel is its block forall: the cleanups of its
     * promotion run inside it (the op's function holds every other op's kernel too, so
     * cleaning the whole function per op grew with the square of the op count). */
    prunerTextAppend(t, "    %%opfa = transform.structured.match ops{[\"scf.forall\"]} "
                        "attributes{%s} in %%root : (" ANY ") -> " ANY "\n", forall_tag);
  }
  if (p->xthreads) {
    /* parallel_insert_slice bufferizes to a copy of a view onto itself spelled as two
     * subview chains; folding the chains and cse make it a self-copy that canonicalize
     * drops (else it lowers to a call to the undefined memrefCopy). */
    prunerTextAppend(t,
                     "    %%fa = transform.structured.match ops{[\"scf.forall\"]} attributes{%s} "
                     "in %%root : (" ANY ") -> " ANY "\n",
                     forall_tag);
    prunerTextAppend(
        t, "    transform.apply_patterns to %%opfa { "
           "transform.apply_patterns.memref.fold_memref_alias_ops } : " ANY "\n"
           "    transform.apply_cse to %%opfa : " ANY "\n"
           "    transform.apply_patterns to %%opfa { transform.apply_patterns.canonicalization } "
           ": " ANY "\n");
    prunerTextAppend(
        t, "    %%allocas = transform.structured.match ops{[\"memref.alloca\"]} in %%fa : (" ANY
           ") -> !transform.op<\"memref.alloca\">\n"
           "    %%get, %%global = transform.memref.alloca_to_global %%allocas : "
           "(!transform.op<\"memref.alloca\">) -> (" ANY ", " ANY ")\n");
  }
  if (p->mma && p->mma->promote_operands)
    prunerScheduleAppendMmaStagedPromote(t, p->mma_w, p->mma, &p->mma_shape, forall_tag, promote_tag,
                                         gpu_mapping);
  else if (p->mma)
    prunerScheduleAppendMmaPost(t, promote_tag, gpu_mapping);
  if (!p->promote && !p->igemm) {
    prunerTextAppend(t, "    transform.yield\n  }\n");
    return;
  }
  if (p->promote)
    appendStagedCopies(t, p, forall_tag, promote_tag, gpu_mapping);
  else /* implicit GEMM with the filter read from global memory */
    prunerTextAppend(t, "    %%fa = transform.structured.match ops{[\"scf.forall\"]} attributes{%s} "
                        "in %%root : (" ANY ") -> " ANY "\n", forall_tag);
  appendStagedCompute(t, p, promote_tag, gpu_mapping);
}

/* structured.promote of the tagged op's promoted operands and their cooperative copies;
 * defines %func and %fa. */
static void appendStagedCopies(PrunerText *t, const Plan *p, const char *forall_tag,
                               const char *promote_tag, bool gpu_mapping) {
  prunerTextAppend(t, "    %%mm = transform.structured.match attributes{%s} in %%root : (" ANY
                      ") -> " ANY "\n", promote_tag);
  if (hoistsAfterMapping(p, gpu_mapping))
    prunerTextAppend(t,
                     "    %%kl = transform.get_parent_op %%mm {op_name = \"scf.for\"} : (" ANY ") -> " ANY
                     "\n"
                     "    transform.annotate %%kl \"%s.kloop\" : " ANY "\n",
                     promote_tag);
  prunerTextAppend(t, "    %%p = transform.structured.promote %%mm { operands_to_promote = [");
  for (int i = 0; i < p->num_promoted; ++i)
    prunerTextAppend(t, "%s%d", i ? ", " : "", p->promoted[i]);
  prunerTextAppend(t, "], %suse_alloca, alignment = 16 } : (" ANY ") -> " ANY "\n",
                   gpu_mapping ? "memory_space = 3, " : "");
  prunerTextAppend(t, "    // Folds the promoted views to static shapes (the vectorizer needs them).\n"
                      "    transform.apply_patterns to %%opfa { transform.apply_patterns.canonicalization } : " ANY "\n"
                      "    transform.apply_cse to %%opfa : " ANY "\n");
  prunerTextAppend(t, "    %%fa = transform.structured.match ops{[\"scf.forall\"]} attributes{%s} "
                      "in %%root : (" ANY ") -> " ANY "\n", forall_tag);
  /* structured.promote emits one linalg.copy per promoted operand, in operand order. */
  prunerTextAppend(t, "    %%%s = transform.structured.match ops{[\"linalg.copy\"]} in %%fa : (" ANY
                      ") -> " ANY "\n", p->num_promoted > 1 ? "copies" : "c0");
  if (p->num_promoted > 1) {
    prunerTextAppend(t, "    ");
    for (int i = 0; i < p->num_promoted; ++i)
      prunerTextAppend(t, "%s%%c%d", i ? ", " : "", i);
    prunerTextAppend(t, " = transform.split_handle %%copies : (" ANY ") -> (");
    for (int i = 0; i < p->num_promoted; ++i)
      prunerTextAppend(t, "%s" ANY, i ? ", " : "");
    prunerTextAppend(t, ")\n");
  }
  for (int i = 0; i < p->num_promoted; ++i) {
    prunerTextAppend(t, "    // Cooperative copy of operand %d.\n", p->promoted[i]);
    char tiled[16], forall[16], source[16];
    snprintf(tiled, sizeof tiled, "%%tc%d", i);
    snprintf(forall, sizeof forall, "%%fc%d", i);
    snprintf(source, sizeof source, "%%c%d", i);
    appendTileUsingForall(t, tiled, forall, source, p->copy_rank[i], p->copy_tile[i],
                          p->copy_dim[i], "linear");
    if (p->vectorize)
      prunerTextAppend(t, "    transform.structured.vectorize %%tc%d : " ANY "\n", i);
  }
}

/* The staged K-step op tiled to threads and vectorized, then the block's allocas (staged
 * tiles, the im2col tile) made module globals; closes @pruner_promote. */
static void appendStagedCompute(PrunerText *t, const Plan *p, const char *promote_tag,
                                bool gpu_mapping) {
  bool later = hoistsAfterMapping(p, gpu_mapping);
  prunerTextAppend(t, "    %%mm2 = transform.structured.match attributes{%s} in %%fa : (" ANY
                      ") -> " ANY "\n", promote_tag);
  prunerTextAppend(t, "    // Threads: block [%lld, %lld, %lld].\n", (long long)p->block[0],
                   (long long)p->block[1], (long long)p->block[2]);
  appendTileUsingForall(t, "%tt", "%ft", "%mm2", p->n, p->thread_tile, p->thread_dim, "thread");
  if (p->vectorize) {
    /* Only this op's block forall: on the whole function the lowering would also lower
     * the vector.contract of a staged tensor-core op whose @pruner_promote ran earlier
     * and whose mma conversion waits for the thread mapping (the module's ops run each
     * step in turn: all promotes, then all maps), turning it into FMAs. */
    prunerTextAppend(t, "    transform.structured.vectorize %%tt : " ANY "\n"
                        "    transform.apply_patterns to %%fa {\n"
                        "      transform.apply_patterns.vector.reduction_to_contract\n"
                        "      transform.apply_patterns.vector.sink_ops\n"
                        "      transform.apply_patterns.vector.transfer_permutation_patterns\n"
                        "      transform.apply_patterns.canonicalization\n"
                        "    } : " ANY "\n");
    if (!later)
      appendVectorLowering(t, "%fa");
  }
  /* Deferred: the staged tiles' allocas stay inside the K loop until after the hoist, so
   * that the reads of what each step copied cannot leave the loop with C's. */
  if (!later)
    prunerTextAppend(t, "    %%allocas = transform.structured.match ops{[\"memref.alloca\"]} in %%fa : (" ANY
                        ") -> !transform.op<\"memref.alloca\">\n"
                        "    %%get, %%global = transform.memref.alloca_to_global %%allocas : "
                        "(!transform.op<\"memref.alloca\">) -> (" ANY ", " ANY ")\n");
  prunerTextAppend(t, "    transform.yield\n  }\n");
}

/* After the thread mapping (hoistsAfterMapping): the K loop outlined (C's thread tile, a
 * view LICM takes out of the loop, becomes an argument), C's vector reads and writes
 * hoisted into loop-carried registers, then the vector lowering and the staged tiles as
 * module globals. */
static void appendPromotedPost(PrunerText *t, const char *promote_tag) {
  prunerScheduleAppendOutline(t, "%mapped", promote_tag, NULL, "pruner_k_steps");
  prunerTextAppend(t,
                   "    transform.apply_patterns to %%kf { transform.apply_patterns.canonicalization } : " ANY
                   "\n"
                   "    // The thread's accumulator becomes loop-carried (registers).\n"
                   "    %%kh = transform.structured.hoist_redundant_vector_transfers %%kf : (" ANY
                   ") -> " ANY "\n");
  appendVectorLowering(t, "%kh");
  prunerTextAppend(t,
                   "    %%allocas = transform.structured.match ops{[\"memref.alloca\"]} in %%kh : (" ANY
                   ") -> !transform.op<\"memref.alloca\">\n"
                   "    %%get, %%global = transform.memref.alloca_to_global %%allocas : "
                   "(!transform.op<\"memref.alloca\">) -> (" ANY ", " ANY ")\n"
                   "    %%allocas2 = transform.structured.match ops{[\"memref.alloca\"]} in %%mapped : (" ANY
                   ") -> !transform.op<\"memref.alloca\">\n"
                   "    %%get2, %%global2 = transform.memref.alloca_to_global %%allocas2 : "
                   "(!transform.op<\"memref.alloca\">) -> (" ANY ", " ANY ")\n");
}

/* Partials a combining thread folds per vector load (cross-thread reductions). */
enum { kCombineChunk = 16 };

/* Cross-thread reduction (docs/schedule.md, "Cross-thread reductions"): blocks as usual,
 * then split_reduction {inner_parallel} splits the reduction loop k into (kk, r) with
 * k = kk * R + r and r a new, innermost parallel loop of R: thread r (x) reduces the
 * interleaved elements r, r + R, r + 2R, ... for every output element of the block into
 * its column of a partial buffer (block tile x R) that lives in shared memory, so that
 * neighbouring lanes read neighbouring elements (coalesced); a combining op, one thread
 * per element of the output's last dim, folds the R partials into the output. Both fills
 * (the partials' neutral element, the output's init) are fused into the forall that
 * uses them: a fill left at block level runs in every thread and races with the writes
 * of the others. */
static void appendTileSequenceCrossThread(PrunerText *t, const PrunerWorkload *w, const Plan *p,
                                          const char *attr, const char *forall_tag) {
  appendMatch(t, "%op", prunerSchedulePayloadOpName(w), attr, "", "%root");
  if (p->fill)
    appendMatch(t, "%fill", "linalg.fill", attr, ".fill", "%root");
  prunerTextAppend(t, "    // Blocks: grid [%lld, %lld, %lld].\n", (long long)p->grid[0],
                   (long long)p->grid[1], (long long)p->grid[2]);
  appendTileUsingForall(t, "%tb", "%fb", "%op", p->n, p->block_tile, p->block_dim, "block");
  prunerTextAppend(t, "    transform.annotate %%fb \"%s\" : " ANY "\n", forall_tag);
  if (p->fill)
    prunerTextAppend(t, "    %%fill1, %%fb1 = transform.structured.fuse_into_containing_op %%fill "
                        "into %%fb : (" ANY ", " ANY ") -> (" ANY ", " ANY ")\n");
  prunerTextAppend(t, "    // Threads: %lld split loop %d, interleaved; partials in shared memory.\n",
                   (long long)p->xthreads, p->red_loop);
  /* The partial op's loops: the op's, with the reduction k (the innermost, red_loop) now
   * kk, and r appended as loop n. */
  prunerTextAppend(t,
                   "    %%pinit, %%pfill, %%split, %%comb = transform.structured.split_reduction "
                   "%%tb {split_factor = %lld, insert_split_dimension = %d, inner_parallel} : (" ANY
                   ") -> (" ANY ", " ANY ", " ANY ", " ANY ")\n",
                   (long long)p->xthreads, p->out_rank);
  prunerTextAppend(t,
                   "    %%pbuf, %%pnew = transform.structured.bufferize_to_allocation %%pfill "
                   "{%salloc_op = \"memref.alloca\", bufferize_destination_only} : " ANY "\n",
                   p->gpu_shared ? "memory_space = 3, " : "");
  int64_t lanes[PRUNER_MAX_LOOPS + 1] = {0}, steps[PRUNER_MAX_LOOPS + 1] = {0};
  int lane_dim[PRUNER_MAX_LOOPS + 1];
  for (int d = 0; d <= PRUNER_MAX_LOOPS; ++d)
    lane_dim[d] = -1;
  lanes[p->n] = 1;
  lane_dim[p->n] = 0;
  steps[p->red_loop] = p->red_step;
  appendTileUsingForall(t, "%st", "%pf", "%split", p->n + 1, lanes, lane_dim, "thread");
  prunerTextAppend(t,
                   "    %%fills = transform.structured.match ops{[\"linalg.fill\"]} in %%fb : (" ANY
                   ") -> " ANY "\n");
  if (p->fill)
    prunerTextAppend(t, "    %%ofill, %%pfill2 = transform.split_handle %%fills : (" ANY
                        ") -> (" ANY ", " ANY ")\n");
  prunerTextAppend(t,
                   "    %%pf3, %%pf4 = transform.structured.fuse_into_containing_op %s into "
                   "%%pf : (" ANY ", " ANY ") -> (" ANY ", " ANY ")\n",
                   p->fill ? "%pfill2" : "%fills");
  prunerTextAppend(t, "    %%sk, %%lk = transform.structured.tile_using_for %%st tile_sizes ");
  prunerTextAppendI64List(t, steps, p->n + 1);
  prunerTextAppend(t, " : (" ANY ") -> (" ANY ", " ANY ")\n");
  /* Two levels from R = 64 where they shorten the chain (prunerConfigCombineFirstTile):
   * split_reduction again, by the 32 lanes of a warp, interleaved, so lane s folds
   * partials s, s + 32, ... of its elements: a warp reads 32 consecutive partials of one output element (one row of the
   * partial buffer), which no two lanes share a bank of. The 32 per element go to a second
   * shared buffer, and the second level below folds those instead of R: a chain of
   * R / 32 + 32 dependent steps in place of R. */
  const char *comb_op = "%comb";
  if (p->combine_tile) {
    int64_t per_lane = p->xthreads / PRUNER_COMBINE_LANES;
    prunerTextAppend(t,
                     "    // Combine, first level: each element's %lld partials into %d, lane s "
                     "folding s, s + %d, ...\n"
                     "    %%cinit, %%cfill, %%csplit, %%comb2 = transform.structured.split_reduction "
                     "%%comb {split_factor = %d, insert_split_dimension = %d, inner_parallel} : (" ANY
                     ") -> (" ANY ", " ANY ", " ANY ", " ANY ")\n"
                     "    %%cbuf, %%cnew = transform.structured.bufferize_to_allocation %%cfill "
                     "{%salloc_op = \"memref.alloca\", bufferize_destination_only} : " ANY "\n",
                     (long long)p->xthreads, PRUNER_COMBINE_LANES, PRUNER_COMBINE_LANES,
                     PRUNER_COMBINE_LANES, p->out_rank, p->gpu_shared ? "memory_space = 3, " : "");
    /* Its loops: the output's, then kk (reduction), then the lane s: threads linearized
     * with s fastest, so a warp's lanes share one element. */
    int64_t first[PRUNER_MAX_RANK + 2] = {0};
    int first_dim[PRUNER_MAX_RANK + 2];
    for (int d = 0; d < PRUNER_MAX_RANK + 2; ++d)
      first_dim[d] = -1;
    first[p->out_rank - 1] = p->combine_tile;
    first_dim[p->out_rank - 1] = 1;
    first[p->out_rank + 1] = 1;
    first_dim[p->out_rank + 1] = 0;
    appendTileUsingForall(t, "%c1t", "%c1f", "%csplit", p->out_rank + 2, first, first_dim,
                          "linear");
    prunerTextAppend(t,
                     "    %%c1fill, %%c1f2 = transform.structured.fuse_into_containing_op %%cfill "
                     "into %%c1f : (" ANY ", " ANY ") -> (" ANY ", " ANY ")\n");
    int64_t first_chunk[PRUNER_MAX_RANK + 2] = {0};
    first_chunk[p->out_rank] = per_lane < kCombineChunk ? per_lane : kCombineChunk;
    prunerTextAppend(t, "    %%c1k, %%l1k = transform.structured.tile_using_for %%c1t tile_sizes ");
    prunerTextAppendI64List(t, first_chunk, p->out_rank + 2);
    prunerTextAppend(t,
                     " : (" ANY ") -> (" ANY ", " ANY ")\n"
                     "    transform.structured.vectorize %%c1fill : " ANY "\n"
                     "    transform.structured.vectorize %%c1k : " ANY "\n");
    comb_op = "%comb2";
  }
  /* The combine writes the output tile: one thread per element of its last dim. */
  int64_t comb[PRUNER_MAX_RANK] = {0};
  int comb_dim[PRUNER_MAX_RANK];
  for (int d = 0; d < PRUNER_MAX_RANK; ++d)
    comb_dim[d] = -1;
  comb[p->out_rank - 1] = 1;
  comb_dim[p->out_rank - 1] = 0;
  prunerTextAppend(t, "    // Combine: one thread per element of the output's last dim.\n");
  appendTileUsingForall(t, "%ct", "%cf", comb_op, p->out_rank, comb, comb_dim, "thread");
  if (p->fill)
    prunerTextAppend(t, "    %%of3, %%cf3 = transform.structured.fuse_into_containing_op %%ofill "
                        "into %%cf : (" ANY ", " ANY ") -> (" ANY ", " ANY ")\n");
  /* Partials and combine as vectors, hoisted out of their loops. Scalar, each K step
   * loaded the thread's partials from shared memory and stored them back (a round trip
   * on the loop-carried chain); vectorized and hoisted they stay in registers and are
   * stored once, before the barrier (as split-K's partials, docs/schedule.md). The
   * combining thread reads its R partials in chunks of (at most) 16, one vector load and
   * a fold in registers each, the output element loop-carried: a whole row of R = 1024
   * partials as one vector would not fit the registers. */
  int64_t chunk[PRUNER_MAX_RANK + 1] = {0};
  int64_t folded = p->combine_tile ? PRUNER_COMBINE_LANES : p->xthreads;
  chunk[p->out_rank] = folded < kCombineChunk ? folded : kCombineChunk;
  prunerTextAppend(t, "    %%ctk, %%lck = transform.structured.tile_using_for %%ct tile_sizes ");
  prunerTextAppendI64List(t, chunk, p->out_rank + 1);
  prunerTextAppend(t, " : (" ANY ") -> (" ANY ", " ANY ")\n");
  if (p->fill)
    prunerTextAppend(t, "    transform.structured.vectorize %%of3 : " ANY "\n");
  prunerTextAppend(t,
                   "    transform.structured.vectorize %%sk : " ANY "\n"
                   "    transform.structured.vectorize %%pf3 : " ANY "\n"
                   "    transform.structured.vectorize %%ctk : " ANY "\n"
                   "    transform.apply_patterns to %%func {\n"
                   "      transform.apply_patterns.vector.reduction_to_contract\n"
                   "      transform.apply_patterns.vector.sink_ops\n"
                   "      transform.apply_patterns.vector.transfer_permutation_patterns\n"
                   "      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers\n"
                   "      transform.apply_patterns.canonicalization\n"
                   "      transform.apply_patterns.linalg.tiling_canonicalization\n"
                   "    } : " ANY "\n"
                   "    transform.apply_cse to %%func : " ANY "\n"
                   "    %%xfa = transform.structured.match ops{[\"scf.forall\"]} attributes{%s} "
                   "in %%root : (" ANY ") -> " ANY "\n"
                   "    %%xloops = transform.structured.match ops{[\"scf.for\"]} in %%xfa : (" ANY
                   ") -> " ANY "\n"
                   "    transform.loop.hoist_loop_invariant_subsets %%xloops : " ANY "\n"
                   "    transform.apply_patterns to %%xfa {\n"
                   "      transform.apply_patterns.canonicalization\n"
                   "      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers\n"
                   "    } : " ANY "\n",
                   forall_tag);
  prunerScheduleAppendTileCleanup(t);
}

/* The end of a @pruner_tile body: canonicalize the tiled function, cse, and close the
 * sequence (shared by the tiled and the tensor-core schedules). */
void prunerScheduleAppendTileCleanup(PrunerText *t) {
  prunerTextAppend(t, "    transform.apply_patterns to %%func {\n"
                      "      transform.apply_patterns.canonicalization\n"
                      "      transform.apply_patterns.linalg.tiling_canonicalization\n"
                      "    } : " ANY "\n"
                      "    transform.apply_cse to %%func : " ANY "\n"
                      "    transform.yield\n  }\n");
}

/* The direct (unpromoted) FMA tiling of `%op` (and `%fill` when p->fill), from the block
 * forall to the hoisted accumulator; the caller matches the handles and closes the
 * sequence. */
static void appendDirectTiles(PrunerText *t, const PrunerWorkload *w, const Plan *p,
                              const char *attr, const char *forall_tag) {
  prunerTextAppend(t, "    // Blocks: grid [%lld, %lld, %lld].\n", (long long)p->grid[0],
                   (long long)p->grid[1], (long long)p->grid[2]);
  if (p->consumer) {
    /* fuse_into_containing_op fuses producers only: tile the consumer and fuse the op
     * (and below its fill) into its foralls (docs/schedule.md, G7). */
    appendMatch(t, "%cons", "linalg.generic", attr, ".consumer", "%root");
    appendTileUsingForall(t, "%cb", "%fb", "%cons", p->out_rank, p->out_block_tile,
                          p->out_block_dim, "block");
    prunerTextAppend(t, "    %%tb, %%fbm = transform.structured.fuse_into_containing_op %%op "
                        "into %%fb : (" ANY ", " ANY ") -> (" ANY ", " ANY ")\n");
  } else {
    appendTileUsingForall(t, "%tb", "%fb", "%op", p->n, p->block_tile, p->block_dim, "block");
  }
  prunerTextAppend(t, "    transform.annotate %%fb \"%s\" : " ANY "\n", forall_tag);
  if (p->fill)
    prunerTextAppend(t, "    %%fill1, %%fb1 = transform.structured.fuse_into_containing_op %%fill "
                        "into %%fb : (" ANY ", " ANY ") -> (" ANY ", " ANY ")\n");

  prunerTextAppend(t, "    // Threads: block [%lld, %lld, %lld].\n", (long long)p->block[0],
                   (long long)p->block[1], (long long)p->block[2]);
  if (p->consumer) {
    appendTileUsingForall(t, "%ct", "%ft", "%cb", p->out_rank, p->fill_tile, p->fill_dim,
                          "thread");
    prunerTextAppend(t, "    %%tt, %%ftm = transform.structured.fuse_into_containing_op %%tb "
                        "into %%ft : (" ANY ", " ANY ") -> (" ANY ", " ANY ")\n");
  } else {
    appendTileUsingForall(t, "%tt", "%ft", "%tb", p->n, p->thread_tile, p->thread_dim, "thread");
  }
  if (p->fill)
    prunerTextAppend(t, "    %%fill2, %%ft1 = transform.structured.fuse_into_containing_op "
                        "%%fill1 into %%ft : (" ANY ", " ANY ") -> (" ANY ", " ANY ")\n");

  const char *inner = appendReductionLoops(
      t, p, "inside the thread (the accumulator stays put)", "%tt", "%tr", 'l');
  if (p->decompose) {
    prunerTextAppend(t, "    %%dec = transform.structured.decompose %s : (" ANY ") -> " ANY "\n",
                     inner);
    inner = "%dec";
  }
  if (p->vectorize) {
    /* structured.vectorize on the op, not vectorize_children on the function: the latter
     * would also vectorize other (untiled) linalg ops of the function, and it drops rows
     * of strided NCHW 1-D convs (docs/schedule.md, G6). */
    prunerTextAppend(t, "    transform.structured.vectorize %s : " ANY "\n", inner);
    if (p->consumer)
      prunerTextAppend(t, "    transform.structured.vectorize %%ct : " ANY "\n");
    if (p->fill)
      prunerTextAppend(t, "    transform.structured.vectorize %%fill2 : " ANY "\n");
  }
  prunerTextAppend(t, "    transform.apply_patterns to %%func {\n");
  if (p->vectorize) {
    prunerTextAppend(t, "      transform.apply_patterns.vector.reduction_to_contract\n"
                        "      transform.apply_patterns.vector.sink_ops\n");
    /* Without it the contraction lowers to 16-wide dot products (mul + add, 72 registers
     * on a 4x4x16 matmul tile) instead of outer-product FMAs (40 registers). For strided
     * NCHW convs it would turn the accumulator write into a broadcast + transpose that no
     * longer pairs with its read, which blocks the hoist (docs/schedule.md, G3, G6). */
    if (w->kind != PRUNER_OP_CONV_2D_NCHW_FCHW)
      prunerTextAppend(t, "      transform.apply_patterns.vector.transfer_permutation_patterns\n");
  }
  prunerTextAppend(t, "      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers\n"
                      "      transform.apply_patterns.canonicalization\n"
                      "      transform.apply_patterns.linalg.tiling_canonicalization\n"
                      "    } : " ANY "\n"
                      "    transform.apply_cse to %%func : " ANY "\n");
  prunerTextAppend(t, "    // Keep the accumulator in registers across the reduction loops.\n");
  prunerTextAppend(t, "    %%fa = transform.structured.match ops{[\"scf.forall\"]} attributes{%s} "
                      "in %%root : (" ANY ") -> " ANY "\n", forall_tag);
  prunerTextAppend(t, "    %%loops = transform.structured.match ops{[\"scf.for\"]} in %%fa : (" ANY
                      ") -> " ANY "\n"
                      "    transform.loop.hoist_loop_invariant_subsets %%loops : " ANY "\n");
  /* What the hoist leaves is inside the op's block forall: clean up there only. */
  prunerTextAppend(t, "    transform.apply_patterns to %%fa {\n"
                      "      transform.apply_patterns.canonicalization\n"
                      "      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers\n"
                      "    } : " ANY "\n");
}

/* Split-K over blocks (docs/schedule.md, "Split-K over blocks"): split_reduction cuts the
 * reduction loop k into (s, kk) with k = s * K/S + kk and s a new outermost parallel loop,
 * the output into a partial buffer [S, output...] filled with the combiner's neutral
 * element, and adds a combining op that folds the S partials into the output. The partial
 * op is tiled as the direct schedule with one more block dimension (one slice per block);
 * the combining op gets its own block forall (the output's tiles and threads), the op's
 * fill fused into it. Both become kernels of their own after the mapping: the partial
 * buffer, allocated outside them, is the device workspace they share. */
static void appendTileSequenceSplitK(PrunerText *t, const PrunerWorkload *w, const Plan *p,
                                     const char *attr, const char *forall_tag) {
  appendMatch(t, "%op0", prunerSchedulePayloadOpName(w), attr, "", "%root");
  if (p->fill)
    appendMatch(t, "%ofill", "linalg.fill", attr, ".fill", "%root");
  prunerTextAppend(t,
                   "    // %lld slices of the reduction, one per block along %c.\n"
                   "    %%pinit, %%fill, %%op, %%comb = transform.structured.split_reduction %%op0 "
                   "{split_factor = %lld, insert_split_dimension = 0} : (" ANY ") -> (" ANY ", " ANY
                   ", " ANY ", " ANY ")\n",
                   (long long)p->split_k, kDim[p->split_dim], (long long)p->split_k);
  /* The combining op's loops: s (reduction, untiled), then the output's dims. */
  int64_t cblock[PRUNER_MAX_RANK + 1] = {0}, cthread[PRUNER_MAX_RANK + 1] = {0};
  int cblock_dim[PRUNER_MAX_RANK + 1], cthread_dim[PRUNER_MAX_RANK + 1];
  cblock_dim[0] = cthread_dim[0] = -1;
  for (int d = 0; d < p->out_rank; ++d) {
    cblock[d + 1] = p->out_block_tile[d];
    cblock_dim[d + 1] = p->out_block_dim[d];
    cthread[d + 1] = p->fill_tile[d];
    cthread_dim[d + 1] = p->fill_dim[d];
  }
  prunerTextAppend(t, "    // Combine: grid [%lld, %lld, %lld], the op's tiles and threads.\n",
                   (long long)p->combine_grid[0], (long long)p->combine_grid[1],
                   (long long)p->combine_grid[2]);
  appendTileUsingForall(t, "%cb", "%cfb", "%comb", p->out_rank + 1, cblock, cblock_dim, "block");
  prunerTextAppend(t, "    transform.annotate %%cfb \"%s.combine\" : " ANY "\n", forall_tag);
  if (p->fill)
    prunerTextAppend(t, "    %%of1, %%cfb1 = transform.structured.fuse_into_containing_op %%ofill "
                        "into %%cfb : (" ANY ", " ANY ") -> (" ANY ", " ANY ")\n");
  appendTileUsingForall(t, "%ct", "%cft", "%cb", p->out_rank + 1, cthread, cthread_dim, "thread");
  if (p->fill)
    prunerTextAppend(t, "    %%of2, %%cft1 = transform.structured.fuse_into_containing_op %%of1 "
                        "into %%cft : (" ANY ", " ANY ") -> (" ANY ", " ANY ")\n");
  /* The thread's S partials of its output tile as vectors, whatever vector_width says
   * (as the partial op below): scalar, the output would be stored after every slice. */
  prunerTextAppend(t, "    transform.structured.vectorize %%ct : " ANY "\n");
  if (p->fill)
    prunerTextAppend(t, "    transform.structured.vectorize %%of2 : " ANY "\n");
  /* The partial op: the op's plan with s as loop 0, one slice per block, K/S per slice;
   * its fill (the partials' zeros) is fused like a contraction's. */
  Plan q = *p;
  q.n = p->n + 1;
  q.fill = true;
  q.consumer = false;
  q.decompose = false;
  /* Vectorized whatever vector_width says: the scalar form keeps each partial in the
   * workspace and stores it back after every element (LLVM cannot prove the workspace
   * and the inputs apart), 17 global stores per 16 adds on a row sum; vectorized, the
   * partial stays in registers and is stored once (docs/schedule.md). */
  q.vectorize = true;
  for (int l = p->n - 1; l >= 0; --l) {
    q.block_tile[l + 1] = p->block_tile[l];
    q.block_dim[l + 1] = p->block_dim[l];
    q.thread_tile[l + 1] = p->thread_tile[l];
    q.thread_dim[l + 1] = p->thread_dim[l];
    q.inner_step[l + 1] = p->inner_step[l];
  }
  q.block_tile[0] = 1;
  q.block_dim[0] = p->split_dim;
  q.thread_tile[0] = q.inner_step[0] = 0;
  q.thread_dim[0] = -1;
  int64_t slice = w->bounds[p->n - 1] / p->split_k;
  if (q.inner_step[p->n] >= slice) /* one step per slice: no loop */
    q.inner_step[p->n] = 0;
  appendDirectTiles(t, w, &q, attr, forall_tag);
  prunerTextAppend(t, "    transform.yield\n  }\n");
}

static void appendTileSequence(PrunerText *t, const PrunerWorkload *w, const Plan *p,
                               const char *attr, const char *forall_tag,
                               const char *promote_tag, const PrunerWorkload *conv,
                               const char *prefix) {
  prunerTextAppend(t, "  transform.named_sequence @pruner_tile(%%root: " ANY
                      " {transform.readonly}) {\n");
  appendMatch(t, "%self", prunerSchedulePayloadOpName(conv), attr, "", "%root");
  appendOwnFunction(t, "%self");
  if (p->mma) {
    prunerScheduleAppendMmaTile(t, w, p->mma, &p->mma_shape, p->fill, attr, forall_tag,
                                promote_tag, p->gpu_shared);
    return;
  }
  if (p->promote || p->igemm) {
    appendTileSequencePromoted(t, w, p, attr, forall_tag, promote_tag, conv, prefix);
    return;
  }
  if (p->xthreads) {
    appendTileSequenceCrossThread(t, w, p, attr, forall_tag);
    return;
  }
  if (p->split_k) {
    appendTileSequenceSplitK(t, w, p, attr, forall_tag);
    return;
  }
  appendMatch(t, "%op", prunerSchedulePayloadOpName(w), attr, "", "%root");
  if (p->fill)
    appendMatch(t, "%fill", "linalg.fill", attr, ".fill", "%root");
  appendDirectTiles(t, w, p, attr, forall_tag);
  prunerTextAppend(t, "    transform.yield\n  }\n");
}

/* Module-wide: identical for every op so that one run serves all configured ops. */
static void appendBufferizeSequence(PrunerText *t) {
  prunerTextAppend(
      t,
      "  transform.named_sequence @pruner_bufferize(%%root: " ANY " {transform.consumed}) -> " ANY
      " {\n"
      "    // IdentityLayoutMap: the default dynamic layout cost 184 registers instead of 48.\n"
      "    %%b = transform.bufferization.one_shot_bufferize layout{IdentityLayoutMap} %%root "
      "{bufferize_function_boundaries = true, allow_return_allocs_from_loops = true, "
      "memcpy_op = \"linalg.copy\"} : (" ANY ") -> " ANY "\n"
      "    %%f = transform.structured.match ops{[\"func.func\"]} in %%b : (" ANY ") -> " ANY "\n");
  appendVectorLowering(t, "%f");
  prunerTextAppend(t, "    transform.yield %%b : " ANY "\n  }\n");
}

/* Module-wide cleanups after the mapping. Canonicalize after cse removes the self-copies
 * bufferization leaves inside kernels; sinking launch-invariant index math into the
 * gpu.launch keeps constants out of the kernel parameters (48 -> 40 registers on a plain
 * matmul, 255 + spills -> 40 on a fused conv; docs/schedule.md, G1). */
static void appendCleanupSequence(PrunerText *t, bool gpu_mapping) {
  prunerTextAppend(t, "  transform.named_sequence @pruner_cleanup(%%root: " ANY " {transform.%s}) {\n"
                      "    transform.apply_patterns to %%root { transform.apply_patterns.canonicalization } : " ANY "\n"
                      "    transform.apply_cse to %%root : " ANY "\n"
                      "    transform.apply_patterns to %%root { transform.apply_patterns.canonicalization } : " ANY "\n",
                   gpu_mapping ? "consumed" : "readonly");
  if (gpu_mapping)
    prunerTextAppend(t, "    %%sunk = transform.apply_registered_pass \"gpu-launch-sink-index-computations\" "
                        "to %%root : (" ANY ") -> " ANY "\n");
  prunerTextAppend(t, "    transform.yield\n  }\n");
}

static void appendMapSequence(PrunerText *t, const Plan *p, const char *forall_tag,
                              const char *promote_tag, bool gpu_mapping) {
  prunerTextAppend(t, "  transform.named_sequence @pruner_map(%%root: " ANY " {transform.readonly}) {\n");
  prunerTextAppend(t, "    %%fa = transform.structured.match ops{[\"scf.forall\"]} attributes{%s} "
                      "in %%root : (" ANY ") -> " ANY "\n", forall_tag);
  prunerTextAppend(t, "    %%lin = transform.structured.match interface{LinalgOp} in %%fa : (" ANY
                      ") -> " ANY "\n"
                      "    %%linloops = transform.structured.convert_to_loops %%lin : (" ANY ") -> " ANY "\n");
  if (gpu_mapping) {
    prunerTextAppend(t, "    %%launch = transform.gpu.map_forall_to_blocks %%fa generate_gpu_launch "
                        "grid_dims = [%lld, %lld, %lld] : (" ANY ") -> " ANY "\n",
                     (long long)p->grid[0], (long long)p->grid[1], (long long)p->grid[2]);
    prunerTextAppend(t, "    %%mapped = transform.gpu.map_nested_forall_to_threads %%launch block_dims = "
                        "[%lld, %lld, %lld] : (" ANY ") -> " ANY "\n",
                     (long long)p->block[0], (long long)p->block[1], (long long)p->block[2]);
  }
  if (p->split_k) {
    /* The combining op's forall: a second kernel, launched after the partials' one. */
    prunerTextAppend(t,
                     "    %%cfa = transform.structured.match ops{[\"scf.forall\"]} "
                     "attributes{%s.combine} in %%root : (" ANY ") -> " ANY "\n"
                     "    %%clin = transform.structured.match interface{LinalgOp} in %%cfa : (" ANY
                     ") -> " ANY "\n"
                     "    %%clinloops = transform.structured.convert_to_loops %%clin : (" ANY
                     ") -> " ANY "\n",
                     forall_tag);
    if (gpu_mapping) {
      prunerTextAppend(t,
                       "    %%claunch = transform.gpu.map_forall_to_blocks %%cfa "
                       "generate_gpu_launch grid_dims = [%lld, %lld, %lld] : (" ANY ") -> " ANY "\n",
                       (long long)p->combine_grid[0], (long long)p->combine_grid[1],
                       (long long)p->combine_grid[2]);
      prunerTextAppend(t,
                       "    %%cmapped = transform.gpu.map_nested_forall_to_threads %%claunch "
                       "block_dims = [%lld, %lld, %lld] : (" ANY ") -> " ANY "\n",
                       (long long)p->block[0], (long long)p->block[1], (long long)p->block[2]);
    }
  }
  if (p->mma && p->mma->promote_operands)
    prunerScheduleAppendMmaStagedPost(t, p->mma, promote_tag, gpu_mapping);
  if (hoistsAfterMapping(p, gpu_mapping))
    appendPromotedPost(t, promote_tag);
  prunerTextAppend(t, "    transform.yield\n  }\n");
}

const char *prunerScheduleConsumerRefusal(const PrunerWorkload *w, const PrunerConfig *config) {
  if (!isContractionKind(w->kind) || w->num_outputs != 1)
    return "no contraction with one output";
  if (config->mma)
    return "tensor cores (mma)";
  if (config->promote_operands)
    return "promote_operands";
  if (prunerConfigReductionThreads(config) > 1)
    return "a cross-thread reduction";
  if (prunerConfigSplitK(config) > 1)
    return "split-K";
  return NULL;
}

PrunerStatus prunerScheduleBuild(const PrunerWorkload *w, const PrunerConfig *config,
                                 const PrunerTargetDesc *target,
                                 const PrunerScheduleOptions *opts, char **text) {
  *text = NULL;
  PrunerStatus s = prunerConfigCheck(w, target, config);
  if (!s.ok)
    return s;
  return prunerScheduleBuildChecked(w, config, opts, text);
}

PrunerStatus prunerScheduleBuildChecked(const PrunerWorkload *w, const PrunerConfig *config,
                                        const PrunerScheduleOptions *opts, char **text) {
  *text = NULL;
  PrunerScheduleOptions defaults = prunerScheduleDefaultOptions();
  if (!opts)
    opts = &defaults;
  /* A promoted conv_2d_nhwc_hwcf is scheduled as the GEMM it denotes. */
  const PrunerWorkload *conv = w;
  PrunerWorkload gemm;
  PrunerConfig gemm_config;
  bool igemm = prunerConfigImplicitGemm(w, config, &gemm, &gemm_config);
  if (igemm) {
    w = &gemm;
    config = &gemm_config;
  }
  Plan p;
  PrunerStatus s = makePlan(w, config, opts, &p);
  if (!s.ok)
    return s;
  if (igemm) {
    planImplicitGemm(w, config, &p);
    p.gpu_shared = opts->gpu_mapping;
  }
  if (opts->fuse_consumer) {
    const char *refusal = prunerScheduleConsumerRefusal(w, config);
    if (!opts->match_attr || refusal || p.igemm)
      return prunerStatusError("schedule for %s: a consumer is fused only into the direct "
                               "schedule of a contraction with one output, matched by "
                               "attribute; this one has %s",
                               w->op_name, refusal ? refusal : "no match attribute");
    p.consumer = true;
  }
  char forall_tag[160];
  snprintf(forall_tag, sizeof forall_tag, "%s.forall", opts->match_attr ? opts->match_attr : "pruner");
  char promote_tag[160];
  snprintf(promote_tag, sizeof promote_tag, "%s.promote", opts->match_attr ? opts->match_attr : "pruner");

  PrunerText t;
  prunerTextInit(&t);
  prunerTextAppend(&t, "module attributes {transform.with_named_sequence} {\n");
  appendTileSequence(&t, w, &p, opts->match_attr, forall_tag, promote_tag, conv,
                     opts->match_attr ? opts->match_attr : "pruner");
  appendBufferizeSequence(&t);
  appendPromoteSequence(&t, &p, forall_tag, promote_tag, opts->gpu_mapping);
  appendMapSequence(&t, &p, forall_tag, promote_tag, opts->gpu_mapping);
  appendCleanupSequence(&t, opts->gpu_mapping);
  prunerTextAppend(&t,
                   "  transform.named_sequence @__transform_main(%%root: " ANY " {transform.consumed}) {\n"
                   "    transform.include @pruner_tile failures(propagate) (%%root) : (" ANY ") -> ()\n"
                   "    %%b = transform.include @pruner_bufferize failures(propagate) (%%root) : (" ANY
                   ") -> " ANY "\n"
                   "    transform.include @pruner_promote failures(propagate) (%%b) : (" ANY ") -> ()\n"
                   "    transform.include @pruner_map failures(propagate) (%%b) : (" ANY ") -> ()\n"
                   "    transform.include @pruner_cleanup failures(propagate) (%%b) : (" ANY ") -> ()\n"
                   "    transform.yield\n  }\n}\n");
  return prunerTextFinish(&t, "schedule", text);
}

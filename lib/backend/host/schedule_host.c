/* lib/backend/host/schedule_host.c: a host config turned into a transform schedule (docs/host.md).
 *
 * The schedule acts on the bufferized payload (memrefs), as the recipe that matched OpenBLAS
 * does (docs/host.md, H1-H5):
 *   0. split the loops whose task tile does not divide the bound, each part scheduled
 *      by steps 1-4 with its own tiles (prunerHostConfigParts; docs/host.md, "Split
 *      loops");
 *   1. tile_using_forall by the task tile (parallel loops) -> scf.forall, later
 *      scf.parallel -> OpenMP (only when there is more than one task);
 *   2. tile_using_for by the cache tile of the reduction loops; with promote_operands,
 *      tile by the register panel and pack operand 1 into a contiguous buffer;
 *   3. tile_using_for by the register tile (parallel loops), the contraction-like
 *      reduction loops stepping by 1 inside it (the accumulator is loop-invariant there);
 *   4. peel register loops whose tile does not divide the task tile (the vectorized loop
 *      only in a split loop's remainder: elsewhere its register tile divides);
 *   5. 2-D convolutions: decompose the (oh = kh = 1) register tile into a 1-D conv;
 *   6. vectorize, fold memref aliases + canonicalize + cse (else the hoist silently does
 *      nothing on subviews), hoist the accumulator out of the inner reduction loop,
 *      lower contractions to outer products and vectors to 1-D. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"
#include "pruner/backend/host.h"
#include "pruner/backend/host_rules.h"
#include "pruner/schedule.h"
#include "pruner/text.h"

#define ANY "!transform.any_op"

static bool isConv2d(const PrunerWorkload *w) {
  return w->kind == PRUNER_OP_CONV_2D_NHWC_HWCF || w->kind == PRUNER_OP_CONV_2D_NCHW_FCHW ||
         w->kind == PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC;
}

bool hostScheduleOnTensors(const PrunerWorkload *w) { return isConv2d(w); }

/* Register-level step of a reduction loop: 1 (accumulate one step at a time, the
 * accumulator hoisted around it) except a conv's kw, which stays whole so that the 1-D
 * conv vectorizer unrolls the taps. 0 means "not tiled". */
static int64_t registerReductionStep(const PrunerWorkload *w, const PrunerConfig *c, int l) {
  if (isConv2d(w) && w->loop_roles[l] == PRUNER_ROLE_FILTER_W)
    return 0;
  return c->reduction[l] > 1 ? 1 : 0;
}

const char *prunerHostLoweringPipeline(void) {
  /* docs/host.md, H1: canonicalize right after convert-scf-to-openmp (else "memref.
   * alloca_scope expects 0 or 1 blocks"); convert-ub-to-llvm (else ub.poison has no LLVM
   * translation); pruner-approximate-math before the math lowering, or erf, exp, log
   * and tanh become one libm call per vector lane; log1p is libm's (convert-math-to-llvm
   * would compute log(1 + x), wrong near 0) (docs/host.md, "Math functions"). */
  return "builtin.module(convert-scf-to-openmp,canonicalize,"
         "canonicalize,cse,canonicalize,pruner-approximate-math,"
         "convert-math-to-llvm{approximate-log1p=false},"
         "convert-math-to-libm,convert-linalg-to-loops,"
         "convert-vector-to-scf{full-unroll=true},lower-affine,expand-strided-metadata,"
         "lower-affine,convert-scf-to-cf,convert-vector-to-llvm,finalize-memref-to-llvm,"
         "convert-arith-to-llvm,convert-math-to-llvm{approximate-log1p=false},"
         "convert-index-to-llvm,convert-cf-to-llvm,"
         "convert-openmp-to-llvm,convert-ub-to-llvm,convert-func-to-llvm,"
         "reconcile-unrealized-casts)";
}

static void appendTiles(PrunerText *t, const int64_t *tiles, int n) {
  prunerTextAppendI64List(t, tiles, n);
}

/* `%res, %loops...` = tile_using_for; returns the number of loop handles. */
/* `interchange` (n entries, or NULL): the order of the tile loops, outermost first. */
static int appendTileForOrdered(PrunerText *t, const char *res, const char *loops,
                                const char *in, const int64_t *tiles, int n,
                                const int64_t *interchange) {
  int count = 0;
  for (int l = 0; l < n; ++l)
    count += tiles[l] > 0;
  prunerTextAppend(t, "    %%%s", res);
  if (count > 0)
    prunerTextAppend(t, ", %%%s:%d", loops, count);
  prunerTextAppend(t, " = transform.structured.tile_using_for %%%s tile_sizes ", in);
  appendTiles(t, tiles, n);
  if (interchange) {
    prunerTextAppend(t, " interchange = ");
    appendTiles(t, interchange, n);
  }
  prunerTextAppend(t, " : (" ANY ") -> (" ANY);
  for (int i = 0; i < count; ++i)
    prunerTextAppend(t, ", " ANY);
  prunerTextAppend(t, ")\n");
  return count;
}

static int appendTileFor(PrunerText *t, const char *res, const char *loops, const char *in,
                         const int64_t *tiles, int n) {
  return appendTileForOrdered(t, res, loops, in, tiles, n, NULL);
}

/* The schedule's steps, in the order of the file comment (docs/host.md, "The loop
 * nest"); each appends its transform ops to `t` and leaves its result's handle name in
 * `cur`. */

/* A part's handles are named with its suffix (`sx`): "" when the config is one part, so
 * that its schedule reads as it did before loops could split; the current handle's name
 * is passed in and out in `cur` (HANDLE_NAME bytes). */
#define HANDLE_NAME 32

/* 1. Tasks: tile_using_forall by the workgroup tile of the parallel loops, when there is
 * more than one task; `tasks` gets the task count. */
static void appendTaskTile(PrunerText *t, const PrunerWorkload *w, const PrunerConfig *c,
                           const char *sx, char *cur, int64_t *tasks_out) {
  const int n = w->num_loops;
  int64_t task[PRUNER_MAX_LOOPS] = {0};
  int64_t tasks = 1;
  for (int l = 0; l < n; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_PARALLEL) {
      task[l] = c->workgroup[l];
      tasks *= w->bounds[l] / c->workgroup[l];
    }
  *tasks_out = tasks;
  if (tasks <= 1)
    return;
  prunerTextAppend(t, "    // %lld tasks, run in parallel by OpenMP.\n", (long long)tasks);
  prunerTextAppend(t, "    %%t0%s, %%forall%s = transform.structured.tile_using_forall %%%s "
                      "tile_sizes ", sx, sx, cur);
  appendTiles(t, task, n);
  prunerTextAppend(t, " : (" ANY ") -> (" ANY ", " ANY ")\n");
  snprintf(cur, HANDLE_NAME, "t0%s", sx);
}

/* 2. Cache tile of the reduction loops (those whose step is below the bound). */
static void appendCacheTile(PrunerText *t, const PrunerWorkload *w, const PrunerConfig *c,
                            const char *sx, char *cur) {
  const int n = w->num_loops;
  int64_t cache[PRUNER_MAX_LOOPS] = {0};
  bool any_cache = false;
  for (int l = 0; l < n; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION && c->reduction[l] < w->bounds[l]) {
      cache[l] = c->reduction[l];
      any_cache = true;
    }
  if (!any_cache)
    return;
  char res[HANDLE_NAME], loops[HANDLE_NAME];
  snprintf(res, sizeof res, "t1%s", sx);
  snprintf(loops, sizeof loops, "lc%s", sx);
  prunerTextAppend(t, "    // Cache tile of the reduction loops.\n");
  appendTileFor(t, res, loops, cur, cache, n);
  snprintf(cur, HANDLE_NAME, "%s", res);
}

/* 2b. Packing (docs/host.md, "Packing B"): with promote_operands = [1], the cache block
 * is tiled once more by the register tile along the loops operand 1 is indexed by, so
 * that one iteration works on one K-step x register-tile panel of it, and that panel is
 * copied (transform.structured.promote: a 64-byte aligned malloc'ed buffer, a
 * linalg.copy, a dealloc after the panel) before the register tiles of the task's rows
 * read it. Consecutive k rows of an unpacked operand are a whole row of the matrix apart
 * (4 KiB at N = 1024) and fall into the same L1 sets; the packed panel is contiguous.
 * The copy is tiled to one row per iteration, so that it vectorizes to one vector move
 * per register vector (left whole, it unrolled into K-step x N_r / lanes moves and took
 * seconds to compile). */
static void appendPackPanel(PrunerText *t, const PrunerWorkload *w, const PrunerConfig *c,
                            const char *sx, char *cur) {
  int o = prunerHostPackableOperand(w);
  if (!c->promote_operands || o < 0)
    return;
  const int n = w->num_loops;
  const PrunerOperand *b = &w->operands[o];
  int64_t panel[PRUNER_MAX_LOOPS] = {0};
  bool any = false;
  for (int l = 0; l < n; ++l) {
    bool indexed = false;
    for (int d = 0; d < b->rank; ++d)
      indexed = indexed || b->index_coeff[d][l] != 0;
    if (w->loop_kinds[l] == PRUNER_LOOP_PARALLEL && indexed && c->thread[l] < c->workgroup[l]) {
      panel[l] = c->thread[l];
      any = true;
    }
  }
  char res[HANDLE_NAME], loops[HANDLE_NAME];
  snprintf(res, sizeof res, "t3%s", sx);
  snprintf(loops, sizeof loops, "lp%s", sx);
  prunerTextAppend(t, "    // Pack operand %d: one contiguous panel per register column.\n", o);
  if (any) {
    appendTileFor(t, res, loops, cur, panel, n);
    snprintf(cur, HANDLE_NAME, "%s", res);
  }
  prunerTextAppend(t,
                   "    %%pk%s = transform.structured.promote %%%s {operands_to_promote = [%d], "
                   "alignment = 64} : (" ANY ") -> " ANY "\n",
                   sx, cur, o);
  snprintf(cur, HANDLE_NAME, "pk%s", sx);
}

/* The panels' copies, tiled to one row per iteration (after every part has packed: the
 * match finds them all). */
static void appendPackCopies(PrunerText *t, const PrunerWorkload *w) {
  const PrunerOperand *b = &w->operands[prunerHostPackableOperand(w)];
  prunerTextAppend(t, "    %%pc = transform.structured.match ops{[\"linalg.copy\"]} in "
                      "%%root : (" ANY ") -> " ANY "\n");
  int64_t rows[PRUNER_MAX_RANK] = {0};
  for (int d = 0; d + 1 < b->rank; ++d)
    rows[d] = 1;
  appendTileFor(t, "pcr", "pcl", "pc", rows, b->rank);
}

/* 3. Register tile: the thread tile of the parallel loops, reduction loops by
 * registerReductionStep; 4. peel the register loops whose tile does not divide the task
 * tile (each once, innermost first; docs/host.md). */
static void appendRegisterTile(PrunerText *t, const PrunerWorkload *w, const PrunerConfig *c,
                               const char *sx, const char *cur) {
  const int n = w->num_loops;
  int64_t reg[PRUNER_MAX_LOOPS] = {0};
  int handle[PRUNER_MAX_LOOPS];
  int count = 0;
  for (int l = 0; l < n; ++l) {
    reg[l] = w->loop_kinds[l] == PRUNER_LOOP_PARALLEL ? c->thread[l]
                                                      : registerReductionStep(w, c, l);
    handle[l] = reg[l] > 0 ? count++ : -1;
  }
  char res[HANDLE_NAME], loops[HANDLE_NAME];
  snprintf(res, sizeof res, "t2%s", sx);
  snprintf(loops, sizeof loops, "lr%s", sx);
  prunerTextAppend(t, "    // Register tile.\n");
  int tiled = appendTileFor(t, res, loops, cur, reg, n);

  /* Innermost first: peeling a loop clones its body, so a peeled outer loop would leave
   * the handles of the loops inside it invalid (two peeled loops of a batch_matmul: batch
   * 3 by 2 and m 64 by 7 failed that way). */
  for (int l = n - 1; l >= 0 && tiled > 0; --l) {
    if (w->loop_kinds[l] != PRUNER_LOOP_PARALLEL || c->workgroup[l] % c->thread[l] == 0)
      continue;
    prunerTextAppend(t,
                     "    %%peel%d%s = transform.cast %%lr%s#%d : " ANY
                     " to !transform.op<\"scf.for\">\n"
                     "    %%pm%d%s, %%pr%d%s = transform.loop.peel %%peel%d%s : "
                     "(!transform.op<\"scf.for\">) -> (" ANY ", " ANY ")\n",
                     l, sx, sx, handle[l], l, sx, l, sx, l, sx);
  }
}

/* Split loops (docs/host.md, "Split loops"): `transform.structured.split` of %op at the
 * last multiple of each non-dividing task tile, one loop after the other, every part so
 * far split again; part p's handle is named op_p<p> (bit i: the remainder along the i-th
 * split loop, prunerHostConfigParts' order). */
static void appendSplits(PrunerText *t, const PrunerWorkload *w, const PrunerConfig *c) {
  int loops[PRUNER_HOST_MAX_SPLIT_LOOPS];
  int count = prunerHostSplitLoops(w, c, loops);
  for (int k = 0; k < count; ++k) {
    int l = loops[k];
    int64_t at = w->bounds[l] / c->workgroup[l] * c->workgroup[l];
    bool last = k + 1 == count;
    prunerTextAppend(t, "    // Loop %d (%s) split at %lld: %lld-wide tasks below, a "
                        "remainder of %lld above.\n",
                     l, prunerLoopRoleName(w->loop_roles[l]), (long long)at,
                     (long long)c->workgroup[l], (long long)(w->bounds[l] - at));
    for (int p = 0; p < 1 << k; ++p) {
      char in[HANDLE_NAME], lo[HANDLE_NAME], hi[HANDLE_NAME];
      if (k == 0)
        snprintf(in, sizeof in, "op");
      else
        snprintf(in, sizeof in, "op%d_%d", k - 1, p);
      if (last) {
        snprintf(lo, sizeof lo, "op_p%d", p);
        snprintf(hi, sizeof hi, "op_p%d", p + (1 << k));
      } else {
        snprintf(lo, sizeof lo, "op%d_%d", k, p);
        snprintf(hi, sizeof hi, "op%d_%d", k, p + (1 << k));
      }
      prunerTextAppend(t,
                       "    %%sp%d_%d = transform.structured.split %%%s after %lld "
                       "{dimension = %d} : " ANY "\n"
                       "    %%%s, %%%s = transform.split_handle %%sp%d_%d : (" ANY
                       ") -> (" ANY ", " ANY ")\n",
                       k, p, in, (long long)at, l, lo, hi, k, p);
    }
  }
}

/* 5. 1-D decomposition of 2-D convolutions (the vectorizer handles 1-D convs only), then
 * bufferization (canonicalize after it, else an alloc + memrefCopy per tile remains:
 * docs/host.md, H2). Either way leaves the function handle %f. */
static void appendDecomposeAndBufferize(PrunerText *t, const PrunerWorkload *w, bool on_tensors) {
  if (on_tensors) {
    prunerTextAppend(t,
                     "    %%convs = transform.structured.match ops{[\"%s\"]} in %%f0 : (" ANY
                     ") -> " ANY "\n"
                     "    %%dec = transform.structured.decompose %%convs : (" ANY ") -> " ANY "\n",
                     prunerSchedulePayloadOpName(w));
    prunerTextAppend(
        t,
        "    %%b = transform.bufferization.one_shot_bufferize layout{IdentityLayoutMap} "
        "%%root {bufferize_function_boundaries = true} : (" ANY ") -> " ANY "\n"
        "    %%f = transform.structured.match ops{[\"func.func\"]} in %%b : (" ANY ") -> " ANY "\n"
        "    transform.apply_patterns to %%f { "
        "transform.apply_patterns.canonicalization } : " ANY "\n"
        "    transform.apply_cse to %%f : " ANY "\n"
        /* Once cse has merged their subviews, bufferization's copies of each tile onto
         * itself are self-copies the canonicalizer erases; left in place they load and
         * store the output tile twice more every step and block the accumulator's
         * hoist (docs/host.md, "Draft"). */
        "    transform.apply_patterns to %%f { "
        "transform.apply_patterns.canonicalization } : " ANY "\n");
  } else {
    prunerTextAppend(t,
                     "    %%f = transform.structured.match ops{[\"func.func\"]} in %%root : (" ANY
                     ") -> " ANY "\n");
  }
}

/* 6. Vectorize, hoist the accumulator, lower to 1-D vectors and FMAs (vector_width > 1
 * only). Returns the function handle after it. */
static const char *appendVectorize(PrunerText *t, const PrunerConfig *c, bool channels_last) {
  if (c->vector_width <= 1)
    return "f";
  prunerTextAppend(
      t, "    %%fv = transform.structured.vectorize_children_and_apply_patterns %%f : (" ANY
         ") -> " ANY "\n"
         "    transform.apply_patterns to %%fv {\n"
         "      transform.apply_patterns.canonicalization\n"
         "      transform.apply_patterns.memref.fold_memref_alias_ops\n"
         "    } : " ANY "\n"
         "    transform.apply_cse to %%fv : " ANY "\n"
         "    // Keep the accumulator in registers across the inner reduction loop.\n"
         "    %%fh = transform.structured.hoist_redundant_vector_transfers %%fv : (" ANY ") -> " ANY
         "\n"
         "%s"
         "    transform.apply_patterns to %%fh {\n"
         "      transform.apply_patterns.vector.lower_contraction lowering_strategy = "
         "\"outerproduct\"\n"
         "      transform.apply_patterns.vector.lower_outerproduct\n"
         "      transform.apply_patterns.vector.transfer_permutation_patterns\n"
         "      transform.apply_patterns.vector.lower_masked_transfers\n"
         "      transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = "
         "\"innerparallel\"\n"
         "      transform.apply_patterns.vector.transfer_to_scf max_transfer_rank = 1 "
         "full_unroll = true\n"
         "      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1\n"
         "      transform.apply_patterns.vector.lower_shape_cast\n"
         "      transform.apply_patterns.vector.lower_transpose lowering_strategy = "
         "\"shuffle_1d\"\n"
         "      transform.apply_patterns.vector.lower_broadcast\n"
         "    } : " ANY "\n",
      /* The channels-last transposes' 16 x 16 blocks (AVX-512) as AVX-512-style
       * two-source shuffles: shuffle_1d makes one 256-element shuffle of them, which LLVM
       * lowers element by element. Before the general lowering, which takes the rest. */
      channels_last ? "    transform.apply_patterns to %fh {\n"
                      "      transform.apply_patterns.vector.transfer_permutation_patterns\n"
                      "      transform.apply_patterns.vector.lower_transpose lowering_strategy = "
                      "\"shuffle_16x16\"\n"
                      "    } : " ANY "\n"
                    : "");
  return "fh";
}

PrunerStatus prunerHostScheduleBuild(const PrunerWorkload *w, const PrunerConfig *c,
                                     const PrunerTargetDesc *target, char **text) {
  *text = NULL;
  if (c) {
    PrunerStatus st = prunerHostConfigCheck(w, target, NULL, c);
    if (!st.ok)
      return st;
  }
  return hostScheduleBuildChecked(w, c, text);
}

/* The largest divisor of `extent` of at most `cap` (the whole extent when it fits). */
static int64_t transposeTile(int64_t extent, int64_t cap) {
  for (int64_t d = extent < cap ? extent : cap; d > 1; --d)
    if (extent % d == 0)
      return d;
  return 1;
}

/* An NCHW conv's kernel (schedule_module.c): the input's and the filter's transposes
 * (%tr0, %tr1), the zero fill of the NHWC result (%zfill) and the generic that transposes
 * it and adds it into the output (%back). */
static void appendMatchChannelsLast(PrunerText *t) {
  prunerTextAppend(t,
                   "    // The ops around the channels-last conv (docs/host.md).\n"
                   "    %%tr = transform.structured.match ops{[\"linalg.transpose\"]} in %%root "
                   ": (" ANY ") -> " ANY "\n"
                   "    %%tr0, %%tr1 = transform.split_handle %%tr : (" ANY ") -> (" ANY ", " ANY
                   ")\n"
                   "    %%zfill = transform.structured.match ops{[\"linalg.fill\"]} in %%root "
                   ": (" ANY ") -> " ANY "\n"
                   "    %%back = transform.structured.match ops{[\"linalg.generic\"]} in %%root "
                   ": (" ANY ") -> " ANY "\n");
}

/* Transpose-like op `in` (its result's shape `shape`; its source walks result dim
 * `source_dim` contiguously) tiled so that each step moves a 2-D block of at most `lanes` x
 * `lanes` elements: the result's last dim and `source_dim`, each by its largest divisor of
 * at most `lanes`. The vectorizer then reads the block's rows and shuffles them. */
static void appendTransposeBlocks(PrunerText *t, const char *in, const int64_t *shape,
                                  int source_dim, int64_t lanes, const int64_t *interchange) {
  int64_t tiles[4] = {1, 1, 1, 1};
  tiles[3] = transposeTile(shape[3], lanes);
  tiles[source_dim] = transposeTile(shape[source_dim], lanes);
  char res[HANDLE_NAME], loops[HANDLE_NAME];
  snprintf(res, sizeof res, "%sb", in);
  snprintf(loops, sizeof loops, "%sl", in);
  appendTileForOrdered(t, res, loops, in, tiles, 4, interchange);
}

/* The zero fill of the NHWC result `in`, one row of f per step (left whole, a task's tile
 * would vectorize into one unrolled store per vector of it). */
static void appendFillRows(PrunerText *t, const char *in) {
  const int64_t rows[4] = {1, 1, 1, 0};
  char res[HANDLE_NAME], loops[HANDLE_NAME];
  snprintf(res, sizeof res, "%sr", in);
  snprintf(loops, sizeof loops, "%sl", in);
  appendTileFor(t, res, loops, in, rows, 4);
}

/* 1'. Tasks of an NCHW conv (more than one): the generic that adds the conv's NHWC result
 * into the NCHW output is tiled by the task tile of the output's loops, and the conv and
 * its zero fill are fused into each task, so that every task computes its output tile in
 * a task-sized buffer in cache and adds it to the output itself; leaves the conv's task
 * tile in `cur`. `op_w`, `op_c`: the NCHW op's workload and config (loops n, f, oh, ow,
 * ...); `lanes`: the transposes' block. */
static void appendChannelsLastTasks(PrunerText *t, const PrunerWorkload *op_w,
                                    const PrunerConfig *op_c, int64_t lanes, char *cur) {
  const PrunerOperand *out = &op_w->operands[op_w->num_inputs];
  int64_t task[4], tasks = 1;
  for (int d = 0; d < 4; ++d) {
    task[d] = out->shape[d];
    for (int l = 0; l < op_w->num_loops; ++l)
      if (out->index_coeff[d][l])
        task[d] = op_c->workgroup[l];
    tasks *= out->shape[d] / task[d];
  }
  prunerTextAppend(t, "    // %lld tasks, run in parallel by OpenMP, each with its own output "
                      "tile in NHWC.\n", (long long)tasks);
  prunerTextAppend(t, "    %%backt, %%forall0 = transform.structured.tile_using_forall %%back "
                      "tile_sizes ");
  appendTiles(t, task, 4);
  prunerTextAppend(t,
                   " : (" ANY ") -> (" ANY ", " ANY ")\n"
                   "    %%t0, %%forall1 = transform.structured.fuse_into_containing_op %%%s "
                   "into %%forall0 : (" ANY ", " ANY ") -> (" ANY ", " ANY ")\n"
                   "    %%zfillt, %%forall = transform.structured.fuse_into_containing_op "
                   "%%zfill into %%forall1 : (" ANY ", " ANY ") -> (" ANY ", " ANY ")\n",
                   cur);
  appendFillRows(t, "zfillt");
  if (lanes > 1)
    appendTransposeBlocks(t, "backt", task, 1, lanes, NULL);
  snprintf(cur, HANDLE_NAME, "t0");
}

/* The ops not in the tasks: the input's and the filter's transposes in 2-D blocks, and the
 * fill and the generic back into the output when the conv is one task or split into parts
 * (`whole_output`). Scalar configs keep the transposes whole (lowered to loops). */
static void appendChannelsLastWhole(PrunerText *t, const PrunerWorkload *op_w,
                                    const PrunerWorkload *twin, int64_t lanes,
                                    bool whole_output) {
  const PrunerOperand *tin = &twin->operands[0], *tfil = &twin->operands[1];
  const PrunerOperand *out = &op_w->operands[op_w->num_inputs];
  if (whole_output)
    appendFillRows(t, "zfill");
  if (lanes <= 1)
    return;
  /* The filter's blocks (kh, kw taps x c x f) walk c, then f, then kh innermost: one
   * source row (one f, one c: its taps, contiguous) is read while it is in cache, the
   * filter is read once. In the result's order (kh outermost) it was read KH times: on
   * ResNet's 3x3x512x512 filter (9.4 MB) the stage-4 NCHW conv took 4.5-5.6 ms against
   * 3.0-3.5 ms so (its NHWC twin alone: 1.5-2.3 ms). */
  static const int64_t filter_order[4] = {2, 3, 0, 1};
  appendTransposeBlocks(t, "tr0", tin->shape, 2, lanes, NULL);
  appendTransposeBlocks(t, "tr1", tfil->shape, 1, lanes, filter_order);
  if (whole_output)
    appendTransposeBlocks(t, "back", out->shape, 1, lanes, NULL);
}

PrunerStatus hostScheduleBuildChecked(const PrunerWorkload *w, const PrunerConfig *c, char **text) {
  *text = NULL;
  /* An NCHW conv: its channels-last twin is scheduled (schedule_module.c has rewritten the
   * op into it and four transposes by then). */
  PrunerWorkload twin;
  PrunerConfig twin_config;
  int twin_loop[PRUNER_MAX_LOOPS];
  const PrunerWorkload *op_w = w;
  const PrunerConfig *op_c = c;
  const bool channels_last = c && prunerHostChannelsLastWorkload(w, &twin, twin_loop);
  if (channels_last) {
    prunerHostConfigToTwin(c, twin_loop, w->num_loops, &twin_config);
    w = &twin;
    c = &twin_config;
  }
  PrunerText t;
  prunerTextInit(&t);
  /* 2-D convolutions are tiled and decomposed on tensors (the decomposition has no buffer
   * form) and bufferized by the schedule; everything else arrives bufferized. */
  const bool on_tensors = c && hostScheduleOnTensors(w);
  prunerTextAppend(&t,
                   "module attributes {transform.with_named_sequence} {\n"
                   "  transform.named_sequence @__transform_main(%%root: " ANY
                   " {transform.%s}) {\n",
                   on_tensors ? "consumed" : "readonly");
  if (!c) { /* the untiled lowering: linalg to plain loops, nothing else */
    prunerTextAppend(&t, "    transform.yield\n  }\n}\n");
    return prunerTextFinish(&t, "host schedule", text);
  }
  prunerTextAppend(
      &t, "    %%op = transform.structured.match ops{[\"%s\"]} in %%root : (" ANY ") -> " ANY "\n",
      prunerSchedulePayloadOpName(w));
  PrunerHostPart parts[PRUNER_HOST_MAX_PARTS];
  const int num_parts = prunerHostConfigParts(w, c, parts);
  if (num_parts > 1)
    appendSplits(&t, w, c);
  /* An NCHW conv of several tasks (and one part) transposes its output per task. */
  int64_t conv_tasks = 1;
  for (int l = 0; l < w->num_loops; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_PARALLEL)
      conv_tasks *= w->bounds[l] / c->workgroup[l];
  const bool tasks_transpose = channels_last && num_parts == 1 && conv_tasks > 1;
  if (channels_last)
    appendMatchChannelsLast(&t);
  int tasked = 0; /* parts with more than one task: a forall each */
  bool any_pack = false;
  for (int p = 0; p < num_parts; ++p) {
    const PrunerWorkload *pw = &parts[p].workload;
    const PrunerConfig *pc = &parts[p].config;
    char sx[16] = "", cur[HANDLE_NAME];
    if (num_parts > 1)
      snprintf(sx, sizeof sx, "_p%d", p);
    snprintf(cur, sizeof cur, "op%s", sx);
    if (num_parts > 1)
      prunerTextAppend(&t, "    // Part %d.\n", p);
    int64_t tasks = conv_tasks;
    if (tasks_transpose)
      appendChannelsLastTasks(&t, op_w, op_c, c->vector_width, cur);
    else
      appendTaskTile(&t, pw, pc, sx, cur, &tasks);
    appendCacheTile(&t, pw, pc, sx, cur);
    appendPackPanel(&t, pw, pc, sx, cur);
    /* One part: the copies right after the promote, as before loops could split. */
    if (pc->promote_operands && num_parts == 1)
      appendPackCopies(&t, pw);
    any_pack |= pc->promote_operands != 0;
    appendRegisterTile(&t, pw, pc, sx, cur);
    tasked += tasks > 1;
  }
  if (any_pack && num_parts > 1)
    appendPackCopies(&t, w);
  if (channels_last)
    appendChannelsLastWhole(&t, op_w, w, c->vector_width, !tasks_transpose);
  prunerTextAppend(&t, "    %%f0 = transform.structured.match ops{[\"func.func\"]} in "
                       "%%root : (" ANY ") -> " ANY "\n"
                       "    transform.apply_patterns to %%f0 { "
                       "transform.apply_patterns.canonicalization } : " ANY "\n");
  appendDecomposeAndBufferize(&t, w, on_tensors);
  const char *fh = appendVectorize(&t, c, channels_last);
  if (tasked == 1)
    prunerTextAppend(&t,
                     "    %%fa = transform.structured.match ops{[\"scf.forall\"]} in %%%s : (" ANY
                     ") -> " ANY "\n"
                     "    %%par = transform.loop.forall_to_parallel %%fa : (" ANY ") -> " ANY "\n",
                     fh);
  else if (tasked > 1) /* forall_to_parallel takes one loop */
    prunerTextAppend(&t,
                     "    %%fa = transform.structured.match ops{[\"scf.forall\"]} in %%%s : (" ANY
                     ") -> " ANY "\n"
                     "    transform.foreach %%fa : " ANY " {\n"
                     "    ^bb0(%%one: " ANY "):\n"
                     "      %%par = transform.loop.forall_to_parallel %%one : (" ANY ") -> " ANY
                     "\n"
                     "    }\n",
                     fh);
  prunerTextAppend(&t, "    transform.yield\n  }\n}\n");
  return prunerTextFinish(&t, "host schedule", text);
}

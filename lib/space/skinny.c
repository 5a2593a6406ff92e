/* lib/space/skinny.c: which workloads the cross-thread reduction (reduction_threads > 1)
 * applies to. Reductions and contractions share the schedule (docs/schedule.md,
 * "Cross-thread reduction"): the block's threads split the one reduction loop, so a GEMV
 * (matmul with M = 1) or any skinny contraction gets its parallelism from K instead of
 * from its few outputs. */
#include "pruner/space.h"
#include "space_splitk.h"

#include <stdlib.h>
#include <string.h>

bool prunerWorkloadHasReductionThreads(const PrunerWorkload *w) {
  bool kind = w->kind == PRUNER_OP_REDUCTION || w->kind == PRUNER_OP_MATMUL ||
              w->kind == PRUNER_OP_BATCH_MATMUL || w->kind == PRUNER_OP_CONTRACTION;
  if (!kind || w->num_outputs != 1 || w->num_loops < 2)
    return false;
  int reductions = 0;
  for (int l = 0; l < w->num_loops; ++l)
    reductions += w->loop_kinds[l] == PRUNER_LOOP_REDUCTION;
  /* split_reduction needs the accumulator combined as a reduction (one add/mul/max/min) */
  return reductions == 1 && w->loop_kinds[w->num_loops - 1] == PRUNER_LOOP_REDUCTION &&
         prunerWorkloadCombinerIsReduction(w);
}

/* ---- split-K candidates (space_splitk.h) ------------------------------------------- */

/* Outputs per SM above which split-K is not listed: a 1024-element tile per block already
 * gives every SM a block. */
#define SPLITK_OUTPUTS_PER_SM 1024
/* Shortest reduction split-K is listed for: up to this a block's own threads cover the
 * loop (the cross-thread reduction: 1024 threads, or 32 lanes x 32 steps). */
#define SPLITK_MIN_REDUCTION 1024
/* Most blocks per SM a split grid is listed with (slices x blocks). */
#define SPLITK_MAX_BLOCKS_PER_SM 4
/* Reduction steps are divisors of the slice up to this (as the FMA space's). */
#define SPLITK_MAX_STEP 64

typedef struct SplitKList {
  PrunerConfig *items;
  long n, cap;
  bool oom;
} SplitKList;

static void pushConfig(SplitKList *l, const PrunerConfig *c) {
  if (l->oom)
    return;
  if (l->n == l->cap) {
    long grown_cap = l->cap ? 2 * l->cap : 256;
    PrunerConfig *grown = realloc(l->items, (size_t)grown_cap * sizeof *grown);
    if (!grown) {
      l->oom = true;
      return;
    }
    l->items = grown;
    l->cap = grown_cap;
  }
  l->items[l->n++] = *c;
}

typedef struct SplitKWalk {
  const PrunerWorkload *w;
  const PrunerTargetDesc *t;
  const PrunerSpaceOptions *opts;
  int64_t min_threads;
  SplitKList list;
} SplitKWalk;

/* Every slice count, step and vector width for the tiles chosen in `c`. */
static void addSlices(SplitKWalk *s, PrunerConfig *c, int64_t blocks) {
  const PrunerWorkload *w = s->w;
  int red = w->num_loops - 1;
  int64_t k = w->bounds[red];
  static const int32_t widths[] = {1, 2, 4, 8};
  for (int64_t slices = 2; slices <= PRUNER_MAX_SPLIT_K && k % slices == 0; slices *= 2) {
    if (blocks * slices > (int64_t)SPLITK_MAX_BLOCKS_PER_SM * s->t->sm_count)
      break;
    int64_t slice = k / slices;
    for (int64_t step = 1; step <= slice && step <= SPLITK_MAX_STEP; ++step) {
      if (slice % step)
        continue;
      for (int v = 0; v < 4; ++v) {
        c->split_k = (int32_t)slices;
        c->reduction[red] = step;
        c->vector_width = widths[v];
        if (prunerConfigIsValidWithOptions(w, s->t, s->opts, c))
          pushConfig(&s->list, c);
      }
    }
  }
  c->split_k = 0;
  c->reduction[red] = 0;
  c->vector_width = 1;
}

/* Tiles of the parallel loops from loop `l` on (workgroup, thread pairs as the FMA space
 * forms them); `blocks` and `threads` so far. */
static void walkTiles(SplitKWalk *s, PrunerConfig *c, int l, int64_t blocks, int64_t threads) {
  const PrunerWorkload *w = s->w;
  /* The un-split grid already covers the SMs, or too many threads. */
  if (blocks >= s->t->sm_count || threads > s->t->max_threads_per_block)
    return;
  if (l == w->num_loops - 1) { /* the reduction loop, last (prunerWorkloadHasReductionThreads) */
    if (threads >= s->min_threads)
      addSlices(s, c, blocks);
    return;
  }
  int64_t bound = w->bounds[l];
  for (int64_t wg = 1; wg <= bound && wg <= s->opts->max_workgroup_tile; ++wg) {
    if (bound % wg)
      continue;
    for (int64_t th = 1; th <= wg && th <= s->opts->max_thread_tile; ++th) {
      if (wg % th)
        continue;
      c->workgroup[l] = wg;
      c->thread[l] = th;
      walkTiles(s, c, l + 1, blocks * (bound / wg), threads * (wg / th));
    }
  }
  c->workgroup[l] = c->thread[l] = 0;
}

long prunerSplitKCandidates(const PrunerWorkload *w, const PrunerTargetDesc *t,
                            const PrunerSpaceOptions *opts, PrunerConfig **out) {
  *out = NULL;
  if (t->kind != PRUNER_TARGET_GPU || !prunerWorkloadHasReductionThreads(w) || t->sm_count < 1 ||
      w->bounds[w->num_loops - 1] < SPLITK_MIN_REDUCTION)
    return 0;
  int64_t outputs = 1;
  const PrunerOperand *o = &w->operands[w->num_inputs];
  for (int d = 0; d < o->rank; ++d)
    outputs *= o->shape[d];
  if (outputs > (int64_t)SPLITK_OUTPUTS_PER_SM * t->sm_count)
    return 0;
  SplitKWalk s = {.w = w, .t = t, .opts = opts, .min_threads = prunerSpaceMinThreads(w, t, opts)};
  PrunerConfig c;
  memset(&c, 0, sizeof c);
  c.vector_width = 1;
  walkTiles(&s, &c, 0, 1, 1);
  if (s.list.oom) {
    free(s.list.items);
    return -1;
  }
  *out = s.list.items;
  return s.list.n;
}

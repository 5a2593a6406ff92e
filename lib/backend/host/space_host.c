/* lib/backend/host/space_host.c: the host CPU's knobs and validity rules (docs/host.md, "Space").
 *
 * A host config tiles the op three times: per task (workgroup: parallel loops, tasks are
 * spread over the cores by OpenMP), per cache block of the reduction loops (reduction),
 * and per register block (thread: parallel loops). The innermost loop of the output is
 * vectorized: with the full SIMD width, or a narrower vector that divides it and the widest
 * that fits beside it (prunerHostVectorCandidates). Tile candidates are the bound's divisors, as
 * Ansor/TVM draw them, and register tiles whatever the register rule admits, so that a
 * space is large enough for a search study to tell methods apart (docs/host.md, "Space");
 * a loop with no useful divisor gets tiles that split it (prunerHostConfigParts).
 * space.c builds its raw index from the candidates produced here and calls
 * prunerHostConfigCheck for validity. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pruner/backend/host_rules.h"

/* Register tiles of the non-vectorized loops, in rows: every count up to 8 and the even
 * ones up to 14 (2 vectors x 14 rows = 28 accumulators fill AVX-512's 32 registers); the
 * register rule drops what does not fit (docs/host.md, H4: 16-24 accumulators is the
 * sweet spot, 6 rows x 4 vectors was best before). */
static const int64_t kRegisterRows[] = {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14};
/* Register tiles of the vectorized loop, in SIMD vectors. */
static const int64_t kRegisterVectors[] = {1, 2, 4};
/* Task tiles smaller than this (or the bound) make tasks too small to amortize the
 * OpenMP dispatch and the register tile's edge handling. */
#define MIN_TASK_TILE 16
/* Cache-tile steps of reduction loops start here (docs/host.md, H5: K 64-128 best). */
#define MIN_REDUCTION_STEP 32

PrunerSpaceOptions prunerHostSpaceDefaultOptions(void) {
  PrunerSpaceOptions o;
  o.max_workgroup_tile = 512;
  o.max_thread_tile = 64;      /* vectorized loop: 4 vectors of 16 lanes */
  o.max_thread_elements = 256; /* scalar register tiles */
  o.min_threads = 1;
  o.max_unrolled_body = 0; /* the GPU compile-cost limits do not apply to host code */
  o.max_block_elements = 0;
  return o;
}

static bool isConv2d(const PrunerWorkload *w) {
  return w->kind == PRUNER_OP_CONV_2D_NHWC_HWCF || w->kind == PRUNER_OP_CONV_2D_NCHW_FCHW ||
         w->kind == PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC;
}

/* Loops the 1-D conv decomposition needs at extent 1 inside a register tile. */
static bool unitRegisterLoop(const PrunerWorkload *w, int l) {
  if (!isConv2d(w))
    return false;
  PrunerLoopRole r = w->loop_roles[l];
  return r == PRUNER_ROLE_IMAGE || r == PRUNER_ROLE_OUT_H;
}

static int lanes(const PrunerWorkload *w, const PrunerTargetDesc *t) {
  int bytes = prunerDTypeBytes(w->operands[w->num_inputs].dtype);
  int lanes = prunerHostTargetSimdLanes(t);
  int l = lanes > 0 ? lanes * 4 / (bytes > 0 ? bytes : 4) : 1;
  return l > 0 ? l : 1;
}

/* NCHW convolutions are scalar where they do not run as their channels-last twin (host
 * targets do: prunerHostRunsChannelsLast; the rules IREE's CPU backend borrows do not):
 * their output's contiguous loop is ow, and the 1-D conv vectorizer drops rows of strided
 * NCW convs (docs/schedule.md, G6). */
static bool scalarOnly(const PrunerWorkload *w) { return w->kind == PRUNER_OP_CONV_2D_NCHW_FCHW; }

int prunerHostVectorLoop(const PrunerWorkload *w) {
  int l = prunerWorkloadContiguousLoop(w, w->num_inputs);
  return l >= 0 && w->loop_kinds[l] == PRUNER_LOOP_PARALLEL ? l : -1;
}

int prunerHostVectorWidth(const PrunerWorkload *w, const PrunerTargetDesc *t) {
  PrunerWorkload twin;
  int twin_loop[PRUNER_MAX_LOOPS];
  if (prunerHostRunsChannelsLast(w, t) && prunerHostChannelsLastWorkload(w, &twin, twin_loop))
    return prunerHostVectorWidth(&twin, t);
  int vl = prunerHostVectorLoop(w), simd = lanes(w, t);
  if (vl < 0 || scalarOnly(w) || w->bounds[vl] < 4)
    return 1;
  /* The widest vector of at most the lanes that divides the bound, down to 4 (1,000
   * classes on a 16-lane CPU: 8 lanes, an AVX2-sized ymm; 8 output channels: the same),
   * so that whole vectors tile the loop; a bound none of them divides (a prime, 30,522 =
   * 2 x 3 x 5,087; 10) takes the widest vector that fits in it, at most the lanes, and is
   * split: its task tile does not divide it (prunerHostConfigParts). */
  for (int v = simd; v >= 4; v /= 2)
    if (w->bounds[vl] % v == 0)
      return v;
  int fits = simd;
  while (fits > 4 && fits > w->bounds[vl])
    fits /= 2;
  return fits;
}

/* The host space's second vector width (0: none) beside its first, `first`: where that is
 * a narrower vector that divides the vectorized bound, the widest one that fits in the
 * bound, at most the lanes, which does not divide it and so splits the loop (196 columns
 * on AVX-512: 4 and 16; 12: 4 and 8). A quarter-width vector ran a compute-bound GEMM 3.6x
 * slower than the full lanes split (docs/host.md, "Narrow vectors or the full lanes"). */
static int widerVectorWidth(const PrunerWorkload *w, const PrunerTargetDesc *t, int first) {
  int vl = prunerHostVectorLoop(w);
  if (first <= 1 || vl < 0 || scalarOnly(w))
    return 0;
  int wide = lanes(w, t);
  while (wide > first && wide > w->bounds[vl])
    wide /= 2;
  return wide > first ? wide : 0;
}

/* The same for `w` itself: an NCHW conv the host runs channels-last has its twin's. */
static int splitVectorWidth(const PrunerWorkload *w, const PrunerTargetDesc *t) {
  PrunerWorkload twin;
  int twin_loop[PRUNER_MAX_LOOPS];
  if (prunerHostRunsChannelsLast(w, t) && prunerHostChannelsLastWorkload(w, &twin, twin_loop))
    return splitVectorWidth(&twin, t);
  return widerVectorWidth(w, t, prunerHostVectorWidth(w, t));
}

static int compareInt64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Sorts out[0..n) ascending, drops duplicates and keeps the first `cap`. */
static int sortUnique(int64_t *out, int n, int cap) {
  qsort(out, (size_t)n, sizeof *out, compareInt64);
  int m = 0;
  for (int i = 0; i < n; ++i)
    if (m == 0 || out[m - 1] != out[i])
      out[m++] = out[i];
  return m < cap ? m : cap;
}

/* Divisor pairs (d, bound / d) are scanned for d up to sqrt(bound), at most this far: a
 * bound up to 2^32 gets every divisor in at most 2^16 steps; trying every value up to a
 * limit cost as much as the limit, and a bound of 2^40 spun for hours (docs/hardening.md,
 * "Sizes"). */
#define MAX_DIVISOR_SCAN 65536

/* The divisors of `bound` in [lo, hi], ascending, at most `cap`. A bound with more than
 * about 250 of them in range keeps those found first: the smallest with their cofactors
 * (the space's knobs hold at most PRUNER_MAX_KNOB_VALUES x 4 values anyway). */
static int divisorsBetween(int64_t bound, int64_t lo, int64_t hi, int64_t *out, int cap) {
  int64_t found[256];
  int n = 0;
  if (bound < 1 || hi < lo)
    return 0;
  for (int64_t d = 1; d <= bound / d && d <= hi && d <= MAX_DIVISOR_SCAN && n < 250; ++d) {
    if (bound % d != 0)
      continue;
    if (d >= lo)
      found[n++] = d;
    int64_t e = bound / d;
    if (e != d && e >= lo && e <= hi)
      found[n++] = e;
  }
  /* Past the scan (bounds above 2^32), powers of two and 3 x 2^k still count. */
  for (int64_t p = 1; p <= hi && n < 254; p *= 2) {
    if (bound % p == 0 && p >= lo)
      found[n++] = p;
    if (p <= hi / 3 && bound % (3 * p) == 0 && 3 * p >= lo)
      found[n++] = 3 * p;
    if (p > hi / 2)
      break; /* p * 2 would pass hi (or overflow) */
  }
  n = sortUnique(found, n, cap);
  memcpy(out, found, (size_t)n * sizeof *out);
  return n;
}

/* Task tiles: the divisors of the bound (Ansor's split factors), at least MIN_TASK_TILE
 * unless the bound is smaller, at most max_workgroup_tile, and the bound itself when it
 * fits. A bound with a large prime factor (56 = 7 x 8) gets 7, 14 and 28, which divide it
 * exactly; powers of two and 3 x 2^k alone gave 8 and 56. */
static int taskTiles(int64_t bound, int64_t max_tile, int64_t min_tile, int64_t *out, int cap) {
  int64_t limit = bound < max_tile ? bound : max_tile;
  return divisorsBetween(bound, min_tile, limit, out, cap);
}

/* Task tiles that do not divide the bound (the loop is split: prunerHostConfigParts), for
 * a loop whose dividing tiles are all below `want`: 2^k and 3 x 2^k in [lo, hi] below the
 * bound, multiples of `step` (the vector width on the vectorized loop), appended to
 * out[n..). A prime bound over max_workgroup_tile had no task tile at all, and 30,522
 * (BERT's vocabulary) only 1, 2, 3 and 6. */
static int splitTaskTiles(int64_t bound, int64_t lo, int64_t hi, int64_t step, int64_t want,
                          int64_t *out, int n, int cap) {
  for (int i = 0; i < n; ++i)
    if (out[i] >= want || out[i] == bound)
      return n;
  for (int64_t p = 1; p <= hi && p < bound; p *= 2) {
    int64_t cand[2] = {p, p % 2 == 0 ? p / 2 * 3 : 0};
    for (int j = 0; j < 2; ++j) {
      int64_t v = cand[j];
      if (v >= lo && v <= hi && v < bound && v % step == 0 && bound % v != 0 && n < cap)
        out[n++] = v;
    }
    if (p > hi / 2)
      break; /* p * 2 would pass hi (or overflow) */
  }
  return sortUnique(out, n, cap);
}

/* Packing (docs/host.md, "Packing B"): operand 1 of a contraction whose rows run along
 * the vectorized loop (its last index is that loop alone) and that some parallel loop
 * does not index (so a packed panel is reused by several register tiles). -1: none. */
int prunerHostPackableOperand(const PrunerWorkload *w) {
  if (w->kind != PRUNER_OP_MATMUL && w->kind != PRUNER_OP_BATCH_MATMUL &&
      w->kind != PRUNER_OP_CONTRACTION)
    return -1;
  if (w->num_inputs < 2 || w->operands[1].is_output || w->operands[1].rank < 2)
    return -1;
  int vl = prunerHostVectorLoop(w);
  if (vl < 0 || prunerWorkloadContiguousLoop(w, 1) != vl)
    return -1;
  const PrunerOperand *b = &w->operands[1];
  for (int l = 0; l < w->num_loops; ++l)
    if (b->index_coeff[b->rank - 1][l] != (l == vl))
      return -1; /* the row is the vectorized loop alone */
  bool reduction = false, reused = false;
  for (int l = 0; l < w->num_loops; ++l) {
    bool indexed = false;
    for (int d = 0; d < b->rank; ++d)
      indexed = indexed || b->index_coeff[d][l] != 0;
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION)
      reduction = reduction || indexed;
    else if (!indexed)
      reused = true;
  }
  return reduction && reused ? 1 : -1;
}

/* Task tile candidates of `loop` with their register tiles at vector width `vw` alone
 * (the vectorized loop's register tiles are whole vectors of it; other loops do not
 * depend on it). */
static int tileCandidatesAtWidth(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                 const PrunerSpaceOptions *opts, int loop, int vw,
                                 int64_t *workgroup, int64_t *thread, int cap) {
  PrunerSpaceOptions defaults = prunerHostSpaceDefaultOptions();
  if (!opts)
    opts = &defaults;
  int64_t bound = w->bounds[loop];
  int vl = prunerHostVectorLoop(w), simd = lanes(w, t);
  /* The vector loop's register tiles are whole vectors of width vw. */
  bool contraction = w->kind == PRUNER_OP_MATMUL || w->kind == PRUNER_OP_BATCH_MATMUL ||
                     w->kind == PRUNER_OP_CONTRACTION;
  /* Contractions: tasks of at least MIN_TASK_TILE rows; a batch loop (one attention head
   * per task) and other ops (small spatial loops of convolutions) may split down to one. */
  int64_t min_tile = loop == vl ? (vw > 1 ? vw : simd)
                     : contraction && w->loop_roles[loop] != PRUNER_ROLE_BATCH ? MIN_TASK_TILE
                                                                               : 1;
  if (min_tile > bound)
    min_tile = bound;
  int64_t tiles[64];
  int nt = taskTiles(bound, opts->max_workgroup_tile, min_tile, tiles, 64);
  if (loop == vl && vw > 1) { /* whole vectors: the main part's vector loop is not peeled */
    int m = 0;
    for (int i = 0; i < nt; ++i)
      if (tiles[i] % vw == 0)
        tiles[m++] = tiles[i];
    nt = m;
  }
  /* No dividing task tile of at least four vectors (the vectorized loop) or of
   * min_tile (the others): the loop is split (docs/host.md, "Split loops"); a narrower
   * vector that divides the bound takes whole tasks only (the split is the wider
   * vector's: prunerHostConfigCheck). */
  int64_t want = loop == vl && vw > 1 ? 4 * (int64_t)vw : min_tile;
  if (!(loop == vl && vw > 1 && vw < simd && bound % vw == 0))
    nt = splitTaskTiles(bound, min_tile, opts->max_workgroup_tile, loop == vl ? vw : 1,
                        want < bound ? want : bound, tiles, nt, 64);
  int n = 0;
  for (int i = 0; i < nt; ++i) {
    int64_t wg = tiles[i];
    if (unitRegisterLoop(w, loop)) {
      if (n < cap) {
        workgroup[n] = wg;
        thread[n++] = 1;
      }
      continue;
    }
    if (loop == vl && vw > 1 && wg >= vw) {
      /* Whole SIMD vectors that divide the task tile (no masked vectors). */
      for (size_t j = 0; j < sizeof kRegisterVectors / sizeof *kRegisterVectors; ++j) {
        int64_t th = kRegisterVectors[j] * vw;
        if (th <= wg && wg % th == 0 && th <= opts->max_thread_tile && n < cap) {
          workgroup[n] = wg;
          thread[n++] = th;
        }
      }
    } else if (loop == vl) {
      if (n < cap) { /* narrower than a vector: one scalar register tile of the whole */
        workgroup[n] = wg;
        thread[n++] = wg;
      }
    } else {
      for (size_t j = 0; j < sizeof kRegisterRows / sizeof *kRegisterRows; ++j) {
        int64_t th = kRegisterRows[j];
        if (th <= wg && th <= opts->max_thread_tile && n < cap) {
          workgroup[n] = wg;
          thread[n++] = th;
        }
      }
    }
  }
  return n;
}

int prunerHostTileCandidates(const PrunerWorkload *w, const PrunerTargetDesc *t,
                             const PrunerSpaceOptions *opts, int loop, int64_t *workgroup,
                             int64_t *thread, int cap) {
  int64_t widths[2];
  int nw = loop == prunerHostVectorLoop(w) ? prunerHostVectorCandidates(w, t, widths, 2) : 1;
  if (nw < 2)
    return tileCandidatesAtWidth(w, t, opts, loop, prunerHostVectorWidth(w, t), workgroup,
                                 thread, cap);
  /* Both widths' (task, register) pairs; with the other width such a pair is an invalid
   * config (prunerHostConfigCheck: the narrow vector's task tiles divide the bound, the
   * wider vector's split it), which the space leaves out. */
  int n = 0;
  for (int i = 0; i < nw; ++i) {
    int64_t wg[PRUNER_MAX_KNOB_VALUES * 4], th[PRUNER_MAX_KNOB_VALUES * 4];
    int m = tileCandidatesAtWidth(w, t, opts, loop, (int)widths[i], wg, th,
                                  PRUNER_MAX_KNOB_VALUES * 4);
    for (int j = 0; j < m && n < cap; ++j) {
      bool seen = false;
      for (int k = 0; k < n && !seen; ++k)
        seen = workgroup[k] == wg[j] && thread[k] == th[j];
      if (!seen) {
        workgroup[n] = wg[j];
        thread[n++] = th[j];
      }
    }
  }
  return n;
}

int prunerHostReductionCandidates(const PrunerWorkload *w, int loop, int64_t *steps, int cap) {
  int64_t bound = w->bounds[loop];
  PrunerLoopRole r = w->loop_roles[loop];
  int n = 0;
  /* kh steps by 1 so that the register tile is a 1-D conv (decomposition); kw is either
   * walked one tap at a time or whole. */
  if (isConv2d(w) && r == PRUNER_ROLE_FILTER_H) {
    steps[n++] = 1;
    return n;
  }
  if (isConv2d(w) && r == PRUNER_ROLE_FILTER_W) {
    steps[n++] = 1;
    if (bound > 1 && n < cap)
      steps[n++] = bound;
    return n;
  }
  /* The divisors of the bound from MIN_REDUCTION_STEP up, and the bound (docs/host.md). */
  int64_t min_step = bound < MIN_REDUCTION_STEP ? bound : MIN_REDUCTION_STEP;
  int m = divisorsBetween(bound, min_step, bound, steps + n, cap - n);
  return n + m;
}

int prunerHostVectorCandidates(const PrunerWorkload *w, const PrunerTargetDesc *t,
                               int64_t *widths, int cap) {
  if (cap < 1)
    return 0;
  /* Scalar code is never faster when a whole vector fits (docs/host.md, H2: the untiled,
   * scalar lowering is ~300x slower); 1 is offered only where no vector fits. */
  widths[0] = prunerHostVectorWidth(w, t);
  /* A narrower vector that divides the bound does a half or a quarter of the lanes' work
   * per instruction: the full lanes with the loop split are offered beside it, and the
   * draft weighs the two (docs/host.md, "Narrow vectors or the full lanes"). */
  int wide = splitVectorWidth(w, t);
  if (wide > 0 && cap > 1) {
    widths[1] = wide;
    return 2;
  }
  return 1;
}

/* ---- validity ----------------------------------------------------------------------- */

static bool indexesLoop(const PrunerOperand *b, int l) {
  for (int d = 0; d < b->rank; ++d)
    if (b->index_coeff[d][l] != 0)
      return true;
  return false;
}

/* Whether packing operand `o` copies a tile of it: some level must tile the op, the
 * tasks, the reduction's cache block or the panel (a loop indexing the operand whose
 * register tile is below its task tile); untiled, the whole operand is already the
 * contiguous panel. */
static bool packTilesOperand(const PrunerWorkload *w, const int64_t *bounds,
                             const PrunerConfig *c, int o) {
  const PrunerOperand *b = &w->operands[o];
  for (int l = 0; l < w->num_loops; ++l) {
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION) {
      if (c->reduction[l] < bounds[l])
        return true;
    } else if (c->workgroup[l] < bounds[l] ||
               (indexesLoop(b, l) && c->thread[l] < c->workgroup[l])) {
      return true;
    }
  }
  return false;
}

#define FAIL(...)                                                                          \
  do {                                                                                     \
    if (status)                                                                            \
      *status = prunerStatusError("pruner.config on %s (host): " __VA_ARGS__);            \
    return false;                                                                          \
  } while (0)

static bool check(const PrunerWorkload *w, const PrunerTargetDesc *t,
                  const PrunerSpaceOptions *opts, const PrunerConfig *c, PrunerStatus *status) {
  const char *op = w->op_name;
  const int n = w->num_loops;
  int vl = prunerHostVectorLoop(w), simd = lanes(w, t);
  /* promote_operands on the host packs operand 1 into a contiguous panel per register
   * column (docs/host.md, "Packing B"); nothing else can be staged. */
  int packable = prunerHostPackableOperand(w);
  char list[128];
  /* Knobs of other targets' schedules: the host's has none of them, so a config that sets
   * one was meant for another target (it used to be lowered with the knob dropped). */
  bool caches = false;
  for (int l = 0; l < PRUNER_MAX_LOOPS; ++l)
    caches |= c->cache[l] != 0;
  if (t->kind == PRUNER_TARGET_HOST &&
      (c->split_k > 1 || c->reduction_threads > 1 || c->stages > 1 || c->mma != 0 || caches))
    FAIL("%s is a knob of another target's schedule (GPU: split_k, reduction_threads, "
         "stages, mma; IREE: cache); the host schedule has none of them", op,
         c->split_k > 1           ? "split_k"
         : c->reduction_threads > 1 ? "reduction_threads"
         : c->stages > 1            ? "stages"
         : c->mma != 0              ? "mma"
                                    : "cache");
  if (c->promote_operands && (packable < 0 || c->promote_operands != 1u << packable))
    FAIL("promote_operands = %s; on the host only operand 1 of a contraction whose rows run "
         "along the vectorized loop can be packed (promote_operands = [1])%s",
         op, prunerConfigFormatPromote(c->promote_operands, list, sizeof list),
         packable < 0 ? ", and this op has none" : "");
  if (c->promote_operands && c->vector_width <= 1)
    FAIL("promote_operands = [1] packs a vectorized register panel; vector_width is %d", op,
         (int)c->vector_width);
  /* Per config scored: the second width from the first, not both from scratch. */
  int narrow = prunerHostVectorWidth(w, t), wide = widerVectorWidth(w, t, narrow);
  if (c->vector_width != 1 && c->vector_width != simd && c->vector_width != narrow &&
      c->vector_width != wide)
    FAIL("vector_width = %d is neither 1 nor the %d SIMD lanes of this CPU%s%s", op,
         (int)c->vector_width, simd,
         narrow > 1 && narrow < simd ? " nor the narrower vector that divides the loop" : "",
         wide > 0 && wide < simd ? " nor the widest vector that fits in it" : "");
  if (c->vector_width > 1 && scalarOnly(w))
    FAIL("vector_width = %d: NCHW convolutions are not vectorized on the host", op,
         (int)c->vector_width);
  if (c->vector_width > 1 && vl < 0)
    FAIL("vector_width = %d but the output has no contiguous parallel loop to vectorize", op,
         (int)c->vector_width);
  for (int l = 0; l < PRUNER_MAX_LOOPS; ++l) {
    bool par = l < n && w->loop_kinds[l] == PRUNER_LOOP_PARALLEL;
    bool red = l < n && w->loop_kinds[l] == PRUNER_LOOP_REDUCTION;
    if (!par && (c->workgroup[l] || c->thread[l]))
      FAIL("workgroup/thread tile entry %d is not a parallel loop", op, l);
    if (!red && c->reduction[l])
      FAIL("reduction entry %d is not a reduction loop", op, l);
  }
  int64_t rows = 1, vectors = 1, elements = 1;
  int split_loops = 0;
  for (int l = 0; l < n; ++l) {
    const char *role = prunerLoopRoleName(w->loop_roles[l]);
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION) {
      if (c->reduction[l] < 1 || w->bounds[l] % c->reduction[l])
        FAIL("reduction step %lld of loop %d (%s) does not divide its bound %lld", op,
             (long long)c->reduction[l], l, role, (long long)w->bounds[l]);
      if (isConv2d(w) && w->loop_roles[l] == PRUNER_ROLE_FILTER_H && c->reduction[l] != 1)
        FAIL("reduction step %lld of kh: 2-D convolutions step kh by 1 (1-D decomposition)",
             op, (long long)c->reduction[l]);
      continue;
    }
    int64_t wg = c->workgroup[l], th = c->thread[l];
    if (wg < 1 || wg > w->bounds[l])
      FAIL("workgroup tile %lld of loop %d (%s) is not in [1, bound %lld]", op, (long long)wg,
           l, role, (long long)w->bounds[l]);
    if (w->bounds[l] % wg && ++split_loops > PRUNER_HOST_MAX_SPLIT_LOOPS)
      FAIL("workgroup tile %lld of loop %d (%s) does not divide its bound %lld, and %d other "
           "loops are split already (at most %d)",
           op, (long long)wg, l, role, (long long)w->bounds[l], PRUNER_HOST_MAX_SPLIT_LOOPS,
           PRUNER_HOST_MAX_SPLIT_LOOPS);
    if (wg > opts->max_workgroup_tile && wg != w->bounds[l])
      FAIL("workgroup tile %lld of loop %d (%s) is over the limit %lld", op, (long long)wg, l,
           role, (long long)opts->max_workgroup_tile);
    if (th < 1 || th > wg)
      FAIL("thread (register) tile %lld of loop %d (%s) is not in [1, workgroup %lld]", op,
           (long long)th, l, role, (long long)wg);
    if (unitRegisterLoop(w, l) && th != 1)
      FAIL("thread tile %lld of loop %d (%s): 2-D convolutions keep it at 1", op,
           (long long)th, l, role);
    elements *= th;
    if (l == vl && c->vector_width > 1) {
      /* Whole vectors dividing the task tile (only a split loop's remainder is peeled). */
      if (th % c->vector_width || wg % th)
        FAIL("thread tile %lld of the vectorized loop %d (%s) must be a multiple of "
             "vector_width %d dividing the workgroup tile %lld",
             op, (long long)th, l, role, (int)c->vector_width, (long long)wg);
      vectors = th / c->vector_width;
      /* A narrower vector that divides the bound is there for whole tasks; a split loop
       * takes the wider one (splitVectorWidth). */
      if (c->vector_width < simd && w->bounds[l] % c->vector_width == 0 && w->bounds[l] % wg)
        FAIL("workgroup tile %lld of the vectorized loop %d (%s) does not divide its bound "
             "%lld: a vector narrower than the %d lanes that divides the bound (vector_width "
             "%d) takes dividing task tiles only; a split loop takes the wider vector",
             op, (long long)wg, l, role, (long long)w->bounds[l], simd,
             (int)c->vector_width);
    } else if (l == vl && wg % th) { /* (a split loop's remainder peels it: its own tile) */
      FAIL("thread tile %lld of the contiguous loop %d (%s) does not divide the workgroup "
           "tile %lld",
           op, (long long)th, l, role, (long long)wg);
    } else {
      rows *= th;
    }
  }
  if (c->promote_operands && packable >= 0) {
    /* The copy is made of a tile of operand 1 (transform.structured.promote stages a
     * subview): some level must tile the op, the tasks, the reduction's cache block or the
     * panel (a loop indexing the operand whose register tile is below its task tile).
     * Untiled, the whole operand is already the contiguous panel: nothing to pack. */
    const PrunerOperand *b = &w->operands[packable];
    /* Judged on the main part: a split loop's task tile is below its bound, but the
     * main part (the whole bound when nothing splits) may still tile nothing, and the
     * remainders of B's loops never pack, so such a config would be its unpacked twin. */
    int64_t main_bounds[PRUNER_MAX_LOOPS] = {0};
    for (int l = 0; l < n; ++l)
      main_bounds[l] = w->loop_kinds[l] == PRUNER_LOOP_PARALLEL && c->workgroup[l] > 0
                           ? w->bounds[l] / c->workgroup[l] * c->workgroup[l]
                           : w->bounds[l];
    if (!packTilesOperand(w, main_bounds, c, packable))
      FAIL("promote_operands = [1] packs a tile of operand 1, but this config tiles nothing "
           "(one task, the whole reduction, a register panel as wide as the task)",
           op);
    /* The panel is copied per register tile of B's loops; a peeled one leaves a remainder
     * of dynamic extent in the panel's loop, which the vectorizer leaves scalar: BERT's
     * attention scores with batch 3 by 2 ran 2.9-15 ms against 0.24 ms (docs/host.md). */
    for (int l = 0; l < n; ++l) {
      bool indexes = indexesLoop(b, l);
      if (indexes && w->loop_kinds[l] == PRUNER_LOOP_PARALLEL && c->thread[l] > 0 &&
          c->workgroup[l] % c->thread[l] != 0)
        FAIL("promote_operands = [1] with register tile %lld of loop %d (%s) peeled from its "
             "task tile %lld: the packed panel's remainder would run scalar; use a dividing "
             "register tile or no packing",
             op, (long long)c->thread[l], l, prunerLoopRoleName(w->loop_roles[l]),
             (long long)c->workgroup[l]);
    }
  }
  if (c->vector_width > 1) {
    /* Accumulators + one operand vector per column + one broadcast register must fit the
     * SIMD register file, or the register tile spills (docs/host.md, H4: 32 accumulators
     * spill on AVX-512). */
    int64_t regs = rows * vectors + vectors + 1;
    if (t->regs_per_sm > 0 && regs > t->regs_per_sm)
      FAIL("register tile needs %lld SIMD registers (%lld accumulators); target %s has %d",
           op, (long long)regs, (long long)(rows * vectors), t->name, t->regs_per_sm);
  } else if (elements > opts->max_thread_elements) {
    FAIL("scalar register tile of %lld elements is over the limit %lld", op,
         (long long)elements, (long long)opts->max_thread_elements);
  }
  return true;
}

/* The register tile of a remainder of `rest` (at least one vector) along the vectorized
 * loop: 4, 2 or 1 whole vectors (kRegisterVectors), at most `tile`, whose peeled tail is
 * at most one vector. A tile cut to the remainder (21 or 58 lanes: partial vectors wider
 * than one) or 3 whole vectors (48 lanes) was rebuilt from scalars with spills every
 * reduction step and ran 6-50x slower (a review's sweep, 2026-12-06); a tail under one
 * vector (5, 9, 10 lanes) runs as fast as whole vectors. */
static int64_t wholeVectorTile(int64_t rest, int64_t tile, int64_t width) {
  for (int j = (int)(sizeof kRegisterVectors / sizeof *kRegisterVectors) - 1; j > 0; --j) {
    int64_t t = kRegisterVectors[j] * width;
    if (t <= tile && t <= rest && rest % t <= width)
      return t;
  }
  return width;
}

int prunerHostSplitLoops(const PrunerWorkload *w, const PrunerConfig *c, int *loops) {
  int k = 0;
  for (int l = 0; l < w->num_loops && k < PRUNER_HOST_MAX_SPLIT_LOOPS; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_PARALLEL && c->workgroup[l] > 0 &&
        w->bounds[l] % c->workgroup[l] != 0)
      loops[k++] = l;
  return k;
}

int prunerHostConfigParts(const PrunerWorkload *w, const PrunerConfig *c, PrunerHostPart *parts) {
  int split[PRUNER_HOST_MAX_SPLIT_LOOPS];
  int k = prunerHostSplitLoops(w, c, split);
  int vl = prunerHostVectorLoop(w);
  int packable = prunerHostPackableOperand(w);
  for (int p = 0; p < 1 << k; ++p) {
    PrunerWorkload *pw = &parts[p].workload;
    PrunerConfig *pc = &parts[p].config;
    *pw = *w;
    *pc = *c;
    for (int i = 0; i < k; ++i) {
      int l = split[i];
      int64_t main_extent = w->bounds[l] / c->workgroup[l] * c->workgroup[l];
      if (!(p >> i & 1)) {
        pw->bounds[l] = main_extent;
        continue;
      }
      /* The remainder: one task along the loop, its register tile peeled if need be. */
      int64_t rest = w->bounds[l] - main_extent;
      pw->bounds[l] = rest;
      pc->workgroup[l] = rest;
      if (pc->thread[l] > rest)
        pc->thread[l] = rest;
      if (l == vl && c->vector_width > 1 && rest >= c->vector_width)
        pc->thread[l] = wholeVectorTile(rest, pc->thread[l], c->vector_width);
      /* A packed panel of a peeled or shortened register column would run scalar. */
      if (packable >= 0 && indexesLoop(&w->operands[packable], l))
        pc->promote_operands = 0;
    }
    if (pc->promote_operands && packable >= 0 &&
        !packTilesOperand(pw, pw->bounds, pc, packable))
      pc->promote_operands = 0;
  }
  return 1 << k;
}

/* An NCHW conv's configs are checked on its channels-last twin (channels_last.c). */
typedef struct TwinView {
  PrunerWorkload workload;
  PrunerConfig config;
  int loop[PRUNER_MAX_LOOPS];
} TwinView;

static bool twinOf(const PrunerWorkload *w, const PrunerTargetDesc *t, const PrunerConfig *c,
                   TwinView *v) {
  if (!prunerHostRunsChannelsLast(w, t) || !prunerHostChannelsLastWorkload(w, &v->workload,
                                                                          v->loop))
    return false;
  if (c)
    prunerHostConfigToTwin(c, v->loop, w->num_loops, &v->config);
  return true;
}

PrunerStatus prunerHostConfigCheck(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                   const PrunerSpaceOptions *opts, const PrunerConfig *config) {
  PrunerSpaceOptions defaults = prunerHostSpaceDefaultOptions();
  PrunerStatus st = prunerStatusOk();
  TwinView v;
  if (!twinOf(w, t, config, &v)) {
    check(w, t, opts ? opts : &defaults, config, &st);
    return st;
  }
  if (!check(&v.workload, t, opts ? opts : &defaults, &v.config, &st)) {
    size_t len = strlen(st.message);
    snprintf(st.message + len, sizeof st.message - len,
             " (an NCHW conv runs as its channels-last twin, loops n, oh, ow, f, kh, kw, c: "
             "loop numbers are the twin's)");
  }
  return st;
}

bool prunerHostConfigIsValid(const PrunerWorkload *w, const PrunerTargetDesc *t,
                             const PrunerSpaceOptions *opts, const PrunerConfig *config) {
  PrunerSpaceOptions defaults = prunerHostSpaceDefaultOptions();
  TwinView v;
  if (twinOf(w, t, config, &v))
    return check(&v.workload, t, opts ? opts : &defaults, &v.config, NULL);
  return check(w, t, opts ? opts : &defaults, config, NULL);
}

static PrunerStatus spaceKnobs(const PrunerWorkload *w, const PrunerTargetDesc *t,
                               const PrunerSpaceOptions *opts, PrunerKnob *knobs, int cap,
                               int *num_knobs);

/* An NCHW conv's knobs are its twin's, each loop's knob moved to the loop of the same role
 * in the op's order (so the knob order stays: parallel loops ascending, then reduction
 * loops, promote, vector width). */
PrunerStatus prunerHostSpaceKnobs(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                  const PrunerSpaceOptions *opts, PrunerKnob *knobs, int cap,
                                  int *num_knobs) {
  if (!prunerHostRunsChannelsLast(w, t))
    return spaceKnobs(w, t, opts, knobs, cap, num_knobs);
  TwinView *v = malloc(sizeof *v);
  if (!v)
    return prunerStatusError("host space of %s: out of memory", w->key);
  PrunerStatus st;
  if (!twinOf(w, t, NULL, v)) {
    st = spaceKnobs(w, t, opts, knobs, cap, num_knobs);
  } else {
    st = spaceKnobs(&v->workload, t, opts, knobs, cap, num_knobs);
    for (int k = 0; st.ok && k < *num_knobs; ++k)
      for (int l = 0; l < w->num_loops; ++l)
        if (knobs[k].loop >= 0 && v->loop[l] == knobs[k].loop) {
          knobs[k].loop = l;
          break;
        }
    /* Back in the op's loop order within each kind (TILE knobs come first, then
     * REDUCTION): a stable insertion sort by (kind, loop). */
    for (int k = 1; st.ok && k < *num_knobs; ++k) {
      if (knobs[k].loop < 0)
        continue;
      PrunerKnob moving = knobs[k];
      int j = k;
      while (j > 0 && knobs[j - 1].loop >= 0 && knobs[j - 1].kind == moving.kind &&
             knobs[j - 1].loop > moving.loop) {
        knobs[j] = knobs[j - 1];
        --j;
      }
      knobs[j] = moving;
    }
  }
  free(v);
  return st;
}

static PrunerStatus spaceKnobs(const PrunerWorkload *w, const PrunerTargetDesc *t,
                               const PrunerSpaceOptions *opts, PrunerKnob *knobs, int cap,
                               int *num_knobs) {
  int k = 0;
  *num_knobs = 0;
  for (int l = 0; l < w->num_loops; ++l) {
    if (w->loop_kinds[l] != PRUNER_LOOP_PARALLEL)
      continue;
    if (k == cap)
      return prunerStatusError("host space of %s: too many knobs", w->key);
    PrunerKnob *knob = &knobs[k++];
    memset(knob, 0, sizeof *knob);
    knob->kind = PRUNER_KNOB_TILE;
    knob->loop = l;
    knob->num_values = prunerHostTileCandidates(w, t, opts, l, knob->values,
                                                knob->thread_values, PRUNER_MAX_KNOB_VALUES * 4);
    if (knob->num_values == 0)
      return prunerStatusError("host space of %s: loop %d (%s, bound %lld) has no task tile "
                               "within max_workgroup_tile = %lld",
                               w->key, l, prunerLoopRoleName(w->loop_roles[l]),
                               (long long)w->bounds[l],
                               (long long)(opts ? opts->max_workgroup_tile : 512));
  }
  for (int l = 0; l < w->num_loops; ++l) {
    if (w->loop_kinds[l] != PRUNER_LOOP_REDUCTION)
      continue;
    if (k == cap)
      return prunerStatusError("host space of %s: too many knobs", w->key);
    PrunerKnob *knob = &knobs[k++];
    memset(knob, 0, sizeof *knob);
    knob->kind = PRUNER_KNOB_REDUCTION;
    knob->loop = l;
    knob->num_values =
        prunerHostReductionCandidates(w, l, knob->values, PRUNER_MAX_KNOB_VALUES * 4);
  }
  if (k + 2 > cap)
    return prunerStatusError("host space of %s: too many knobs", w->key);
  memset(&knobs[k], 0, 2 * sizeof *knobs);
  knobs[k].kind = PRUNER_KNOB_PROMOTE;
  knobs[k].loop = -1;
  knobs[k].num_values = 1; /* 0: unpacked */
  int packable = prunerHostPackableOperand(w);
  if (packable >= 0) /* 1 << 1: operand 1 packed per register panel */
    knobs[k].values[knobs[k].num_values++] = (int64_t)1 << packable;
  ++k;
  knobs[k].kind = PRUNER_KNOB_VECTOR_WIDTH;
  knobs[k].loop = -1;
  knobs[k].num_values = prunerHostVectorCandidates(w, t, knobs[k].values, PRUNER_MAX_KNOB_VALUES);
  ++k;
  *num_knobs = k;
  return prunerStatusOk();
}

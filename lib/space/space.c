/* The tuning space: knobs and their candidates, the mixed-radix raw index, the fast
 * validity scan and the chunked prefix count that gives valid configs dense indices.
 * Decisions and formulas: docs/space.md. The rules are those of config.c; this file
 * evaluates them on precomputed per-candidate values so that a scan does no division. */
#include "pruner/space.h"
#include "space_igemm.h"
#include "space_mma.h"
#include "space_splitk.h"

#include "pruner/backend/host_rules.h"
#include "pruner/backend/iree_rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reduction steps are divisors of the bound up to this (docs/space.md). */
#define MAX_REDUCTION_STEP 64
/* Largest accepted max_workgroup_tile / max_thread_tile (GPU spaces): a block holds at
 * most 1024 threads x the thread tile, far below this. */
#define MAX_TILE_OPTION 65536
/* Larger raw spaces are refused: the prefix count would need more than 128 MiB. */
#define MAX_RAW_SIZE (1ULL << 36)
#define MAX_KNOBS (PRUNER_MAX_LOOPS + 3)
#define MAX_CANDIDATES (PRUNER_MAX_KNOB_VALUES * 4)

/* The footprint of one operand dimension: sum over its (loop, coeff) terms. */
typedef struct DimTerms {
  int count;
  int loop[PRUNER_MAX_LOOPS];
  int64_t coeff[PRUNER_MAX_LOOPS];
} DimTerms;

typedef struct PrunerSpaceImpl PrunerSpaceImpl;

struct PrunerSpaceImpl {
  PrunerWorkload w;
  PrunerTargetDesc t;
  PrunerSpaceOptions opts;
  int num_knobs, num_tile_knobs, promote_knob, vector_knob;
  PrunerKnob knobs[MAX_KNOBS];
  uint64_t raw_size;
  /* Per tile-knob candidate: blocks (bound / workgroup) and threads (workgroup / thread). */
  int64_t blocks[PRUNER_MAX_LOOPS][MAX_CANDIDATES];
  int64_t threads[PRUNER_MAX_LOOPS][MAX_CANDIDATES];
  int64_t min_threads;
  /* Operands: footprint terms per dimension and element size. */
  int num_operands;
  int rank[PRUNER_MAX_OPERANDS];
  int dtype_bytes[PRUNER_MAX_OPERANDS];
  DimTerms terms[PRUNER_MAX_OPERANDS][PRUNER_MAX_RANK];
  /* Knob index of each output's contiguous loop's tile knob; -1 if none (only vector
   * width 1 is then valid). */
  int num_out_contig;
  int out_contig_knob[PRUNER_MAX_OPERANDS];
  int knob_of_loop[PRUNER_MAX_LOOPS];
  /* Prefix count, built on first use. */
  bool indexed;
  uint64_t count;
  size_t num_chunks;
  uint64_t *prefix; /* valid configs in chunks before chunk i */
  bool host;        /* host CPU target: knobs and rules from space_host.c */
  /* The reduction_threads knob (reductions only): the last knob, but its digit is the most
   * significant one of the raw index, so that raw indices below base_raw are exactly the
   * space without it (one thread per output) and the fast rules skip only within it. */
  bool xr;
  uint64_t base_raw;
  /* Configs listed after the FMA space, not enumerated by knobs: tensor-core configs
   * (config_mma.c), then implicit-GEMM convs (config_igemm.c). Raw index fma_raw + i and
   * dense index fma_count + i are listed[i]. All valid by construction. */
  PrunerConfig *listed;
  uint64_t num_listed, fma_raw, fma_count;
  /* prunerSpaceRestrict: the raw indices of the FMA configs kept, ascending (the filter
   * runs once, at restriction; a lookup here is a binary search, not a call of it). */
  bool restricted;
  uint64_t *kept_raw;
  uint64_t num_kept;
};

/* Whether the restriction (if any) keeps the config at `digits`. */
static bool spaceKeeps(const PrunerSpaceImpl *s, const int *digits);
static uint64_t keptLowerBound(const PrunerSpaceImpl *s, uint64_t raw);

/* The last knob of the one-thread-per-output space. */
static inline int lastBaseKnob(const PrunerSpaceImpl *s) { return s->num_knobs - 1 - s->xr; }

/* ---- building ----------------------------------------------------------------------- */

static int isContraction(PrunerOpKind k) {
  return k == PRUNER_OP_MATMUL || k == PRUNER_OP_BATCH_MATMUL || k == PRUNER_OP_CONTRACTION;
}

static int isConv(PrunerOpKind k) {
  return k == PRUNER_OP_CONV_2D_NHWC_HWCF || k == PRUNER_OP_CONV_2D_NCHW_FCHW ||
         k == PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC;
}

static PrunerStatus addTileKnob(PrunerSpaceImpl *s, int l) {
  PrunerKnob *k = &s->knobs[s->num_knobs];
  const int64_t bound = s->w.bounds[l];
  memset(k, 0, sizeof(*k));
  k->kind = PRUNER_KNOB_TILE;
  k->loop = l;
  for (int64_t wg = 1; wg <= bound && wg <= s->opts.max_workgroup_tile; ++wg) {
    if (bound % wg)
      continue;
    for (int64_t th = 1; th <= wg && th <= s->opts.max_thread_tile; ++th) {
      if (wg % th || wg / th > s->t.max_threads_per_block)
        continue;
      if (k->num_values == MAX_CANDIDATES)
        return prunerStatusError("loop %d (%s, bound %lld) has more than %d (workgroup, thread) "
                                 "tile candidates; lower max_workgroup_tile or max_thread_tile",
                                 l, prunerLoopRoleName(s->w.loop_roles[l]), (long long)bound,
                                 MAX_CANDIDATES);
      k->values[k->num_values] = wg;
      k->thread_values[k->num_values] = th;
      s->blocks[s->num_knobs][k->num_values] = bound / wg;
      s->threads[s->num_knobs][k->num_values] = wg / th;
      ++k->num_values;
    }
  }
  if (k->num_values == 0) /* max_workgroup_tile < 1 etc. */
    return prunerStatusError("loop %d (%s) has no tile candidates with max_workgroup_tile = %lld "
                             "and max_thread_tile = %lld",
                             l, prunerLoopRoleName(s->w.loop_roles[l]),
                             (long long)s->opts.max_workgroup_tile,
                             (long long)s->opts.max_thread_tile);
  s->knob_of_loop[l] = s->num_knobs++;
  return prunerStatusOk();
}

static void addReductionKnob(PrunerSpaceImpl *s, int l) {
  PrunerKnob *k = &s->knobs[s->num_knobs];
  memset(k, 0, sizeof(*k));
  k->kind = PRUNER_KNOB_REDUCTION;
  k->loop = l;
  PrunerLoopRole role = s->w.loop_roles[l];
  /* The direct-conv schedule decomposes the per-thread 2-D window into 1-D convs, which
   * needs the filter loops kh and kw stepped by 1 (docs/schedule.md, G5). */
  if (isConv(s->w.kind) && (role == PRUNER_ROLE_FILTER_H || role == PRUNER_ROLE_FILTER_W)) {
    k->values[k->num_values++] = 1;
  } else {
    for (int64_t step = 1; step <= s->w.bounds[l] && step <= MAX_REDUCTION_STEP; ++step)
      if (s->w.bounds[l] % step == 0)
        k->values[k->num_values++] = step;
  }
  s->knob_of_loop[l] = s->num_knobs++;
}

static void addPromoteKnob(PrunerSpaceImpl *s) {
  PrunerKnob *k = &s->knobs[s->num_knobs];
  memset(k, 0, sizeof(*k));
  k->kind = PRUNER_KNOB_PROMOTE;
  k->loop = -1;
  k->values[k->num_values++] = 0;
  /* Only the contraction schedules stage operands (A, B) through shared memory yet. */
  if (isContraction(s->w.kind) && s->w.num_inputs >= 2) {
    k->values[k->num_values++] = 1;
    k->values[k->num_values++] = 2;
    k->values[k->num_values++] = 3;
  }
  s->promote_knob = s->num_knobs++;
}

static void addVectorKnob(PrunerSpaceImpl *s) {
  PrunerKnob *k = &s->knobs[s->num_knobs];
  memset(k, 0, sizeof(*k));
  k->kind = PRUNER_KNOB_VECTOR_WIDTH;
  k->loop = -1;
  k->values[k->num_values++] = 1;
  /* else only 1 is valid (prunerConfigCheck) */
  if (prunerWorkloadVectorizable(&s->w) && prunerWorkloadCombinerIsReduction(&s->w)) {
    k->values[k->num_values++] = 2;
    k->values[k->num_values++] = 4;
    /* 16-byte loads of 16-bit inputs; not for iree-cuda, whose configs carry no width
     * (IREE chooses its own vector sizes): 8 would only repeat its 4. */
    if (prunerWorkloadMaxVectorWidth(&s->w) == 8 && s->t.kind == PRUNER_TARGET_GPU)
      k->values[k->num_values++] = 8;
  }
  s->vector_knob = s->num_knobs++;
}

/* reduction_threads candidates: 1, then each power of two from a warp (32) up to the
 * target's threads per block that divides the only (innermost) reduction loop of a
 * reduction or contraction (prunerConfigCheck's rules). No knob when only 1 is possible. */
static void addReductionThreadsKnob(PrunerSpaceImpl *s) {
  const PrunerWorkload *w = &s->w;
  /* IREE's GPU lowering_config has no cross-thread reduction (prunerIreeGpuExpressible). */
  if (!prunerWorkloadHasReductionThreads(w) || s->t.kind == PRUNER_TARGET_IREE_CUDA)
    return;
  PrunerKnob *k = &s->knobs[s->num_knobs];
  memset(k, 0, sizeof(*k));
  k->kind = PRUNER_KNOB_REDUCTION_THREADS;
  k->loop = -1;
  k->values[k->num_values++] = 1;
  for (int64_t r = 32; r <= s->t.max_threads_per_block; r *= 2)
    if (w->bounds[w->num_loops - 1] % r == 0)
      k->values[k->num_values++] = r;
  if (k->num_values == 1)
    return;
  s->num_knobs++;
  s->xr = true;
}

static void precomputeOperands(PrunerSpaceImpl *s) {
  const PrunerWorkload *w = &s->w;
  s->num_operands = w->num_inputs + w->num_outputs;
  for (int i = 0; i < s->num_operands; ++i) {
    s->rank[i] = w->operands[i].rank;
    s->dtype_bytes[i] = prunerDTypeBytes(w->operands[i].dtype);
    for (int d = 0; d < w->operands[i].rank; ++d) {
      DimTerms *t = &s->terms[i][d];
      t->count = 0;
      for (int l = 0; l < w->num_loops; ++l) {
        if (!w->operands[i].index_coeff[d][l])
          continue;
        t->loop[t->count] = l;
        t->coeff[t->count++] = w->operands[i].index_coeff[d][l];
      }
    }
  }
  s->num_out_contig = 0;
  for (int i = w->num_inputs; i < s->num_operands; ++i) {
    int l = prunerWorkloadContiguousLoop(w, i);
    s->out_contig_knob[s->num_out_contig++] = l < 0 ? -1 : s->knob_of_loop[l];
  }
}

/* Host CPU spaces (docs/host.md): knobs from space_host.c, validity by its rules. IREE's
 * CPU target has the same shape with its own knobs and rules (docs/iree.md). */
static PrunerStatus createHostSpace(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                    const PrunerSpaceOptions *opts, PrunerSpace *out) {
  PrunerSpaceImpl *s = calloc(1, sizeof(*s));
  if (!s)
    return prunerStatusError("space of %s: out of memory", w->key);
  s->w = *w;
  s->t = *t;
  s->host = true;
  bool iree = t->kind == PRUNER_TARGET_IREE_CPU;
  s->opts =
      opts ? *opts : (iree ? prunerIreeCpuSpaceDefaultOptions() : prunerHostSpaceDefaultOptions());
  PrunerStatus st =
      iree ? prunerIreeCpuSpaceKnobs(w, t, &s->opts, s->knobs, MAX_KNOBS, &s->num_knobs)
           : prunerHostSpaceKnobs(w, t, &s->opts, s->knobs, MAX_KNOBS, &s->num_knobs);
  if (!st.ok) {
    free(s);
    return st;
  }
  s->raw_size = 1;
  for (int k = 0; k < s->num_knobs; ++k) {
    const PrunerKnob *knob = &s->knobs[k];
    if (knob->kind == PRUNER_KNOB_TILE)
      s->num_tile_knobs = k + 1;
    if (knob->kind == PRUNER_KNOB_PROMOTE)
      s->promote_knob = k;
    if (knob->kind == PRUNER_KNOB_VECTOR_WIDTH)
      s->vector_knob = k;
    if (knob->loop >= 0)
      s->knob_of_loop[knob->loop] = k;
    s->raw_size *= (uint64_t)(knob->num_values > 0 ? knob->num_values : 1);
    if (s->raw_size > MAX_RAW_SIZE) {
      free(s);
      return prunerStatusError("host space of %s has more than %llu raw configs", w->key,
                               (unsigned long long)MAX_RAW_SIZE);
    }
  }
  s->fma_raw = s->raw_size; /* no tensor-core list on host targets */
  *out = s;
  return prunerStatusOk();
}

/* The listed configs: tensor-core ones, then implicit-GEMM convs (a workload has at most
 * one of the two kinds), then split-K ones (space_splitk.h). */
static long listCandidates(const PrunerWorkload *w, const PrunerTargetDesc *t,
                           const PrunerSpaceOptions *opts, PrunerConfig **out) {
  long n = prunerMmaCandidates(w, t, opts, out);
  if (n == 0)
    n = prunerIgemmCandidates(w, t, opts, out);
  if (n < 0)
    return n;
  PrunerConfig *split = NULL;
  long ns = prunerSplitKCandidates(w, t, opts, &split);
  if (ns <= 0) {
    if (ns < 0) {
      free(*out);
      *out = NULL;
    }
    return ns < 0 ? ns : n;
  }
  PrunerConfig *all = realloc(*out, (size_t)(n + ns) * sizeof *all);
  if (!all) {
    free(*out);
    free(split);
    *out = NULL;
    return -1;
  }
  memcpy(all + n, split, (size_t)ns * sizeof *all);
  free(split);
  *out = all;
  return n + ns;
}

PrunerStatus prunerSpaceCreate(const PrunerWorkload *w, const PrunerTargetDesc *t,
                               const PrunerSpaceOptions *opts, PrunerSpace *out) {
  *out = NULL;
  PrunerStatus st = prunerWorkloadVerify(w);
  if (st.ok)
    st = prunerWorkloadCheckSize(w, t);
  if (!st.ok)
    return st;
  if (t->kind == PRUNER_TARGET_HOST || t->kind == PRUNER_TARGET_IREE_CPU)
    return createHostSpace(w, t, opts, out);
  if (t->max_threads_per_block < 1 || t->smem_per_block_static < 0)
    return prunerStatusError("target %s: max_threads_per_block = %d, smem_per_block_static = "
                             "%d; not a usable GPU description",
                             t->name, t->max_threads_per_block, t->smem_per_block_static);
  /* The tile scan is quadratic in these limits: a huge option on a huge bound would
   * spin for hours before reporting too many candidates. */
  if (opts &&
      (opts->max_workgroup_tile > MAX_TILE_OPTION || opts->max_thread_tile > MAX_TILE_OPTION))
    return prunerStatusError("space of %s: max_workgroup_tile = %lld, max_thread_tile = %lld; "
                             "at most %d each",
                             w->key, (long long)opts->max_workgroup_tile,
                             (long long)opts->max_thread_tile, MAX_TILE_OPTION);
  st = prunerWorkloadCheckSchedulable(w, t);
  if (!st.ok)
    return st;
  PrunerSpaceImpl *s = calloc(1, sizeof(*s));
  if (!s)
    return prunerStatusError("space of %s: out of memory", w->key);
  s->w = *w;
  s->t = *t;
  s->opts = opts ? *opts : prunerSpaceDefaultOptions();
  s->min_threads = prunerSpaceMinThreads(w, t, &s->opts);
  /* Knob order (most significant raw digit first): parallel loops' tiles in loop order,
   * reduction loops' steps in loop order, promote_operands, vector_width. */
  for (int l = 0; l < w->num_loops; ++l) {
    if (w->loop_kinds[l] != PRUNER_LOOP_PARALLEL)
      continue;
    st = addTileKnob(s, l);
    if (!st.ok) {
      free(s);
      return st;
    }
  }
  s->num_tile_knobs = s->num_knobs;
  for (int l = 0; l < w->num_loops; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION)
      addReductionKnob(s, l);
  addPromoteKnob(s);
  addVectorKnob(s);
  addReductionThreadsKnob(s);
  precomputeOperands(s);
  long num_listed = listCandidates(w, t, &s->opts, &s->listed);
  if (num_listed < 0) {
    free(s);
    return prunerStatusError("space of %s: out of memory", w->key);
  }
  s->num_listed = (uint64_t)num_listed;
  s->raw_size = 1;
  for (int k = 0; k < s->num_knobs; ++k) {
    if (k == lastBaseKnob(s) + 1)
      s->base_raw = s->raw_size;
    s->raw_size *= (uint64_t)s->knobs[k].num_values;
    if (s->raw_size > MAX_RAW_SIZE) {
      free(s->listed);
      free(s);
      return prunerStatusError("space of %s has more than %llu raw configs; lower "
                               "max_workgroup_tile or max_thread_tile",
                               w->key, (unsigned long long)MAX_RAW_SIZE);
    }
  }
  s->fma_raw = s->raw_size;
  s->raw_size += s->num_listed;
  *out = s;
  return prunerStatusOk();
}

void prunerSpaceDestroy(PrunerSpace space) {
  if (!space)
    return;
  free(space->listed);
  free(space->prefix);
  free(space->kept_raw);
  free(space);
}

const PrunerWorkload *prunerSpaceGetWorkload(PrunerSpace space) { return &space->w; }
const PrunerTargetDesc *prunerSpaceGetTarget(PrunerSpace space) { return &space->t; }
int prunerSpaceNumKnobs(PrunerSpace space) { return space->num_knobs; }
const PrunerKnob *prunerSpaceGetKnob(PrunerSpace space, int i) {
  return i >= 0 && i < space->num_knobs ? &space->knobs[i] : NULL;
}
uint64_t prunerSpaceRawSize(PrunerSpace space) { return space->raw_size; }

size_t prunerSpaceExplainEmpty(PrunerSpace space, char *buf, size_t size) {
  enum { SAMPLES = 256 };
  if (size == 0)
    return 0;
  buf[0] = '\0';
  if (space->raw_size == 0)
    return (size_t)snprintf(buf, size, "the space has no candidate at all");
  /* Up to SAMPLES raw configs spread evenly over the raw space; the message most of them
   * fail with (messages are compared whole: the rule and the values it names). */
  uint64_t n = space->raw_size < SAMPLES ? space->raw_size : SAMPLES;
  char(*messages)[PRUNER_STATUS_MESSAGE_SIZE] = malloc(SAMPLES * sizeof *messages);
  if (!messages)
    return (size_t)snprintf(buf, size, "out of memory");
  int count[SAMPLES] = {0}, distinct = 0, best = -1;
  for (uint64_t k = 0; k < n; ++k) {
    PrunerConfig c;
    prunerSpaceDecodeRaw(space, k * (space->raw_size / n), &c);
    PrunerStatus st = prunerConfigCheckWithOptions(&space->w, &space->t, &space->opts, &c);
    if (st.ok)
      continue; /* valid by the rules, left out by a restriction */
    int j = 0;
    while (j < distinct && strcmp(messages[j], st.message) != 0)
      ++j;
    if (j == distinct)
      snprintf(messages[distinct++], sizeof messages[0], "%s", st.message);
    if (++count[j] > (best < 0 ? 0 : count[best]))
      best = j;
  }
  int len = best < 0 ? snprintf(buf, size, "every sampled candidate passes the rules but is "
                                            "left out of the space (a restriction)")
                     : snprintf(buf, size, "%d of %d sampled candidates: %s", count[best],
                                (int)n, messages[best]);
  free(messages);
  return len > 0 ? (size_t)len : 0;
}
PrunerSpaceOptions prunerSpaceGetOptions(PrunerSpace space) { return space->opts; }

/* ---- raw index <-> digits <-> config ------------------------------------------------- */

static void decodeDigits(const PrunerSpaceImpl *s, uint64_t raw, int *digits) {
  if (s->xr) {
    digits[s->num_knobs - 1] = (int)(raw / s->base_raw);
    raw %= s->base_raw;
  }
  if (raw <= UINT32_MAX) { /* 32-bit division is several times cheaper (most spaces) */
    uint32_t r = (uint32_t)raw;
    for (int k = lastBaseKnob(s); k >= 0; --k) {
      uint32_t radix = (uint32_t)s->knobs[k].num_values;
      digits[k] = (int)(r % radix);
      r /= radix;
    }
    return;
  }
  for (int k = lastBaseKnob(s); k >= 0; --k) {
    uint64_t radix = (uint64_t)s->knobs[k].num_values;
    digits[k] = (int)(raw % radix);
    raw /= radix;
  }
}

static uint64_t encodeDigits(const PrunerSpaceImpl *s, const int *digits) {
  uint64_t raw = 0;
  for (int k = 0; k <= lastBaseKnob(s); ++k)
    raw = raw * (uint64_t)s->knobs[k].num_values + digits[k];
  if (s->xr)
    raw += (uint64_t)digits[s->num_knobs - 1] * s->base_raw;
  return raw;
}

static void digitsToConfig(const PrunerSpaceImpl *s, const int *digits, PrunerConfig *c) {
  memset(c, 0, sizeof(*c));
  for (int k = 0; k < s->num_knobs; ++k) {
    const PrunerKnob *knob = &s->knobs[k];
    int64_t v = knob->values[digits[k]];
    switch (knob->kind) {
    case PRUNER_KNOB_TILE:
      c->workgroup[knob->loop] = v;
      c->thread[knob->loop] = knob->thread_values[digits[k]];
      break;
    case PRUNER_KNOB_REDUCTION:
      c->reduction[knob->loop] = v;
      break;
    case PRUNER_KNOB_PROMOTE:
      c->promote_operands = (uint32_t)v;
      break;
    case PRUNER_KNOB_VECTOR_WIDTH:
      c->vector_width = (int32_t)v;
      break;
    case PRUNER_KNOB_REDUCTION_THREADS:
      c->reduction_threads = v > 1 ? (int32_t)v : 0; /* 0: one thread, as configs read */
      break;
    case PRUNER_KNOB_CACHE_SPLIT:
      break; /* after the tiles it splits: below */
    }
  }
  for (int k = 0; k < s->num_knobs; ++k)
    if (s->knobs[k].kind == PRUNER_KNOB_CACHE_SPLIT)
      prunerConfigSetCacheSplit(&s->w, s->knobs[k].values[digits[k]], c);
}

/* Digits of a config; false if a value is not a candidate or an entry sits where no knob
 * puts one. */
static bool configToDigits(const PrunerSpaceImpl *s, const PrunerConfig *c, int *digits) {
  PrunerConfig check;
  for (int k = 0; k < s->num_knobs; ++k) {
    const PrunerKnob *knob = &s->knobs[k];
    int found = -1;
    for (int v = 0; v < knob->num_values && found < 0; ++v) {
      switch (knob->kind) {
      case PRUNER_KNOB_TILE:
        if (c->workgroup[knob->loop] == knob->values[v] &&
            c->thread[knob->loop] == knob->thread_values[v])
          found = v;
        break;
      case PRUNER_KNOB_REDUCTION:
        if (c->reduction[knob->loop] == knob->values[v])
          found = v;
        break;
      case PRUNER_KNOB_PROMOTE:
        if ((int64_t)c->promote_operands == knob->values[v])
          found = v;
        break;
      case PRUNER_KNOB_VECTOR_WIDTH:
        if ((int64_t)c->vector_width == knob->values[v])
          found = v;
        break;
      case PRUNER_KNOB_REDUCTION_THREADS:
        if ((int64_t)prunerConfigReductionThreads(c) == knob->values[v])
          found = v;
        break;
      case PRUNER_KNOB_CACHE_SPLIT:
        if (prunerConfigCacheSplit(&s->w, c) == knob->values[v])
          found = v;
        break;
      }
    }
    if (found < 0)
      return false;
    digits[k] = found;
  }
  digitsToConfig(s, digits, &check);
  return prunerConfigEqual(&check, c);
}

/* Raw index of a listed config; false if it is not one of the space's. */
static bool listedRaw(const PrunerSpaceImpl *s, const PrunerConfig *c, uint64_t *raw) {
  for (uint64_t i = 0; i < s->num_listed; ++i)
    if (prunerConfigEqual(&s->listed[i], c)) {
      *raw = s->fma_raw + i;
      return true;
    }
  return false;
}

void prunerSpaceDecodeRaw(PrunerSpace space, uint64_t raw, PrunerConfig *out) {
  int digits[MAX_KNOBS];
  raw %= space->raw_size;
  if (raw >= space->fma_raw && !space->host) {
    *out = space->listed[raw - space->fma_raw];
    return;
  }
  decodeDigits(space, raw, digits);
  digitsToConfig(space, digits, out);
}

bool prunerSpaceEncodeRaw(PrunerSpace space, const PrunerConfig *config, uint64_t *raw) {
  int digits[MAX_KNOBS];
  if (config->mma || prunerIgemmSelected(&space->w, config) || prunerConfigSplitK(config) > 1) {
    uint64_t r;
    if (!listedRaw(space, config, &r))
      return false;
    if (raw)
      *raw = r;
    return true;
  }
  if (!configToDigits(space, config, digits))
    return false;
  if (raw)
    *raw = encodeDigits(space, digits);
  return true;
}

/* ---- the fast rules ------------------------------------------------------------------ */

/* Rules that depend on the tile knobs only: threads per block, grid and block
 * dimensions, elements per thread. Divisibility holds by construction. */
static bool tilesValid(const PrunerSpaceImpl *s, const int *digits) {
  int64_t threads = 1, elements = 1;
  int grid_dims = 0, block_dims = 0;
  for (int k = s->num_tile_knobs - 1; k >= 0; --k) { /* innermost loop first: x */
    int64_t blocks = s->blocks[k][digits[k]];
    int64_t per_block = s->threads[k][digits[k]];
    threads *= per_block;
    elements *= s->knobs[k].thread_values[digits[k]];
    if (blocks > 1) {
      if (grid_dims == 3 || (grid_dims > 0 && blocks > 65535) || blocks > 2147483647LL)
        return false;
      ++grid_dims;
    }
    if (per_block > 1) {
      if (block_dims == 3 || per_block > (block_dims == 2 ? 64 : 1024))
        return false;
      ++block_dims;
    }
    if (threads > s->t.max_threads_per_block)
      return false;
  }
  int64_t block_elements;
  if (s->opts.max_block_elements > 0 &&
      (__builtin_mul_overflow(threads, elements, &block_elements) ||
       block_elements > s->opts.max_block_elements))
    return false;
  return threads >= s->min_threads && elements <= s->opts.max_thread_elements;
}

/* The unrolled body per thread (thread elements x reduction steps): depends on the tile
 * and reduction knobs. */
static bool bodyValid(const PrunerSpaceImpl *s, const int *digits) {
  if (s->opts.max_unrolled_body <= 0)
    return true;
  int64_t body = 1;
  for (int k = 0; k < s->promote_knob; ++k) {
    int64_t v = k < s->num_tile_knobs ? s->knobs[k].thread_values[digits[k]]
                                      : s->knobs[k].values[digits[k]];
    if (__builtin_mul_overflow(body, v, &body) || body > s->opts.max_unrolled_body)
      return false;
  }
  return true;
}

static inline int64_t loopTile(const PrunerSpaceImpl *s, const int *digits, int l) {
  int k = s->knob_of_loop[l];
  return s->knobs[k].values[digits[k]]; /* workgroup tile or reduction step */
}

static inline int64_t dimExtent(const PrunerSpaceImpl *s, const int *digits, int i, int d) {
  const DimTerms *t = &s->terms[i][d];
  int64_t e = 1;
  for (int j = 0; j < t->count; ++j)
    e += t->coeff[j] * (loopTile(s, digits, t->loop[j]) - 1);
  return e;
}

static bool smemValid(const PrunerSpaceImpl *s, const int *digits) {
  uint32_t mask = (uint32_t)s->knobs[s->promote_knob].values[digits[s->promote_knob]];
  if (!mask)
    return true;
  int64_t bytes = 0;
  for (int i = 0; i < s->num_operands; ++i) {
    if (!(mask & (1u << i)))
      continue;
    int64_t elems = 1;
    bool whole = s->rank[i] >= 1;
    for (int d = 0; d < s->rank[i]; ++d) {
      int64_t e = dimExtent(s, digits, i, d);
      elems *= e;
      whole = whole && e == s->w.operands[i].shape[d];
    }
    /* The schedule promotes a block's sub-tile only (prunerConfigCheck, rule 8). */
    if (whole)
      return false;
    bytes += elems * s->dtype_bytes[i];
  }
  return bytes <= s->t.smem_per_block_static;
}

/* Rule 9 for width `vw`: it divides the output's contiguous thread tiles and every
 * promoted tile's contiguous extent. */
static bool widthFits(const PrunerSpaceImpl *s, const int *digits, int64_t vw) {
  if (vw == 1)
    return true;
  for (int i = 0; i < s->num_out_contig; ++i) {
    int k = s->out_contig_knob[i];
    if (k < 0 || s->knobs[k].thread_values[digits[k]] % vw)
      return false;
  }
  uint32_t mask = (uint32_t)s->knobs[s->promote_knob].values[digits[s->promote_knob]];
  for (int i = 0; mask && i < s->num_operands; ++i) {
    if (!(mask & (1u << i)) || s->rank[i] < 1)
      continue;
    if (dimExtent(s, digits, i, s->rank[i] - 1) % vw)
      return false;
  }
  return true;
}

static bool vectorValid(const PrunerSpaceImpl *s, const int *digits) {
  const PrunerKnob *vk = &s->knobs[s->vector_knob];
  int64_t vw = vk->values[digits[s->vector_knob]], widest = vk->values[vk->num_values - 1];
  if (!widthFits(s, digits, vw))
    return false;
  /* One config per kernel (prunerConfigCheck, "vector_width"): a direct GPU config
   * vectorizes its whole thread tile, so beside 1 only the widest width that fits is
   * listed; iree-cuda's configs carry no width at all, so only the widest that fits. */
  uint32_t mask = (uint32_t)s->knobs[s->promote_knob].values[digits[s->promote_knob]];
  bool direct = s->t.kind == PRUNER_TARGET_GPU && !mask && vw > 1;
  if (direct || s->t.kind == PRUNER_TARGET_IREE_CUDA)
    for (int64_t wider = vw * 2; wider <= widest; wider *= 2)
      if (widthFits(s, digits, wider))
        return false;
  return true;
}

/* A position in the raw space kept as digits, so that a scan never divides. */
typedef struct Cursor {
  int digits[MAX_KNOBS];
  bool tiles_known, tiles_ok; /* tile rules for the current tile digits  */
  bool body_known, body_ok;   /* unrolled body for tile + reduction digits */
  bool smem_known, smem_ok;   /* shared memory for every digit but vector */
} Cursor;

static void cursorStart(const PrunerSpaceImpl *s, Cursor *c, uint64_t raw) {
  decodeDigits(s, raw, c->digits);
  c->tiles_known = c->body_known = c->smem_known = false;
}

/* Advances the cursor at knob k (lower knobs reset); false when the space runs out. */
static bool cursorAdvance(const PrunerSpaceImpl *s, Cursor *c, int k) {
  if (k < 0)
    return false;
  for (int j = k + 1; j <= lastBaseKnob(s); ++j)
    c->digits[j] = 0;
  for (; k >= 0; --k) {
    if (++c->digits[k] < s->knobs[k].num_values)
      break;
    c->digits[k] = 0;
  }
  if (k < 0) { /* past the base space: on to the next reduction_threads candidate */
    int x = s->num_knobs - 1;
    if (!s->xr || ++c->digits[x] >= s->knobs[x].num_values)
      return false;
    c->tiles_known = c->body_known = c->smem_known = false;
    return true;
  }
  if (k < s->num_tile_knobs)
    c->tiles_known = false;
  if (k < s->promote_knob)
    c->body_known = false;
  if (k != s->vector_knob)
    c->smem_known = false;
  return true;
}

/* Moves the cursor to the first valid config at or after it; false if there is none.
 * Whole subtrees are skipped when a rule fails on a more significant group of knobs: a
 * tile failure skips every reduction / promote / vector choice under it, a shared-memory
 * failure every vector width. */
static bool cursorSeek(const PrunerSpaceImpl *s, Cursor *c) {
  if (s->restricted) {
    /* Every kept config passed these rules when the space was restricted: the next one
     * is a binary search away. Walking the rules instead visits every valid config in
     * between, the whole FMA space when none of it is kept (a study of tensor-core
     * records, --schedules=tensor-core): seconds per call on a GPU space. */
    uint64_t at = keptLowerBound(s, encodeDigits(s, c->digits));
    if (at >= s->num_kept)
      return false;
    cursorStart(s, c, s->kept_raw[at]);
    return true;
  }
  while (s->host) { /* host spaces are small: check each config with the host's rules */
    PrunerConfig config;
    digitsToConfig(s, c->digits, &config);
    if (spaceKeeps(s, c->digits) &&
        prunerConfigIsValidWithOptions(&s->w, &s->t, &s->opts, &config))
      return true;
    if (!cursorAdvance(s, c, s->num_knobs - 1))
      return false;
  }
  while (s->xr && c->digits[s->num_knobs - 1] > 0) {
    /* reduction_threads > 1: thread tiles equal to workgroup tiles, no promotion, vector
     * width 1 (prunerConfigCheck); skip on the first knob that breaks that, then check
     * the few configs left with the full rules. */
    int fail_at = -1;
    for (int k = 0; k <= lastBaseKnob(s) && fail_at < 0; ++k) {
      const PrunerKnob *knob = &s->knobs[k];
      int64_t v = knob->values[c->digits[k]];
      if ((knob->kind == PRUNER_KNOB_TILE && knob->thread_values[c->digits[k]] != v) ||
          (knob->kind == PRUNER_KNOB_PROMOTE && v != 0) ||
          (knob->kind == PRUNER_KNOB_VECTOR_WIDTH && v != 1))
        fail_at = k;
    }
    if (fail_at < 0) {
      PrunerConfig config;
      digitsToConfig(s, c->digits, &config);
      if (spaceKeeps(s, c->digits) &&
          prunerConfigIsValidWithOptions(&s->w, &s->t, &s->opts, &config))
        return true;
      fail_at = lastBaseKnob(s);
    }
    if (!cursorAdvance(s, c, fail_at))
      return false;
  }
  for (;;) {
    if (!c->tiles_known) {
      c->tiles_ok = tilesValid(s, c->digits);
      c->tiles_known = true;
    }
    int fail_at;
    if (c->tiles_ok && !c->body_known) {
      c->body_ok = bodyValid(s, c->digits);
      c->body_known = true;
    }
    if (!c->tiles_ok)
      fail_at = s->num_tile_knobs - 1; /* -1 with no tile knobs: nothing is valid */
    else if (!c->body_ok)
      fail_at = s->promote_knob - 1; /* the last reduction (or tile) knob */
    else if (!(c->smem_known ? c->smem_ok
                             : (c->smem_known = true, c->smem_ok = smemValid(s, c->digits))))
      fail_at = s->promote_knob;
    else if (!vectorValid(s, c->digits))
      fail_at = s->vector_knob;
    else if (!spaceKeeps(s, c->digits))
      fail_at = lastBaseKnob(s);
    else
      return true;
    if (!cursorAdvance(s, c, fail_at))
      return false;
    if (s->xr && c->digits[s->num_knobs - 1] > 0)
      return cursorSeek(s, c); /* past the base space */
  }
}

/* The position of `raw` in the restricted space's sorted kept list (or where it would go). */
static uint64_t keptLowerBound(const PrunerSpaceImpl *s, uint64_t raw) {
  uint64_t lo = 0, hi = s->num_kept;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (s->kept_raw[mid] < raw)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static bool spaceKeeps(const PrunerSpaceImpl *s, const int *digits) {
  if (!s->restricted)
    return true;
  uint64_t raw = encodeDigits(s, digits), at = keptLowerBound(s, raw);
  return at < s->num_kept && s->kept_raw[at] == raw;
}

static bool cursorNext(const PrunerSpaceImpl *s, Cursor *c);

PrunerStatus prunerSpaceRestrict(PrunerSpace space, PrunerConfigFilter keep, void *user) {
  /* One scan of the space as it is now: every valid config is offered to `keep` once. */
  uint64_t *kept = NULL, n = 0, cap = 0;
  Cursor cur;
  cursorStart(space, &cur, 0);
  for (bool more = space->fma_raw > 0 && cursorSeek(space, &cur); more;
       more = cursorNext(space, &cur)) {
    PrunerConfig config;
    digitsToConfig(space, cur.digits, &config);
    if (keep && !keep(&config, user))
      continue;
    if (n == cap) {
      uint64_t *grown = realloc(kept, (cap ? 2 * cap : 256) * sizeof *kept);
      if (!grown) { /* not a smaller space passed off as the restricted one */
        free(kept);
        return prunerStatusError("out of memory restricting the space of %s",
                                 space->w.key);
      }
      kept = grown;
      cap = cap ? 2 * cap : 256;
    }
    kept[n++] = encodeDigits(space, cur.digits);
  }
  free(space->kept_raw);
  space->kept_raw = kept;
  space->num_kept = n;
  space->restricted = true;
  /* The tensor-core list is not enumerated by the cursor: filter it in place. */
  uint64_t listed_kept = 0;
  for (uint64_t i = 0; i < space->num_listed; ++i)
    if (!keep || keep(&space->listed[i], user))
      space->listed[listed_kept++] = space->listed[i];
  space->num_listed = listed_kept;
  space->raw_size = space->fma_raw + space->num_listed;
  free(space->prefix); /* counts and dense indices change: rebuilt on next use */
  space->prefix = NULL;
  space->indexed = false;
  return prunerStatusOk();
}

/* The valid config after the one the cursor is on. */
static bool cursorNext(const PrunerSpaceImpl *s, Cursor *c) {
  return cursorAdvance(s, c, lastBaseKnob(s)) && cursorSeek(s, c);
}

/* First valid raw index >= start, or false. */
static bool nextValidRaw(const PrunerSpaceImpl *s, uint64_t start, uint64_t *found) {
  if (start >= s->raw_size)
    return false;
  if (start >= s->fma_raw) { /* the listed configs: every one valid */
    *found = start > s->fma_raw ? start : s->fma_raw;
    return *found < s->raw_size;
  }
  Cursor c;
  cursorStart(s, &c, start);
  if (!cursorSeek(s, &c)) {
    *found = s->fma_raw;
    return s->num_listed > 0;
  }
  *found = encodeDigits(s, c.digits);
  return true;
}

bool prunerSpaceNext(PrunerSpace space, uint64_t *raw, PrunerConfig *config) {
  if (*raw >= space->raw_size)
    return false;
  if (*raw >= space->fma_raw) { /* the listed configs */
    *config = space->listed[*raw - space->fma_raw];
    ++*raw;
    return true;
  }
  Cursor c;
  cursorStart(space, &c, *raw);
  if (!cursorSeek(space, &c)) {
    *raw = space->fma_raw;
    return prunerSpaceNext(space, raw, config);
  }
  *raw = encodeDigits(space, c.digits) + 1;
  digitsToConfig(space, c.digits, config);
  return true;
}

static bool rawValid(const PrunerSpaceImpl *s, uint64_t raw) {
  uint64_t found;
  return nextValidRaw(s, raw, &found) && found == raw;
}

bool prunerSpaceContains(PrunerSpace space, const PrunerConfig *config) {
  uint64_t raw;
  return prunerSpaceEncodeRaw(space, config, &raw) && rawValid(space, raw);
}

/* ---- dense index --------------------------------------------------------------------- */

static PrunerStatus buildIndex(PrunerSpaceImpl *s) {
  if (s->indexed)
    return prunerStatusOk();
  if (s->restricted) { /* the kept list is the index */
    s->fma_count = s->num_kept;
    s->count = s->num_kept + s->num_listed;
    s->indexed = true;
    return prunerStatusOk();
  }
  size_t chunks = (size_t)((s->fma_raw + PRUNER_SPACE_CHUNK - 1) / PRUNER_SPACE_CHUNK);
  uint64_t *prefix = calloc(chunks ? chunks : 1, sizeof(uint64_t));
  if (!prefix)
    return prunerStatusError("space of %s: out of memory for the index of %zu chunks", s->w.key,
                             chunks);
  /* Count per chunk, then turn the counts into exclusive prefix sums. */
  uint64_t total = 0;
  Cursor cur;
  cursorStart(s, &cur, 0);
  for (bool more = cursorSeek(s, &cur); more; more = cursorNext(s, &cur))
    ++prefix[encodeDigits(s, cur.digits) / PRUNER_SPACE_CHUNK];
  for (size_t c = 0; c < chunks; ++c) {
    uint64_t n = prefix[c];
    prefix[c] = total;
    total += n;
  }
  s->prefix = prefix;
  s->num_chunks = chunks;
  s->fma_count = total;
  s->count = total + s->num_listed;
  s->indexed = true;
  return prunerStatusOk();
}

uint64_t prunerSpaceCount(PrunerSpace space) {
  if (!buildIndex(space).ok)
    return 0;
  return space->count;
}

PrunerStatus prunerSpaceGetConfig(PrunerSpace space, uint64_t index, PrunerConfig *out) {
  PrunerStatus st = buildIndex(space);
  if (!st.ok)
    return st;
  if (index >= space->count)
    return prunerStatusError("config index %llu out of range: the space of %s has %llu valid "
                             "configs",
                             (unsigned long long)index, space->w.key,
                             (unsigned long long)space->count);
  if (index >= space->fma_count) {
    *out = space->listed[index - space->fma_count];
    return prunerStatusOk();
  }
  if (space->restricted) {
    prunerSpaceDecodeRaw(space, space->kept_raw[index], out);
    return prunerStatusOk();
  }
  /* Last chunk whose prefix is <= index. */
  size_t lo = 0, hi = space->num_chunks - 1;
  while (lo < hi) {
    size_t mid = lo + (hi - lo + 1) / 2;
    if (space->prefix[mid] <= index)
      lo = mid;
    else
      hi = mid - 1;
  }
  Cursor cur;
  cursorStart(space, &cur, (uint64_t)lo * PRUNER_SPACE_CHUNK);
  bool more = cursorSeek(space, &cur);
  for (uint64_t skip = index - space->prefix[lo]; more && skip > 0; --skip)
    more = cursorNext(space, &cur);
  if (!more) /* cannot happen: the prefix counts came from the same scan */
    return prunerStatusError("space of %s: index is inconsistent at %llu", space->w.key,
                             (unsigned long long)index);
  digitsToConfig(space, cur.digits, out);
  return prunerStatusOk();
}

PrunerStatus prunerSpaceGetIndex(PrunerSpace space, const PrunerConfig *config, uint64_t *index) {
  PrunerStatus st = buildIndex(space);
  if (!st.ok)
    return st;
  uint64_t raw;
  if (!prunerSpaceEncodeRaw(space, config, &raw)) {
    char buf[400];
    prunerConfigFormat(&space->w, config, buf, sizeof(buf));
    return prunerStatusError("config %s is not a candidate of the space of %s", buf, space->w.key);
  }
  if (!rawValid(space, raw)) {
    st = prunerConfigCheckWithOptions(&space->w, &space->t, &space->opts, config);
    if (st.ok) /* cannot happen: the fast rules and config.c agree (tested) */
      st = prunerStatusError("config is a candidate of %s but not valid", space->w.key);
    return st;
  }
  if (raw >= space->fma_raw) {
    *index = space->fma_count + (raw - space->fma_raw);
    return prunerStatusOk();
  }
  if (space->restricted) { /* rawValid found it in the kept list */
    *index = keptLowerBound(space, raw);
    return prunerStatusOk();
  }
  uint64_t chunk = raw / PRUNER_SPACE_CHUNK, n = 0;
  Cursor cur;
  cursorStart(space, &cur, chunk * PRUNER_SPACE_CHUNK);
  for (bool more = cursorSeek(space, &cur); more && encodeDigits(space, cur.digits) < raw;
       more = cursorNext(space, &cur))
    ++n;
  *index = space->prefix[chunk] + n;
  return prunerStatusOk();
}

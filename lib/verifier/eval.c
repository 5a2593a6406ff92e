/* Ranking metrics and leave-workload-out cross validation (pruner-eval). */
#include "verifier_internal.h"

#include "pruner/random.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

PrunerRankMetrics prunerRankMetrics(const float *scores, const double *latency_us, size_t n) {
  return prunerRankMetricsWithin(scores, latency_us, n, 0.0);
}

PrunerRankMetrics prunerRankMetricsWithin(const float *scores, const double *latency_us,
                                          size_t n, double tie_within) {
  PrunerRankMetrics m = {n, 0, NAN, NAN, NAN};
  if (n == 0)
    return m;
  double correct = 0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      /* A pair no further apart than the measurement resolves is a tie, not an order. */
      if (fabs(latency_us[i] - latency_us[j]) <= tie_within * fmin(latency_us[i], latency_us[j]))
        continue;
      m.pairs++;
      bool i_faster = latency_us[i] < latency_us[j];
      if (scores[i] == scores[j])
        correct += 0.5;
      else if ((scores[i] > scores[j]) == i_faster)
        correct += 1.0;
    }
  }
  if (m.pairs)
    m.pairwise_accuracy = correct / (double)m.pairs;
  /* Top-k (TenSet): best latency overall over best latency among the k highest scores.
   * Selection by repeated scans keeps it allocation-free (k <= 5). */
  double best = INFINITY;
  for (size_t i = 0; i < n; ++i)
    best = fmin(best, latency_us[i]);
  double best_in_top = INFINITY;
  float last = INFINITY;
  size_t last_index = (size_t)-1;
  for (size_t k = 0; k < 5 && k < n; ++k) {
    /* next highest score after (last, last_index) in (score desc, index asc) order */
    size_t pick = (size_t)-1;
    for (size_t i = 0; i < n; ++i) {
      bool after = scores[i] < last || (scores[i] == last && i > last_index) ||
                   last_index == (size_t)-1;
      if (!after)
        continue;
      if (pick == (size_t)-1 || scores[i] > scores[pick])
        pick = i;
    }
    if (pick == (size_t)-1)
      break;
    last = scores[pick];
    last_index = pick;
    best_in_top = fmin(best_in_top, latency_us[pick]);
    if (k == 0)
      m.top1 = best / best_in_top;
  }
  m.top5 = best / best_in_top;
  return m;
}


static int compareDoubleAsc(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The q-quantile of sorted v[0..n) (nearest rank). */
static double quantileSorted(const double *v, int n, double q) {
  int i = (int)floor(q * (double)(n - 1) + 0.5);
  return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

bool prunerRankDifferenceInterval(const float *a, const float *b, const double *latency_us,
                                  size_t n, int resamples, uint64_t seed, double tie_within,
                                  PrunerRankDifference *out) {
  memset(out, 0, sizeof *out);
  if (n < 2 || resamples < 1)
    return true;
  float *ra = malloc(n * sizeof *ra), *rb = malloc(n * sizeof *rb);
  double *rl = malloc(n * sizeof *rl);
  double *dp = malloc((size_t)resamples * sizeof *dp), *dt = malloc((size_t)resamples * sizeof *dt);
  bool ok = ra && rb && rl && dp && dt;
  int kept = 0;
  for (int r = 0; ok && r < resamples; ++r) {
    for (size_t i = 0; i < n; ++i) {
      size_t pick = (size_t)(prunerRandomUniform(&seed) * (double)n);
      if (pick >= n)
        pick = n - 1;
      ra[i] = a[pick];
      rb[i] = b[pick];
      rl[i] = latency_us[pick];
    }
    PrunerRankMetrics ma = prunerRankMetricsWithin(ra, rl, n, tie_within),
                      mb = prunerRankMetricsWithin(rb, rl, n, tie_within);
    if (!ma.pairs) /* every resampled latency equal: no pairwise figure */
      continue;
    dp[kept] = ma.pairwise_accuracy - mb.pairwise_accuracy;
    dt[kept] = ma.top1 - mb.top1;
    ++kept;
  }
  if (ok && kept > 0) {
    qsort(dp, (size_t)kept, sizeof *dp, compareDoubleAsc);
    qsort(dt, (size_t)kept, sizeof *dt, compareDoubleAsc);
    out->resamples = kept;
    out->pairwise_low = quantileSorted(dp, kept, 0.025);
    out->pairwise_high = quantileSorted(dp, kept, 0.975);
    out->top1_low = quantileSorted(dt, kept, 0.025);
    out->top1_high = quantileSorted(dt, kept, 0.975);
  }
  free(ra);
  free(rb);
  free(rl);
  free(dp);
  free(dt);
  return ok;
}

/* Scores one held-out workload's `count` items with `v` into scores[] (count entries) and
 * its metrics. */
static PrunerStatus scoreWorkload(PrunerVerifier v, const VerifierItem *items, size_t count,
                                  const double *latency, double tie_within, float *scores,
                                  PrunerRankMetrics *out) {
  PrunerConfig *configs = malloc(count * sizeof(*configs));
  PrunerStatus status = prunerStatusOk();
  if (!configs) {
    status = prunerStatusError("verifier: out of memory evaluating %zu records", count);
  } else {
    for (size_t i = 0; i < count; ++i)
      configs[i] = items[i].record->config;
    status = prunerVerifierPredict(v, &items[0].record->workload, configs, NULL, count, scores);
    if (status.ok)
      *out = prunerRankMetricsWithin(scores, latency, count, tie_within);
  }
  free(configs);
  return status;
}

/* The largest workload the verifier-minus-draft interval is computed for (the bootstrap
 * costs resamples x n^2 / 2 comparisons). */
enum { kIntervalMaxConfigs = 4096 };

/* Scores the held-out `items` with the verifier and the draft, and, with `resamples` > 0,
 * their difference (seeded by `seed`). */
static PrunerStatus scoreBoth(PrunerVerifier v, PrunerVerifier draft_only,
                              const VerifierItem *items, size_t count, int resamples,
                              double tie_within, uint64_t seed, PrunerEvalWorkload *e) {
  double *latency = malloc(count * sizeof *latency);
  float *vs = malloc(count * sizeof *vs), *ds = malloc(count * sizeof *ds);
  PrunerStatus status = prunerStatusOk();
  if (!latency || !vs || !ds)
    status = prunerStatusError("verifier: out of memory evaluating %zu records", count);
  for (size_t i = 0; status.ok && i < count; ++i)
    latency[i] = items[i].record->median_us;
  if (status.ok)
    status = scoreWorkload(v, items, count, latency, tie_within, vs, &e->verifier);
  if (status.ok)
    status = scoreWorkload(draft_only, items, count, latency, tie_within, ds, &e->draft);
  if (status.ok && resamples > 0 && count <= kIntervalMaxConfigs &&
      !prunerRankDifferenceInterval(vs, ds, latency, count, resamples, seed, tie_within,
                                    &e->difference))
    status = prunerStatusError("verifier: out of memory for the bootstrap of %zu records", count);
  free(latency);
  free(vs);
  free(ds);
  return status;
}

/* Whether record i of a held-out workload of `count` records is one of its `own`
 * training records: every (count / own)-th, so they spread over the log. */
static bool ownRecord(size_t i, size_t count, size_t own) {
  if (own == 0)
    return false;
  if (own >= count)
    return true;
  return (i * own) % count < own;
}

PrunerStatus prunerVerifierCrossValidate(PrunerRecords records, const PrunerTargetDesc *target,
                                         const char *target_key,
                                         const PrunerVerifierOptions *opts, int folds,
                                         PrunerEvalWorkload **out, size_t *count) {
  return prunerVerifierCrossValidateOwn(records, target, target_key, opts, folds, 0, out,
                                        count);
}

/* The tuner's first batch on a workload in the draft's order items[begin, end)
 * (prunerConfigFirstBatchOrder; the engine's tunePick does the same with its epsilon). */
static PrunerStatus spreadFirstBatch(VerifierItem *items, size_t begin, size_t end,
                                     size_t batch, double share) {
  size_t m = end - begin;
  if (m < 2)
    return prunerStatusOk();
  PrunerConfig *configs = malloc(m * sizeof *configs);
  size_t *order = malloc(m * sizeof *order);
  VerifierItem *copy = malloc(m * sizeof *copy);
  if (!configs || !order || !copy) {
    free(configs);
    free(order);
    free(copy);
    return prunerStatusError("verifier: out of memory");
  }
  for (size_t i = 0; i < m; ++i) {
    configs[i] = items[begin + i].record->config;
    copy[i] = items[begin + i];
  }
  prunerConfigFirstBatchOrder(&items[begin].record->workload, configs, m, batch, share, order);
  for (size_t i = 0; i < m; ++i)
    items[begin + i] = copy[order[i]];
  free(configs);
  free(order);
  free(copy);
  return prunerStatusOk();
}

/* The tuner's default batch (lib/tune: PrunerTuneOptions.batch), the size of the first
 * batch spreadFirstBatch rebuilds. */
#define EVAL_FIRST_BATCH 16

static PrunerStatus crossValidate(PrunerRecords records, const PrunerTargetDesc *target,
                                  const char *target_key, const PrunerVerifierOptions *opts,
                                  int folds, size_t own, bool as_tuned, size_t pool,
                                  PrunerEvalWorkload **out, size_t *count);

PrunerStatus prunerVerifierCrossValidateOwn(PrunerRecords records,
                                            const PrunerTargetDesc *target,
                                            const char *target_key,
                                            const PrunerVerifierOptions *opts, int folds,
                                            size_t own, PrunerEvalWorkload **out,
                                            size_t *count) {
  return crossValidate(records, target, target_key, opts, folds, own, false, 0, out, count);
}

PrunerStatus prunerVerifierCrossValidateAsTuned(PrunerRecords records,
                                                const PrunerTargetDesc *target,
                                                const char *target_key,
                                                const PrunerVerifierOptions *opts, int folds,
                                                size_t own, size_t pool, PrunerEvalWorkload **out,
                                                size_t *count) {
  return crossValidate(records, target, target_key, opts, folds, own, true, pool, out, count);
}

/* Sorting a workload's items by the draft's score (higher first; stable by index). */
typedef struct DraftRanked {
  VerifierItem item;
  float score;
} DraftRanked;

static int compareDraftRanked(const void *a, const void *b) {
  const DraftRanked *x = a, *y = b;
  if (x->score != y->score)
    return x->score < y->score ? 1 : -1;
  return (x->item.index > y->item.index) - (x->item.index < y->item.index);
}

/* items[begin..end) in the draft's order (the draft-only verifier's scores). */
static PrunerStatus draftOrder(PrunerVerifier draft_only, VerifierItem *items, size_t begin,
                               size_t end) {
  size_t m = end - begin;
  DraftRanked *r = malloc(m * sizeof *r);
  PrunerConfig *configs = malloc(m * sizeof *configs);
  float *scores = malloc(m * sizeof *scores);
  PrunerStatus st = prunerStatusOk();
  if (!r || !configs || !scores)
    st = prunerStatusError("verifier: out of memory");
  for (size_t i = 0; st.ok && i < m; ++i)
    configs[i] = items[begin + i].record->config;
  if (st.ok)
    st =
        prunerVerifierPredict(draft_only, &items[begin].record->workload, configs, NULL, m, scores);
  for (size_t i = 0; st.ok && i < m; ++i) {
    r[i].item = items[begin + i];
    r[i].score = scores[i];
  }
  if (st.ok) {
    qsort(r, m, sizeof *r, compareDraftRanked);
    for (size_t i = 0; i < m; ++i)
      items[begin + i] = r[i].item;
  }
  free(r);
  free(configs);
  free(scores);
  return st;
}

static PrunerStatus crossValidate(PrunerRecords records, const PrunerTargetDesc *target,
                                  const char *target_key, const PrunerVerifierOptions *opts,
                                  int folds, size_t own, bool as_tuned, size_t pool,
                                  PrunerEvalWorkload **out, size_t *count) {
  *out = NULL;
  *count = 0;
  if (folds < 2)
    return prunerStatusError("verifier: --folds must be at least 2 (got %d)", folds);
  VerifierItem *items = NULL;
  size_t n = 0;
  PrunerStatus collected = prunerVerifierCollect(records, target_key, &items, &n);
  if (!collected.ok)
    return collected;
  /* Workload boundaries: starts[g] .. starts[g+1]. */
  size_t *starts = malloc((n + 1) * sizeof(*starts));
  PrunerEvalWorkload *results = calloc(n ? n : 1, sizeof(*results));
  VerifierItem *scored = malloc((n ? n : 1) * sizeof(*scored));
  if (!starts || !results || !scored) {
    free(items);
    free(starts);
    free(results);
    free(scored);
    return prunerStatusError("verifier: out of memory");
  }
  size_t groups = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i == 0 || strcmp(items[i].record->workload_key, items[i - 1].record->workload_key))
      starts[groups++] = i;
  }
  starts[groups] = n;
  if (groups < 2) {
    free(items);
    free(starts);
    free(results);
    free(scored);
    return prunerStatusError("verifier: leave-workload-out needs ok records of at least 2 "
                             "workloads on target '%s' (found %zu)",
                             target_key, groups);
  }
  PrunerStatus status = prunerStatusOk();
  PrunerVerifier draft_only = NULL;
  /* The draft's column is the draft even when the verifier judged is draft-free. */
  PrunerVerifierOptions dopts = opts ? *opts : prunerVerifierDefaultOptions();
  dopts.draft_free = false;
  status = prunerVerifierCreate(target, &dopts, &draft_only);
  /* As tuned: every workload in the draft's order (only held-out ones use it). */
  double share = opts ? opts->eval_first_batch_tiles : 0.0;
  for (size_t g = 0; status.ok && as_tuned && g < groups; ++g) {
    status = draftOrder(draft_only, items, starts[g], starts[g + 1]);
    if (status.ok && share > 0)
      status = spreadFirstBatch(items, starts[g], starts[g + 1], EVAL_FIRST_BATCH, share);
  }
  size_t produced = 0;
  for (int f = 0; status.ok && f < folds; ++f) {
    PrunerRecords train = prunerRecordsCreateInMemory();
    PrunerVerifier v = NULL;
    if (!train) {
      status = prunerStatusError("verifier: out of memory");
      break;
    }
    for (size_t g = 0; status.ok && g < groups; ++g) {
      bool held_out = (int)(g % (size_t)folds) == f;
      size_t size = starts[g + 1] - starts[g];
      for (size_t i = starts[g]; status.ok && i < starts[g + 1]; ++i) {
        bool mine = as_tuned ? i - starts[g] < own : ownRecord(i - starts[g], size, own);
        if (!held_out || mine)
          status = prunerRecordsAppend(train, items[i].record);
      }
    }
    if (status.ok)
      status = prunerVerifierCreate(target, opts, &v);
    if (status.ok)
      status = prunerVerifierTrain(v, train, target_key);
    for (size_t g = (size_t)f; status.ok && g < groups; g += (size_t)folds) {
      size_t begin = starts[g], end = starts[g + 1];
      /* The held-out records not trained on (all of them when own = 0). */
      size_t m = 0;
      for (size_t i = begin; i < end; ++i) {
        if (as_tuned) {
          size_t rank = i - begin;
          if (rank >= own && (pool == 0 || rank < pool))
            scored[m++] = items[i];
        } else if (!ownRecord(i - begin, end - begin, own)) {
          scored[m++] = items[i];
        }
      }
      if (m < 2)
        continue;
      PrunerEvalWorkload *e = &results[produced];
      memcpy(e->workload_key, items[begin].record->workload_key, sizeof(e->workload_key));
      e->fold = f;
      e->verifier_fell_back = prunerVerifierUsesDraft(v);
      /* Seeded by the workload's position: the same run, the same intervals. */
      status = scoreBoth(v, draft_only, scored, m, opts ? opts->eval_interval_resamples : 0,
                         opts ? opts->eval_tie_within : 0.0, 0x9e3779b97f4a7c15ull ^ (uint64_t)g,
                         e);
      if (status.ok)
        produced++;
    }
    prunerVerifierDestroy(v);
    prunerRecordsDestroy(train);
  }
  prunerVerifierDestroy(draft_only);
  free(items);
  free(starts);
  free(scored);
  if (!status.ok) {
    free(results);
    return status;
  }
  *out = results;
  *count = produced;
  return status;
}

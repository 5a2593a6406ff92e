/* Unit tests for lib/verifier on synthetic records with a known ranking
 * (tools/pruner-eval/synthetic.c): learning, save/load, draft fallback, uncompiled
 * candidates, target separation, the prior, and the ranking metrics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pruner/draft.h"
#include "pruner/random.h"
#include "pruner/verifier.h"
#include "synthetic.h"

typedef struct Fixture {
  PrunerTargetDesc h100, a100;
  char h100_key[96], a100_key[96];
} Fixture;

static int setup(void **state) {
  Fixture *f = calloc(1, sizeof(*f));
  if (!prunerTargetLookup("sm_90", &f->h100).ok || !prunerTargetLookup("sm_80", &f->a100).ok)
    return -1;
  prunerTargetKey(&f->h100, f->h100_key, sizeof(f->h100_key));
  prunerTargetKey(&f->a100, f->a100_key, sizeof(f->a100_key));
  *state = f;
  return 0;
}

static int teardown(void **state) {
  free(*state);
  return 0;
}

/* Scores and latencies of every record of `key` (target `tkey`) in `records`. */
static PrunerRankMetrics evaluate(PrunerVerifier v, PrunerRecords records, const char *key,
                                  const char *tkey) {
  size_t total = prunerRecordsCount(records), n = 0;
  PrunerConfig *configs = malloc(total * sizeof(*configs));
  double *lat = malloc(total * sizeof(*lat));
  float *scores = malloc(total * sizeof(*scores));
  const PrunerWorkload *w = NULL;
  for (size_t i = 0; i < total; ++i) {
    const PrunerRecord *r = prunerRecordsGet(records, i);
    if (strcmp(r->workload_key, key) || strcmp(r->target_key, tkey))
      continue;
    w = &r->workload;
    configs[n] = r->config;
    lat[n++] = r->median_us;
  }
  assert_true(n >= 2);
  PrunerStatus s = prunerVerifierPredict(v, w, configs, NULL, n, scores);
  assert_true(s.ok);
  PrunerRankMetrics m = prunerRankMetrics(scores, lat, n);
  free(configs);
  free(lat);
  free(scores);
  return m;
}

static void test_metrics(void **state) {
  (void)state;
  double lat[4] = {1.0, 2.0, 3.0, 4.0};
  float perfect[4] = {4, 3, 2, 1};
  float reversed[4] = {1, 2, 3, 4};
  PrunerRankMetrics m = prunerRankMetrics(perfect, lat, 4);
  assert_int_equal(m.pairs, 6);
  assert_true(m.pairwise_accuracy == 1.0 && m.top1 == 1.0 && m.top5 == 1.0);
  m = prunerRankMetrics(reversed, lat, 4);
  assert_true(m.pairwise_accuracy == 0.0);
  assert_true(m.top1 == 0.25); /* picked the 4 µs one: 1/4 of the best throughput */
  assert_true(m.top5 == 1.0);  /* all four are in the top 5 */
  float flat[4] = {0, 0, 0, 0};
  m = prunerRankMetrics(flat, lat, 4);
  assert_true(m.pairwise_accuracy == 0.5);
}

/* Ties within the measurement noise (pruner-eval --ties-within): latencies 100, 101, 110
 * and 120 with 101 ranked above 100. Counting every pair, that swap is one wrong pair of
 * six; with ties within 2% the 100/101 pair is left out and the rest are right; within
 * 25% every pair is a tie (120 is 1.2x 100): no pairwise figure. Top-1 is the same
 * either way (a ratio of latencies). */
static void test_metrics_ties_within(void **state) {
  (void)state;
  double lat[4] = {100.0, 101.0, 110.0, 120.0};
  float swapped[4] = {3, 4, 2, 1};
  PrunerRankMetrics all = prunerRankMetricsWithin(swapped, lat, 4, 0.0);
  assert_int_equal(all.pairs, 6);
  assert_true(fabs(all.pairwise_accuracy - 5.0 / 6.0) < 1e-12);
  PrunerRankMetrics two = prunerRankMetricsWithin(swapped, lat, 4, 0.02);
  assert_int_equal(two.pairs, 5);
  assert_true(two.pairwise_accuracy == 1.0);
  assert_true(two.top1 == all.top1 && fabs(two.top1 - 100.0 / 101.0) < 1e-12);
  PrunerRankMetrics wide = prunerRankMetricsWithin(swapped, lat, 4, 0.25);
  assert_int_equal(wide.pairs, 0);
  assert_true(isnan(wide.pairwise_accuracy));
  PrunerRankMetrics plain = prunerRankMetrics(swapped, lat, 4);
  assert_memory_equal(&plain, &all, sizeof plain);
}

/* The paired bootstrap of verifier - draft (pruner-eval --interval): a ranking against
 * itself is a tie at exactly 0; a perfect ranking against a reversed one is ahead on
 * both metrics; a noisy copy of the perfect one ties or trails it, never leads; the
 * interval is reproducible from the seed; 0 resamples computes nothing. */
static void test_rank_difference_interval(void **state) {
  (void)state;
  enum { N = 64 };
  double lat[N];
  float perfect[N], reversed[N], noisy[N];
  uint64_t rng = 7;
  for (int i = 0; i < N; ++i) {
    lat[i] = 1.0 + i;
    perfect[i] = (float)(N - i);
    reversed[i] = (float)i;
    noisy[i] = perfect[i] + (float)(8.0 * prunerRandomUniform(&rng));
  }
  PrunerRankDifference d;
  assert_true(prunerRankDifferenceInterval(perfect, perfect, lat, N, 100, 1, 0.0, &d));
  assert_int_equal(d.resamples, 100);
  assert_true(d.pairwise_low == 0.0 && d.pairwise_high == 0.0);
  assert_true(d.top1_low == 0.0 && d.top1_high == 0.0);
  assert_true(prunerRankDifferenceInterval(perfect, reversed, lat, N, 100, 1, 0.0, &d));
  assert_true(d.pairwise_low > 0.9 && d.top1_low > 0.0);
  assert_true(prunerRankDifferenceInterval(noisy, perfect, lat, N, 100, 1, 0.0, &d));
  assert_true(d.pairwise_high <= 0.0 && d.pairwise_low < 0.0);
  PrunerRankDifference again;
  assert_true(prunerRankDifferenceInterval(noisy, perfect, lat, N, 100, 1, 0.0, &again));
  assert_memory_equal(&d, &again, sizeof d);
  assert_true(prunerRankDifferenceInterval(noisy, perfect, lat, N, 0, 1, 0.0, &d));
  assert_int_equal(d.resamples, 0);
}

static void test_feature_names(void **state) {
  (void)state;
  int n = prunerVerifierNumFeatures();
  assert_true(n > prunerDraftNumFeatures());
  for (int i = 0; i < n; ++i) {
    const char *name = prunerVerifierFeatureName(i);
    assert_non_null(name);
    assert_true(strlen(name) > 0);
    for (int j = 0; j < i; ++j)
      assert_string_not_equal(name, prunerVerifierFeatureName(j));
  }
}

/* The model learns the synthetic law on 6 workloads and ranks 2 unseen ones. */
static void test_recovers_known_ranking(void **state) {
  Fixture *f = *state;
  PrunerRecords train = prunerRecordsCreateInMemory();
  PrunerRecords test = prunerRecordsCreateInMemory();
  assert_true(prunerSyntheticRecords(&f->h100, 6, 150, 1, train).ok);
  /* Workloads 6 and 7 of the generator's list, never seen in training. */
  PrunerRecords all = prunerRecordsCreateInMemory();
  assert_true(prunerSyntheticRecords(&f->h100, 8, 150, 2, all).ok);
  for (size_t i = 6 * 150; i < prunerRecordsCount(all); ++i)
    assert_true(prunerRecordsAppend(test, prunerRecordsGet(all, i)).ok);

  /* The model alone (no draft blend): this checks what it learned. */
  PrunerVerifierOptions alone = prunerVerifierDefaultOptions();
  alone.blend_records = 0;
  PrunerVerifier v;
  assert_true(prunerVerifierCreate(&f->h100, &alone, &v).ok);
  assert_true(prunerVerifierUsesDraft(v));
  assert_true(prunerVerifierTrain(v, train, NULL).ok);
  assert_false(prunerVerifierUsesDraft(v));
  assert_int_equal(prunerVerifierTrainedRecords(v), 900);
  for (int k = 0; k < 2; ++k) {
    const char *key = prunerRecordsGet(test, (size_t)k * 150)->workload_key;
    PrunerRankMetrics m = evaluate(v, test, key, f->h100_key);
    printf("held-out %s: pairwise %.3f top1 %.3f top5 %.3f\n", key, m.pairwise_accuracy,
           m.top1, m.top5);
    assert_true(m.pairwise_accuracy > 0.85);
    assert_true(m.top5 > 0.8);
  }
  prunerVerifierDestroy(v);
  prunerRecordsDestroy(train);
  prunerRecordsDestroy(test);
  prunerRecordsDestroy(all);
}

/* Draft-free mode (the model-only baseline) never runs the draft: no order before it
 * has a model, the configs' own features after; a default verifier, given the same
 * calls, runs the draft (the counter can tell). */
static void test_draft_free(void **state) {
  Fixture *f = *state;
  PrunerRecords train = prunerRecordsCreateInMemory();
  PrunerRecords test = prunerRecordsCreateInMemory();
  PrunerRecords all = prunerRecordsCreateInMemory();
  assert_true(prunerSyntheticRecords(&f->h100, 8, 150, 2, all).ok);
  for (size_t i = 0; i < prunerRecordsCount(all); ++i)
    assert_true(prunerRecordsAppend(i < 6 * 150 ? train : test, prunerRecordsGet(all, i)).ok);
  const char *key = prunerRecordsGet(test, 0)->workload_key;
  for (int free_mode = 0; free_mode < 2; ++free_mode) {
    PrunerVerifierOptions o = prunerVerifierDefaultOptions();
    o.draft_free = free_mode;
    PrunerVerifier v;
    assert_true(prunerVerifierCreate(&f->h100, &o, &v).ok);
    /* No model yet: draft-free gives every config the same score (no order). */
    PrunerConfig configs[4];
    float scores[4];
    for (int i = 0; i < 4; ++i)
      configs[i] = prunerRecordsGet(test, (size_t)i)->config;
    assert_true(
        prunerVerifierPredict(v, &prunerRecordsGet(test, 0)->workload, configs, NULL, 4, scores)
            .ok);
    if (free_mode) {
      assert_false(prunerVerifierUsesDraft(v));
      for (int i = 0; i < 4; ++i)
        assert_true(scores[i] == 0.0f);
    }
    assert_true(prunerVerifierTrain(v, train, NULL).ok);
    assert_int_equal(prunerVerifierTrainedRecords(v), 900);
    PrunerRankMetrics m = evaluate(v, test, key, f->h100_key);
    if (free_mode) {
      assert_int_equal(prunerVerifierDraftRuns(v), 0);
      assert_true(prunerVerifierModelWeight(v, key) == 1.0);
      assert_true(m.pairwise_accuracy > 0.8); /* the synthetic law is in the knobs */
    } else {
      assert_true(prunerVerifierDraftRuns(v) > 0);
    }
    prunerVerifierDestroy(v);
  }
  prunerRecordsDestroy(train);
  prunerRecordsDestroy(test);
  prunerRecordsDestroy(all);
}

static void test_save_load_identical(void **state) {
  Fixture *f = *state;
  PrunerRecords records = prunerRecordsCreateInMemory();
  assert_true(prunerSyntheticRecords(&f->h100, 4, 100, 3, records).ok);
  PrunerVerifier a, b;
  /* The model's own scores: b has no records, so with the draft blend its weight on the
   * workload would differ from a's. */
  PrunerVerifierOptions alone = prunerVerifierDefaultOptions();
  alone.blend_records = 0;
  assert_true(prunerVerifierCreate(&f->h100, &alone, &a).ok);
  assert_true(prunerVerifierCreate(&f->h100, &alone, &b).ok);
  char path[] = "/tmp/pruner-verifier-model-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  PrunerStatus s = prunerVerifierSave(a, path);
  assert_false(s.ok); /* nothing trained yet */
  assert_non_null(strstr(s.message, path));
  assert_true(prunerVerifierTrain(a, records, NULL).ok);
  assert_true(prunerVerifierSave(a, path).ok);
  assert_true(prunerVerifierLoad(b, path).ok);
  size_t n = prunerRecordsCount(records);
  const PrunerWorkload *w = &prunerRecordsGet(records, 0)->workload;
  PrunerConfig *configs = malloc(n * sizeof(*configs));
  size_t m = 0;
  for (size_t i = 0; i < n; ++i) {
    if (strcmp(prunerRecordsGet(records, i)->workload_key, w->key) == 0)
      configs[m++] = prunerRecordsGet(records, i)->config;
  }
  float *sa = malloc(m * sizeof(float)), *sb = malloc(m * sizeof(float));
  assert_true(prunerVerifierPredict(a, w, configs, NULL, m, sa).ok);
  assert_true(prunerVerifierPredict(b, w, configs, NULL, m, sb).ok);
  assert_memory_equal(sa, sb, m * sizeof(float));
  /* A file that is not a model is refused by name. */
  FILE *file = fopen(path, "w");
  fputs("{\"not\": \"a model\"}", file);
  fclose(file);
  s = prunerVerifierLoad(b, path);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, path));
  /* Truncated binary models too; the message is one line (no XGBoost stack trace). */
  static const unsigned char kTorn[] = {0x7b, 0x4c, 0, 0, 0, 5, 'b', 'i', 'n', 'f', 0, 1, 2};
  file = fopen(path, "wb");
  fwrite(kTorn, 1, sizeof kTorn, file);
  fclose(file);
  s = prunerVerifierLoad(b, path);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, path));
  assert_non_null(strstr(s.message, "not a complete JSON"));
  assert_null(strchr(s.message, '\n'));
  /* A saved model cut in half is refused before XGBoost sees it. */
  assert_true(prunerVerifierSave(a, path).ok);
  file = fopen(path, "rb");
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fclose(file);
  assert_int_equal(truncate(path, size / 2), 0);
  s = prunerVerifierLoad(b, path);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, "not a complete JSON"));
  unlink(path);
  free(configs);
  free(sa);
  free(sb);
  prunerVerifierDestroy(a);
  prunerVerifierDestroy(b);
  prunerRecordsDestroy(records);
}

/* The draft as the model's margin: training fits its scale (> 0 where the draft ranks
 * the records better than chance), the scale travels in the model file, a model whose
 * trees learned nothing ranks exactly as the draft, and neither the option off nor the
 * draft-free baseline has one. */
static void test_draft_margin(void **state) {
  Fixture *f = *state;
  PrunerRecords records = prunerRecordsCreateInMemory();
  assert_true(prunerSyntheticRecords(&f->h100, 4, 100, 3, records).ok);
  const PrunerWorkload *w = &prunerRecordsGet(records, 0)->workload;
  PrunerConfig configs[100];
  size_t m = 0;
  for (size_t i = 0; i < prunerRecordsCount(records) && m < 100; ++i)
    if (strcmp(prunerRecordsGet(records, i)->workload_key, w->key) == 0)
      configs[m++] = prunerRecordsGet(records, i)->config;

  PrunerVerifierOptions o = prunerVerifierDefaultOptions();
  o.blend_records = 0; /* the model's own scores */
  o.eta = 1e-6;        /* trees that move nothing: the margin alone ranks */
  PrunerVerifier v, draft;
  assert_true(prunerVerifierCreate(&f->h100, &o, &v).ok);
  assert_true(prunerVerifierCreate(&f->h100, NULL, &draft).ok); /* no records: the draft */
  assert_true(prunerVerifierDraftScale(v) == 0.0);
  assert_true(prunerVerifierTrain(v, records, NULL).ok);
  double scale = prunerVerifierDraftScale(v);
  printf("fitted draft scale %.3f\n", scale);
  assert_true(scale > 0 && scale < 256);
  float sv[100], sd[100];
  assert_true(prunerVerifierPredict(v, w, configs, NULL, m, sv).ok);
  assert_true(prunerVerifierPredict(draft, w, configs, NULL, m, sd).ok);
  /* Same order: every pair the draft tells apart by more than float rounding (0.01%)
   * is ordered alike. */
  size_t pairs = 0, agree = 0;
  for (size_t i = 0; i < m; ++i)
    for (size_t j = i + 1; j < m; ++j)
      if (fabsf(sd[i] - sd[j]) > 1e-4f * fabsf(sd[i])) {
        ++pairs;
        agree += (sv[i] > sv[j]) == (sd[i] > sd[j]);
      }
  assert_true(pairs > 1000);
  assert_int_equal(agree, pairs);

  /* The scale is saved with the model and read back. */
  char path[] = "/tmp/pruner-verifier-margin-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_true(prunerVerifierSave(v, path).ok);
  PrunerVerifier loaded;
  assert_true(prunerVerifierCreate(&f->h100, &o, &loaded).ok);
  assert_true(prunerVerifierLoad(loaded, path).ok);
  assert_true(prunerVerifierDraftScale(loaded) == scale);
  unlink(path);
  prunerVerifierDestroy(loaded);
  prunerVerifierDestroy(v);
  prunerVerifierDestroy(draft);

  for (int mode = 0; mode < 2; ++mode) {
    PrunerVerifierOptions off = prunerVerifierDefaultOptions();
    if (mode == 0)
      off.draft_margin = false;
    else
      off.draft_free = true;
    assert_true(prunerVerifierCreate(&f->h100, &off, &v).ok);
    assert_true(prunerVerifierTrain(v, records, NULL).ok);
    assert_int_equal(prunerVerifierTrainedRecords(v), 400);
    assert_true(prunerVerifierDraftScale(v) == 0.0);
    prunerVerifierDestroy(v);
  }
  prunerRecordsDestroy(records);
}

/* The draft's scale where the likelihood fit has no interior maximum: records the draft
 * orders all right (the fit's cap) or all wrong (the fit's 0, as on a first batch of the
 * draft's own top) take c = 1.702 / (sqrt(2) s) from the deviation s of
 * log(measured / predicted); records with mixed pairs keep the fitted c. */
static void test_draft_scale_when_fit_fails(void **state) {
  Fixture *f = *state;
  PrunerRecords synthetic = prunerRecordsCreateInMemory();
  assert_true(prunerSyntheticRecords(&f->h100, 1, 100, 7, synthetic).ok);
  enum { n = 100 };
  assert_int_equal(prunerRecordsCount(synthetic), n);
  const PrunerWorkload *w = &prunerRecordsGet(synthetic, 0)->workload;
  PrunerDraft draft;
  assert_true(prunerDraftCreate(w, &f->h100, &draft).ok);
  double predicted[n];
  size_t order[n]; /* by the draft's prediction, fastest first */
  for (size_t i = 0; i < n; ++i) {
    PrunerDraftSymbols s;
    assert_true(prunerDraftScore(draft, &prunerRecordsGet(synthetic, i)->config, NULL, &s));
    predicted[i] = s.predicted_us;
    order[i] = i;
  }
  prunerDraftDestroy(draft);
  for (size_t i = 1; i < n; ++i)
    for (size_t j = i; j > 0 && predicted[order[j]] < predicted[order[j - 1]]; --j) {
      size_t t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  assert_true(predicted[order[0]] < predicted[order[15]]);
  enum { MIXED, ORDERED, REVERSED_TOP };
  for (int kind = MIXED; kind <= REVERSED_TOP; ++kind) {
    size_t m = kind == REVERSED_TOP ? 16 : n;
    PrunerRecords records = prunerRecordsCreateInMemory();
    double sum = 0, squares = 0;
    for (size_t k = 0; k < m; ++k) {
      size_t i = order[k];
      PrunerRecord r = *prunerRecordsGet(synthetic, i);
      if (kind == MIXED) /* errors of about 5% that swap some pairs */
        r.median_us = predicted[i] * exp(0.05 * sin(1.0 + 2.7 * (double)i));
      else if (kind == ORDERED) /* slower by up to 5% down the draft's order: every pair right */
        r.median_us = predicted[i] * exp(0.05 * (double)k / (double)m);
      else /* the draft's top 16 measure in the reverse order: every pair wrong */
        r.median_us = predicted[order[m - 1 - k]];
      double error = log(r.median_us / predicted[i]);
      sum += error;
      squares += error * error;
      assert_true(prunerRecordsAppend(records, &r).ok);
    }
    double deviation = sqrt((squares - sum * sum / (double)m) / (double)(m - 1));
    double from_errors = 1.702 / (sqrt(2.0) * deviation);
    PrunerVerifier v;
    assert_true(prunerVerifierCreate(&f->h100, NULL, &v).ok);
    assert_true(prunerVerifierTrain(v, records, NULL).ok);
    double scale = prunerVerifierDraftScale(v);
    printf("%s: draft scale %.3f, from the errors %.3f\n",
           kind == MIXED ? "mixed pairs" : kind == ORDERED ? "all pairs right" : "top reversed",
           scale, from_errors);
    if (kind == MIXED) /* the likelihood's own, interior maximum */
      assert_true(scale > 0 && scale < 256 && fabs(scale - from_errors) > 1e-2 * from_errors);
    else
      assert_true(fabs(scale - from_errors) < 1e-3 * from_errors);
    prunerVerifierDestroy(v);
    prunerRecordsDestroy(records);
  }
  prunerRecordsDestroy(synthetic);
}

/* Each workload's margin scale: where the draft's errors are tight the scale is larger
 * than the pooled one, where they are loose smaller; the ratio of the two is below the
 * unshrunk ratio of deviations (the variances are shrunk towards the pool by
 * blend_records records); off, or for a workload without records, the pooled one. */
static void test_draft_scale_per_workload(void **state) {
  Fixture *f = *state;
  PrunerRecords synthetic = prunerRecordsCreateInMemory();
  assert_true(prunerSyntheticRecords(&f->h100, 2, 100, 11, synthetic).ok);
  size_t n = prunerRecordsCount(synthetic);
  assert_int_equal(n, 200);
  const char *keys[2] = {prunerRecordsGet(synthetic, 0)->workload_key, NULL};
  PrunerRecords records = prunerRecordsCreateInMemory();
  double sum[2] = {0, 0}, squares[2] = {0, 0};
  size_t count[2] = {0, 0};
  for (size_t i = 0; i < n; ++i) {
    PrunerRecord r = *prunerRecordsGet(synthetic, i);
    int w = strcmp(r.workload_key, keys[0]) != 0;
    if (w)
      keys[1] = prunerRecordsGet(synthetic, i)->workload_key;
    PrunerDraft draft;
    assert_true(prunerDraftCreate(&r.workload, &f->h100, &draft).ok);
    PrunerDraftSymbols s;
    assert_true(prunerDraftScore(draft, &r.config, NULL, &s));
    prunerDraftDestroy(draft);
    /* Errors of deviation ~1.4% on the first workload, ~21% on the second. */
    double error = (w ? 0.3 : 0.02) * sin(1.0 + 2.7 * (double)i);
    r.median_us = s.predicted_us * exp(error);
    sum[w] += error;
    squares[w] += error * error;
    count[w]++;
    assert_true(prunerRecordsAppend(records, &r).ok);
  }
  assert_non_null(keys[1]);
  /* One workload alone: its scale is the pooled one, bit for bit. */
  PrunerRecords alone = prunerRecordsCreateInMemory();
  for (size_t i = 0; i < prunerRecordsCount(records); ++i)
    if (strcmp(prunerRecordsGet(records, i)->workload_key, keys[1]) == 0)
      assert_true(prunerRecordsAppend(alone, prunerRecordsGet(records, i)).ok);
  PrunerVerifier single;
  assert_true(prunerVerifierCreate(&f->h100, NULL, &single).ok);
  assert_true(prunerVerifierTrain(single, alone, NULL).ok);
  assert_true(prunerVerifierDraftScale(single) > 0);
  assert_true(prunerVerifierWorkloadDraftScale(single, keys[1]) ==
              prunerVerifierDraftScale(single));
  prunerVerifierDestroy(single);
  prunerRecordsDestroy(alone);
  double variance[2];
  for (int w = 0; w < 2; ++w)
    variance[w] = (squares[w] - sum[w] * sum[w] / (double)count[w]) / (double)(count[w] - 1);
  for (int per_workload = 0; per_workload < 2; ++per_workload) {
    PrunerVerifierOptions o = prunerVerifierDefaultOptions();
    o.draft_scale_per_workload = per_workload;
    PrunerVerifier v;
    assert_true(prunerVerifierCreate(&f->h100, &o, &v).ok);
    assert_true(prunerVerifierTrain(v, records, NULL).ok);
    double pooled = prunerVerifierDraftScale(v);
    double tight = prunerVerifierWorkloadDraftScale(v, keys[0]);
    double loose = prunerVerifierWorkloadDraftScale(v, keys[1]);
    printf("per workload %d: pooled %.3f, tight errors %.3f, loose errors %.3f\n", per_workload,
           pooled, tight, loose);
    assert_true(pooled > 0);
    assert_true(prunerVerifierWorkloadDraftScale(v, "no-such-workload") == pooled);
    if (!per_workload) {
      assert_true(tight == pooled && loose == pooled);
    } else {
      assert_true(tight > pooled && pooled > loose);
      double unshrunk = sqrt(variance[1] / variance[0]);
      assert_true(tight / loose > 1.5 && tight / loose < unshrunk);
    }
    prunerVerifierDestroy(v);
  }
  prunerRecordsDestroy(records);
  prunerRecordsDestroy(synthetic);
}

/* Zero or one record: the draft's order, flagged. */
static void test_fallback_to_draft(void **state) {
  Fixture *f = *state;
  PrunerRecords all = prunerRecordsCreateInMemory();
  assert_true(prunerSyntheticRecords(&f->h100, 1, 20, 4, all).ok);
  PrunerRecords few = prunerRecordsCreateInMemory();
  PrunerVerifier v;
  assert_true(prunerVerifierCreate(&f->h100, NULL, &v).ok);
  for (int k = 0; k < 2; ++k) {
    assert_true(prunerVerifierTrain(v, few, NULL).ok);
    assert_true(prunerVerifierUsesDraft(v));
    assert_int_equal(prunerVerifierTrainedRecords(v), 0);
    assert_true(prunerRecordsAppend(few, prunerRecordsGet(all, 0)).ok);
  }
  const PrunerWorkload *w = &prunerRecordsGet(all, 0)->workload;
  PrunerDraft draft;
  assert_true(prunerDraftCreate(w, &f->h100, &draft).ok);
  PrunerConfig configs[20];
  float scores[20];
  for (int i = 0; i < 20; ++i)
    configs[i] = prunerRecordsGet(all, (size_t)i)->config;
  assert_true(prunerVerifierPredict(v, w, configs, NULL, 20, scores).ok);
  for (int i = 0; i < 20; ++i) {
    double us = prunerDraftPredictUs(draft, &configs[i]);
    assert_true(us > 0);
    assert_true(fabs(scores[i] + us) <= 1e-4 * us);
  }
  /* With draft symbols passed in, the same order without rerunning the draft. */
  PrunerDraftSymbols symbols[20];
  for (int i = 0; i < 20; ++i)
    assert_true(prunerDraftScore(draft, &configs[i], NULL, &symbols[i]));
  float again[20];
  assert_true(prunerVerifierPredict(v, w, configs, symbols, 20, again).ok);
  assert_memory_equal(scores, again, sizeof(scores));
  /* Many records that all have one latency: nothing to rank by, still the draft. */
  PrunerRecords flat = prunerRecordsCreateInMemory();
  for (int i = 0; i < 20; ++i) {
    PrunerRecord r = *prunerRecordsGet(all, (size_t)i);
    r.median_us = 7.0;
    assert_true(prunerRecordsAppend(flat, &r).ok);
  }
  assert_true(prunerVerifierTrain(v, flat, NULL).ok);
  assert_true(prunerVerifierUsesDraft(v));
  prunerDraftDestroy(draft);
  prunerVerifierDestroy(v);
  prunerRecordsDestroy(all);
  prunerRecordsDestroy(few);
  prunerRecordsDestroy(flat);
}

/* Uncompiled candidates have missing (NaN) ptxas features; compiled ones have values. */
static void test_uncompiled_features(void **state) {
  Fixture *f = *state;
  PrunerRecords all = prunerRecordsCreateInMemory();
  assert_true(prunerSyntheticRecords(&f->h100, 1, 1, 5, all).ok);
  const PrunerRecord *r = prunerRecordsGet(all, 0);
  PrunerVerifier v;
  assert_true(prunerVerifierCreate(&f->h100, NULL, &v).ok);
  int n = prunerVerifierNumFeatures();
  float *x = malloc((size_t)n * sizeof(float));
  assert_true(prunerVerifierFeatures(v, &r->workload, &r->config, NULL, NULL, x).ok);
  int registers = -1, tile_m = -1, draft_first = n - prunerDraftNumFeatures();
  for (int i = 0; i < n; ++i) {
    if (strcmp(prunerVerifierFeatureName(i), "ptxas_registers") == 0)
      registers = i;
    if (strcmp(prunerVerifierFeatureName(i), "log2_tile_m") == 0)
      tile_m = i;
  }
  assert_true(registers >= 0 && tile_m >= 0);
  assert_true(isnan(x[registers]));
  assert_true(x[tile_m] == (float)log2((double)r->config.workgroup[0]));
  for (int i = draft_first; i < n; ++i)
    assert_false(isnan(x[i])); /* the draft ran */
  PrunerKernelResources res = {.registers = 64, .shared_bytes = 8192};
  assert_true(prunerVerifierFeatures(v, &r->workload, &r->config, NULL, &res, x).ok);
  assert_true(x[registers] == 64.0f);
  /* Training on records with ptxas figures, then predicting uncompiled candidates. */
  PrunerRecords compiled = prunerRecordsCreateInMemory();
  assert_true(prunerSyntheticRecords(&f->h100, 3, 60, 6, compiled).ok);
  PrunerRecords withres = prunerRecordsCreateInMemory();
  for (size_t i = 0; i < prunerRecordsCount(compiled); ++i) {
    PrunerRecord c = *prunerRecordsGet(compiled, i);
    c.registers = 32 + (int)(i % 64);
    c.spill_bytes = 0;
    c.shared_bytes = 4096;
    assert_true(prunerRecordsAppend(withres, &c).ok);
  }
  /* The model alone (no draft blend): this checks what it learned from the features. */
  PrunerVerifierOptions alone = prunerVerifierDefaultOptions();
  alone.blend_records = 0;
  prunerVerifierDestroy(v);
  assert_true(prunerVerifierCreate(&f->h100, &alone, &v).ok);
  assert_true(prunerVerifierTrain(v, withres, NULL).ok);
  PrunerRankMetrics m = evaluate(v, withres, prunerRecordsGet(withres, 0)->workload_key,
                                 f->h100_key);
  assert_true(m.pairwise_accuracy > 0.8);
  free(x);
  prunerVerifierDestroy(v);
  prunerRecordsDestroy(all);
  prunerRecordsDestroy(compiled);
  prunerRecordsDestroy(withres);
}

/* Records of another GPU never train this target's model; as a prior they blend in with
 * a weight that decays as this target's rounds accumulate. */
static void test_other_target_and_prior(void **state) {
  Fixture *f = *state;
  PrunerRecords other = prunerRecordsCreateInMemory();
  assert_true(prunerSyntheticRecords(&f->a100, 4, 80, 7, other).ok);
  PrunerVerifier v;
  assert_true(prunerVerifierCreate(&f->h100, NULL, &v).ok);
  assert_true(prunerVerifierTrain(v, other, NULL).ok);
  assert_true(prunerVerifierUsesDraft(v)); /* all 320 records are the A100's */
  /* Mixed log: only the H100 lines count. */
  assert_true(prunerSyntheticRecords(&f->h100, 2, 30, 8, other).ok);
  assert_true(prunerVerifierTrain(v, other, NULL).ok);
  assert_int_equal(prunerVerifierTrainedRecords(v), 60);
  prunerVerifierDestroy(v);

  /* An A100 model as the prior of an H100 verifier. */
  PrunerVerifier a100;
  assert_true(prunerVerifierCreate(&f->a100, NULL, &a100).ok);
  assert_true(prunerVerifierTrain(a100, other, NULL).ok);
  assert_int_equal(prunerVerifierTrainedRecords(a100), 320);
  char path[] = "/tmp/pruner-verifier-prior-XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  assert_true(prunerVerifierSave(a100, path).ok);
  PrunerVerifierOptions alone = prunerVerifierDefaultOptions();
  alone.blend_records = 0; /* the prior's own ranking, without the draft blend */
  assert_true(prunerVerifierCreate(&f->h100, &alone, &v).ok);
  assert_true(prunerVerifierSetPriorFile(v, path).ok);
  assert_false(prunerVerifierUsesDraft(v));
  assert_true(prunerVerifierPriorWeight(v) == 1.0);
  /* The prior alone already ranks an unseen H100 workload well. */
  PrunerRecords h100 = prunerRecordsCreateInMemory();
  assert_true(prunerSyntheticRecords(&f->h100, 6, 40, 9, h100).ok);
  const char *key = prunerRecordsGet(h100, 5 * 40)->workload_key;
  PrunerRankMetrics m = evaluate(v, h100, key, f->h100_key);
  assert_true(m.pairwise_accuracy > 0.8);
  assert_true(prunerVerifierTrain(v, h100, NULL).ok);
  double w1 = prunerVerifierPriorWeight(v);
  assert_true(fabs(w1 - 0.5) < 1e-12); /* one round: momentum^1 */
  assert_true(prunerSyntheticRecords(&f->h100, 7, 40, 10, h100).ok);
  assert_true(prunerVerifierTrain(v, h100, NULL).ok);
  assert_true(fabs(prunerVerifierPriorWeight(v) - 0.25) < 1e-12);
  m = evaluate(v, h100, key, f->h100_key);
  assert_true(m.pairwise_accuracy > 0.8);
  unlink(path);
  prunerVerifierDestroy(v);
  prunerVerifierDestroy(a100);
  prunerRecordsDestroy(other);
  prunerRecordsDestroy(h100);
}

/* The 32 H100 records of synthetic workload 6, a shape the 4-workload A100 prior of the
 * tests below has not seen (synthetic workload i has one shape on every target). */
static PrunerRecords unseenH100Records(Fixture *f) {
  PrunerRecords six = prunerRecordsCreateInMemory();
  assert_true(prunerSyntheticRecords(&f->h100, 6, 32, 9, six).ok);
  PrunerRecords h100 = prunerRecordsCreateInMemory();
  for (size_t i = 5 * 32; i < 6 * 32; ++i)
    assert_true(prunerRecordsAppend(h100, prunerRecordsGet(six, i)).ok);
  prunerRecordsDestroy(six);
  return h100;
}

/* A prior built by prunerVerifierTrainAndSave (pruner-eval --train) names its source and
 * workloads; it keeps prior_floor (prior_floor_unseen on a workload it was not trained
 * on) of the weight against the draft on a workload with no own records (the draft
 * alone has all of it without a prior); adapted, that weight grows with the own
 * records; frozen (momentum 1), no online model is trained and nothing moves. */
static void test_prior_floor_and_frozen(void **state) {
  Fixture *f = *state;
  PrunerRecords other = prunerRecordsCreateInMemory();
  assert_true(prunerSyntheticRecords(&f->a100, 4, 80, 7, other).ok);
  char path[] = "/tmp/pruner-verifier-trained-XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  size_t used = 0, workloads = 0;
  assert_true(prunerVerifierTrainAndSave(other, &f->a100, NULL, NULL, path, &used, &workloads).ok);
  assert_int_equal(used, 320);
  assert_int_equal(workloads, 4);
  /* Nothing of the H100 in the log: nothing to train on, and it says so. */
  PrunerStatus none =
      prunerVerifierTrainAndSave(other, &f->h100, NULL, NULL, path, &used, &workloads);
  assert_false(none.ok);
  assert_non_null(strstr(none.message, "too few to train"));
  assert_int_equal(used, 0);

  PrunerRecords h100 = unseenH100Records(f);
  const PrunerRecord *first = prunerRecordsGet(h100, 0);
  const char *key = first->workload_key;
  PrunerVerifierOptions o = prunerVerifierDefaultOptions();
  o.prior_floor = 0.7;        /* a workload the prior was trained on */
  o.prior_floor_unseen = 0.3; /* one it was not                      */
  PrunerVerifier v;
  assert_true(prunerVerifierCreate(&f->h100, &o, &v).ok);
  assert_true(prunerVerifierModelWeight(v, key) == 0.0); /* no prior: the draft alone */
  assert_false(prunerVerifierHasPrior(v));
  assert_true(prunerVerifierSetPriorFile(v, path).ok);
  assert_true(prunerVerifierHasPrior(v));
  /* The model file says what it was trained on. */
  assert_string_equal(prunerVerifierPriorSource(v), f->a100_key);
  assert_int_equal(prunerVerifierPriorWorkloads(v), 4);
  const char *seen = prunerRecordsGet(other, 0)->workload_key;
  assert_true(prunerVerifierPriorKnows(v, seen));
  assert_false(prunerVerifierPriorKnows(v, key));
  assert_true(fabs(prunerVerifierModelWeight(v, seen) - 0.7) < 1e-12);
  assert_true(fabs(prunerVerifierModelWeight(v, key) - 0.3) < 1e-12);
  assert_true(prunerVerifierTrain(v, h100, NULL).ok); /* 32 own records */
  double grown = 0.3 + (1 - 0.3) * 32.0 / (32.0 + o.blend_records);
  assert_true(fabs(prunerVerifierModelWeight(v, key) - grown) < 1e-12);
  assert_int_equal(prunerVerifierTrainedRecords(v), 32);
  prunerVerifierDestroy(v);

  /* Frozen: the same 32 records neither train a model nor move any weight. */
  o.prior_momentum = 1.0;
  o.prior_floor_unseen = 0.25;
  assert_true(prunerVerifierCreate(&f->h100, &o, &v).ok);
  assert_true(prunerVerifierSetPriorFile(v, path).ok);
  PrunerConfig configs[32];
  for (int i = 0; i < 32; ++i)
    configs[i] = prunerRecordsGet(h100, (size_t)i)->config;
  float before[32], after[32];
  assert_true(prunerVerifierPredict(v, &first->workload, configs, NULL, 32, before).ok);
  assert_true(prunerVerifierTrain(v, h100, NULL).ok);
  assert_int_equal(prunerVerifierTrainedRecords(v), 0);
  assert_true(prunerVerifierPriorWeight(v) == 1.0);
  assert_true(fabs(prunerVerifierModelWeight(v, key) - 0.25) < 1e-12);
  assert_true(prunerVerifierPredict(v, &first->workload, configs, NULL, 32, after).ok);
  assert_memory_equal(before, after, sizeof before);
  prunerVerifierDestroy(v);
  /* A floor outside [0, 1] is refused. */
  o.prior_floor = 1.5;
  assert_false(prunerVerifierCreate(&f->h100, &o, &v).ok);
  unlink(path);
  prunerRecordsDestroy(other);
  prunerRecordsDestroy(h100);
}

/* A prior marked "skip" (pruner-eval --train --prior-unseen=skip: a source that did not
 * transfer to unseen shapes) still helps the shapes it knows, and leaves a workload it
 * was not trained on exactly as without a prior: the draft alone before own records,
 * then the same weights and the same scores as a verifier with no prior at all. The
 * options override the file either way. */
static void test_prior_skips_unseen(void **state) {
  Fixture *f = *state;
  PrunerRecords other = prunerRecordsCreateInMemory();
  assert_true(prunerSyntheticRecords(&f->a100, 4, 80, 7, other).ok);
  char path[] = "/tmp/pruner-verifier-skip-XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  PrunerVerifierOptions train = prunerVerifierDefaultOptions();
  train.prior_unseen = PRUNER_PRIOR_UNSEEN_SKIP;
  assert_true(prunerVerifierTrainAndSave(other, &f->a100, NULL, &train, path, NULL, NULL).ok);
  PrunerRecords h100 = unseenH100Records(f);
  const PrunerRecord *first = prunerRecordsGet(h100, 0);
  const char *key = first->workload_key, *seen = prunerRecordsGet(other, 0)->workload_key;
  PrunerConfig configs[32];
  for (int i = 0; i < 32; ++i)
    configs[i] = prunerRecordsGet(h100, (size_t)i)->config;

  PrunerVerifier cold, skip, use;
  PrunerVerifierOptions o = prunerVerifierDefaultOptions();
  assert_true(prunerVerifierCreate(&f->h100, &o, &cold).ok);
  assert_true(prunerVerifierCreate(&f->h100, &o, &skip).ok);
  o.prior_unseen = PRUNER_PRIOR_UNSEEN_USE; /* the option overrides the file */
  assert_true(prunerVerifierCreate(&f->h100, &o, &use).ok);
  assert_true(prunerVerifierSetPriorFile(skip, path).ok);
  assert_true(prunerVerifierSetPriorFile(use, path).ok);
  assert_true(prunerVerifierPriorSkipsUnseen(skip));
  assert_false(prunerVerifierPriorSkipsUnseen(use));
  assert_true(prunerVerifierPriorApplies(skip, seen));
  assert_false(prunerVerifierPriorApplies(skip, key));
  assert_true(prunerVerifierPriorApplies(use, key));
  /* Before own records: the seen shape keeps prior_floor, the unseen one the draft. */
  assert_true(fabs(prunerVerifierModelWeight(skip, seen) - o.prior_floor) < 1e-12);
  assert_true(prunerVerifierModelWeight(skip, key) == 0.0);
  assert_true(fabs(prunerVerifierModelWeight(use, key) - o.prior_floor_unseen) < 1e-12);
  float a[32], b[32];
  assert_true(prunerVerifierPredict(cold, &first->workload, configs, NULL, 32, a).ok);
  assert_true(prunerVerifierPredict(skip, &first->workload, configs, NULL, 32, b).ok);
  assert_memory_equal(a, b, sizeof a);
  /* After own records: the same model weight and the same scores as cold. */
  assert_true(prunerVerifierTrain(cold, h100, NULL).ok);
  assert_true(prunerVerifierTrain(skip, h100, NULL).ok);
  assert_true(prunerVerifierTrain(use, h100, NULL).ok);
  assert_true(prunerVerifierModelWeight(skip, key) == prunerVerifierModelWeight(cold, key));
  assert_true(prunerVerifierPredict(cold, &first->workload, configs, NULL, 32, a).ok);
  assert_true(prunerVerifierPredict(skip, &first->workload, configs, NULL, 32, b).ok);
  assert_memory_equal(a, b, sizeof a);
  assert_true(prunerVerifierPredict(use, &first->workload, configs, NULL, 32, b).ok);
  assert_memory_not_equal(a, b, sizeof a); /* the prior blends in where it applies */
  PrunerPriorUnseen parsed;
  assert_true(prunerPriorUnseenParse("--prior-unseen", "skip", &parsed).ok);
  assert_int_equal(parsed, PRUNER_PRIOR_UNSEEN_SKIP);
  PrunerStatus bad = prunerPriorUnseenParse("--prior-unseen", "never", &parsed);
  assert_false(bad.ok);
  assert_non_null(strstr(bad.message, "file, use, skip"));
  prunerVerifierDestroy(cold);
  prunerVerifierDestroy(skip);
  prunerVerifierDestroy(use);
  unlink(path);
  prunerRecordsDestroy(other);
  prunerRecordsDestroy(h100);
}

static void test_cross_validate(void **state) {
  Fixture *f = *state;
  PrunerRecords records = prunerRecordsCreateInMemory();
  assert_true(prunerSyntheticRecords(&f->h100, 8, 80, 11, records).ok);
  PrunerEvalWorkload *results = NULL;
  size_t count = 0;
  PrunerVerifierOptions alone = prunerVerifierDefaultOptions();
  alone.blend_records = 0; /* the model's transfer to unseen workloads */
  assert_true(prunerVerifierCrossValidate(records, &f->h100, f->h100_key, &alone, 4, &results,
                                          &count)
                  .ok);
  assert_int_equal(count, 8);
  double mean = 0;
  for (size_t i = 0; i < count; ++i) {
    assert_false(results[i].verifier_fell_back);
    assert_true(results[i].verifier.n == 80);
    mean += results[i].verifier.pairwise_accuracy / (double)count;
  }
  assert_true(mean > 0.85);
  free(results);
  /* 20 own records of each held-out workload train; its other 60 are scored, by both
   * the verifier and the draft, and with a blend of K 16, floor 0.05 (a = 0.05 + 0.95 * 20/36)
   * the verifier beats the draft, whose order the synthetic law does not follow. */
  PrunerVerifierOptions old_blend = prunerVerifierDefaultOptions();
  old_blend.blend_records = 16;
  old_blend.blend_floor = 0.05;
  assert_true(prunerVerifierCrossValidateOwn(records, &f->h100, f->h100_key, &old_blend, 4, 20,
                                             &results, &count)
                  .ok);
  assert_int_equal(count, 8);
  double vmean = 0, dmean = 0;
  for (size_t i = 0; i < count; ++i) {
    assert_true(results[i].verifier.n == 60 && results[i].draft.n == 60);
    vmean += results[i].verifier.pairwise_accuracy / (double)count;
    dmean += results[i].draft.pairwise_accuracy / (double)count;
  }
  printf("own 20: verifier pairwise %.3f, draft %.3f\n", vmean, dmean);
  assert_true(vmean > dmean + 0.1);
  free(results);
  /* As tuned: the draft's best 8 train, the draft's next 24 (of its top 32) are ranked;
   * with blend floor 0 and no own records (own 0) the verifier is the draft exactly. */
  assert_true(prunerVerifierCrossValidateAsTuned(records, &f->h100, f->h100_key, NULL, 4, 8, 32,
                                                 &results, &count)
                  .ok);
  assert_int_equal(count, 8);
  for (size_t i = 0; i < count; ++i)
    assert_true(results[i].verifier.n == 24 && results[i].draft.n == 24);
  free(results);
  PrunerVerifierOptions floor0 = prunerVerifierDefaultOptions();
  floor0.blend_floor = 0;
  assert_true(prunerVerifierCrossValidateAsTuned(records, &f->h100, f->h100_key, &floor0, 4, 0, 32,
                                                 &results, &count)
                  .ok);
  for (size_t i = 0; i < count; ++i) {
    assert_true(results[i].draft.n == 32);
    assert_true(results[i].verifier.pairwise_accuracy == results[i].draft.pairwise_accuracy);
    assert_true(results[i].verifier.top1 == results[i].draft.top1);
  }
  /* Judging the draft-free model changes the verifier column, never the draft's (the
   * draft orders the pool and is the comparison). */
  PrunerVerifierOptions free_opts = prunerVerifierDefaultOptions();
  free_opts.draft_free = true;
  PrunerEvalWorkload *free_results = NULL;
  size_t free_count = 0;
  assert_true(prunerVerifierCrossValidateAsTuned(records, &f->h100, f->h100_key, &free_opts, 4, 0,
                                                 32, &free_results, &free_count)
                  .ok);
  assert_int_equal(free_count, count);
  for (size_t i = 0; i < count; ++i) {
    assert_string_equal(free_results[i].workload_key, results[i].workload_key);
    assert_true(free_results[i].draft.pairwise_accuracy == results[i].draft.pairwise_accuracy);
    assert_true(free_results[i].draft.top1 == results[i].draft.top1);
  }
  free(free_results);
  free(results);
  /* The tuner's first batch as the own records (the host's spread, share 0.5): the same
   * pool size; a share outside [0, 1] is refused. */
  PrunerVerifierOptions spread = prunerVerifierDefaultOptions();
  spread.eval_first_batch_tiles = 0.5;
  assert_true(prunerVerifierCrossValidateAsTuned(records, &f->h100, f->h100_key, &spread, 4, 16,
                                                 32, &results, &count)
                  .ok);
  assert_int_equal(count, 8);
  for (size_t i = 0; i < count; ++i)
    assert_true(results[i].verifier.n == 16 && results[i].draft.n == 16);
  free(results);
  spread.eval_first_batch_tiles = 1.5;
  assert_false(prunerVerifierCrossValidateAsTuned(records, &f->h100, f->h100_key, &spread, 4, 16,
                                                  32, &results, &count)
                   .ok);
  PrunerStatus s =
      prunerVerifierCrossValidate(records, &f->h100, "sm_1:none:1sm", NULL, 4, &results, &count);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, "sm_1:none:1sm"));
  prunerRecordsDestroy(records);
}

/* The draft blend: a = floor + (1 - floor) n / (n + K) for n own records; floor 0 on an
 * unseen workload gives exactly the draft's order, and a workload's own records move the
 * ranking towards the model's. */
static void test_draft_blend(void **state) {
  Fixture *f = *state;
  PrunerRecords train = prunerRecordsCreateInMemory();
  assert_true(prunerSyntheticRecords(&f->h100, 6, 150, 21, train).ok);
  PrunerRecords all = prunerRecordsCreateInMemory();
  assert_true(prunerSyntheticRecords(&f->h100, 8, 150, 22, all).ok);
  const PrunerRecord *first = prunerRecordsGet(all, 7 * 150); /* workload 7: unseen */
  char key[PRUNER_WORKLOAD_KEY_SIZE];
  snprintf(key, sizeof key, "%s", first->workload_key);

  PrunerVerifierOptions o = prunerVerifierDefaultOptions();
  assert_int_equal(o.blend_records, 64); /* chosen by leave-one-workload-out */
  assert_true(o.blend_floor == 0.0);
  o.blend_records = 16; /* the arithmetic below */
  PrunerVerifier blended, draft_only;
  assert_true(prunerVerifierCreate(&f->h100, &o, &blended).ok);
  assert_true(prunerVerifierCreate(&f->h100, &o, &draft_only).ok);
  assert_true(prunerVerifierTrain(blended, train, NULL).ok);
  assert_false(prunerVerifierUsesDraft(blended));
  assert_true(prunerVerifierModelWeight(blended, key) == 0.0);
  assert_true(prunerVerifierModelWeight(draft_only, key) == 0.0);
  PrunerRankMetrics d = evaluate(draft_only, all, key, f->h100_key);
  PrunerRankMetrics b = evaluate(blended, all, key, f->h100_key);
  assert_true(b.pairwise_accuracy == d.pairwise_accuracy && b.top1 == d.top1);

  /* 48 of the workload's own records: a = 48 / (48 + 16) = 0.75; the synthetic law is
   * not the draft's, so the ranking of the workload improves over the draft's. */
  for (size_t i = 7 * 150; i < 7 * 150 + 48; ++i)
    assert_true(prunerRecordsAppend(train, prunerRecordsGet(all, i)).ok);
  assert_true(prunerVerifierTrain(blended, train, NULL).ok);
  assert_true(fabs(prunerVerifierModelWeight(blended, key) - 0.75) < 1e-12);
  b = evaluate(blended, all, key, f->h100_key);
  printf("blend a=0.75: pairwise %.3f (draft %.3f)\n", b.pairwise_accuracy,
         d.pairwise_accuracy);
  assert_true(b.pairwise_accuracy > d.pairwise_accuracy + 0.1);
  prunerVerifierDestroy(blended);
  prunerVerifierDestroy(draft_only);

  /* A floor: the weight on an unseen workload; out-of-range options are refused. */
  o.blend_floor = 0.25;
  assert_true(prunerVerifierCreate(&f->h100, &o, &blended).ok);
  assert_true(prunerVerifierTrain(blended, train, NULL).ok);
  assert_true(fabs(prunerVerifierModelWeight(blended, "no-such-workload") - 0.25) < 1e-12);
  prunerVerifierDestroy(blended);
  o.blend_floor = 1.5;
  PrunerStatus s = prunerVerifierCreate(&f->h100, &o, &blended);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, "blend_floor 1.5"));
  prunerRecordsDestroy(train);
  prunerRecordsDestroy(all);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_metrics),
      cmocka_unit_test(test_metrics_ties_within),
      cmocka_unit_test(test_rank_difference_interval),
      cmocka_unit_test(test_feature_names),
      cmocka_unit_test(test_recovers_known_ranking),
      cmocka_unit_test(test_save_load_identical),
      cmocka_unit_test(test_fallback_to_draft),
      cmocka_unit_test(test_uncompiled_features),
      cmocka_unit_test(test_other_target_and_prior),
      cmocka_unit_test(test_prior_floor_and_frozen),
      cmocka_unit_test(test_prior_skips_unseen),
      cmocka_unit_test(test_cross_validate),
      cmocka_unit_test(test_draft_blend),
      cmocka_unit_test(test_draft_free),
      cmocka_unit_test(test_draft_margin),
      cmocka_unit_test(test_draft_scale_when_fit_fails),
      cmocka_unit_test(test_draft_scale_per_workload),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

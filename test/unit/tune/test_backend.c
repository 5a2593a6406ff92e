/* The real tuning engine (lib/tune/engine.c) end to end through the backend interface
 * (pruner/backend.h), with a backend of this test's own: the space is the GPU rules' space
 * of a small matmul, the draft is one closed-form cost, and "measuring" evaluates another
 * closed form (the truth) with seeded noise. Checks that the engine uses only the
 * interface: every candidate and the baseline come back through the sink, the budget is
 * kept, nothing is measured twice, the search finds the truth's optimum region, the final
 * recheck replaces the summary figures, export mode goes through export*, and a mode the
 * backend does not support is refused by the backend. No timing is asserted. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../erf_workload.h"

#include "../../../lib/tune/tune_internal.h"
#include "pruner/random.h"

#define TEST_BASELINE_US 50.0

/* ---- the closed forms ----------------------------------------------------------------- */

/* The truth: best at workgroup 32 x 32, thread 4 x 4, reduction step 16, vector width 4;
 * each factor of two away costs 20% (in log2 distance). */
static double truthUs(const PrunerWorkload *w, const PrunerConfig *c) {
  (void)w;
  double d = fabs(log2((double)c->workgroup[0] / 32.0)) +
             fabs(log2((double)c->workgroup[1] / 32.0)) + fabs(log2((double)c->thread[0] / 4.0)) +
             fabs(log2((double)c->thread[1] / 4.0)) + fabs(log2((double)c->reduction[2] / 16.0)) +
             fabs(log2((double)c->vector_width / 4.0));
  return 10.0 * (1.0 + 0.2 * d);
}

/* The draft: the same shape with another optimum for the thread tile (8 x 2) and no
 * opinion on the vector width: correlated with the truth, not equal to it. */
static bool draftTerms(const PrunerWorkload *w, const PrunerTargetDesc *t, const PrunerConfig *c,
                       PrunerDraftSymbols *out, void *user) {
  (void)w;
  (void)t;
  int *calls = user;
  ++*calls;
  double d = fabs(log2((double)c->workgroup[0] / 32.0)) +
             fabs(log2((double)c->workgroup[1] / 32.0)) + fabs(log2((double)c->thread[0] / 8.0)) +
             fabs(log2((double)c->thread[1] / 2.0)) + fabs(log2((double)c->reduction[2] / 16.0));
  out->predicted_us = 12.0 * (1.0 + 0.25 * d);
  return true;
}

/* ---- the backend ---------------------------------------------------------------------- */

typedef struct TestCounters {
  int creates, destroys, measures, candidates, baselines, rechecks, export_adds, closes;
  int recheck_configs;
  int draft_calls;
  bool commit;
} TestCounters;

static TestCounters counters;
/* The closed-form baseline's records carry no name (as records written before baselines
 * were named): the summary then names it after the backend. */
static bool unnamed_baseline;

struct PrunerBackendStateImpl {
  uint64_t rng; /* noise */
  FILE *export_file;
};

static PrunerStatus testDescribeTarget(const char *name, PrunerTargetDesc *out) {
  if (strcmp(name, "closed-form") != 0)
    return prunerStatusError("the test backend describes only 'closed-form', not '%s'", name);
  PrunerStatus st = prunerTargetLookup("sm_80", out);
  snprintf(out->name, sizeof out->name, "closed-form");
  return st;
}

static PrunerStatus testRefuseMeasure(const PrunerTargetDesc *t, const char *mode) {
  return prunerStatusError("test backend: --measure=%s is not for %s", mode, t->name);
}

static void testDescribeMeasure(const PrunerTargetDesc *t, const char *export_path, char *buf,
                                size_t size) {
  snprintf(buf, size, "closed form on %s%s%s", t->name, export_path ? ", export to " : "",
           export_path ? export_path : "");
}

static PrunerStatus testSpaceCreate(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                    PrunerSpace *out) {
  return prunerSpaceCreate(w, t, NULL, out);
}

static PrunerStatus testDraftCreate(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                    PrunerDraft *out) {
  return prunerDraftCreateWithTerms(w, t, draftTerms, &counters.draft_calls, out);
}

static PrunerStatus testCreate(const PrunerTargetDesc *t, const PrunerBackendOptions *opts,
                               PrunerBackendState *out) {
  (void)t;
  (void)opts;
  *out = calloc(1, sizeof **out);
  if (!*out)
    return prunerStatusError("out of memory");
  (*out)->rng = 12345;
  counters.creates++;
  return prunerStatusOk();
}

static void testDestroy(PrunerBackendState s) {
  if (!s)
    return;
  if (s->export_file)
    fclose(s->export_file);
  free(s);
  counters.destroys++;
}

/* Five samples of the truth, each with up to +-2% noise. */
static void testRun(PrunerBackendState s, double us, PrunerRecord *r) {
  prunerRecordInit(r);
  r->status = PRUNER_RECORD_OK;
  r->num_samples = 5;
  double lo = INFINITY, hi = 0;
  for (int i = 0; i < r->num_samples; ++i) {
    r->samples_us[i] = us * (1.0 + 0.04 * (prunerRandomUniform(&s->rng) - 0.5));
    lo = fmin(lo, r->samples_us[i]);
    hi = fmax(hi, r->samples_us[i]);
  }
  double sorted[5];
  memcpy(sorted, r->samples_us, sizeof sorted);
  for (int i = 1; i < 5; ++i)
    for (int j = i; j > 0 && sorted[j] < sorted[j - 1]; --j) {
      double x = sorted[j];
      sorted[j] = sorted[j - 1];
      sorted[j - 1] = x;
    }
  r->median_us = sorted[2];
  r->spread_us = hi - lo;
}

static PrunerStatus testMeasure(PrunerBackendState s, const PrunerBackendBatch *b,
                                const PrunerBackendSink *sink) {
  counters.measures++;
  PrunerStatus st = prunerStatusOk();
  for (size_t i = 0; i < b->n && st.ok && !sink->stopRequested(sink->user); ++i) {
    PrunerRecord r;
    testRun(s, truthUs(b->workload, &b->configs[i]), &r);
    counters.candidates++;
    st = sink->candidate(sink->user, i, &r);
  }
  if (st.ok && !sink->hasBaseline(sink->user)) {
    PrunerRecord r;
    testRun(s, TEST_BASELINE_US, &r);
    r.is_baseline = true;
    snprintf(r.baseline_name, sizeof r.baseline_name, "%s",
             unnamed_baseline ? "" : "closed-form-baseline");
    snprintf(r.workload_key, sizeof r.workload_key, "%s", b->workload->key);
    snprintf(r.target_key, sizeof r.target_key, "%s", sink->targetKey(sink->user));
    counters.baselines++;
    st = sink->baseline(sink->user, &r);
    sink->note(sink->user, false, "closed-form baseline measured");
  }
  return st;
}

static PrunerStatus testExportOpen(PrunerBackendState s, const char *path,
                                   const PrunerBackendSink *sink) {
  (void)sink;
  s->export_file = fopen(path, "w");
  return s->export_file ? prunerStatusOk() : prunerStatusError("cannot write %s", path);
}

static PrunerStatus testExportAdd(PrunerBackendState s, const PrunerBackendBatch *b,
                                  const PrunerBackendSink *sink) {
  (void)sink;
  counters.export_adds++;
  for (size_t i = 0; i < b->n; ++i) {
    char cfg[256];
    prunerConfigFormatShort(b->workload, &b->configs[i], cfg, sizeof cfg);
    fprintf(s->export_file, "%s %s %.3f\n", b->workload->key, cfg, b->draft_us[i]);
  }
  return prunerStatusOk();
}

static PrunerStatus testExportClose(PrunerBackendState s, bool commit,
                                    const PrunerBackendSink *sink) {
  (void)sink;
  counters.closes++;
  counters.commit = commit;
  fclose(s->export_file);
  s->export_file = NULL;
  return prunerStatusOk();
}

/* Rechecks report the truth without noise (IQR +-1%): the summary must show exactly
 * these, and the winner is the truly fastest of the rechecked configs. */
static void testRecheck(PrunerBackendState s, const PrunerWorkload *w,
                        const PrunerConfig *configs, int n, bool baseline,
                        PrunerBackendRecheck *out) {
  (void)s;
  counters.rechecks++;
  counters.recheck_configs = n;
  memset(out, 0, sizeof *out);
  out->rounds = 15;
  out->has_baseline = baseline;
  for (int i = 0; i <= n; ++i) {
    double us = i < n ? truthUs(w, &configs[i]) : TEST_BASELINE_US;
    out->entries[i].status = PRUNER_RECORD_OK;
    out->entries[i].median_us = us;
    out->entries[i].p25_us = 0.99 * us;
    out->entries[i].p75_us = 1.01 * us;
  }
}

static const PrunerBackend testBackend = {
    .name = "closed-form",
    .kind = PRUNER_TARGET_GPU,
    .device_measure = PRUNER_TUNE_MEASURE_GPU,
    .baseline_name = "Closed",
    .codegen_version = 7,
    .fuses_consumers = false,
    .describeTarget = testDescribeTarget,
    .refuseMeasure = testRefuseMeasure,
    .describeMeasure = testDescribeMeasure,
    .spaceCreate = testSpaceCreate,
    .draftCreate = testDraftCreate,
    .create = testCreate,
    .destroy = testDestroy,
    .measure = testMeasure,
    .exportOpen = testExportOpen,
    .exportAdd = testExportAdd,
    .exportClose = testExportClose,
    .recheck = testRecheck,
};

/* ---- helpers -------------------------------------------------------------------------- */

static int candidate_events;

static void onEvent(const PrunerTuneEvent *ev, void *user) {
  (void)user;
  if (ev->kind == PRUNER_TUNE_EVENT_CANDIDATE)
    candidate_events++;
}

static PrunerTuneOptions testOptions(void) {
  PrunerTuneOptions o = prunerTuneDefaultOptions();
  o.target = "closed-form";
  o.trials = 48;
  o.batch = 16;
  o.draft_size = 64;
  o.seed = 3;
  o.on_event = onEvent;
  return o;
}

static void addMatmul(TuneEngine *e) {
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 256, 256, 128, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_int_equal(tuneEngineAddWorkload(e, &w, NULL), 0);
}

/* The truth's best over the whole space (brute force). */
static double truthOptimum(PrunerSpace space) {
  const PrunerWorkload *w = prunerSpaceGetWorkload(space);
  double best = INFINITY;
  uint64_t raw = 0;
  PrunerConfig c;
  while (prunerSpaceNext(space, &raw, &c))
    best = fmin(best, truthUs(w, &c));
  return best;
}

/* ---- tests ---------------------------------------------------------------------------- */

static void test_engine_runs_through_the_interface(void **state) {
  (void)state;
  memset(&counters, 0, sizeof counters);
  candidate_events = 0;
  TuneEngine e;
  PrunerTuneOptions o = testOptions();
  assert_true(tuneEngineInitWithBackend(&e, &o, &testBackend).ok);
  assert_ptr_equal(e.backend, &testBackend);
  assert_string_equal(e.target.name, "closed-form");
  assert_string_equal(e.measure_text, "closed form on closed-form");
  addMatmul(&e);
  assert_true(tuneEnginePrepare(&e).ok);
  assert_int_equal(counters.creates, 0); /* the state starts on first use */
  assert_true(tuneEngineRun(&e).ok);

  /* Every measurement came through the sink: 48 candidates, one baseline, one state. */
  assert_int_equal(counters.creates, 1);
  assert_int_equal(counters.candidates, 48);
  assert_int_equal(candidate_events, 48);
  assert_int_equal(counters.baselines, 1);
  assert_int_equal(counters.measures, 3);
  assert_true(counters.draft_calls > 0); /* the draft was the backend's closed form */
  assert_int_equal(prunerRecordsCount(e.records), 49);
  const char *key = e.tasks[0].w.key;
  for (size_t i = 0; i < prunerRecordsCount(e.records); ++i) {
    const PrunerRecord *r = prunerRecordsGet(e.records, i);
    assert_string_equal(r->target_key, e.target_key);
    assert_string_equal(r->workload_key, key);
    if (r->is_baseline) {
      assert_int_equal(r->codegen_version, 0); /* not our kernel */
      continue;
    }
    /* The engine filled the bookkeeping: the draft's prediction, the config, and the
     * version of the backend's kernels (testRun leaves it 0). */
    assert_true(r->draft_score_us > 0);
    assert_int_equal(r->codegen_version, 7);
    double truth = truthUs(&e.tasks[0].w, &r->config);
    assert_true(r->median_us >= truth * 0.98 && r->median_us <= truth * 1.02);
    for (size_t j = 0; j < i; ++j) { /* never the same config twice */
      const PrunerRecord *q = prunerRecordsGet(e.records, j);
      assert_false(!q->is_baseline && prunerConfigEqual(&q->config, &r->config));
    }
  }

  /* The search beat its draft and random search: the best measured config is truly
   * faster than the draft's own first choice (the measurements taught the verifier what
   * the draft gets wrong), and fewer than 0.5% of the space is truly faster than it (48
   * random draws would reach only about the top 2%). */
  const PrunerRecord *best = prunerRecordsBest(e.records, key, e.target_key);
  assert_non_null(best);
  double best_truth = truthUs(&e.tasks[0].w, &best->config);
  PrunerDraftCandidate top;
  assert_int_equal(prunerDraftTopN(e.tasks[0].draft, e.tasks[0].space, 1, &top), 1);
  assert_true(best_truth < truthUs(&e.tasks[0].w, &top.config));
  assert_true(truthOptimum(e.tasks[0].space) == 10.0); /* the truth's optimum is in the space */
  uint64_t raw = 0, faster = 0, total = 0;
  PrunerConfig c;
  while (prunerSpaceNext(e.tasks[0].space, &raw, &c)) {
    total++;
    faster += truthUs(&e.tasks[0].w, &c) < best_truth;
  }
  assert_true(total == e.tasks[0].space_size);
  assert_true(faster * 200 < total);

  /* The final check went through the backend: the top 4 records rechecked, the truly
   * fastest of them won, and the summary shows the recheck's figures. */
  assert_int_equal(counters.rechecks, 1);
  assert_int_equal(counters.recheck_configs, 4);
  PrunerTuneTaskInfo info;
  tuneEngineTaskInfo(&e, 0, &info);
  assert_true(info.measured);
  assert_true(info.final_checked);
  assert_int_equal(info.final_candidates, 4);
  assert_int_equal(info.final_rounds, 15);
  assert_true(info.best_us == truthUs(&e.tasks[0].w, &info.best));
  assert_true(info.best_us <= best_truth);
  assert_true(info.best_p25_us == 0.99 * info.best_us);
  assert_true(info.baseline_us == TEST_BASELINE_US);
  assert_string_equal(info.baseline_name, "closed-form-baseline");
  tuneEngineDestroy(&e);
  assert_int_equal(counters.destroys, 1);
}

static void test_engine_exports_through_the_interface(void **state) {
  (void)state;
  memset(&counters, 0, sizeof counters);
  char path[] = "/tmp/pruner-test-backend-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  TuneEngine e;
  PrunerTuneOptions o = testOptions();
  o.measure = PRUNER_TUNE_MEASURE_BUNDLE;
  o.measure_path = path;
  o.trials = 10;
  assert_true(tuneEngineInitWithBackend(&e, &o, &testBackend).ok);
  assert_non_null(strstr(e.measure_text, "export to"));
  addMatmul(&e);
  assert_true(tuneEnginePrepare(&e).ok);
  assert_true(tuneEngineRun(&e).ok);
  assert_int_equal(counters.export_adds, 1);
  assert_int_equal(counters.closes, 1);
  assert_true(counters.commit);
  assert_int_equal(counters.measures, 0);
  assert_int_equal(prunerRecordsCount(e.records), 0); /* nothing was measured */
  tuneEngineDestroy(&e);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  int lines = 0;
  char line[512];
  while (fgets(line, sizeof line, f))
    ++lines;
  fclose(f);
  unlink(path);
  assert_int_equal(lines, 10);
}

static void test_unnamed_baseline_takes_the_backend_name(void **state) {
  (void)state;
  memset(&counters, 0, sizeof counters);
  unnamed_baseline = true;
  TuneEngine e;
  PrunerTuneOptions o = testOptions();
  o.trials = 16;
  assert_true(tuneEngineInitWithBackend(&e, &o, &testBackend).ok);
  addMatmul(&e);
  assert_true(tuneEnginePrepare(&e).ok);
  assert_true(tuneEngineRun(&e).ok);
  unnamed_baseline = false;
  assert_int_equal(counters.baselines, 1);
  PrunerTuneTaskInfo info;
  tuneEngineTaskInfo(&e, 0, &info);
  assert_true(info.baseline_us == TEST_BASELINE_US);
  assert_string_equal(info.baseline_name, "closed"); /* the backend's "Closed" */
  tuneEngineDestroy(&e);
}

static void test_unsupported_mode_is_refused_by_the_backend(void **state) {
  (void)state;
  TuneEngine e;
  PrunerTuneOptions o = testOptions();
  o.measure = PRUNER_TUNE_MEASURE_HOST; /* another backend's device */
  PrunerStatus st = tuneEngineInitWithBackend(&e, &o, &testBackend);
  assert_false(st.ok);
  assert_string_equal(st.message, "test backend: --measure=host is not for closed-form");
  tuneEngineDestroy(&e);
  o = testOptions();
  o.target = "sm_90"; /* not a name this backend describes */
  st = tuneEngineInitWithBackend(&e, &o, &testBackend);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "only 'closed-form'"));
  tuneEngineDestroy(&e);
}

/* The table: every entry is complete, and the names route to the right backend. */
static void test_backend_table(void **state) {
  (void)state;
  assert_true(prunerBackendCount() >= 2);
  for (size_t i = 0; i < prunerBackendCount(); ++i) {
    const PrunerBackend *b = prunerBackendGet(i);
    assert_non_null(b->name);
    assert_non_null(b->baseline_name);
    assert_non_null(b->describeTarget);
    assert_non_null(b->refuseMeasure);
    assert_non_null(b->describeMeasure);
    assert_non_null(b->spaceCreate);
    assert_non_null(b->draftCreate);
    assert_non_null(b->create);
    assert_non_null(b->destroy);
    assert_non_null(b->measure);
    assert_true(!b->exportOpen == !b->exportAdd && !b->exportOpen == !b->exportClose);
    assert_ptr_equal(prunerBackendForTarget(&(PrunerTargetDesc){.kind = b->kind}), b);
    /* The version its records carry is the one tools without a backend check against. */
    assert_true(b->codegen_version >= 1);
    assert_int_equal(b->codegen_version,
                     prunerTargetCodegenVersion(&(PrunerTargetDesc){.kind = b->kind}));
    /* Per workload too (the host's changed some kernels only), never past the newest:
     * a matmul and a body with erf, whose host kernels differ in version. */
    PrunerWorkload ws[2];
    const int64_t dims[2] = {64, 256};
    prunerWorkloadMatmul(&ws[0], 64, 64, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
    testErfWorkload(&ws[1], dims, 2);
    for (int k = 0; k < 2; ++k) {
      int of = b->codegenVersionOf ? b->codegenVersionOf(&ws[k]) : b->codegen_version;
      assert_int_equal(of,
                       prunerTargetCodegenVersionOf(&(PrunerTargetDesc){.kind = b->kind}, &ws[k]));
      assert_true(of >= 1 && of <= b->codegen_version);
    }
  }
  const PrunerBackend *b;
  PrunerTargetDesc t;
  assert_true(prunerBackendLookup("sm_90", &b, &t).ok);
  assert_string_equal(b->name, "gpu");
  assert_int_equal(t.kind, PRUNER_TARGET_GPU);
  assert_true(prunerBackendLookup("host", &b, &t).ok);
  assert_string_equal(b->name, "host");
  assert_int_equal(t.kind, PRUNER_TARGET_HOST);
  PrunerStatus st = prunerBackendLookup("no-such-gpu", &b, &t);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "unknown target 'no-such-gpu'"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_engine_runs_through_the_interface),
      cmocka_unit_test(test_engine_exports_through_the_interface),
      cmocka_unit_test(test_unnamed_baseline_takes_the_backend_name),
      cmocka_unit_test(test_unsupported_mode_is_refused_by_the_backend),
      cmocka_unit_test(test_backend_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

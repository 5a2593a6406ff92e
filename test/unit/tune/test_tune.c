/* Unit tests of lib/tune through its public API: module reading, the replay search loop
 * (budget, no re-measurement, best = minimum of what was measured), the spec text, the
 * study. Latencies come from a replay file this test writes: latency = a known function
 * of the config. */
#include <limits.h>
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

#include "pruner/backend.h"
#include "pruner/draft.h"
#include "pruner/file.h"
#include "pruner/records.h"
#include "pruner/space.h"
#include "pruner/target.h"
#include "pruner/tune.h"

static char g_dir[64];

static const char *path(const char *name) {
  static char buf[16][128];
  static int next;
  char *p = buf[next++ % 16];
  snprintf(p, 128, "%s/%s", g_dir, name);
  return p;
}

static void writeFile(const char *p, const char *text) {
  FILE *f = fopen(p, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static const char *kMatmul =
    "func.func @f(%a: tensor<16x8xf32>, %b: tensor<8x16xf32>, %c: tensor<16x16xf32>)"
    " -> tensor<16x16xf32> {\n"
    "  %0 = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x16xf32>)"
    " outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>\n"
    "  return %0 : tensor<16x16xf32>\n}\n";

/* Latency: a smooth function of the workgroup tiles, minimum at 8x4. */
static double latency(const PrunerConfig *c, uint64_t index) {
  double d = 0;
  d += c->workgroup[0] > 8 ? c->workgroup[0] / 8.0 : 8.0 / c->workgroup[0];
  d += c->workgroup[1] > 4 ? c->workgroup[1] / 4.0 : 4.0 / c->workgroup[1];
  return 5.0 * d + 1e-6 * (double)(index % 101);
}

/* The replay files' workload (kMatmul's), target (sm_90) and space. */
typedef struct ReplaySpace {
  PrunerTargetDesc t;
  char key[96];
  PrunerWorkload w;
  PrunerSpace space;
} ReplaySpace;

static void replaySpaceCreate(ReplaySpace *rs) {
  assert_true(prunerTargetLookup("sm_90", &rs->t).ok);
  prunerTargetKey(&rs->t, rs->key, sizeof rs->key);
  prunerWorkloadMatmul(&rs->w, 16, 16, 8, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_true(prunerSpaceCreate(&rs->w, &rs->t, NULL, &rs->space).ok);
}

/* The replay space and its draft (destroyed by the caller). */
static void replaySpaceDraftCreate(ReplaySpace *rs, PrunerDraft *draft) {
  replaySpaceCreate(rs);
  assert_true(prunerDraftCreate(&rs->w, &rs->t, draft).ok);
}

/* A record of `us`; with slow > 0 it also carries four passes, as --merge-faster writes
 * them: its kept time (the fastest) and three `slow` times as long. */
static void appendReplayRecordPasses(PrunerRecords r, const ReplaySpace *rs, const PrunerConfig *c,
                                     double us, double slow) {
  PrunerRecord rec;
  prunerRecordInit(&rec);
  snprintf(rec.workload_key, sizeof rec.workload_key, "%s", rs->w.key);
  rec.workload = rs->w;
  rec.has_workload = true;
  snprintf(rec.target_key, sizeof rec.target_key, "%s", rs->key);
  rec.config = *c;
  rec.status = PRUNER_RECORD_OK;
  rec.num_samples = 1;
  rec.samples_us[0] = rec.median_us = us;
  if (slow > 0) {
    rec.num_passes = 4;
    rec.passes_us[0] = us;
    for (int k = 1; k < 4; ++k)
      rec.passes_us[k] = slow * us;
  }
  assert_true(prunerRecordsAppend(r, &rec).ok);
}

static void appendReplayRecord(PrunerRecords r, const ReplaySpace *rs, const PrunerConfig *c,
                               double us) {
  appendReplayRecordPasses(r, rs, c, us, 0);
}

/* Writes the complete-space replay file (with passes: appendReplayRecordPasses); returns
 * the space size and the minimum. */
static uint64_t writeReplayPasses(const char *file, double slow, double *min_us) {
  ReplaySpace rs;
  replaySpaceCreate(&rs);
  PrunerSpace s = rs.space;
  PrunerRecords r;
  remove(file);
  assert_true(prunerRecordsCreate(file, &r).ok);
  uint64_t raw = 0, n = 0;
  PrunerConfig c;
  *min_us = 1e30;
  while (prunerSpaceNext(s, &raw, &c)) {
    double us = latency(&c, n);
    if (us < *min_us)
      *min_us = us;
    appendReplayRecordPasses(r, &rs, &c, us, slow);
    ++n;
  }
  prunerRecordsDestroy(r);
  prunerSpaceDestroy(s);
  return n;
}

static uint64_t writeReplay(const char *file, double *min_us) {
  return writeReplayPasses(file, 0, min_us);
}

/* Tunes mm.mlir with `o` and opens its log, which must hold `trials` records (the
 * caller destroys them). */
static PrunerRecords tuneAndOpenLog(const PrunerTuneOptions *o, int64_t trials) {
  PrunerTuneSession s;
  assert_true(prunerTuneSessionCreate(path("mm.mlir"), o, &s).ok);
  assert_true(prunerTuneSessionRun(s).ok);
  prunerTuneSessionDestroy(s);
  PrunerRecords r;
  assert_true(prunerRecordsCreate(o->records_path, &r).ok);
  assert_int_equal(prunerRecordsCount(r), trials);
  return r;
}

/* Tuning options that measure by replaying `replay` into the log `log`. */
static PrunerTuneOptions replayOptions(const char *replay, const char *log) {
  PrunerTuneOptions o = prunerTuneDefaultOptions();
  o.measure = PRUNER_TUNE_MEASURE_REPLAY;
  o.measure_path = replay;
  o.records_path = log;
  return o;
}

static void test_no_tunable_op_copies_input(void **state) {
  (void)state;
  const char *in = "func.func @g(%x: f32) -> f32 {\n  return %x : f32\n}\n";
  writeFile(path("empty.mlir"), in);
  PrunerTuneOptions o = prunerTuneDefaultOptions();
  o.measure = PRUNER_TUNE_MEASURE_NONE;
  PrunerTuneSession s;
  PrunerStatus st = prunerTuneSessionCreate(path("empty.mlir"), &o, &s);
  assert_true(st.ok);
  assert_int_equal(prunerTuneSessionNumTasks(s), 0);
  assert_true(prunerTuneSessionRun(s).ok);
  assert_true(prunerTuneSessionWriteOutput(s, path("empty.out.mlir")).ok);
  prunerTuneSessionDestroy(s);
  char *buf = NULL;
  size_t n = 0;
  assert_true(prunerReadFile(path("empty.out.mlir"), &buf, &n).ok);
  assert_int_equal(n, strlen(in));
  assert_string_equal(buf, in);
  free(buf);
}

static void test_malformed_module_names_location(void **state) {
  (void)state;
  writeFile(path("bad.mlir"), "func.func @f() {\n  %0 = arith.constant : i32\n}\n");
  PrunerTuneOptions o = prunerTuneDefaultOptions();
  PrunerTuneSession s = NULL;
  PrunerStatus st = prunerTuneSessionCreate(path("bad.mlir"), &o, &s);
  assert_false(st.ok);
  assert_null(s);
  assert_non_null(strstr(st.message, "bad.mlir"));
  assert_non_null(strstr(st.message, ":2:"));
}

static void test_replay_search(void **state) {
  (void)state;
  double min_us;
  uint64_t size = writeReplay(path("replay.jsonl"), &min_us);
  assert_true(size > 40);
  writeFile(path("mm.mlir"), kMatmul);
  remove(path("log.jsonl"));
  PrunerTuneOptions o = replayOptions(path("replay.jsonl"), path("log.jsonl"));
  o.trials = 40;
  o.batch = 8;
  PrunerTuneSession s;
  assert_true(prunerTuneSessionCreate(path("mm.mlir"), &o, &s).ok);
  assert_int_equal(prunerTuneSessionNumTasks(s), 1);
  assert_true(prunerTuneSessionRun(s).ok);
  PrunerTuneTaskInfo info;
  prunerTuneSessionGetTask(s, 0, &info);
  assert_int_equal(info.trials, 40);
  assert_true(info.measured);
  assert_true(info.best_us >= min_us);
  char *spec = prunerTuneSessionSpecText(s);
  assert_non_null(spec);
  assert_non_null(strstr(spec, "transform.foreach_match"));
  assert_non_null(strstr(spec, "\"linalg.matmul\""));
  free(spec);
  prunerTuneSessionDestroy(s);

  /* The log holds 40 distinct configs; the best is their minimum. */
  PrunerRecords r;
  assert_true(prunerRecordsCreate(path("log.jsonl"), &r).ok);
  assert_int_equal(prunerRecordsCount(r), 40);
  double best = 1e30;
  for (size_t i = 0; i < 40; ++i) {
    const PrunerRecord *a = prunerRecordsGet(r, i);
    for (size_t j = 0; j < i; ++j)
      assert_false(prunerConfigEqual(&a->config, &prunerRecordsGet(r, j)->config));
    if (a->median_us < best)
      best = a->median_us;
  }
  prunerRecordsDestroy(r);
  assert_true(best == info.best_us);

  /* Rerunning with the whole space as budget resumes (the 40 old records count, none is
   * measured again) and must find the minimum. */
  o.trials = (int64_t)size;
  o.batch = 128;
  assert_true(prunerTuneSessionCreate(path("mm.mlir"), &o, &s).ok);
  assert_true(prunerTuneSessionRun(s).ok);
  prunerTuneSessionGetTask(s, 0, &info);
  assert_int_equal(info.trials, (int64_t)size);
  assert_int_equal(info.new_trials, (int64_t)size - 40);
  assert_true(fabs(info.best_us - min_us) < 1e-6 * min_us); /* JSON round trip */
  prunerTuneSessionDestroy(s);
}

/* --strategy=auto resolves per op through the backend: on the host, matmuls
 * verifier-only, the rest (batch_matmuls included) draft+verifier; on a GPU,
 * draft+verifier. */
static void test_strategy_auto(void **state) {
  (void)state;
  PrunerWorkload mm, bmm, conv;
  int64_t mm_dims[] = {64, 64, 64}, bmm_dims[] = {2, 64, 64, 64};
  int64_t conv_dims[] = {1, 16, 16, 8, 3, 3, 8};
  assert_true(prunerWorkloadBuild("matmul", mm_dims, 3, PRUNER_DTYPE_F32, &mm).ok);
  assert_true(prunerWorkloadBuild("batch_matmul", bmm_dims, 4, PRUNER_DTYPE_F32, &bmm).ok);
  assert_true(prunerWorkloadBuild("conv_2d_nhwc_hwcf", conv_dims, 7, PRUNER_DTYPE_F32, &conv).ok);
  const PrunerBackend *host = NULL, *gpu = NULL;
  PrunerTargetDesc t;
  assert_true(prunerBackendLookup("host", &host, &t).ok);
  assert_true(prunerBackendLookup("h200", &gpu, &t).ok);
  assert_int_equal(prunerTuneStrategyFor(PRUNER_TUNE_AUTO, &mm, host), PRUNER_TUNE_VERIFIER_ONLY);
  assert_int_equal(prunerTuneStrategyFor(PRUNER_TUNE_AUTO, &bmm, host), PRUNER_TUNE_DRAFT_VERIFIER);
  assert_int_equal(prunerTuneStrategyFor(PRUNER_TUNE_AUTO, &conv, host),
                   PRUNER_TUNE_DRAFT_VERIFIER);
  assert_int_equal(prunerTuneStrategyFor(PRUNER_TUNE_AUTO, &mm, gpu), PRUNER_TUNE_DRAFT_VERIFIER);
  assert_int_equal(prunerTuneStrategyFor(PRUNER_TUNE_AUTO, &mm, NULL), PRUNER_TUNE_DRAFT_VERIFIER);
  /* An explicit strategy is kept as it is. */
  assert_int_equal(prunerTuneStrategyFor(PRUNER_TUNE_DRAFT_ONLY, &mm, host),
                   PRUNER_TUNE_DRAFT_ONLY);
  assert_int_equal(prunerTuneStrategyFor(PRUNER_TUNE_DRAFT_VERIFIER, &mm, host),
                   PRUNER_TUNE_DRAFT_VERIFIER);
  /* The session's default is auto. */
  assert_int_equal(prunerTuneDefaultOptions().strategy, PRUNER_TUNE_AUTO);
}

static void test_study(void **state) {
  (void)state;
  double min_us;
  writeReplay(path("replay.jsonl"), &min_us);
  PrunerTuneStudyOptions so = prunerTuneStudyDefaultOptions();
  so.replay_path = path("replay.jsonl");
  so.seeds = 2;
  PrunerTuneStudyRow *rows = NULL;
  size_t n = 0;
  PrunerStatus st = prunerTuneStudy(&so, &rows, &n);
  assert_true(st.ok);
  assert_int_equal(n, 1);
  assert_true(fabs(rows[0].best_us - min_us) < 1e-6 * min_us);
  for (int s = 0; s < PRUNER_TUNE_AUTO; ++s) { /* the default methods: auto only when asked */
    /* Every strategy reaches the target within the space (exhaustion at worst). */
    assert_true(rows[0].mean_trials[s] >= 1);
    assert_true(rows[0].worst_trials[s] <= (int64_t)rows[0].space_size);
  }
  assert_true(rows[0].mean_trials[PRUNER_TUNE_AUTO] == 0); /* not run unless asked for */
  char *table = prunerTuneStudyFormat(rows, n, &so);
  assert_non_null(strstr(table, "draft+verifier"));
  free(table);
  free(rows);
  /* A first seed below 1, or a range past INT_MAX, is refused by name (the library's own
   * check; the CLI's range is narrower). */
  so.first_seed = 0;
  st = prunerTuneStudy(&so, &rows, &n);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "--study-first-seed"));
  so.first_seed = INT_MAX;
  st = prunerTuneStudy(&so, &rows, &n);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "--study-first-seed"));
}

/* Traced answers (--study-trace) at least `factor` times the workload's best. */
static int slowAnswers(const char *trace, double factor) {
  char *text = NULL;
  size_t size = 0;
  assert_true(prunerReadFile(trace, &text, &size).ok);
  int n = 0;
  for (const char *p = text; (p = strstr(p, "\"of_best\":")) != NULL; p += 10)
    n += strtod(p + 10, NULL) >= factor;
  free(text);
  return n;
}

/* --study-one-pass: a run is answered with one recorded pass per measurement and the
 * goals stay on the kept times. Every config's passes are its kept time and three 1000
 * times as long, so most answers are slow (the trace shows them; none without the
 * option), random search's run time to the goal (the same configs in the same order
 * either way) is that of the slow passes, and every run still reaches the optimum alone
 * within the space, which goals judged on the answers would miss whenever the optimum
 * answered slow. */
static void test_study_one_pass(void **state) {
  (void)state;
  double min_us;
  uint64_t size = writeReplayPasses(path("replay-passes.jsonl"), 1000.0, &min_us);
  PrunerTuneStudyOptions so = prunerTuneStudyDefaultOptions();
  so.replay_path = path("replay-passes.jsonl");
  so.trace_path = path("trace-passes.jsonl");
  so.seeds = 3;
  so.within_tight = 1e-9;
  so.methods = (1u << PRUNER_TUNE_RANDOM) | (1u << PRUNER_TUNE_DRAFT_VERIFIER);
  double random_run_s[2] = {0, 0};
  for (int one_pass = 0; one_pass < 2; ++one_pass) {
    so.replay_one_pass = one_pass;
    PrunerTuneStudyRow *rows = NULL;
    size_t n = 0;
    assert_true(prunerTuneStudy(&so, &rows, &n).ok);
    assert_int_equal(n, 1);
    assert_true(fabs(rows[0].best_us - min_us) < 1e-6 * min_us);
    for (int m = PRUNER_TUNE_DRAFT_VERIFIER; m <= PRUNER_TUNE_RANDOM; ++m)
      if (so.methods & (1u << m))
        assert_true(rows[0].stats[PRUNER_TUNE_GOAL_TIGHT][m].max <= (int64_t)size);
    random_run_s[one_pass] = rows[0].stats[PRUNER_TUNE_GOAL_TIGHT][PRUNER_TUNE_RANDOM].run_s_median;
    free(rows);
    int slow = slowAnswers(path("trace-passes.jsonl"), 100.0);
    if (one_pass)
      assert_true(slow > 0);
    else
      assert_int_equal(slow, 0);
  }
  assert_true(random_run_s[0] > 0);
  assert_true(random_run_s[1] > 100 * random_run_s[0]);
}

/* The draft-free baseline never runs the draft (the records of what it measured carry
 * no draft prediction; the same run with the draft does), and its model of the configs'
 * own features finds the synthetic optimum in fewer trials than random search. */
static void test_model_only(void **state) {
  (void)state;
  double min_us;
  writeReplay(path("replay-mo.jsonl"), &min_us);
  writeFile(path("mm.mlir"), kMatmul);
  for (int with_draft = 0; with_draft < 2; ++with_draft) {
    remove(path("log-mo.jsonl"));
    PrunerTuneOptions o = replayOptions(path("replay-mo.jsonl"), path("log-mo.jsonl"));
    o.strategy = with_draft ? PRUNER_TUNE_DRAFT_VERIFIER : PRUNER_TUNE_MODEL_ONLY;
    o.trials = 64; /* 4 rounds: the model is trained after the first */
    PrunerRecords r = tuneAndOpenLog(&o, 64);
    size_t predicted = 0;
    for (size_t i = 0; i < prunerRecordsCount(r); ++i)
      predicted += prunerRecordsGet(r, i)->draft_score_us > 0;
    prunerRecordsDestroy(r);
    if (with_draft)
      assert_true(predicted > 0);
    else
      assert_int_equal(predicted, 0);
  }

  PrunerTuneStudyOptions so = prunerTuneStudyDefaultOptions();
  so.replay_path = path("replay-mo.jsonl");
  so.seeds = 9;
  so.within_tight = 1e-9; /* the optimum itself (16 configs tie within 5%) */
  PrunerTuneStudyRow *rows = NULL;
  size_t n = 0;
  assert_true(prunerTuneStudy(&so, &rows, &n).ok);
  assert_int_equal(n, 1);
  assert_int_equal(rows[0].goal_configs[PRUNER_TUNE_GOAL_TIGHT], 1);
  const PrunerTuneStudyStats *mo = &rows[0].stats[PRUNER_TUNE_GOAL_TIGHT][PRUNER_TUNE_MODEL_ONLY];
  const PrunerTuneStudyStats *rnd = &rows[0].stats[PRUNER_TUNE_GOAL_TIGHT][PRUNER_TUNE_RANDOM];
  assert_true(mo->min <= mo->p25 && mo->p25 <= mo->median && mo->median <= mo->p75 &&
              mo->p75 <= mo->max);
  assert_true(mo->median * 2 < rnd->median); /* measured: 49 against 341 */
  free(rows);
}

/* draft+verifier's neighbours (PrunerTuneOptions.neighbours) lead the search out of the
 * draft's pool. The replay is built against the draft (latency rises with the draft's
 * rank: its top configs are the slowest), so the pool of the draft's top N can hold no
 * fast config. Without neighbours every measured config is among the draft's top 64 (the
 * pool grows 16 -> 32 -> 64 over four rounds, epsilon 0); with them the search measures
 * mutations of its best configs from outside it and finds faster ones. */
static void test_neighbours(void **state) {
  (void)state;
  ReplaySpace rs;
  PrunerDraft draft;
  replaySpaceDraftCreate(&rs, &draft);
  uint64_t size = prunerSpaceCount(rs.space);
  assert_true(size > 256);
  PrunerDraftCandidate *ranked = malloc(size * sizeof *ranked);
  assert_non_null(ranked);
  size_t n = prunerDraftTopN(draft, rs.space, size, ranked);
  assert_true(n > 256);
  PrunerRecords r;
  remove(path("replay-nb.jsonl"));
  assert_true(prunerRecordsCreate(path("replay-nb.jsonl"), &r).ok);
  for (size_t i = 0; i < n; ++i)
    appendReplayRecord(r, &rs, &ranked[i].config, 1000.0 - (double)i * (900.0 / (double)n));
  prunerRecordsDestroy(r);
  writeFile(path("mm.mlir"), kMatmul);
  double best[2];
  size_t outside[2];
  for (int with = 0; with < 2; ++with) {
    remove(path("log-nb.jsonl"));
    PrunerTuneOptions o = replayOptions(path("replay-nb.jsonl"), path("log-nb.jsonl"));
    o.draft_size = 16;
    o.batch = 16;
    o.epsilon = 0;
    o.neighbours = with ? 64 : 0;
    o.trials = 64;
    r = tuneAndOpenLog(&o, 64);
    best[with] = 1e30;
    outside[with] = 0;
    for (size_t i = 0; i < prunerRecordsCount(r); ++i) {
      const PrunerRecord *a = prunerRecordsGet(r, i);
      size_t rank = 0;
      while (rank < n && !prunerConfigEqual(&ranked[rank].config, &a->config))
        ++rank;
      assert_true(rank < n);
      outside[with] += rank >= 64;
      if (a->median_us < best[with])
        best[with] = a->median_us;
    }
    prunerRecordsDestroy(r);
  }
  assert_int_equal(outside[0], 0);
  assert_true(outside[1] > 0);
  assert_true(best[1] < best[0]);

  /* A negative count is refused by name. */
  PrunerTuneOptions o = prunerTuneDefaultOptions();
  o.measure = PRUNER_TUNE_MEASURE_REPLAY;
  o.measure_path = path("replay-nb.jsonl");
  o.neighbours = -1;
  PrunerTuneSession s = NULL;
  PrunerStatus st = prunerTuneSessionCreate(path("mm.mlir"), &o, &s);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "--neighbours"));
  free(ranked);
  prunerDraftDestroy(draft);
  prunerSpaceDestroy(rs.space);
  remove(path("replay-nb.jsonl"));
  remove(path("log-nb.jsonl"));
}

/* draft+verifier's first batch (PrunerTuneOptions.first_batch_tiles): its first K - M
 * slots are the draft's top, the last M each take the draft's best config of a register
 * step (a matmul's is its thread tile; a conv's taps: test_space.c) the batch does not
 * hold yet. With M = 0, for draft-only, and by default on a GPU
 * target (the GPU backend's share is 0, the host's is not), the batch is the draft's top
 * K. Epsilon 0, so no slot is random. */
static void test_first_batch_tiles(void **state) {
  (void)state;
  ReplaySpace rs;
  PrunerDraft draft;
  replaySpaceDraftCreate(&rs, &draft);
  enum { POOL = 64, K = 16, M = 8 };
  PrunerDraftCandidate pool[POOL];
  size_t n = prunerDraftTopN(draft, rs.space, POOL, pool);
  assert_int_equal(n, POOL);
  size_t tiles = 0; /* distinct thread tiles in the pool: enough for M new ones */
  for (size_t i = 0; i < n; ++i) {
    size_t j = 0;
    while (j < i && memcmp(pool[j].config.thread, pool[i].config.thread,
                           sizeof pool[i].config.thread) != 0)
      ++j;
    tiles += j == i;
  }
  assert_true(tiles > M + 1);
  double min_us;
  writeReplay(path("replay.jsonl"), &min_us);
  writeFile(path("mm.mlir"), kMatmul);
  const struct {
    PrunerTuneStrategy strategy;
    double tiles;
  } runs[] = {{PRUNER_TUNE_DRAFT_VERIFIER, (double)M / K},
              {PRUNER_TUNE_DRAFT_VERIFIER, 0},
              {PRUNER_TUNE_DRAFT_ONLY, (double)M / K},
              {PRUNER_TUNE_DRAFT_VERIFIER, PRUNER_TUNE_FIRST_BATCH_TILES}};
  for (size_t run = 0; run < sizeof runs / sizeof *runs; ++run) {
    remove(path("log-fb.jsonl"));
    PrunerTuneOptions o = replayOptions(path("replay.jsonl"), path("log-fb.jsonl"));
    o.strategy = runs[run].strategy;
    o.first_batch_tiles = runs[run].tiles;
    o.draft_size = POOL;
    o.neighbours = 0;
    o.batch = K;
    o.epsilon = 0;
    o.trials = K;
    PrunerRecords r = tuneAndOpenLog(&o, K);
    bool spread = runs[run].tiles > 0 && runs[run].strategy == PRUNER_TUNE_DRAFT_VERIFIER;
    size_t head = spread ? K - M : K;
    for (size_t i = 0; i < K; ++i) {
      const PrunerRecord *a = prunerRecordsGet(r, i);
      double us = prunerDraftPredictUs(draft, &a->config);
      if (i < head) { /* among the draft's top `head` (ties may come in any order) */
        assert_true(us <= pool[head - 1].predicted_us);
        continue;
      }
      for (size_t j = 0; j < i; ++j) /* a tile new to the batch */
        assert_true(memcmp(prunerRecordsGet(r, j)->config.thread, a->config.thread,
                           sizeof a->config.thread) != 0);
      for (size_t j = 0; j < n; ++j) /* the draft's best of that tile */
        if (memcmp(pool[j].config.thread, a->config.thread, sizeof a->config.thread) == 0)
          assert_true(us <= pool[j].predicted_us);
    }
    prunerRecordsDestroy(r);
  }

  /* The backends' own shares: a spread on the host, the draft's order on a GPU. */
  const PrunerBackend *host = NULL, *gpu = NULL;
  PrunerTargetDesc t;
  assert_true(prunerBackendLookup("host", &host, &t).ok);
  assert_true(prunerBackendLookup("h200", &gpu, &t).ok);
  assert_true(host->first_batch_tiles > 0 && host->first_batch_tiles <= 1);
  assert_true(gpu->first_batch_tiles == 0);
  assert_true(PRUNER_TUNE_FIRST_BATCH_TILES < 0); /* the default defers to them */

  /* A share outside [0, 1] is refused by name. */
  PrunerTuneOptions o = replayOptions(path("replay.jsonl"), path("log-fb.jsonl"));
  o.first_batch_tiles = 1.5;
  PrunerTuneSession s = NULL;
  PrunerStatus st = prunerTuneSessionCreate(path("mm.mlir"), &o, &s);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "--first-batch-tiles"));
  prunerDraftDestroy(draft);
  prunerSpaceDestroy(rs.space);
  remove(path("log-fb.jsonl"));
}

int main(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/pruner-tune-test-XXXXXX");
  if (!mkdtemp(g_dir))
    return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_no_tunable_op_copies_input),
      cmocka_unit_test(test_malformed_module_names_location),
      cmocka_unit_test(test_replay_search),
      cmocka_unit_test(test_strategy_auto),
      cmocka_unit_test(test_study),
      cmocka_unit_test(test_study_one_pass),
      cmocka_unit_test(test_model_only),
      cmocka_unit_test(test_neighbours),
      cmocka_unit_test(test_first_batch_tiles),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  /* Every file the tests wrote goes with the folder (a list of names forgot some). */
  if (getenv("PRUNER_KEEP_TEST_DIR") == NULL)
    prunerRemoveTree(g_dir);
  return rc;
}

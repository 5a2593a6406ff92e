/* pruner-draft --eval on records generated here from a known ranking: measured latency
 * equal to the draft's prediction must give Spearman 1 and recall 1; measured latency
 * reversed must give Spearman -1 and lose the best; the regrets of taking configs in
 * predicted order follow. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "eval.h"

static void writeRecords(const char *path, int reversed) {
  PrunerTargetDesc t;
  assert_true(prunerTargetLookup("h100", &t).ok);
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 256, 256, 256, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerSpace space;
  assert_true(prunerSpaceCreate(&w, &t, NULL, &space).ok);
  PrunerDraft d;
  assert_true(prunerDraftCreate(&w, &t, &d).ok);
  PrunerRecords rec;
  unlink(path);
  assert_true(prunerRecordsCreate(path, &rec).ok);
  uint64_t count = prunerSpaceCount(space);
  /* Every 97th config: a spread sample, plus the draft's own best (index of top-1). */
  PrunerDraftCandidate best;
  assert_int_equal(prunerDraftTopN(d, space, 1, &best), 1);
  for (uint64_t i = 0; i < count; i += 97) {
    PrunerRecord r;
    prunerRecordInit(&r);
    r.version = PRUNER_RECORDS_VERSION;
    r.workload = w;
    r.has_workload = true;
    snprintf(r.workload_key, sizeof r.workload_key, "%s", w.key);
    prunerTargetKey(&t, r.target_key, sizeof r.target_key);
    assert_true(prunerSpaceGetConfig(space, i, &r.config).ok);
    if (i == 0) r.config = best.config;
    double us = prunerDraftPredictUs(d, &r.config);
    assert_true(us > 0);
    r.status = PRUNER_RECORD_OK;
    r.num_samples = 1;
    r.samples_us[0] = r.median_us = reversed ? 1e6 / us : us;
    assert_true(prunerRecordsAppend(rec, &r).ok);
  }
  /* A record of another target must be skipped. */
  PrunerRecord other;
  prunerRecordInit(&other);
  other.version = PRUNER_RECORDS_VERSION;
  other.workload = w;
  other.has_workload = true;
  snprintf(other.workload_key, sizeof other.workload_key, "%s", w.key);
  snprintf(other.target_key, sizeof other.target_key, "sm_75:t4:40sm");
  other.config = best.config;
  other.status = PRUNER_RECORD_OK;
  other.num_samples = 1;
  other.samples_us[0] = other.median_us = 1.0;
  assert_true(prunerRecordsAppend(rec, &other).ok);
  prunerRecordsDestroy(rec);
  prunerDraftDestroy(d);
  prunerSpaceDestroy(space);
}

static void evalFile(const char *path, DraftEvalRow *row, size_t *skipped) {
  PrunerTargetDesc t;
  assert_true(prunerTargetLookup("h100", &t).ok);
  PrunerRecords rec;
  assert_true(prunerRecordsCreate(path, &rec).ok);
  size_t n = 0;
  PrunerStatus st = draftEvalRecords(rec, &t, 512, NULL, row, 1, &n, skipped);
  prunerRecordsDestroy(rec);
  if (!st.ok) fail_msg("%s", st.message);
  assert_int_equal(n, 1);
}

static void test_eval_known_ranking(void **state) {
  (void)state;
  char path[] = "/tmp/pruner-draft-eval-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  DraftEvalRow row;
  size_t skipped;
  writeRecords(path, 0);
  evalFile(path, &row, &skipped);
  assert_int_equal(skipped, 1);
  assert_true(row.measured > 10);
  assert_float_equal(row.spearman, 1.0, 1e-9);
  assert_int_equal(row.recall, 1);
  assert_int_equal(row.best_rank, 0);
  /* Predicted order is measured order: the first config is the best. */
  assert_float_equal(row.regret16, 1.0, 1e-12);
  assert_float_equal(row.regret64, 1.0, 1e-12);
  assert_int_equal(row.first_within_2pct, 0);

  writeRecords(path, 1);
  evalFile(path, &row, &skipped);
  assert_float_equal(row.spearman, -1.0, 1e-9);
  /* The measured best is now the draft's slowest sampled config: outside the top 512. */
  assert_int_equal(row.recall, 0);
  assert_int_equal(row.best_rank, -1);
  /* Reversed: the draft's first picks are the slowest measured, and more picks only help;
   * the first config within 2% lies beyond 16 exactly when regret@16 is above 1.02. */
  assert_true(row.regret16 > 1.0);
  assert_true(row.regret64 <= row.regret16);
  assert_true(row.first_within_2pct > 0);
  assert_int_equal(row.regret16 > 1.02, row.first_within_2pct >= 16);
  unlink(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_eval_known_ranking)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for lib/records: JSON round trips, append + reload, torn and corrupt lines,
 * resume lookups (Find / Best / Baseline) and target separation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pruner/records.h"

static const char *kTargetA = "sm_90:h200:132sm";
static const char *kTargetB = "sm_80:a100-40gb:108sm";

/* A temporary file path, unique per test (removed by the test). */
static void tempPath(char *buf, size_t size) {
  snprintf(buf, size, "/tmp/pruner-records-test-XXXXXX");
  int fd = mkstemp(buf);
  assert_true(fd >= 0);
  close(fd);
}

static void writeFile(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static char *readFile(const char *path) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)n + 1);
  assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
  text[n] = '\0';
  fclose(f);
  return text;
}

/* An ok record of a 256^3 matmul with a config determined by `tile`. */
static void makeRecord(PrunerRecord *r, const char *target, int64_t tile, double median) {
  prunerRecordInit(r);
  prunerWorkloadMatmul(&r->workload, 256, 256, 256, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  r->has_workload = true;
  snprintf(r->workload_key, sizeof(r->workload_key), "%s", r->workload.key);
  snprintf(r->target_key, sizeof(r->target_key), "%s", target);
  snprintf(r->device_name, sizeof(r->device_name), "NVIDIA H200");
  snprintf(r->driver_version, sizeof(r->driver_version), "13.0");
  snprintf(r->toolchain_version, sizeof(r->toolchain_version), "llvm-22/ptxas-13.0");
  r->config.workgroup[0] = tile;
  r->config.workgroup[1] = 64;
  r->config.reduction[2] = 16;
  r->config.thread[0] = 4;
  r->config.thread[1] = 4;
  r->config.promote_operands = 3;
  r->config.vector_width = 4;
  r->status = PRUNER_RECORD_OK;
  r->num_samples = 3;
  r->samples_us[0] = median * 0.99;
  r->samples_us[1] = median;
  r->samples_us[2] = median * 1.02;
  r->median_us = median;
  r->spread_us = median * 0.03;
  r->max_abs_error = 1.5e-5;
  r->sm_clock_mhz = 1980;
  r->draft_score_us = 12.25;
  r->verifier_score = 0.75;
  r->registers = 96;
  r->spill_bytes = 0;
  r->shared_bytes = 16384;
  r->timestamp = 1767225600.5;
}

static void test_status_names(void **state) {
  (void)state;
  for (int i = 0; i < PRUNER_RECORD_STATUS_COUNT; ++i) {
    PrunerRecordStatus parsed;
    assert_true(prunerRecordStatusParse(prunerRecordStatusName((PrunerRecordStatus)i), &parsed));
    assert_int_equal(parsed, i);
  }
  PrunerRecordStatus parsed;
  assert_false(prunerRecordStatusParse("crashed", &parsed));
  assert_string_equal(prunerRecordStatusName(PRUNER_RECORD_WRONG_RESULT), "wrong_result");
}

static void test_record_round_trip(void **state) {
  (void)state;
  PrunerRecord a, b;
  makeRecord(&a, kTargetA, 128, 42.125);
  char *line = prunerRecordToJson(&a);
  assert_non_null(line);
  assert_null(strchr(line, '\n'));
  PrunerStatus status = prunerRecordFromJson(line, &b);
  assert_true(status.ok);
  assert_string_equal(a.workload_key, b.workload_key);
  assert_true(b.has_workload);
  assert_int_equal(memcmp(&a.workload, &b.workload, sizeof(a.workload)), 0);
  assert_string_equal(b.target_key, kTargetA);
  assert_string_equal(b.device_name, "NVIDIA H200");
  assert_string_equal(b.toolchain_version, "llvm-22/ptxas-13.0");
  assert_int_equal(memcmp(&a.config, &b.config, sizeof(a.config)), 0);
  assert_int_equal(b.status, PRUNER_RECORD_OK);
  assert_int_equal(b.num_samples, 3);
  for (int i = 0; i < 3; ++i)
    assert_true(a.samples_us[i] == b.samples_us[i]); /* exact: cJSON prints 17 digits */
  assert_true(b.median_us == 42.125);
  assert_true(b.max_abs_error == a.max_abs_error);
  assert_true(b.sm_clock_mhz == 1980);
  assert_true(b.draft_score_us == 12.25);
  assert_int_equal(b.registers, 96);
  assert_int_equal(b.shared_bytes, 16384);
  assert_true(b.timestamp == a.timestamp);
  free(line);

  /* A failed candidate: NaN latency (written as null) and the error text survive. */
  makeRecord(&a, kTargetA, 64, 1.0);
  a.status = PRUNER_RECORD_COMPILE_ERROR;
  a.num_samples = 0;
  a.median_us = NAN;
  snprintf(a.error, sizeof(a.error), "ptxas: too many resources \"requested\"");
  line = prunerRecordToJson(&a);
  assert_true(prunerRecordFromJson(line, &b).ok);
  assert_int_equal(b.status, PRUNER_RECORD_COMPILE_ERROR);
  assert_true(isnan(b.median_us));
  assert_string_equal(b.error, a.error);
  free(line);

  /* A baseline has no config. */
  makeRecord(&a, kTargetA, 64, 9.5);
  a.is_baseline = true;
  snprintf(a.baseline_name, sizeof(a.baseline_name), "cublas");
  line = prunerRecordToJson(&a);
  assert_null(strstr(line, "\"config\""));
  assert_true(prunerRecordFromJson(line, &b).ok);
  assert_true(b.is_baseline);
  assert_string_equal(b.baseline_name, "cublas");
  free(line);
}

static void test_conv_workload_json(void **state) {
  (void)state;
  PrunerWorkload w, back;
  prunerWorkloadConv2dNhwcHwcf(&w, 1, 34, 34, 64, 3, 3, 128, 1, 1, PRUNER_DTYPE_F16);
  cJSON *json = prunerWorkloadToJson(&w);
  assert_true(prunerWorkloadFromJson(json, &back).ok);
  assert_int_equal(memcmp(&w, &back, sizeof(w)), 0);
  /* A bad dtype is named. */
  cJSON *operands = cJSON_GetObjectItem(json, "operands");
  cJSON_ReplaceItemInObject(cJSON_GetArrayItem(operands, 1), "dtype",
                            cJSON_CreateString("f13"));
  PrunerStatus status = prunerWorkloadFromJson(json, &back);
  assert_false(status.ok);
  assert_non_null(strstr(status.message, "operands[1]"));
  assert_non_null(strstr(status.message, "f13"));
  cJSON_Delete(json);
}

static void test_bad_lines_named(void **state) {
  (void)state;
  PrunerRecord r;
  PrunerStatus s = prunerRecordFromJson("{\"version\": 1, \"workload_key\": \"k\"}", &r);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, "target"));
  s = prunerRecordFromJson("{\"version\": 7}", &r);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, "version"));
  s = prunerRecordFromJson("{\"version\": 1, \"workload_key\": \"k\", \"target\": "
                           "{\"key\": \"t\"}, \"config\": {\"workgroup\": [1], "
                           "\"reduction\": [0], \"thread\": [1], \"promote_operands\": [], "
                           "\"vector_width\": 1}, \"status\": \"exploded\"}",
                           &r);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, "exploded"));
  s = prunerRecordFromJson("{\"version\": 1, \"workl", &r);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, "JSON"));
  /* Two objects glued together (a torn line followed by a whole one) are rejected. */
  PrunerRecord a;
  makeRecord(&a, kTargetA, 64, 5.0);
  char *line = prunerRecordToJson(&a);
  char *glued = malloc(2 * strlen(line) + 1);
  strcpy(glued, line);
  strcat(glued, line);
  assert_false(prunerRecordFromJson(glued, &r).ok);
  free(glued);
  free(line);
}

static void test_append_reload_lookups(void **state) {
  (void)state;
  char path[64];
  tempPath(path, sizeof(path));
  PrunerRecords records;
  assert_true(prunerRecordsOpen(path, &records).ok);
  assert_int_equal(prunerRecordsCount(records), 0);
  PrunerRecord r;
  double medians[4] = {30.0, 12.0, 18.0, 50.0};
  for (int i = 0; i < 4; ++i) {
    makeRecord(&r, kTargetA, 16 << i, medians[i]);
    assert_true(prunerRecordsAppend(records, &r).ok);
  }
  makeRecord(&r, kTargetA, 64, 9.0);
  r.is_baseline = true;
  snprintf(r.baseline_name, sizeof(r.baseline_name), "cublas");
  assert_true(prunerRecordsAppend(records, &r).ok);
  /* The same config on another GPU, faster: must not count for target A. */
  makeRecord(&r, kTargetB, 16, 1.0);
  assert_true(prunerRecordsAppend(records, &r).ok);
  prunerRecordsClose(records);

  assert_true(prunerRecordsOpen(path, &records).ok);
  assert_int_equal(prunerRecordsCount(records), 6);
  assert_int_equal(prunerRecordsSkippedLines(records), 0);
  assert_string_equal(prunerRecordsWarnings(records), "");
  const char *key = prunerRecordsGet(records, 0)->workload_key;
  const PrunerRecord *best = prunerRecordsBest(records, key, kTargetA);
  assert_non_null(best);
  assert_true(best->median_us == 12.0);
  assert_true(prunerRecordsBest(records, key, kTargetB)->median_us == 1.0);
  const PrunerRecord *base = prunerRecordsBaseline(records, key, kTargetA);
  assert_non_null(base);
  assert_string_equal(base->baseline_name, "cublas");
  assert_null(prunerRecordsBaseline(records, key, kTargetB));
  assert_null(prunerRecordsBest(records, "matmul:1x1x1", kTargetA));

  makeRecord(&r, kTargetA, 32, 0.0);
  const PrunerRecord *found = prunerRecordsFind(records, key, kTargetA, &r.config);
  assert_non_null(found);
  assert_true(found->median_us == 12.0);
  makeRecord(&r, kTargetB, 32, 0.0);
  assert_null(prunerRecordsFind(records, key, kTargetB, &r.config));
  r.config.vector_width = 2;
  assert_null(prunerRecordsFind(records, key, kTargetA, &r.config));
  prunerRecordsClose(records);
  unlink(path);
}

/* A torn last line (a crash mid-write) and a corrupt middle line are skipped with
 * warnings naming their line numbers; the next append starts on a fresh line. */
static void test_torn_and_corrupt_lines(void **state) {
  (void)state;
  char path[64];
  tempPath(path, sizeof(path));
  PrunerRecord r;
  makeRecord(&r, kTargetA, 16, 20.0);
  char *l1 = prunerRecordToJson(&r);
  makeRecord(&r, kTargetA, 32, 10.0);
  char *l2 = prunerRecordToJson(&r);
  makeRecord(&r, kTargetA, 64, 15.0);
  char *l3 = prunerRecordToJson(&r);
  size_t n = strlen(l1) + strlen(l2) + strlen(l3) + 64;
  char *text = malloc(n);
  /* line 1 ok, line 2 corrupt, line 3 ok, line 4 blank, line 5 torn (half of l3) */
  snprintf(text, n, "%s\n{\"version\": 1, garbage\n%s\n\n%.*s", l1, l2, (int)(strlen(l3) / 2),
           l3);
  writeFile(path, text);

  PrunerRecords records;
  assert_true(prunerRecordsOpen(path, &records).ok);
  assert_int_equal(prunerRecordsCount(records), 2);
  assert_int_equal(prunerRecordsSkippedLines(records), 2);
  const char *warnings = prunerRecordsWarnings(records);
  assert_non_null(strstr(warnings, ":2: skipped"));
  assert_non_null(strstr(warnings, ":5: skipped"));
  assert_non_null(strstr(warnings, path));
  assert_true(prunerRecordsAppend(records, &r).ok);
  prunerRecordsClose(records);

  /* The file ends in a newline again and the appended line stands alone. */
  char *after = readFile(path);
  assert_int_equal(after[strlen(after) - 1], '\n');
  char *expected_tail = malloc(strlen(l3) + 3);
  snprintf(expected_tail, strlen(l3) + 3, "\n%s\n", l3);
  assert_non_null(strstr(after, expected_tail));
  free(expected_tail);
  free(after);

  assert_true(prunerRecordsOpen(path, &records).ok);
  assert_int_equal(prunerRecordsCount(records), 3);
  assert_int_equal(prunerRecordsSkippedLines(records), 2);
  assert_true(prunerRecordsBest(records, r.workload_key, kTargetA)->median_us == 10.0);
  assert_non_null(prunerRecordsFind(records, r.workload_key, kTargetA, &r.config));
  prunerRecordsClose(records);
  free(text);
  free(l1);
  free(l2);
  free(l3);
  unlink(path);
}

/* Many records across many workloads: every Find hits its own record, misses miss,
 * pointers stay valid as the log grows. */
static void test_many_records_index(void **state) {
  (void)state;
  PrunerRecords records = prunerRecordsCreateInMemory();
  assert_non_null(records);
  PrunerRecord r;
  makeRecord(&r, kTargetA, 1, 1.0);
  const PrunerRecord *first = NULL;
  enum { kWorkloads = 20, kConfigs = 600 };
  for (int w = 0; w < kWorkloads; ++w) {
    for (int c = 0; c < kConfigs; ++c) {
      snprintf(r.workload_key, sizeof(r.workload_key), "synthetic:%d", w);
      r.has_workload = false;
      r.config.workgroup[0] = c + 1;
      r.config.thread[1] = w + 1;
      r.median_us = 1000.0 - c + w;
      assert_true(prunerRecordsAppend(records, &r).ok);
      if (!first)
        first = prunerRecordsGet(records, 0);
    }
  }
  assert_int_equal(prunerRecordsCount(records), kWorkloads * kConfigs);
  assert_ptr_equal(first, prunerRecordsGet(records, 0));
  for (int w = 0; w < kWorkloads; ++w) {
    char key[32];
    snprintf(key, sizeof(key), "synthetic:%d", w);
    for (int c = 0; c < kConfigs; ++c) {
      r.config.workgroup[0] = c + 1;
      r.config.thread[1] = w + 1;
      const PrunerRecord *f = prunerRecordsFind(records, key, kTargetA, &r.config);
      assert_non_null(f);
      assert_true(f->median_us == 1000.0 - c + w);
      r.config.thread[1] = w + 2;
      assert_null(prunerRecordsFind(records, key, kTargetA, &r.config));
    }
    assert_true(prunerRecordsBest(records, key, kTargetA)->median_us ==
                1000.0 - (kConfigs - 1) + w);
  }
  prunerRecordsClose(records);
}

static void test_open_errors_name_file(void **state) {
  (void)state;
  PrunerRecords records;
  PrunerStatus s = prunerRecordsOpen("/nonexistent-dir/records.jsonl", &records);
  assert_false(s.ok);
  assert_null(records);
  assert_non_null(strstr(s.message, "/nonexistent-dir/records.jsonl"));
  PrunerRecord r;
  prunerRecordInit(&r);
  records = prunerRecordsCreateInMemory();
  s = prunerRecordsAppend(records, &r);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, "workload key"));
  prunerRecordsClose(records);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_status_names),
      cmocka_unit_test(test_record_round_trip),
      cmocka_unit_test(test_conv_workload_json),
      cmocka_unit_test(test_bad_lines_named),
      cmocka_unit_test(test_append_reload_lookups),
      cmocka_unit_test(test_torn_and_corrupt_lines),
      cmocka_unit_test(test_many_records_index),
      cmocka_unit_test(test_open_errors_name_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

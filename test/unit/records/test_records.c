/* Unit tests for lib/records: JSON round trips, append + reload, torn and corrupt lines,
 * resume lookups (Find / Best / Baseline) and target separation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "../erf_workload.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pruner/file.h"
#include "pruner/records.h"

static const char *kTargetA = "sm_90:h200:132sm";
static const char *kTargetB = "sm_80:a100-40gb:108sm";

/* The records library speaks JSON text; the tests inspect and edit it as cJSON. */
static cJSON *parsedText(char *text) {
  assert_non_null(text);
  cJSON *json = cJSON_Parse(text);
  free(text);
  assert_non_null(json);
  return json;
}

static PrunerStatus configFromNode(const cJSON *json, PrunerConfig *out) {
  char *text = cJSON_PrintUnformatted(json);
  PrunerStatus st = prunerConfigFromJsonText(text, out);
  cJSON_free(text);
  return st;
}

static PrunerStatus workloadFromNode(const cJSON *json, PrunerWorkload *out) {
  char *text = cJSON_PrintUnformatted(json);
  PrunerStatus st = prunerWorkloadFromJsonText(text, out);
  cJSON_free(text);
  return st;
}

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

/* An ok record of a 256^3 matmul with a config determined by `tile`. */
/* reduction_threads: written only when > 1 and read back; a config without the key (every
 * record written before the knob) reads as one thread per output. */
static void test_reduction_threads_json(void **state) {
  (void)state;
  PrunerConfig c, back;
  memset(&c, 0, sizeof c);
  c.workgroup[0] = 4;
  c.thread[0] = 4;
  c.reduction[1] = 2;
  c.vector_width = 1;
  cJSON *json = parsedText(prunerConfigToJsonText(&c, 2));
  assert_null(cJSON_GetObjectItemCaseSensitive(json, "reduction_threads"));
  assert_true(configFromNode(json, &back).ok);
  assert_int_equal(back.reduction_threads, 0);
  assert_int_equal(prunerConfigReductionThreads(&back), 1);
  cJSON_Delete(json);
  c.reduction_threads = 64;
  json = parsedText(prunerConfigToJsonText(&c, 2));
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(json, "reduction_threads");
  assert_non_null(item);
  assert_int_equal((int)item->valuedouble, 64);
  assert_true(configFromNode(json, &back).ok);
  assert_int_equal(memcmp(&c, &back, sizeof c), 0);
  /* An explicit 1 is the same config as none. */
  cJSON_ReplaceItemInObject(json, "reduction_threads", cJSON_CreateNumber(1));
  assert_true(configFromNode(json, &back).ok);
  assert_int_equal(back.reduction_threads, 0);
  cJSON_ReplaceItemInObject(json, "reduction_threads", cJSON_CreateNumber(0));
  PrunerStatus st = configFromNode(json, &back);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "reduction_threads"));
  cJSON_Delete(json);
}

/* mma: written only when set and read back; absent reads as 0 (FMA); out of range fails
 * naming the key. */
static void test_mma_json(void **state) {
  (void)state;
  PrunerConfig c, back;
  memset(&c, 0, sizeof c);
  c.workgroup[0] = 64;
  c.workgroup[1] = 64;
  c.thread[0] = 32;
  c.thread[1] = 16;
  c.reduction[2] = 32;
  c.vector_width = 1;
  cJSON *json = parsedText(prunerConfigToJsonText(&c, 3));
  assert_null(cJSON_GetObjectItemCaseSensitive(json, "mma"));
  assert_true(configFromNode(json, &back).ok);
  assert_int_equal(back.mma, 0);
  cJSON_Delete(json);
  c.mma = PRUNER_MMA_M16N8K16;
  json = parsedText(prunerConfigToJsonText(&c, 3));
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(json, "mma");
  assert_non_null(item);
  assert_int_equal((int)item->valuedouble, 1);
  assert_true(configFromNode(json, &back).ok);
  assert_int_equal(memcmp(&c, &back, sizeof c), 0);
  assert_true(prunerConfigEqual(&c, &back));
  back.mma = 0;
  assert_false(prunerConfigEqual(&c, &back));
  cJSON_ReplaceItemInObject(json, "mma", cJSON_CreateNumber(2));
  PrunerStatus st = configFromNode(json, &back);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "mma"));
  cJSON_Delete(json);
  /* stages: written only when > 1, read back, compared; out of range refused. */
  assert_null(cJSON_GetObjectItemCaseSensitive(json = parsedText(prunerConfigToJsonText(&c, 3)),
                                               "stages"));
  cJSON_Delete(json);
  c.promote_operands = 3u;
  c.stages = 3;
  json = parsedText(prunerConfigToJsonText(&c, 3));
  item = cJSON_GetObjectItemCaseSensitive(json, "stages");
  assert_non_null(item);
  assert_int_equal((int)item->valuedouble, 3);
  assert_true(configFromNode(json, &back).ok);
  assert_int_equal(memcmp(&c, &back, sizeof c), 0);
  back.stages = 0;
  assert_false(prunerConfigEqual(&c, &back));
  cJSON_ReplaceItemInObject(json, "stages", cJSON_CreateNumber(4));
  st = configFromNode(json, &back);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "stages"));
  cJSON_Delete(json);
  /* split_k: likewise written only when > 1, read back, compared and hashed apart. */
  PrunerConfig sk;
  memset(&sk, 0, sizeof sk);
  sk.workgroup[0] = sk.thread[0] = 1;
  sk.workgroup[1] = 64;
  sk.thread[1] = 2;
  sk.reduction[2] = 16;
  sk.vector_width = 2;
  assert_null(cJSON_GetObjectItemCaseSensitive(json = parsedText(prunerConfigToJsonText(&sk, 3)),
                                               "split_k"));
  cJSON_Delete(json);
  sk.split_k = 8;
  json = parsedText(prunerConfigToJsonText(&sk, 3));
  item = cJSON_GetObjectItemCaseSensitive(json, "split_k");
  assert_non_null(item);
  assert_int_equal((int)item->valuedouble, 8);
  assert_true(configFromNode(json, &back).ok);
  assert_int_equal(memcmp(&sk, &back, sizeof sk), 0);
  back.split_k = 0;
  assert_false(prunerConfigEqual(&sk, &back));
  cJSON_ReplaceItemInObject(json, "split_k", cJSON_CreateNumber(128));
  st = configFromNode(json, &back);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "split_k"));
  cJSON_Delete(json);
}

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
  /* Costs unknown (0) are not written, and read back as 0. */
  assert_null(strstr(line, "compile_s"));
  assert_null(strstr(line, "measure_s"));
  assert_true(b.compile_s == 0 && b.measure_s == 0);
  free(line);

  /* Known costs round-trip. */
  makeRecord(&a, kTargetA, 128, 42.125);
  a.compile_s = 0.03125;
  a.measure_s = 0.0859375;
  line = prunerRecordToJson(&a);
  assert_true(prunerRecordFromJson(line, &b).ok);
  assert_true(b.compile_s == 0.03125 && b.measure_s == 0.0859375);
  assert_null(strstr(line, "passes_us")); /* one measurement: no passes written */
  assert_int_equal(b.num_passes, 0);
  free(line);

  /* A record merged from passes keeps each pass's median, in order. */
  a.num_passes = 3;
  a.passes_us[0] = 44.5;
  a.passes_us[1] = 42.125;
  a.passes_us[2] = 51.25;
  line = prunerRecordToJson(&a);
  assert_non_null(strstr(line, "\"passes_us\":[44.5,42.125,51.25]"));
  assert_true(prunerRecordFromJson(line, &b).ok);
  assert_int_equal(b.num_passes, 3);
  for (int i = 0; i < 3; ++i)
    assert_true(b.passes_us[i] == a.passes_us[i]);
  free(line);

  /* A host record carries its machine's caches; without them none are written. */
  assert_null(strstr(line = prunerRecordToJson(&a), "caches"));
  free(line);
  a.cache_bytes[0] = 32 << 10;
  a.cache_bytes[1] = 1 << 20;
  a.cache_bytes[2] = (int64_t)260 << 20;
  line = prunerRecordToJson(&a);
  assert_non_null(strstr(line, "\"caches\":[32768,1048576,272629760]"));
  assert_true(prunerRecordFromJson(line, &b).ok);
  for (int i = 0; i < 3; ++i)
    assert_true(b.cache_bytes[i] == a.cache_bytes[i]);
  free(line);
  /* A partial list is never written (the reader would refuse the line). */
  a.cache_bytes[1] = 0;
  assert_null(strstr(line = prunerRecordToJson(&a), "caches"));
  free(line);

  /* The code generator's version: written when known, read back; absent reads as 0. */
  assert_null(strstr(line = prunerRecordToJson(&a), "codegen"));
  assert_true(prunerRecordFromJson(line, &b).ok);
  assert_int_equal(b.codegen_version, 0);
  free(line);
  a.codegen_version = 3;
  line = prunerRecordToJson(&a);
  assert_non_null(strstr(line, "\"codegen\":3"));
  assert_true(prunerRecordFromJson(line, &b).ok);
  assert_int_equal(b.codegen_version, 3);
  free(line);
  a.codegen_version = 0;

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
  cJSON *json = parsedText(prunerWorkloadToJsonText(&w));
  assert_true(workloadFromNode(json, &back).ok);
  assert_int_equal(memcmp(&w, &back, sizeof(w)), 0);
  /* A bad dtype is named. */
  cJSON *operands = cJSON_GetObjectItem(json, "operands");
  cJSON_ReplaceItemInObject(cJSON_GetArrayItem(operands, 1), "dtype",
                            cJSON_CreateString("f13"));
  PrunerStatus status = workloadFromNode(json, &back);
  assert_false(status.ok);
  assert_non_null(strstr(status.message, "operands[1]"));
  assert_non_null(strstr(status.message, "f13"));
  cJSON_Delete(json);
  /* Text that is not exactly one JSON value is refused, naming what was being read. */
  status = prunerWorkloadFromJsonText("{\"kind\": ", &back);
  assert_false(status.ok);
  assert_non_null(strstr(status.message, "workload: invalid JSON"));
  PrunerConfig c;
  status = prunerConfigFromJsonText("{} {}", &c);
  assert_false(status.ok);
  assert_non_null(strstr(status.message, "config: invalid JSON"));
  assert_false(prunerConfigFromJsonText(NULL, &c).ok);
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
  assert_true(prunerRecordsCreate(path, &records).ok);
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
  prunerRecordsDestroy(records);

  assert_true(prunerRecordsCreate(path, &records).ok);
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
  prunerRecordsDestroy(records);
  unlink(path);
}

/* Configs that differ only in their cache tile (iree-cpu's cache_parallel) are different
 * configs to the log: each is found as itself, neither stands for the other (a tuner
 * took one for the other as measured, and a resumed or replayed run found the wrong
 * time). */
static void test_cache_tile_lookups(void **state) {
  (void)state;
  char path[64];
  tempPath(path, sizeof(path));
  PrunerRecords records;
  assert_true(prunerRecordsCreate(path, &records).ok);
  PrunerRecord r;
  makeRecord(&r, kTargetA, 32, 20.0);
  assert_true(prunerRecordsAppend(records, &r).ok);
  PrunerConfig plain = r.config, cached = r.config;
  cached.cache[0] = 16;
  const char *key = r.workload_key;
  assert_null(prunerRecordsFind(records, key, kTargetA, &cached));
  r.config = cached;
  for (int i = 0; i < r.num_samples; ++i)
    r.samples_us[i] *= 0.5; /* its median among its samples (refused otherwise) */
  r.median_us = 10.0;
  assert_true(prunerRecordsAppend(records, &r).ok);
  prunerRecordsDestroy(records);
  assert_true(prunerRecordsCreate(path, &records).ok);
  assert_int_equal(prunerRecordsCount(records), 2);
  const PrunerRecord *a = prunerRecordsFind(records, key, kTargetA, &plain);
  const PrunerRecord *b = prunerRecordsFind(records, key, kTargetA, &cached);
  assert_non_null(a);
  assert_non_null(b);
  assert_true(a->median_us == 20.0 && b->median_us == 10.0);
  cached.cache[0] = 8;
  assert_null(prunerRecordsFind(records, key, kTargetA, &cached));
  prunerRecordsDestroy(records);
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
  assert_true(prunerRecordsCreate(path, &records).ok);
  assert_int_equal(prunerRecordsCount(records), 2);
  assert_int_equal(prunerRecordsSkippedLines(records), 2);
  const char *warnings = prunerRecordsWarnings(records);
  assert_non_null(strstr(warnings, ":2: skipped"));
  assert_non_null(strstr(warnings, ":5: skipped"));
  assert_non_null(strstr(warnings, path));
  assert_true(prunerRecordsAppend(records, &r).ok);
  prunerRecordsDestroy(records);

  /* The file ends in a newline again and the appended line stands alone. */
  char *after = NULL;
  assert_true(prunerReadFile(path, &after, NULL).ok);
  assert_int_equal(after[strlen(after) - 1], '\n');
  char *expected_tail = malloc(strlen(l3) + 3);
  snprintf(expected_tail, strlen(l3) + 3, "\n%s\n", l3);
  assert_non_null(strstr(after, expected_tail));
  free(expected_tail);
  free(after);

  assert_true(prunerRecordsCreate(path, &records).ok);
  assert_int_equal(prunerRecordsCount(records), 3);
  assert_int_equal(prunerRecordsSkippedLines(records), 2);
  assert_true(prunerRecordsBest(records, r.workload_key, kTargetA)->median_us == 10.0);
  assert_non_null(prunerRecordsFind(records, r.workload_key, kTargetA, &r.config));
  prunerRecordsDestroy(records);
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
  prunerRecordsDestroy(records);
}

/* Evaluation opens existing files only: a missing one is an error, never created. */
static void test_open_existing(void **state) {
  (void)state;
  char path[64];
  tempPath(path, sizeof(path));
  unlink(path);
  PrunerRecords records;
  PrunerStatus s = prunerRecordsCreateReadOnly(path, &records);
  assert_false(s.ok);
  assert_null(records);
  assert_non_null(strstr(s.message, path));
  assert_int_equal(access(path, F_OK), -1); /* not created */
  PrunerRecord a;
  makeRecord(&a, kTargetA, 64, 5.0);
  char *line = prunerRecordToJson(&a);
  writeFile(path, line);
  free(line);
  s = prunerRecordsCreateReadOnly(path, &records);
  assert_true(s.ok);
  assert_int_equal(prunerRecordsCount(records), 1);
  s = prunerRecordsAppend(records, &a);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, "read-only"));
  prunerRecordsDestroy(records);
  unlink(path);
}

/* Records saved with CRLF or lone-CR line ends (an editor on another system): each line
 * is a record, none is lost; an append after a lone-CR last line starts a new line. */
static void test_other_line_ends(void **state) {
  (void)state;
  static const char *const kEnds[] = {"\r\n", "\r"};
  for (size_t e = 0; e < sizeof kEnds / sizeof *kEnds; ++e) {
    char path[64];
    tempPath(path, sizeof(path));
    char text[4096] = "";
    PrunerRecord r;
    for (int i = 0; i < 3; ++i) {
      makeRecord(&r, kTargetA, 16 << i, 10.0 + i);
      char *line = prunerRecordToJson(&r);
      line[strcspn(line, "\n")] = '\0';
      strcat(text, line);
      strcat(text, kEnds[e]);
      free(line);
    }
    text[strlen(text) - strlen(kEnds[e])] = '\0'; /* no line end after the last */
    writeFile(path, text);
    PrunerRecords records;
    assert_true(prunerRecordsCreate(path, &records).ok);
    assert_int_equal(prunerRecordsCount(records), 3);
    assert_int_equal(prunerRecordsSkippedLines(records), 0);
    makeRecord(&r, kTargetA, 128, 5.0);
    assert_true(prunerRecordsAppend(records, &r).ok);
    prunerRecordsDestroy(records);
    assert_true(prunerRecordsCreate(path, &records).ok);
    assert_int_equal(prunerRecordsCount(records), 4);
    assert_int_equal(prunerRecordsSkippedLines(records), 0);
    prunerRecordsDestroy(records);
    unlink(path);
  }
}

static void test_open_errors_name_file(void **state) {
  (void)state;
  PrunerRecords records;
  PrunerStatus s = prunerRecordsCreate("/nonexistent-dir/records.jsonl", &records);
  assert_false(s.ok);
  assert_null(records);
  assert_non_null(strstr(s.message, "/nonexistent-dir/records.jsonl"));
  PrunerRecord r;
  prunerRecordInit(&r);
  records = prunerRecordsCreateInMemory();
  s = prunerRecordsAppend(records, &r);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, "workload key"));
  prunerRecordsDestroy(records);
}

/* ---- hostile input (harden) --------------------------------------------------------- */

/* The k-th node of a preorder walk below `node` and its parent, or NULL. */
static cJSON *nthNode(cJSON *node, int *k, cJSON **parent) {
  for (cJSON *child = node->child; child; child = child->next) {
    if ((*k)-- == 0) {
      *parent = node;
      return child;
    }
    cJSON *found = nthNode(child, k, parent);
    if (found)
      return found;
  }
  return NULL;
}

/* Every value of a valid line replaced, one at a time, by each hostile value: the parse
 * either succeeds or fails with a message, and never trips ASan/UBSan (double -> int
 * casts of 1e300 or inf were undefined behaviour). Returns the failures seen. */
static int mutateEveryValue(const char *line) {
  static const char *const kHostile[] = {
      "1e300", "-1e300", "1e999", "-1e999", "9007199254740993", "4294967297", "-1",
      "0",     "1.5",    "null",  "true",   "\"x\"",            "[]",         "{}",
      "[1e300, 2]", "[-9223372036854775808]", "\"\\u0000\""};
  cJSON *root = cJSON_Parse(line);
  assert_non_null(root);
  int failures = 0;
  for (int node = 0;; ++node) {
    int k = node;
    cJSON *parent = NULL;
    if (!nthNode(root, &k, &parent))
      break;
    for (size_t v = 0; v < sizeof(kHostile) / sizeof(kHostile[0]); ++v) {
      cJSON *copy = cJSON_Duplicate(root, 1);
      k = node;
      cJSON *target = nthNode(copy, &k, &parent);
      cJSON *value = cJSON_Parse(kHostile[v]);
      assert_non_null(value);
      assert_true(cJSON_ReplaceItemViaPointer(parent, target, value));
      char *text = cJSON_PrintUnformatted(copy);
      PrunerRecord r;
      PrunerStatus s = prunerRecordFromJson(text, &r);
      if (!s.ok) {
        assert_true(s.message[0] != '\0');
        ++failures;
      }
      free(text);
      cJSON_Delete(copy);
    }
  }
  cJSON_Delete(root);
  return failures;
}

static void expectLineError(const char *line, const char *needle) {
  PrunerRecord r;
  PrunerStatus s = prunerRecordFromJson(line, &r);
  if (s.ok)
    fail_msg("accepted: %s", line);
  if (!strstr(s.message, needle))
    fail_msg("message '%s' does not name '%s'", s.message, needle);
}

/* Replaces the first `from` in `line` by `to` (the caller frees). */
static char *replaced(const char *line, const char *from, const char *to) {
  const char *at = strstr(line, from);
  assert_non_null(at);
  char *out = malloc(strlen(line) + strlen(to) + 1);
  memcpy(out, line, (size_t)(at - line));
  strcpy(out + (at - line), to);
  strcat(out, at + strlen(from));
  return out;
}

static void test_hostile_values(void **state) {
  (void)state;
  PrunerRecord a;
  makeRecord(&a, kTargetA, 64, 5.0);
  char *line = prunerRecordToJson(&a);
  assert_true(mutateEveryValue(line) > 100);
  /* Every proper prefix of a line is a torn line: refused, never half-read. */
  size_t n = strlen(line);
  char *prefix = malloc(n + 1);
  for (size_t i = 0; i < n; ++i) {
    memcpy(prefix, line, i);
    prefix[i] = '\0';
    PrunerRecord r;
    assert_false(prunerRecordFromJson(prefix, &r).ok);
  }
  free(prefix);
  /* Specific values name their key instead of turning into wrong numbers. */
  struct {
    const char *from, *to, *needle;
  } cases[] = {
      {"\"workgroup\":[64", "\"workgroup\":[1e300", "workgroup"},
      {"\"workgroup\":[64", "\"workgroup\":[1e999", "workgroup"},
      {"\"workgroup\":[64", "\"workgroup\":[9007199254740993", "workgroup"},
      {"\"vector_width\":4", "\"vector_width\":4294967300", "vector_width"},
      {"\"num_inputs\":2", "\"num_inputs\":4294967298", "num_inputs"},
      {"\"bounds\":[256", "\"bounds\":[0", "bound"},
      {"\"bounds\":[256", "\"bounds\":[4611686018427387904", "workload"},
      {"\"registers\":96", "\"registers\":1e300", "registers"},
      {"\"registers\":96", "\"registers\":\"many\"", "registers"},
      {"\"median_us\":5", "\"median_us\":1e999", "median_us"},
      {"\"samples_us\":[4.95", "\"samples_us\":[1e999", "samples_us"},
      {"\"body_yield\":[", "\"body_yield\":[99,", "body_yield"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    char *bad = replaced(line, cases[i].from, cases[i].to);
    expectLineError(bad, cases[i].needle);
    free(bad);
  }
  free(line);
}

/* A file of good lines around binary garbage, a 10 MB line, NUL bytes and a torn tail:
 * every good line is kept, every bad one counted, nothing crashes. */
static void test_garbage_file(void **state) {
  (void)state;
  char path[64];
  tempPath(path, sizeof(path));
  PrunerRecord a, b;
  makeRecord(&a, kTargetA, 64, 5.0);
  makeRecord(&b, kTargetA, 128, 4.0);
  char *la = prunerRecordToJson(&a), *lb = prunerRecordToJson(&b);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fprintf(f, "%s\n", la);
  unsigned seed = 12345;
  for (int i = 0; i < 200; ++i) { /* random bytes, free of line ends (\n, \r) */
    int len = 1 + (int)(rand_r(&seed) % 300);
    for (int j = 0; j < len; ++j) {
      int c = rand_r(&seed) % 256;
      fputc(c == '\n' || c == '\r' ? 'x' : c, f);
    }
    fputc('\n', f);
  }
  fputc('{', f); /* a 10 MB line of digits inside an unterminated array */
  fputs("\"version\":1,\"x\":[", f);
  for (int i = 0; i < 10 * 1024 * 1024 / 8; ++i)
    fputs("1234567,", f);
  fputc('\n', f);
  fwrite("{\"version\":1\0}\n", 1, 15, f); /* embedded NUL */
  fputc('\0', f);                             /* a NUL-led line is not blank */
  fprintf(f, "%s\n", la);
  fprintf(f, "%s", la); /* a whole record, then a NUL and more: not half-read */
  fputc('\0', f);
  fprintf(f, "%s\n", la);
  fprintf(f, "%s\n", lb);
  fwrite(la, 1, strlen(la) / 2, f); /* torn tail */
  fclose(f);
  PrunerRecords records;
  PrunerStatus s = prunerRecordsCreate(path, &records);
  assert_true(s.ok);
  if (prunerRecordsCount(records) != 2 || prunerRecordsSkippedLines(records) != 205)
    fail_msg("%zu records, %zu skipped: %s", prunerRecordsCount(records),
             prunerRecordsSkippedLines(records), prunerRecordsWarnings(records));
  assert_non_null(strstr(prunerRecordsWarnings(records), path));
  const PrunerRecord *best = prunerRecordsBest(records, a.workload_key, kTargetA);
  assert_non_null(best);
  assert_true(best->median_us == 4.0);
  prunerRecordsDestroy(records);
  free(la);
  free(lb);
  unlink(path);
}


/* Replaces the first occurrence of `from` in a record's JSON line by `to`; the caller
 * frees the result. */
static char *editLine(const PrunerRecord *r, const char *from, const char *to) {
  char *line = prunerRecordToJson(r);
  char *at = strstr(line, from);
  assert_non_null(at);
  size_t n = strlen(line) - strlen(from) + strlen(to) + 1;
  char *out = malloc(n);
  snprintf(out, n, "%.*s%s%s", (int)(at - line), line, to, at + strlen(from));
  free(line);
  return out;
}

/* Values a line can be checked for on its own: signs, lengths against the workload,
 * vector width, finite non-negative numbers. Each used to be accepted. */
static void test_record_values_checked(void **state) {
  (void)state;
  PrunerRecord a, out;
  makeRecord(&a, kTargetA, 64, 5.0);
  a.max_abs_error = 0.5; /* printed as a number, so it can be edited below */
  a.spread_us = 0.25;
  a.compile_s = 0.5;
  a.measure_s = 0.75;
  a.num_passes = 2;
  a.passes_us[0] = 5.5;
  a.passes_us[1] = 5;
  a.cache_bytes[0] = 32768;
  a.cache_bytes[1] = 524288;
  a.cache_bytes[2] = 33554432;
  a.codegen_version = 2;
  const struct {
    const char *from, *to, *reason;
  } cases[] = {
      {"\"workgroup\":[64,64,0]", "\"workgroup\":[-64,64,0]", "entry 0 is -64"},
      {"\"thread\":[4,4,0]", "\"thread\":[4,-4,0]", "entry 1 is -4"},
      {"\"reduction\":[0,0,16]", "\"reduction\":[0,0,-16]", "tiles and steps are >= 0"},
      {"\"vector_width\":4", "\"vector_width\":0", "vector_width"},
      {"\"vector_width\":4", "\"vector_width\":-4", "vector_width"},
      {"\"workgroup\":[64,64,0],\"reduction\":[0,0,16],\"thread\":[4,4,0]",
       "\"workgroup\":[64,64],\"reduction\":[0,0],\"thread\":[4,4]",
       "2 entries per array for a workload of 3 loops"},
      {"\"workgroup\":[64,64,0],\"reduction\":[0,0,16],\"thread\":[4,4,0]",
       "\"workgroup\":[],\"reduction\":[],\"thread\":[]", "are empty"},
      {"\"median_us\":5", "\"median_us\":-5", "median_us"},
      {"\"median_us\":5", "\"median_us\":0.01", "outside its own samples (4.95-5.1)"},
      {"\"version\":1,", "", "missing key 'version'"},
      {"\"median_us\":5", "\"median_us\":50,\"median_us\":5", "key 'median_us' given twice"},
      {"\"status\":\"ok\"", "\"status\":\"ok\",\"error\":\"\xff\xfe\"", "not UTF-8"},
      {"\"sm_clock_mhz\":1980", "\"sm_clock_mhz\":1e300", "is not a clock"},
      {"\"median_us\":5", "\"median_us\":5e-324", "outside its own samples"},
      {"\"median_us\":5", "\"median_us\":5.2", "outside its own samples"},
      {"\"median_us\":5", "\"median_us\":1e300", "longer than a day"},
      {"\"samples_us\":[4.95", "\"samples_us\":[1e300", "longer than a day"},
      {"\"passes_us\":[5.5,5]", "\"passes_us\":[5.5,1e11]", "longer than a day"},
      {"\"spread_us\":0.25", "\"spread_us\":1e999", "spread_us"},
      {"\"spread_us\":0.25", "\"spread_us\":-1", "spread_us"},
      {"\"max_abs_error\":0.5", "\"max_abs_error\":-1e999", "max_abs_error"},
      {"\"draft_score_us\":12.25", "\"draft_score_us\":1e999", "draft_score_us"},
      {"\"verifier_score\":0.75", "\"verifier_score\":-1e999", "verifier_score"},
      {"\"timestamp\":1767225600.5", "\"timestamp\":1e999", "timestamp"},
      {"\"samples_us\":[4.95", "\"samples_us\":[-4.95", "samples_us"},
      {"\"compile_s\":0.5", "\"compile_s\":-0.5", "compile_s"},
      {"\"measure_s\":0.75", "\"measure_s\":1e999", "measure_s"},
      {"\"status\":\"ok\"", "\"status\":\"great\"", "unknown status"},
      {"\"passes_us\":[5.5,5]", "\"passes_us\":[5.5,-5]", "passes_us"},
      {"\"passes_us\":[5.5,5]", "\"passes_us\":[5.5,0]", "passes_us"},
      {"\"passes_us\":[5.5,5]", "\"passes_us\":5", "passes_us"},
      {"\"passes_us\":[5.5,5]", "\"passes_us\":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]", "at most 16"},
      {"\"caches\":[32768,524288,33554432]", "\"caches\":[32768,524288]", "3 byte counts"},
      {"\"caches\":[32768,524288,33554432]", "\"caches\":[32768,0,33554432]", "caches"},
      {"\"caches\":[32768,524288,33554432]", "\"caches\":[32768,524288,1e15]", "caches"},
      {"\"caches\":[32768,524288,33554432]", "\"caches\":\"32K\"", "caches"},
      {"\"caches\":[32768,524288,33554432]", "\"caches\":[1,2,3,4]", "caches"},
      {"\"codegen\":2", "\"codegen\":0", "codegen"},
      {"\"codegen\":2", "\"codegen\":-2", "codegen"},
      {"\"codegen\":2", "\"codegen\":2.5", "codegen"},
      {"\"codegen\":2", "\"codegen\":1e7", "codegen"},
      {"\"codegen\":2", "\"codegen\":\"2\"", "codegen"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    char *line = editLine(&a, cases[i].from, cases[i].to);
    PrunerStatus st = prunerRecordFromJson(line, &out);
    if (st.ok || !strstr(st.message, cases[i].reason))
      fail_msg("case %zu (%s): %s", i, cases[i].to, st.ok ? "accepted" : st.message);
    free(line);
  }
  /* A baseline's name is written into pruner.tuning as a string: a name, or refused. */
  PrunerRecord b = a;
  b.is_baseline = true;
  snprintf(b.baseline_name, sizeof b.baseline_name, "iree-default");
  char *base = prunerRecordToJson(&b);
  assert_non_null(base);
  assert_true(prunerRecordFromJson(base, &out).ok);
  const char *bad_names[] = {"open\\\\blas", "x\\\", d = 1", "", "cu blas"};
  for (size_t i = 0; i < sizeof bad_names / sizeof bad_names[0]; ++i) {
    char to[64];
    snprintf(to, sizeof to, "\"baseline\":\"%s\"", bad_names[i]);
    char *edited = editLine(&b, "\"baseline\":\"iree-default\"", to);
    PrunerStatus st = prunerRecordFromJson(edited, &out);
    if (st.ok || !strstr(st.message, "is not a baseline name"))
      fail_msg("baseline %s: %s", to, st.ok ? "accepted" : st.message);
    free(edited);
  }
  /* A baseline with a config is one or the other: refused. */
  char *both = editLine(&b, "\"baseline\":\"iree-default\"",
                        "\"baseline\":\"iree-default\",\"config\":{}");
  PrunerStatus st = prunerRecordFromJson(both, &out);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "a baseline record measures the library"));
  free(both);
  free(base);

  /* A negative verifier score is a score, and a non-ok record may have no latency. */
  char *line = editLine(&a, "\"verifier_score\":0.75", "\"verifier_score\":-0.75");
  assert_true(prunerRecordFromJson(line, &out).ok);
  free(line);
  /* UTF-8 beyond ASCII is text like any other. */
  line = editLine(&a, "\"status\":\"ok\"", "\"status\":\"ok\",\"error\":\"caf\xc3\xa9 \xe2\x80\x93\"");
  assert_true(prunerRecordFromJson(line, &out).ok);
  free(line);
  line = editLine(&a, "\"status\":\"ok\"", "\"status\":\"timeout\"");
  char *nulled = strstr(line, "\"median_us\":5");
  assert_non_null(nulled);
  memcpy(nulled, "\"median_us\":0", 13);
  assert_true(prunerRecordFromJson(line, &out).ok);
  free(line);
}

/* A module (or any text) given as a records file is refused, not appended to; so are
 * devices. A torn first line still opens (it starts like a record). */
static void test_not_a_records_file(void **state) {
  (void)state;
  char path[64];
  tempPath(path, sizeof(path));
  const char *module = "func.func @f() {\n  return\n}\n";
  writeFile(path, module);
  PrunerRecords records = NULL;
  PrunerStatus s = prunerRecordsCreate(path, &records);
  assert_false(s.ok);
  assert_null(records);
  assert_non_null(strstr(s.message, "not a records file"));
  assert_non_null(strstr(s.message, path));
  char *after = NULL;
  assert_true(prunerReadFile(path, &after, NULL).ok);
  assert_string_equal(after, module); /* untouched */
  free(after);
  /* Read-only loads only skip its lines. */
  assert_true(prunerRecordsCreateReadOnly(path, &records).ok);
  assert_int_equal(prunerRecordsCount(records), 0);
  prunerRecordsDestroy(records);

  writeFile(path, "{\"version\":1,\"workl");
  assert_true(prunerRecordsCreate(path, &records).ok); /* a torn first append */
  prunerRecordsDestroy(records);
  /* Two runs killed in their first append: the second one's '\n' closed the first torn
   * line, then it tore too. Still records (it was "not a records file" for good). */
  writeFile(path, "{\"version\":1,\"workl\n{\"version\":1,\"workload_key\":\"m");
  assert_true(prunerRecordsCreate(path, &records).ok);
  prunerRecordsDestroy(records);
  /* Not records files: lines of another program that start with '{' but not as a record
   * does (a Python dict per line: not torn records), a torn line beside a line that is
   * not one, and JSON that is not records (a bundle manifest). */
  const char *others[] = {"{'a': 1}\n{'b': 2}\n", "{\"version\":1,\"workl\nfunc.func @f()\n",
                          "{\n  \"version\": 1,\n  \"candidates\": []\n}\n"};
  for (size_t i = 0; i < sizeof others / sizeof *others; ++i) {
    writeFile(path, others[i]);
    s = prunerRecordsCreate(path, &records);
    assert_false(s.ok);
    assert_non_null(strstr(s.message, "not a records file"));
  }
  /* Records of a newer format. */
  writeFile(path, "{\"version\":99,\"workload_key\":\"k\"}\n");
  s = prunerRecordsCreate(path, &records);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, "'version': 99 is not supported"));
  writeFile(path, "\n\n");
  assert_true(prunerRecordsCreate(path, &records).ok);
  prunerRecordsDestroy(records);
  unlink(path);

  const char *devices[] = {"/dev/null", "/dev/zero", "/dev/full", "/tmp"};
  for (size_t i = 0; i < 4; ++i) {
    s = prunerRecordsCreate(devices[i], &records);
    assert_false(s.ok);
    if (i < 3)
      assert_non_null(strstr(s.message, "not a regular file"));
    s = prunerRecordsCreateReadOnly(devices[i], &records);
    assert_false(s.ok);
  }
}

/* A line past 1 MiB is skipped without being held whole, and the lines after it load. */
static void test_long_line_skipped(void **state) {
  (void)state;
  char path[64];
  tempPath(path, sizeof(path));
  PrunerRecord a;
  makeRecord(&a, kTargetA, 64, 5.0);
  char *la = prunerRecordToJson(&a);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputc('{', f);
  for (int i = 0; i < 3 * 1024 * 1024; ++i)
    fputc(' ', f);
  fputs("}\n", f);
  fprintf(f, "%s\n", la);
  fclose(f);
  PrunerRecords records;
  assert_true(prunerRecordsCreate(path, &records).ok);
  assert_int_equal(prunerRecordsCount(records), 1);
  assert_int_equal(prunerRecordsSkippedLines(records), 1);
  assert_non_null(strstr(prunerRecordsWarnings(records), ":1: skipped: line longer than 1 MiB"));
  prunerRecordsDestroy(records);
  free(la);
  unlink(path);
}

/* Two processes, one records file: the second writer is refused while the first holds
 * it, readers are not, and the file is free once the first closes it. The order is forced
 * by two pipes, not by timing. (The parent opens after the fork: a forked child shares
 * its parent's open files, and with them the lock.) */
static void test_one_writer(void **state) {
  (void)state;
  char path[64];
  tempPath(path, sizeof(path));
  int to_child[2], to_parent[2];
  assert_int_equal(pipe(to_child), 0);
  assert_int_equal(pipe(to_parent), 0);
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    PrunerRecords second = NULL, reader = NULL;
    char byte;
    int code = 0;
    if (read(to_child[0], &byte, 1) != 1) /* the parent holds the log */
      _exit(5);
    PrunerStatus s = prunerRecordsCreate(path, &second);
    if (s.ok || !strstr(s.message, "in use by another process"))
      code = 1;
    if (!prunerRecordsCreateReadOnly(path, &reader).ok)
      code = 2;
    prunerRecordsDestroy(reader);
    if (write(to_parent[1], "h", 1) != 1 || read(to_child[0], &byte, 1) != 1)
      code = 3;
    if (!prunerRecordsCreate(path, &second).ok) /* the parent has closed its log */
      code = 4;
    prunerRecordsDestroy(second);
    _exit(code);
  }
  PrunerRecords first;
  assert_true(prunerRecordsCreate(path, &first).ok);
  assert_int_equal(write(to_child[1], "o", 1), 1);
  char byte;
  assert_int_equal(read(to_parent[0], &byte, 1), 1); /* the child tried while we held it */
  prunerRecordsDestroy(first);
  assert_int_equal(write(to_child[1], "f", 1), 1);
  int status = 0;
  assert_int_equal(waitpid(child, &status, 0), child);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  close(to_child[0]);
  close(to_child[1]);
  close(to_parent[0]);
  close(to_parent[1]);
  unlink(path);
}

/* prunerRecordsDiscardIfNew removes only a file its own open created and nothing was
 * written to, and only while it is still the file the path names: never the file of a
 * tuner that holds the lock (two tuners started on one new path), never one that existed
 * or holds a line. */
static void test_discard_if_new(void **state) {
  (void)state;
  char path[64];
  tempPath(path, sizeof(path));
  unlink(path); /* a new path */
  PrunerRecords first = NULL, second = NULL;
  assert_true(prunerRecordsCreate(path, &first).ok);
  PrunerStatus st = prunerRecordsCreate(path, &second); /* the other tuner: locked out */
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "in use by another process"));
  assert_int_equal(access(path, F_OK), 0);
  assert_true(prunerRecordsDiscardIfNew(first));
  assert_int_equal(access(path, F_OK), -1);
  assert_false(prunerRecordsDiscardIfNew(first)); /* once */
  prunerRecordsDestroy(first);

  /* A line appended: kept. */
  assert_true(prunerRecordsCreate(path, &first).ok);
  PrunerRecord r;
  makeRecord(&r, "host:x", 8, 10.0);
  assert_true(prunerRecordsAppend(first, &r).ok);
  assert_false(prunerRecordsDiscardIfNew(first));
  prunerRecordsDestroy(first);
  assert_int_equal(access(path, F_OK), 0);
  unlink(path);

  /* An empty file that existed before: kept. */
  writeFile(path, "");
  assert_true(prunerRecordsCreate(path, &first).ok);
  assert_false(prunerRecordsDiscardIfNew(first));
  prunerRecordsDestroy(first);
  assert_int_equal(access(path, F_OK), 0);
  unlink(path);

  /* Created here, then the path was given to another file: that file is left. */
  assert_true(prunerRecordsCreate(path, &first).ok);
  unlink(path);
  writeFile(path, "");
  assert_false(prunerRecordsDiscardIfNew(first));
  prunerRecordsDestroy(first);
  assert_int_equal(access(path, F_OK), 0);
  unlink(path);
  prunerRecordsDiscardIfNew(NULL);
}

static PrunerStatus dropTile(const PrunerRecord *r, void *user) {
  int64_t tile = *(const int64_t *)user;
  if (r->config.workgroup[0] == tile)
    return prunerStatusError("tile %lld refused", (long long)tile);
  return prunerStatusOk();
}

/* Filter drops records, reports their lines, and rebuilds the lookups. */
/* Which code generator timed a record: another version than the build's is refused with
 * both numbers; no version (an old line), a baseline, or no known version passes. */
static void test_check_codegen(void **state) {
  (void)state;
  PrunerRecord r;
  makeRecord(&r, kTargetA, 64, 5.0);
  assert_true(prunerRecordCheckCodegen(&r, 2).ok); /* written before the field: kept */
  r.codegen_version = 2;
  assert_true(prunerRecordCheckCodegen(&r, 2).ok);
  assert_true(prunerRecordCheckCodegen(&r, 0).ok); /* a caller with no version checks nothing */
  r.codegen_version = 1;
  PrunerStatus st = prunerRecordCheckCodegen(&r, 2);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "code-generator version 1; this build generates version 2"));
  r.codegen_version = 3; /* newer than the build (a log from a later version): not reused */
  assert_false(prunerRecordCheckCodegen(&r, 2).ok);
  r.is_baseline = true; /* cuBLAS / OpenBLAS: not our kernel */
  assert_true(prunerRecordCheckCodegen(&r, 2).ok);

  /* The filter applies it to one target's records: another target's version is its own. */
  PrunerRecords log = prunerRecordsCreateInMemory();
  assert_non_null(log);
  const int versions[] = {2, 1, 0, 1};
  const char *targets[] = {kTargetA, kTargetA, kTargetA, kTargetB};
  for (int i = 0; i < 4; ++i) {
    makeRecord(&r, targets[i], 16 << i, 5.0);
    r.codegen_version = versions[i];
    assert_true(prunerRecordsAppend(log, &r).ok);
  }
  assert_int_equal(prunerRecordsFilterCodegen(log, kTargetA, 2), 1);
  assert_int_equal(prunerRecordsCount(log), 3);
  assert_non_null(strstr(prunerRecordsWarnings(log), "code-generator version 1"));
  assert_int_equal(prunerRecordsGet(log, 1)->codegen_version, 0);
  assert_string_equal(prunerRecordsGet(log, 2)->target_key, kTargetB);
  prunerRecordsDestroy(log);
}

/* A change to some kernels only (host version 3: vector erf / exp / log / tanh; 4: 2-D
 * convs; 5: NCHW convs) leaves the other workloads' records current: the filter asks the
 * version of each record's own workload. A GELU timed by version 2 is measured again; a
 * matmul of version 2 is not. */
static void test_check_codegen_per_workload(void **state) {
  (void)state;
  PrunerTargetDesc host = {.kind = PRUNER_TARGET_HOST};
  const int64_t dims[2] = {128, 3072};
  PrunerWorkload add, gelu;
  prunerWorkloadElementwiseAdd(&add, dims, 2, PRUNER_DTYPE_F32);
  testErfWorkload(&gelu, dims, 2);
  assert_int_equal(prunerTargetCodegenVersionOf(&host, &add), 2);
  assert_int_equal(prunerTargetCodegenVersionOf(&host, &gelu), 3);
  /* Version 4: NHWC convs keep their output tile in registers; matmuls are unchanged. */
  PrunerWorkload conv;
  prunerWorkloadConv2dNhwcHwcf(&conv, 1, 10, 10, 8, 3, 3, 32, 1, 1, PRUNER_DTYPE_F32);
  assert_int_equal(prunerTargetCodegenVersionOf(&host, &conv), 4);
  /* Version 5: NCHW convs run channels-last (they were scalar, version 2, until then). */
  PrunerWorkload nchw;
  prunerWorkloadConv2dNchwFchw(&nchw, 1, 8, 10, 10, 32, 3, 3, 1, 1, PRUNER_DTYPE_F32);
  assert_int_equal(prunerTargetCodegenVersionOf(&host, &nchw), 5);
  assert_int_equal(prunerTargetCodegenVersion(&host), 5); /* the newest */
  PrunerTargetDesc gpu = {.kind = PRUNER_TARGET_GPU};
  assert_int_equal(prunerTargetCodegenVersionOf(&gpu, &gelu), prunerTargetCodegenVersion(&gpu));

  PrunerRecords log = prunerRecordsCreateInMemory();
  assert_non_null(log);
  const PrunerWorkload *ws[] = {&add, &gelu, &gelu, &add};
  const int versions[] = {2, 2, 3, 3};
  for (int i = 0; i < 4; ++i) {
    PrunerRecord r;
    makeRecord(&r, kTargetA, 16 << i, 5.0);
    r.workload = *ws[i];
    snprintf(r.workload_key, sizeof r.workload_key, "%s", ws[i]->key);
    r.codegen_version = versions[i];
    assert_true(prunerRecordsAppend(log, &r).ok);
  }
  /* dropped: the GELU of version 2 (its kernel changed) and the add of version 3 (no
   * build made that kernel: a newer log's, like any other version's) */
  assert_int_equal(prunerRecordsFilterCodegenOf(log, kTargetA, &host), 2);
  assert_int_equal(prunerRecordsCount(log), 2);
  assert_true(prunerRecordsGet(log, 0)->workload.body_hash == add.body_hash);
  assert_int_equal(prunerRecordsGet(log, 0)->codegen_version, 2);
  assert_true(prunerRecordsGet(log, 1)->workload.body_hash == gelu.body_hash);
  assert_int_equal(prunerRecordsGet(log, 1)->codegen_version, 3);
  assert_non_null(strstr(prunerRecordsWarnings(log),
                         "code-generator version 2; this build generates version 3"));
  prunerRecordsDestroy(log);
}

static void test_filter(void **state) {
  (void)state;
  char path[64];
  tempPath(path, sizeof(path));
  PrunerRecords records;
  assert_true(prunerRecordsCreate(path, &records).ok);
  PrunerRecord r;
  makeRecord(&r, kTargetA, 64, 5.0);
  assert_true(prunerRecordsAppend(records, &r).ok);
  makeRecord(&r, kTargetA, 128, 1.0); /* the best, to be dropped */
  assert_true(prunerRecordsAppend(records, &r).ok);
  makeRecord(&r, kTargetA, 32, 3.0);
  assert_true(prunerRecordsAppend(records, &r).ok);
  prunerRecordsDestroy(records);
  assert_true(prunerRecordsCreate(path, &records).ok);
  assert_true(prunerRecordsBest(records, r.workload_key, kTargetA)->median_us == 1.0);
  int64_t tile = 128;
  assert_int_equal(prunerRecordsFilter(records, dropTile, &tile), 1);
  assert_int_equal(prunerRecordsCount(records), 2);
  assert_int_equal(prunerRecordsSkippedLines(records), 1);
  char expect[128];
  snprintf(expect, sizeof(expect), "%s:2: skipped: tile 128 refused", path);
  assert_string_equal(prunerRecordsWarnings(records), expect);
  const PrunerRecord *best = prunerRecordsBest(records, r.workload_key, kTargetA);
  assert_non_null(best);
  assert_true(best->median_us == 3.0);
  PrunerConfig c = r.config;
  c.workgroup[0] = 128;
  assert_null(prunerRecordsFind(records, r.workload_key, kTargetA, &c));
  c.workgroup[0] = 64;
  assert_non_null(prunerRecordsFind(records, r.workload_key, kTargetA, &c));
  tile = 7;
  assert_int_equal(prunerRecordsFilter(records, dropTile, &tile), 0);
  assert_string_equal(prunerRecordsWarnings(records), "");
  /* Appending after a filter still works and counts lines on. */
  makeRecord(&r, kTargetA, 16, 0.5);
  assert_true(prunerRecordsAppend(records, &r).ok);
  tile = 16;
  assert_int_equal(prunerRecordsFilter(records, dropTile, &tile), 1);
  snprintf(expect, sizeof(expect), "%s:4: skipped: tile 16 refused", path);
  assert_string_equal(prunerRecordsWarnings(records), expect);
  prunerRecordsDestroy(records);
  unlink(path);
}

/* A host dataset's machine: the first record's caches and clock that carry them, and the
 * dataset target built from them (--dataset-target=records); records of another key and
 * records without caches do not count. */
static void test_measured_machine(void **state) {
  (void)state;
  PrunerRecords log = prunerRecordsCreateInMemory();
  assert_non_null(log);
  PrunerRecord r;
  makeRecord(&r, "host:amd-epyc-1c-avx512", 16, 10.0);
  r.sm_clock_mhz = 0; /* no clock on the first */
  assert_true(prunerRecordsAppend(log, &r).ok);
  makeRecord(&r, kTargetA, 32, 9.0); /* another key's caches are not these */
  r.cache_bytes[0] = 1;
  r.cache_bytes[1] = 2;
  r.cache_bytes[2] = 3;
  assert_true(prunerRecordsAppend(log, &r).ok);
  makeRecord(&r, "host:amd-epyc-1c-avx512", 32, 11.0);
  r.sm_clock_mhz = 2596.136;
  r.cache_bytes[0] = 32 << 10;
  r.cache_bytes[1] = 1 << 20;
  r.cache_bytes[2] = 32 << 20;
  assert_true(prunerRecordsAppend(log, &r).ok);
  makeRecord(&r, "host:amd-epyc-1c-avx512", 64, 12.0);
  assert_true(prunerRecordsAppend(log, &r).ok);

  PrunerMeasuredMachine m;
  prunerRecordsMeasuredMachine(log, "host:amd-epyc-1c-avx512", &m);
  assert_int_equal(m.l1d_bytes, 32 << 10);
  assert_int_equal(m.l2_bytes, 1 << 20);
  assert_int_equal(m.l3_bytes, 32 << 20);
  assert_true(m.clock_mhz == 2596.136);
  prunerRecordsMeasuredMachine(log, "host:none-1c-avx2", &m);
  assert_true(m.l1d_bytes == 0 && m.clock_mhz == 0);

  PrunerTargetDesc t;
  char what[512];
  assert_true(prunerRecordsDatasetTarget(log, "records", &t, what, sizeof what).ok);
  assert_int_equal(t.l2_bytes, 1 << 20);
  assert_true(t.boost_clock_mhz == 2596.136);
  assert_non_null(strstr(what, "dataset target host:amd-epyc-1c-avx512"));
  assert_non_null(strstr(what, "L2 1024 KiB, L3 32 MiB (the records')"));
  assert_non_null(strstr(what, "clock 2596 MHz (the records')"));
  assert_null(strstr(what, "warning"));
  /* A record of the same key from a machine with other caches: flagged, not merged. */
  makeRecord(&r, "host:amd-epyc-1c-avx512", 128, 13.0);
  r.cache_bytes[0] = 32 << 10;
  r.cache_bytes[1] = 512 << 10;
  r.cache_bytes[2] = 32 << 20;
  assert_true(prunerRecordsAppend(log, &r).ok);
  assert_true(prunerRecordsDatasetTarget(log, "records", &t, what, sizeof what).ok);
  assert_int_equal(t.l2_bytes, 1 << 20);
  assert_non_null(strstr(what, "warning: 1 records of this key carry other caches"));
  PrunerStatus st = prunerRecordsDatasetTarget(log, "host:bad", &t, what, sizeof what);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "host:bad"));
  prunerRecordsDestroy(log);

  PrunerRecords empty = prunerRecordsCreateInMemory();
  st = prunerRecordsDatasetTarget(empty, "records", &t, what, sizeof what);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "no ok record"));
  prunerRecordsDestroy(empty);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_status_names),
      cmocka_unit_test(test_record_round_trip),
      cmocka_unit_test(test_reduction_threads_json),
      cmocka_unit_test(test_mma_json),
      cmocka_unit_test(test_conv_workload_json),
      cmocka_unit_test(test_bad_lines_named),
      cmocka_unit_test(test_append_reload_lookups),
      cmocka_unit_test(test_cache_tile_lookups),
      cmocka_unit_test(test_torn_and_corrupt_lines),
      cmocka_unit_test(test_many_records_index),
      cmocka_unit_test(test_other_line_ends),
      cmocka_unit_test(test_open_errors_name_file),
      cmocka_unit_test(test_open_existing),
      cmocka_unit_test(test_hostile_values),
      cmocka_unit_test(test_garbage_file),
      cmocka_unit_test(test_record_values_checked),
      cmocka_unit_test(test_not_a_records_file),
      cmocka_unit_test(test_long_line_skipped),
      cmocka_unit_test(test_one_writer),
      cmocka_unit_test(test_discard_if_new),
      cmocka_unit_test(test_check_codegen),
      cmocka_unit_test(test_check_codegen_per_workload),
      cmocka_unit_test(test_filter),
      cmocka_unit_test(test_measured_machine),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* pruner-run's parent loop driven by fake workers (no GPU needed): a hanging candidate is
 * recorded as timeout, a crashing one as launch_error, the run goes on in a fresh worker,
 * every record is written at once, and a rerun measures nothing twice. Also: the real
 * binary on a machine without a driver says "no CUDA device" and exits with code 3. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner.h"

static char g_root[256], g_dir[300], g_records[320];

/* A bundle of one matmul with 5 candidates (different K steps). */
static void writeBundle(int n) {
  snprintf(g_root, sizeof(g_root), "/tmp/pruner-run-test-%d", (int)getpid());
  char cmd[400];
  snprintf(cmd, sizeof(cmd), "rm -rf %s", g_root);
  assert_int_equal(system(cmd), 0);
  snprintf(g_dir, sizeof(g_dir), "%s/bundle", g_root);
  snprintf(g_records, sizeof(g_records), "%s/records.jsonl", g_root);
  PrunerTargetDesc t;
  assert_true(prunerTargetLookup("h200", &t).ok);
  PrunerBundle b;
  assert_true(prunerBundleCreate(g_dir, &t, 7, &b).ok);
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 64, 64, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  static unsigned char elf[] = {0x7f, 'E', 'L', 'F'};
  for (int i = 0; i < n; i++) {
    PrunerCompileResult r;
    memset(&r, 0, sizeof(r));
    r.status = prunerStatusOk();
    snprintf(r.launch.kernel_name, sizeof(r.launch.kernel_name), "k%d", i);
    r.launch.grid[0] = r.launch.grid[1] = r.launch.grid[2] = 1;
    r.launch.block[0] = r.launch.block[1] = r.launch.block[2] = 1;
    r.binary = elf;
    r.binary_size = sizeof(elf);
    r.mlir_seconds = 0.5; /* each candidate's compile_s: 0.5 s */
    PrunerConfig c;
    memset(&c, 0, sizeof(c));
    c.workgroup[0] = c.workgroup[1] = 32;
    c.thread[0] = c.thread[1] = 4;
    c.reduction[2] = 1 << i;
    c.vector_width = 1;
    assert_true(prunerBundleAddCandidate(b, &w, &c, &r, 0, 0, NULL).ok);
  }
  assert_true(prunerBundleWrite(b).ok);
  prunerBundleDestroy(b);
}

/* Fake worker: candidate 1 hangs, 2 crashes, 3 computes a wrong result, others take
 * (10 + index) us. With `no_device` set, HELLO reports no device. */
typedef struct Fake {
  bool no_device;
  int prepares_file; /* not used by the child; the parent counts PREPAREs via records */
} Fake;

static bool fakeHandler(void *context, const void *request, void *reply) {
  const Fake *f = context;
  const RunRequest *q = request;
  RunReply *r = reply;
  switch (q->kind) {
  case RUN_HELLO:
    if (f->no_device) {
      r->no_device = true;
      snprintf(r->error, sizeof(r->error), "fake: driver missing");
      return false;
    }
    snprintf(r->device.name, sizeof(r->device.name), "NVIDIA H200");
    r->device.cc_major = 9;
    r->device.sm_count = 132;
    snprintf(r->device.driver_version, sizeof(r->device.driver_version), "fake 1.0");
    r->ok = true;
    return true;
  case RUN_PREPARE:
    r->ok = true;
    r->has_baseline = true;
    return true;
  case RUN_CANDIDATE:
    if (q->candidate == 1)
      for (;;)
        pause();
    if (q->candidate == 2)
      raise(SIGSEGV);
    if (q->candidate == 3) {
      r->status = PRUNER_RECORD_WRONG_RESULT;
      r->max_abs_error = 3.5;
      snprintf(r->error, sizeof(r->error), "fake: wrong");
      return true;
    }
    /* fall through: time it */
    __attribute__((fallthrough));
  case RUN_BASELINE:
    r->status = PRUNER_RECORD_OK;
    r->num_samples = q->samples;
    for (int i = 0; i < q->samples; i++)
      r->samples_us[i] = q->kind == RUN_BASELINE ? 20.0 : 10.0 + q->candidate + 0.01 * i;
    r->median_us = r->samples_us[q->samples / 2];
    r->spread_us = 0.01 * (q->samples - 1);
    return true;
  case RUN_FINAL:
    r->ok = true;
    for (int i = 0; i < q->num_final; i++)
      r->final_median_us[i] = 10.0 + q->final_ids[i];
    r->final_median_us[q->num_final] = 20.0;
    return true;
  }
  return true;
}

static RunnerOptions options(FILE *log) {
  RunnerOptions o = {
      .records_path = g_records,
      .timeout_seconds = 0.5,
      .prepare_timeout_seconds = 5,
      .samples = 10,
      .seed = 0,
      .only_baseline = false,
      .final_remeasure = true,
      .log = log,
  };
  return o;
}

static void test_hang_and_crash_are_recorded(void **state) {
  (void)state;
  writeBundle(5);
  PrunerBundle b;
  assert_true(prunerBundleRead(g_dir, &b).ok);
  Fake fake = {false, 0};
  FILE *log = tmpfile();
  RunnerOptions o = options(log);
  assert_int_equal(runnerExecute(b, &o, fakeHandler, &fake), PRUNER_RUN_EXIT_OK);

  PrunerRecords recs;
  assert_true(prunerRecordsCreate(g_records, &recs).ok);
  assert_int_equal(prunerRecordsCount(recs), 6); /* cuBLAS + 5 candidates */
  int by_status[PRUNER_RECORD_STATUS_COUNT] = {0};
  int baselines = 0;
  for (size_t i = 0; i < prunerRecordsCount(recs); i++) {
    const PrunerRecord *r = prunerRecordsGet(recs, i);
    assert_string_equal(r->target_key, "sm_90:h200:132sm");
    if (r->is_baseline) {
      baselines++;
      assert_string_equal(r->baseline_name, "cublas");
      continue;
    }
    by_status[r->status]++;
    /* The kernel's generator, from the bundle: what a later build checks before reuse. */
    assert_int_equal(r->codegen_version, PRUNER_GPU_CODEGEN_VERSION);
    /* Its cost: the compile the bundle carries, plus this run's time for it. */
    assert_true(r->compile_s == 0.5);
    assert_true(r->measure_s > 0.5);
    if (r->status == PRUNER_RECORD_TIMEOUT)
      assert_non_null(strstr(r->error, "no reply within"));
    if (r->status == PRUNER_RECORD_LAUNCH_ERROR)
      assert_non_null(strstr(r->error, "signal 11"));
  }
  assert_int_equal(baselines, 1);
  assert_int_equal(by_status[PRUNER_RECORD_OK], 2);
  assert_int_equal(by_status[PRUNER_RECORD_TIMEOUT], 1);
  assert_int_equal(by_status[PRUNER_RECORD_LAUNCH_ERROR], 1);
  assert_int_equal(by_status[PRUNER_RECORD_WRONG_RESULT], 1);
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 64, 64, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  const PrunerRecord *best = prunerRecordsBest(recs, w.key, "sm_90:h200:132sm");
  assert_non_null(best);
  assert_true(best->median_us > 10.0 && best->median_us < 10.2); /* candidate 0 */
  prunerRecordsDestroy(recs);

  /* The summary names the best time, cuBLAS and their ratio. */
  char text[8192];
  rewind(log);
  size_t n = fread(text, 1, sizeof(text) - 1, log);
  text[n] = 0;
  fclose(log);
  assert_non_null(strstr(text, "10.05"));
  assert_non_null(strstr(text, "20.00"));
  assert_non_null(strstr(text, "final (interleaved"));

  /* Rerun: everything is already recorded, nothing is measured twice. */
  log = tmpfile();
  o = options(log);
  assert_int_equal(runnerExecute(b, &o, fakeHandler, &fake), PRUNER_RUN_EXIT_OK);
  fclose(log);
  assert_true(prunerRecordsCreate(g_records, &recs).ok);
  assert_int_equal(prunerRecordsCount(recs), 6);
  prunerRecordsDestroy(recs);

  /* A record of candidate 0 from another code generator (as after a kernel change) is not
   * this bundle's kernel: the rerun says so and measures that candidate again. */
  PrunerRecords old;
  assert_true(prunerRecordsCreateReadOnly(g_records, &old).ok);
  FILE *f = fopen(g_records, "w");
  assert_non_null(f);
  for (size_t i = 0; i < prunerRecordsCount(old); i++) {
    PrunerRecord r = *prunerRecordsGet(old, i);
    if (!r.is_baseline && r.config.reduction[2] == 1)
      r.codegen_version = PRUNER_GPU_CODEGEN_VERSION + 1;
    char *line = prunerRecordToJson(&r);
    fprintf(f, "%s\n", line);
    free(line);
  }
  fclose(f);
  prunerRecordsDestroy(old);
  log = tmpfile();
  o = options(log);
  assert_int_equal(runnerExecute(b, &o, fakeHandler, &fake), PRUNER_RUN_EXIT_OK);
  rewind(log);
  n = fread(text, 1, sizeof(text) - 1, log);
  text[n] = 0;
  fclose(log);
  assert_non_null(strstr(text, ":2: skipped: measured with code-generator version"));
  assert_true(prunerRecordsCreate(g_records, &recs).ok);
  assert_int_equal(prunerRecordsCount(recs), 7); /* the file keeps the old line */
  const PrunerRecord *again = prunerRecordsGet(recs, 6);
  assert_int_equal(again->config.reduction[2], 1);
  assert_int_equal(again->codegen_version, PRUNER_GPU_CODEGEN_VERSION);
  prunerRecordsDestroy(recs);
  prunerBundleDestroy(b);
}

static void test_no_device_exit_code(void **state) {
  (void)state;
  writeBundle(1);
  PrunerBundle b;
  assert_true(prunerBundleRead(g_dir, &b).ok);
  Fake fake = {true, 0};
  FILE *log = tmpfile();
  RunnerOptions o = options(log);
  assert_int_equal(runnerExecute(b, &o, fakeHandler, &fake), PRUNER_RUN_EXIT_NO_DEVICE);
  char text[1024];
  rewind(log);
  size_t n = fread(text, 1, sizeof(text) - 1, log);
  text[n] = 0;
  fclose(log);
  assert_non_null(strstr(text, "no CUDA device: fake: driver missing"));
  prunerBundleDestroy(b);
}

/* The real binary: on this machine (no driver) it must start and say why it cannot run. */
static void test_binary_without_driver(void **state) {
  (void)state;
  const char *bin = getenv("PRUNER_BINARY_DIR");
  char exe[512];
  snprintf(exe, sizeof(exe), "%s/bin/pruner-run", bin ? bin : ".");
  if (access(exe, X_OK) != 0) {
    print_message("pruner-run not built (no CUDA toolkit); skipping the binary check\n");
    skip();
  }
  writeBundle(2);
  char cmd[1400], out[4096] = {0};
  snprintf(cmd, sizeof(cmd), "%s %s -o %s 2>&1", exe, g_dir, g_records);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  size_t n = fread(out, 1, sizeof(out) - 1, p);
  out[n] = 0;
  int st = pclose(p);
  int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  if (code == PRUNER_RUN_EXIT_OK || code == PRUNER_RUN_EXIT_ERROR) {
    if (!strstr(out, "no CUDA device")) {
      print_message("a CUDA device answered; the no-driver check does not apply:\n%s\n", out);
      skip();
    }
  }
  if (code != PRUNER_RUN_EXIT_NO_DEVICE || !strstr(out, "no CUDA device: "))
    fail_msg("exit %d, output:\n%s", code, out);
  snprintf(cmd, sizeof(cmd), "%s %s/nonexistent > /dev/null 2>&1", exe, g_root);
  st = system(cmd);
  assert_int_equal(WEXITSTATUS(st), PRUNER_RUN_EXIT_ERROR);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hang_and_crash_are_recorded),
      cmocka_unit_test(test_no_device_exit_code),
      cmocka_unit_test(test_binary_without_driver),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  char cmd[400];
  snprintf(cmd, sizeof(cmd), "rm -rf %s", g_root);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", g_root);
  return rc;
}

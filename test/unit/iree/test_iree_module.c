/* test/unit/iree: whole modules and the compile-cost measurement with IREE's tools
 * (skipped, exit 77, when iree-compile does not run here).
 *
 * - prunerIreeModuleRemeasure: a module of two matmuls of different shapes with the
 *   tuning spec of one valid config each: IREE applies both configs (the configured IR
 *   shows them), the tuned build's results equal the default build's, and both builds are
 *   timed. A spec whose config IREE refuses (a vector tile over the large-vector limit,
 *   written by hand) leaves the tuned build with a compile error, the default timed.
 *   Bad arguments (no spec, an unknown function) are errors, not crashes.
 * - prunerIreeCompileCost: two configs compiled one per call and in one module: both ways
 *   IREE shows both configs and the time is positive. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pruner/backend/iree.h"
#include "pruner/records.h"

static const char kModule[] =
    "func.func @two(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>, %c: tensor<64x16xf32>)"
    " -> tensor<16x16xf32> {\n"
    "  %z = arith.constant 0.0 : f32\n"
    "  %e = tensor.empty() : tensor<16x64xf32>\n"
    "  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>\n"
    "  %h = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x64xf32>)"
    " outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>\n"
    "  %e2 = tensor.empty() : tensor<16x16xf32>\n"
    "  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<16x16xf32>) -> tensor<16x16xf32>\n"
    "  %y = linalg.matmul ins(%h, %c : tensor<16x64xf32>, tensor<64x16xf32>)"
    " outs(%f2 : tensor<16x16xf32>) -> tensor<16x16xf32>\n"
    "  return %y : tensor<16x16xf32>\n"
    "}\n";

static char g_dir[] = "/tmp/pruner-test-iree-module-XXXXXX";

static PrunerTargetDesc target(void) {
  PrunerTargetDesc t;
  prunerIreeCpuTargetDesc(&t);
  return t;
}

static PrunerIree makeIree(void) {
  PrunerTargetDesc t = target();
  PrunerIreeOptions o = prunerIreeDefaultOptions();
  o.repetitions = 1;
  PrunerIree iree = NULL;
  PrunerStatus st = prunerIreeCreate(&t, &o, &iree);
  if (!st.ok)
    fail_msg("%s", st.message);
  return iree;
}

static void writeFile(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  assert_true(fputs(text, f) >= 0);
  assert_int_equal(fclose(f), 0);
}

/* The first valid config of `w`'s iree-cpu space. */
static PrunerConfig firstConfig(const PrunerWorkload *w) {
  PrunerTargetDesc t = target();
  PrunerSpace space = NULL;
  PrunerStatus st = prunerSpaceCreate(w, &t, NULL, &space);
  if (!st.ok)
    fail_msg("%s", st.message);
  assert_true(prunerSpaceCount(space) > 0);
  PrunerConfig c;
  assert_true(prunerSpaceGetConfig(space, 0, &c).ok);
  prunerSpaceDestroy(space);
  return c;
}

static PrunerIreeTensor tensor(int64_t a, int64_t b) {
  PrunerIreeTensor t;
  memset(&t, 0, sizeof t);
  t.dtype = PRUNER_DTYPE_F32;
  t.rank = 2;
  t.shape[0] = a;
  t.shape[1] = b;
  return t;
}

static void test_module(void **state) {
  (void)state;
  PrunerWorkload w[2];
  prunerWorkloadMatmul(&w[0], 16, 64, 32, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  prunerWorkloadMatmul(&w[1], 16, 16, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  const PrunerWorkload *ws[2] = {&w[0], &w[1]};
  PrunerConfig configs[2] = {firstConfig(&w[0]), firstConfig(&w[1])};
  PrunerTargetDesc t = target();
  char *spec = NULL;
  PrunerStatus st = prunerIreeSpecText(&t, ws, configs, 2, &spec, NULL);
  assert_true(st.ok);
  char module[256], spec_path[256];
  snprintf(module, sizeof module, "%s/two.mlir", g_dir);
  snprintf(spec_path, sizeof spec_path, "%s/two.spec.mlir", g_dir);
  writeFile(module, kModule);
  writeFile(spec_path, spec);
  PrunerIreeTensor args[3] = {tensor(16, 32), tensor(32, 64), tensor(64, 16)};
  PrunerIreeTensor res = tensor(16, 16);
  PrunerIree iree = makeIree();
  PrunerIreeModuleResult r;
  st = prunerIreeModuleRemeasure(iree, module, "two", args, 3, &res, 1, 64, spec_path, 2, &r);
  if (!st.ok)
    fail_msg("%s", st.message);
  assert_int_equal(r.spec_configs, 2);
  assert_int_equal(r.applied, 2);
  if (r.tuned.status != PRUNER_RECORD_OK)
    fail_msg("tuned: %s", r.tuned.error);
  assert_int_equal(r.baseline.status, PRUNER_RECORD_OK);
  assert_true(r.tuned.median_us > 0 && r.baseline.median_us > 0);
  assert_true(r.tuned.p25_us <= r.tuned.median_us && r.tuned.median_us <= r.tuned.p75_us);
  assert_true(r.compile_seconds[0] > 0 && r.compile_seconds[1] > 0);

  /* A config IREE refuses (vector tile 16 x 64 x 32 f32 is over the large-vector limit),
   * written into the spec by hand. */
  char *bad = strdup(spec);
  char *at = strstr(bad, "vector_reduction = [0, 0, ");
  assert_non_null(at);
  const char *want = "vector_common_parallel = [16, 64, 0], vector_reduction = [0, 0, 32]";
  char *lc = strstr(bad, "vector_common_parallel = [");
  assert_non_null(lc);
  char *end = strchr(at, ']');
  assert_non_null(end);
  char *fixed = malloc(strlen(bad) + strlen(want) + 1);
  sprintf(fixed, "%.*s%s%s", (int)(lc - bad), bad, want, end + 1);
  writeFile(spec_path, fixed);
  st = prunerIreeModuleRemeasure(iree, module, "two", args, 3, &res, 1, 64, spec_path, 1, &r);
  assert_true(st.ok);
  if (r.tuned.status != PRUNER_RECORD_COMPILE_ERROR)
    fail_msg("tuned build with the refused config: status %s (want compile_error): %s",
             prunerRecordStatusName(r.tuned.status), r.tuned.error);
  assert_non_null(strstr(r.tuned.error, "iree-compile"));
  assert_int_equal(r.baseline.status, PRUNER_RECORD_OK);
  free(fixed);
  free(bad);

  /* Bad arguments. */
  st = prunerIreeModuleRemeasure(iree, module, "two", args, 3, &res, 1, 64, NULL, 1, &r);
  assert_false(st.ok);
  st = prunerIreeModuleRemeasure(iree, module, "nope", args, 3, &res, 1, 64, spec_path, 1, &r);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "does not run"));
  prunerIreeDestroy(iree);
  unlink(module);
  unlink(spec_path);
  free(spec);
}

static void test_compile_cost(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 16, 64, 32, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerTargetDesc t = target();
  PrunerSpace space = NULL;
  assert_true(prunerSpaceCreate(&w, &t, NULL, &space).ok);
  uint64_t n = prunerSpaceCount(space);
  assert_true(n >= 2);
  PrunerConfig c[2];
  assert_true(prunerSpaceGetConfig(space, 0, &c[0]).ok);
  assert_true(prunerSpaceGetConfig(space, n - 1, &c[1]).ok);
  prunerSpaceDestroy(space);
  PrunerIree iree = makeIree();
  for (int one = 0; one < 2; ++one) {
    double seconds = 0;
    int applied = 0;
    PrunerStatus st = prunerIreeCompileCost(iree, &w, c, 2, one != 0, &seconds, &applied);
    if (!st.ok)
      fail_msg("%s", st.message);
    assert_int_equal(applied, 2);
    assert_true(seconds > 0);
  }
  double seconds = 0;
  int applied = 0;
  assert_false(prunerIreeCompileCost(iree, &w, c, 0, true, &seconds, &applied).ok);
  prunerIreeDestroy(iree);
}

/* A config with a cache tile survives a record's JSON round trip (records are how tuning
 * runs resume and replay); one without writes no "cache" key. Needs no IREE. */
static void test_cache_record(void **state) {
  (void)state;
  PrunerRecord r;
  prunerRecordInit(&r);
  prunerWorkloadMatmul(&r.workload, 128, 256, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  r.has_workload = true;
  snprintf(r.workload_key, sizeof r.workload_key, "%s", r.workload.key);
  snprintf(r.target_key, sizeof r.target_key, "iree-cpu:x");
  r.config.workgroup[0] = 64;
  r.config.workgroup[1] = 128;
  r.config.cache[1] = 32;
  r.config.thread[0] = 4;
  r.config.thread[1] = 16;
  r.config.reduction[2] = 4;
  r.config.vector_width = 16;
  char *line = prunerRecordToJson(&r);
  assert_non_null(line);
  assert_non_null(strstr(line, "\"cache\":[0,32,0]"));
  PrunerRecord back;
  PrunerStatus st = prunerRecordFromJson(line, &back);
  if (!st.ok)
    fail_msg("%s", st.message);
  assert_true(prunerConfigEqual(&back.config, &r.config));
  free(line);
  r.config.cache[1] = 0;
  line = prunerRecordToJson(&r);
  assert_null(strstr(line, "cache"));
  free(line);
}

/* Several candidates per compile: two valid configs measured together both run, agree and
 * are timed; a batch with a config the rules refuse falls back to one by one, which marks
 * only that one. */
static void test_measure_batch(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 16, 64, 32, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerTargetDesc t = target();
  PrunerSpace space = NULL;
  assert_true(prunerSpaceCreate(&w, &t, NULL, &space).ok);
  uint64_t n = prunerSpaceCount(space);
  PrunerConfig c[2];
  assert_true(prunerSpaceGetConfig(space, 0, &c[0]).ok);
  assert_true(prunerSpaceGetConfig(space, n / 2, &c[1]).ok);
  prunerSpaceDestroy(space);
  PrunerIree iree = makeIree();
  PrunerRecord r[2];
  double compile[2] = {0, 0};
  prunerIreeMeasureBatch(iree, &w, c, 2, r, compile);
  for (int i = 0; i < 2; ++i) {
    if (r[i].status != PRUNER_RECORD_OK)
      fail_msg("config %d: %s", i, r[i].error);
    assert_true(r[i].num_samples >= 1 && r[i].median_us > 0);
    assert_true(compile[i] > 0);
    assert_true(prunerConfigEqual(&r[i].config, &c[i]));
  }
  c[1].thread[0] = 3; /* does not divide the distribution tile */
  prunerIreeMeasureBatch(iree, &w, c, 2, r, NULL);
  assert_int_equal(r[0].status, PRUNER_RECORD_OK);
  assert_int_equal(r[1].status, PRUNER_RECORD_INVALID);
  prunerIreeDestroy(iree);
}

int main(void) {
  const struct CMUnitTest offline[] = {cmocka_unit_test(test_cache_record)};
  if (cmocka_run_group_tests(offline, NULL, NULL) != 0)
    return 1;
  char version[256];
  if (!prunerIreeCheckTools(version, sizeof version).ok) {
    printf("IREE's tools do not run here (scripts/setup.sh installs them): skipped\n");
    return 77;
  }
  if (!mkdtemp(g_dir))
    return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_module),
      cmocka_unit_test(test_compile_cost),
      cmocka_unit_test(test_measure_batch),
  };
  int r = cmocka_run_group_tests(tests, NULL, NULL);
  rmdir(g_dir);
  return r;
}

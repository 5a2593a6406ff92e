/* lib/measure: bundle write -> read round trip, rejection of bad bundles with clear
 * messages, and the watchdogged worker against handlers that hang and crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pruner/file.h"
#include "pruner/measure.h"

static char g_dir[256];

static void fakeResult(PrunerCompileResult *r, const char *name) {
  memset(r, 0, sizeof(*r));
  r->status = prunerStatusOk();
  snprintf(r->launch.kernel_name, sizeof(r->launch.kernel_name), "%s", name);
  r->launch.grid[0] = 16;
  r->launch.grid[1] = 8;
  r->launch.grid[2] = 1;
  r->launch.block[0] = 64;
  r->launch.block[1] = 2;
  r->launch.block[2] = 1;
  r->launch.dynamic_smem_bytes = 1024;
  r->launch.num_args = 5;
  r->launch.args[0] = (PrunerKernelArg){PRUNER_ARG_BUFFER_ALLOCATED, 0, 0};
  r->launch.args[1] = (PrunerKernelArg){PRUNER_ARG_BUFFER_ALIGNED, 0, 0};
  r->launch.args[2] = (PrunerKernelArg){PRUNER_ARG_INDEX, 0, 0};
  r->launch.args[3] = (PrunerKernelArg){PRUNER_ARG_INDEX, 0, 128};
  r->launch.args[4] = (PrunerKernelArg){PRUNER_ARG_INDEX, -1, -7};
  r->launch.resources.registers = 40;
  r->launch.resources.shared_bytes = 8192;
  r->launch.resources.spill_store_bytes = 4;
  static unsigned char elf[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 9, 9};
  r->binary = elf;
  r->binary_size = sizeof(elf);
}

static PrunerConfig matmulConfig(void) {
  PrunerConfig c;
  memset(&c, 0, sizeof(c));
  c.workgroup[0] = 64; c.workgroup[1] = 32;
  c.reduction[2] = 16;
  c.thread[0] = 4; c.thread[1] = 4;
  c.vector_width = 4;
  c.promote_operands = 3;
  return c;
}

/* Writes a bundle with one matmul and one conv candidate into a fresh folder. */
static void writeBundle(void) {
  snprintf(g_dir, sizeof(g_dir), "/tmp/pruner-measure-test-%d/b", (int)getpid());
  char cmd[300];
  snprintf(cmd, sizeof(cmd), "rm -rf /tmp/pruner-measure-test-%d", (int)getpid());
  assert_int_equal(system(cmd), 0);
  PrunerTargetDesc t;
  assert_true(prunerTargetLookup("h200", &t).ok);
  PrunerBundle b;
  PrunerStatus st = prunerBundleCreate(g_dir, &t, 1234, &b);
  assert_true(st.ok);
  PrunerWorkload mm, conv;
  prunerWorkloadMatmul(&mm, 128, 256, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  prunerWorkloadConv2dNhwcHwcf(&conv, 1, 18, 18, 8, 3, 3, 16, 1, 1, PRUNER_DTYPE_F32);
  PrunerCompileResult r;
  fakeResult(&r, "matmul_kernel");
  PrunerConfig c = matmulConfig();
  int id = -1;
  r.mlir_seconds = 0.25; /* the candidate's compile_s: 0.25 + 0.125 */
  r.ptxas_seconds = 0.125;
  assert_true(prunerBundleAddCandidate(b, &mm, &c, &r, 12.5, 0.75, &id).ok);
  assert_int_equal(id, 0);
  PrunerConfig cc;
  memset(&cc, 0, sizeof(cc));
  for (int l = 0; l < conv.num_loops; l++) {
    if (conv.loop_kinds[l] == PRUNER_LOOP_REDUCTION)
      cc.reduction[l] = 1;
    else
      cc.workgroup[l] = cc.thread[l] = 1;
  }
  cc.vector_width = 1;
  fakeResult(&r, "conv_kernel");
  assert_true(prunerBundleAddCandidate(b, &conv, &cc, &r, 3.0, -1.5, &id).ok);
  assert_int_equal(id, 1);
  /* Split-K: a combining kernel after the main one and a workspace (operand 3 of the
   * matmul: past A, B and C). */
  fakeResult(&r, "partial_kernel");
  r.extras.num_next = 1;
  r.extras.next[0] = r.launch;
  snprintf(r.extras.next[0].kernel_name, sizeof r.extras.next[0].kernel_name, "combine_kernel");
  r.extras.next[0].grid[0] = 3;
  r.extras.next[0].args[0].operand = 3;
  r.extras.num_workspaces = 1;
  r.extras.workspace_bytes[0] = 65536;
  PrunerConfig sk = c;
  sk.promote_operands = 0;
  sk.split_k = 4;
  assert_true(prunerBundleAddCandidate(b, &mm, &sk, &r, 1.0, 0.0, &id).ok);
  assert_int_equal(id, 2);
  /* a failed compile is refused */
  r.status = prunerStatusError("ptxas: too many resources");
  st = prunerBundleAddCandidate(b, &mm, &c, &r, 0, 0, NULL);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "did not compile"));
  assert_true(prunerBundleWrite(b).ok);
  prunerBundleDestroy(b);
}

static void test_round_trip(void **state) {
  (void)state;
  writeBundle();
  PrunerBundle b;
  PrunerStatus st = prunerBundleRead(g_dir, &b);
  if (!st.ok)
    fail_msg("%s", st.message);
  assert_int_equal(prunerBundleSeed(b), 1234);
  assert_string_equal(prunerBundleTargetArch(b), "sm_90");
  assert_string_equal(prunerBundleTargetName(b), "h200");
  /* Its cubins are this build's: the runner stamps that version on its records. */
  assert_int_equal(prunerBundleCodegenVersion(b), PRUNER_GPU_CODEGEN_VERSION);
  assert_int_equal(prunerBundleNumWorkloads(b), 2);
  assert_int_equal(prunerBundleNumCandidates(b), 3);
  PrunerWorkload mm;
  prunerWorkloadMatmul(&mm, 128, 256, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  const PrunerBundleCandidate *c = prunerBundleGetCandidate(b, 0);
  assert_string_equal(c->workload_key, mm.key);
  assert_string_equal(prunerBundleGetWorkload(b, 0)->key, mm.key);
  assert_int_equal(prunerBundleGetWorkload(b, 0)->bounds[1], 256);
  PrunerConfig want = matmulConfig();
  assert_true(prunerConfigEqual(&c->config, &want));
  assert_string_equal(c->launch.kernel_name, "matmul_kernel");
  assert_int_equal(c->launch.grid[0], 16);
  assert_int_equal(c->launch.block[1], 2);
  assert_int_equal(c->launch.dynamic_smem_bytes, 1024);
  assert_int_equal(c->launch.num_args, 5);
  assert_int_equal(c->launch.args[1].kind, PRUNER_ARG_BUFFER_ALIGNED);
  assert_int_equal(c->launch.args[3].value, 128);
  assert_int_equal(c->launch.args[4].operand, -1);
  assert_int_equal(c->launch.args[4].value, -7);
  assert_int_equal(c->launch.resources.registers, 40);
  assert_int_equal(c->launch.resources.spill_store_bytes, 4);
  assert_true(c->draft_score_us == 12.5 && c->verifier_score == 0.75);
  assert_true(c->compile_s == 0.375);
  assert_true(prunerBundleGetCandidate(b, 1)->compile_s == 0);
  assert_int_equal(c->output_init, PRUNER_OUTPUT_ZERO);
  assert_int_equal(c->extras.num_next, 0);
  assert_int_equal(c->extras.num_workspaces, 0);
  const PrunerBundleCandidate *c2 = prunerBundleGetCandidate(b, 2);
  assert_int_equal(c2->config.split_k, 4);
  assert_int_equal(c2->extras.num_next, 1);
  assert_string_equal(c2->extras.next[0].kernel_name, "combine_kernel");
  assert_int_equal(c2->extras.next[0].grid[0], 3);
  assert_int_equal(c2->extras.next[0].args[0].operand, 3);
  assert_int_equal(c2->extras.next[0].num_args, c2->launch.num_args);
  assert_int_equal(c2->extras.num_workspaces, 1);
  assert_int_equal(c2->extras.workspace_bytes[0], 65536);
  const PrunerBundleCandidate *c1 = prunerBundleGetCandidate(b, 1);
  assert_int_equal(c1->workload, 1);
  assert_true(c1->verifier_score == -1.5);
  unsigned char *data;
  size_t size;
  assert_true(prunerBundleLoadBinary(b, 1, &data, &size).ok);
  assert_int_equal(size, 10);
  assert_memory_equal(data, "\x7f" "ELF", 4);
  free(data);
  prunerBundleDestroy(b);
}

/* Edits the manifest through cJSON, then expects prunerBundleRead to fail with `needle`. */
typedef void (*Edit)(cJSON *root);

/* Writes the test bundle and applies `edit` (NULL: none) to its manifest. */
static void writeEditedBundle(Edit edit) {
  writeBundle();
  char path[300];
  snprintf(path, sizeof(path), "%s/manifest.json", g_dir);
  if (edit) {
    char *text = NULL;
    assert_true(prunerReadFile(path, &text, NULL).ok);
    cJSON *root = cJSON_Parse(text);
    free(text);
    assert_non_null(root);
    edit(root);
    char *out = cJSON_Print(root);
    FILE *f = fopen(path, "wb");
    fputs(out, f);
    fclose(f);
    cJSON_free(out);
    cJSON_Delete(root);
  }
}

static void expectRejected(Edit edit, const char *needle) {
  writeEditedBundle(edit);
  PrunerBundle b;
  PrunerStatus st = prunerBundleRead(g_dir, &b);
  assert_false(st.ok);
  if (!strstr(st.message, needle))
    fail_msg("message '%s' lacks '%s'", st.message, needle);
}

static void wrongVersion(cJSON *r) { cJSON_ReplaceItemInObject(r, "version", cJSON_CreateNumber(7)); }
static void noKernel(cJSON *r) {
  cJSON_DeleteItemFromObject(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "candidates"), 1), "kernel");
}
static void noTarget(cJSON *r) { cJSON_DeleteItemFromObject(r, "target"); }
static void badWorkloadRef(cJSON *r) {
  cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "candidates"), 0),
                            "workload", cJSON_CreateNumber(5));
}
static void badGrid(cJSON *r) {
  cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "candidates"), 0), "grid",
                            cJSON_CreateString("16"));
}
static void emptyKernel(cJSON *r) {
  cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "candidates"), 0), "kernel",
                            cJSON_CreateString(""));
}
static void hugeBlock(cJSON *r) {
  int block[3] = {2048, 1, 1};
  cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "candidates"), 0), "block",
                            cJSON_CreateIntArray(block, 3));
}
static void deepBlock(cJSON *r) {
  int block[3] = {1, 1, 128};
  cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "candidates"), 0), "block",
                            cJSON_CreateIntArray(block, 3));
}
static void badArgKind(cJSON *r) {
  cJSON *args = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "candidates"), 0), "args");
  cJSON_ReplaceItemInObject(cJSON_GetArrayItem(args, 0), "kind", cJSON_CreateString("pointer"));
}
/* The split-K candidate (2): its workspace and its combining kernel. */
static cJSON *splitCandidate(cJSON *r) {
  return cJSON_GetArrayItem(cJSON_GetObjectItem(r, "candidates"), 2);
}
static void badWorkspace(cJSON *r) {
  cJSON_ReplaceItemInArray(cJSON_GetObjectItem(splitCandidate(r), "workspaces"), 0,
                           cJSON_CreateNumber(-5));
}
static void workspaceOperandPastEnd(cJSON *r) {
  cJSON *next = cJSON_GetArrayItem(cJSON_GetObjectItem(splitCandidate(r), "next"), 0);
  /* A, B, C and one workspace: operands 0..3. */
  cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(next, "args"), 0), "operand",
                            cJSON_CreateNumber(4));
}
static void twoNext(cJSON *r) {
  cJSON *next = cJSON_GetObjectItem(splitCandidate(r), "next");
  cJSON_AddItemToArray(next, cJSON_Duplicate(cJSON_GetArrayItem(next, 0), 1));
}
static void escapingCubin(cJSON *r) {
  cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "candidates"), 0), "cubin",
                            cJSON_CreateString("../x.cubin"));
}

static cJSON *candidate0(cJSON *r) {
  return cJSON_GetArrayItem(cJSON_GetObjectItem(r, "candidates"), 0);
}
static void hugeSeed(cJSON *r) { cJSON_ReplaceItemInObject(r, "seed", cJSON_CreateNumber(1e300)); }
static void hugeId(cJSON *r) { cJSON_ReplaceItemInObject(candidate0(r), "id", cJSON_CreateNumber(-1e300)); }
static void hugeRegisters(cJSON *r) {
  cJSON_ReplaceItemInObject(cJSON_GetObjectItem(candidate0(r), "resources"), "registers",
                            cJSON_CreateNumber(1e300));
}
static void hugeTile(cJSON *r) {
  cJSON *wg = cJSON_GetObjectItem(cJSON_GetObjectItem(candidate0(r), "config"), "workgroup");
  cJSON_ReplaceItemInArray(wg, 0, cJSON_CreateNumber(1e300));
}
static void negativeCompileTime(cJSON *r) {
  cJSON_ReplaceItemInObject(candidate0(r), "compile_s", cJSON_CreateNumber(-1));
}
static void badCodegen(cJSON *r) {
  cJSON_ReplaceItemInObject(cJSON_GetObjectItem(r, "target"), "codegen", cJSON_CreateNumber(0));
}
static void noCodegen(cJSON *r) {
  cJSON_DeleteItemFromObject(cJSON_GetObjectItem(r, "target"), "codegen");
}
static void zeroBound(cJSON *r) {
  cJSON *bounds = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "workloads"), 0),
                                      "bounds");
  cJSON_ReplaceItemInArray(bounds, 0, cJSON_CreateNumber(0));
}

/* A manifest written before bundles carried the code generator's version still reads;
 * its version is 0 (unknown), which the records then carry. */
static void test_manifest_without_codegen(void **state) {
  (void)state;
  writeEditedBundle(noCodegen);
  PrunerBundle b;
  PrunerStatus st = prunerBundleRead(g_dir, &b);
  if (!st.ok)
    fail_msg("%s", st.message);
  assert_int_equal(prunerBundleCodegenVersion(b), 0);
  prunerBundleDestroy(b);
}

static void test_rejects_bad_bundles(void **state) {
  (void)state;
  expectRejected(wrongVersion, "format version 7 is not supported");
  expectRejected(noKernel, "candidates[1]: missing field 'kernel'");
  expectRejected(noTarget, "missing field 'target'");
  expectRejected(badWorkloadRef, "field 'workload' = 5");
  expectRejected(badGrid, "'grid' must be an array of 3 integers");
  /* What no launch can take (a launch error on the device before). */
  expectRejected(emptyKernel, "candidates[0]: field 'kernel' is empty");
  expectRejected(hugeBlock, "block [2048, 1, 1] is more than a block can be");
  expectRejected(deepBlock, "block [1, 1, 128] is more than a block can be");
  expectRejected(badArgKind, "args[0]: kind 'pointer'");
  expectRejected(escapingCubin, "must be a plain file name");
  /* Out-of-range numbers are named, never converted (1e300 -> int64 was UB). */
  expectRejected(hugeSeed, "field 'seed' = 1e+300 is not an integer");
  expectRejected(hugeId, "field 'id' = -1e+300 is not an integer");
  expectRejected(hugeRegisters, "resources: field 'registers' = 1e+300");
  expectRejected(hugeTile, "key 'workgroup': entry 0 is not an integer");
  expectRejected(zeroBound, "loop 0 has bound 0");
  expectRejected(negativeCompileTime, "candidates[0]: compile_s -1 is not a time in seconds");
  expectRejected(badCodegen, "target: field 'codegen' = 0 is not an integer in [1,");
  /* Split-K's fields. */
  expectRejected(badWorkspace, "candidates[2]: workspaces[0] must be a positive byte count");
  expectRejected(workspaceOperandPastEnd,
                 "candidates[2]: next[0]: args[0]: field 'operand' = 4 is not an integer in [-1, 3]");
  expectRejected(twoNext, "field 'next' must be an array of at most 1 launches");
}

/* A bundle that cannot be created leaves the handle NULL, so that the caller's Destroy
 * is a no-op (pruner-compile freed an uninitialised handle here and crashed). */
static void test_create_failure_leaves_null(void **state) {
  (void)state;
  PrunerTargetDesc t;
  assert_true(prunerTargetLookup("sm_90", &t).ok);
  PrunerBundle b = (PrunerBundle)(uintptr_t)0x1;
  PrunerStatus st = prunerBundleCreate("", &t, 1, &b);
  assert_false(st.ok);
  assert_null(b);
  b = (PrunerBundle)(uintptr_t)0x1;
  st = prunerBundleCreate("/proc/pruner-no-such-folder", &t, 1, &b);
  assert_false(st.ok);
  assert_null(b);
  prunerBundleDestroy(b);
}

/* Writing a bundle over an earlier one removes the earlier one's files (its cubins stayed
 * beside the new manifest); a folder holding other files is refused, untouched. */
static void test_create_over_earlier_bundle(void **state) {
  (void)state;
  writeBundle(); /* three cubins */
  PrunerTargetDesc t;
  assert_true(prunerTargetLookup("h200", &t).ok);
  PrunerBundle b = NULL;
  assert_true(prunerBundleCreate(g_dir, &t, 1, &b).ok);
  char path[400];
  snprintf(path, sizeof path, "%s/c000002.cubin", g_dir);
  assert_int_not_equal(access(path, F_OK), 0);
  snprintf(path, sizeof path, "%s/manifest.json", g_dir);
  assert_int_not_equal(access(path, F_OK), 0);
  assert_true(prunerBundleWrite(b).ok);
  prunerBundleDestroy(b);
  snprintf(path, sizeof path, "%s/notes.txt", g_dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fclose(f);
  b = (PrunerBundle)(uintptr_t)0x1;
  PrunerStatus st = prunerBundleCreate(g_dir, &t, 1, &b);
  assert_false(st.ok);
  assert_null(b);
  assert_non_null(strstr(st.message, "holds files that are not a bundle's (first: 'notes.txt')"));
  snprintf(path, sizeof path, "%s/manifest.json", g_dir);
  assert_int_equal(access(path, F_OK), 0); /* untouched */
}

/* The element rule of every result check: NaN only with NaN, an infinity only with the
 * same infinity (whatever the tolerance, which is NaN or inf for such references), else
 * within the tolerance. The GPU runner's copy once failed two NaNs (a NaN tolerance) and
 * passed anything against an infinity (an infinite one). */
static void test_agrees(void **state) {
  (void)state;
  double e = -1;
  assert_true(prunerMeasureAgrees(1.0, 1.0005, 1e-3, &e));
  assert_true(e > 0 && e < 1e-3);
  assert_false(prunerMeasureAgrees(1.0, 1.01, 1e-3, NULL));
  assert_true(prunerMeasureAgrees(NAN, NAN, NAN, &e));
  assert_true(e == 0);
  assert_true(prunerMeasureAgrees(INFINITY, INFINITY, INFINITY, NULL));
  assert_true(prunerMeasureAgrees(-INFINITY, -INFINITY, 0, NULL));
  assert_false(prunerMeasureAgrees(1.0, INFINITY, INFINITY, &e));
  assert_true(isinf(e));
  assert_false(prunerMeasureAgrees(-INFINITY, INFINITY, INFINITY, NULL));
  assert_false(prunerMeasureAgrees(NAN, INFINITY, INFINITY, NULL));
  assert_false(prunerMeasureAgrees(NAN, 1.0, 1e30, NULL));
  assert_false(prunerMeasureAgrees(1.0, NAN, NAN, NULL));
}

static void test_missing_cubin_and_manifest(void **state) {
  (void)state;
  writeBundle();
  char path[300];
  snprintf(path, sizeof(path), "%s/c000001.cubin", g_dir);
  assert_int_equal(unlink(path), 0);
  PrunerBundle b;
  PrunerStatus st = prunerBundleRead(g_dir, &b);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "c000001.cubin' is missing"));
  snprintf(path, sizeof(path), "%s/manifest.json", g_dir);
  assert_int_equal(unlink(path), 0);
  st = prunerBundleRead(g_dir, &b);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "cannot read"));
  assert_non_null(strstr(st.message, "manifest.json"));
}

static void test_truncated_manifest(void **state) {
  (void)state;
  writeBundle();
  char path[300];
  snprintf(path, sizeof(path), "%s/manifest.json", g_dir);
  FILE *f = fopen(path, "rb");
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fclose(f);
  assert_int_equal(truncate(path, n / 2), 0);
  PrunerBundle b;
  PrunerStatus st = prunerBundleRead(g_dir, &b);
  assert_false(st.ok);
  if (!strstr(st.message, "truncated"))
    fail_msg("%s", st.message);
  f = fopen(path, "wb");
  fputs("{\"format\": \"pruner-bundle\", \"version\": 1,, }", f);
  fclose(f);
  st = prunerBundleRead(g_dir, &b);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "invalid JSON at byte"));
}

/* ---- worker ---- */
static void test_run_bundle_missing_runner(void **state) {
  (void)state;
  PrunerStatus st = prunerMeasureRunBundle("/nonexistent/pruner-run", "/tmp", "/tmp/x.jsonl", NULL);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "cannot run"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_rejects_bad_bundles),
      cmocka_unit_test(test_manifest_without_codegen),
      cmocka_unit_test(test_missing_cubin_and_manifest),
      cmocka_unit_test(test_create_failure_leaves_null),
      cmocka_unit_test(test_create_over_earlier_bundle),
      cmocka_unit_test(test_agrees),
      cmocka_unit_test(test_truncated_manifest),
      cmocka_unit_test(test_run_bundle_missing_runner),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  char cmd[300];
  snprintf(cmd, sizeof(cmd), "rm -rf /tmp/pruner-measure-test-%d", (int)getpid());
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove the test folder\n");
  return rc;
}

/* test/unit/embed: a compiler's use of the library, without files or the plugin: parse a
 * module from a string, tune it in memory (models only, --measure=none), let the session
 * write the winners into that module, apply them with prunerApplyConfig, and check the
 * result; a bad config is an error naming the op and leaves the module unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/Diagnostics.h>
#include <mlir-c/IR.h>

#include "pruner/apply.h"
#include "pruner/ir.h"
#include "pruner/ir_context.h"
#include "pruner/text.h"
#include "pruner/tune.h"

/* A matmul and an elementwise add on its result (a generic, as frontends such as
 * torch-mlir emit it): the shape of a dense layer. */
static const char *kModule =
    "func.func @dense(%a: tensor<128x256xf32>, %b: tensor<256x128xf32>,\n"
    "                 %bias: tensor<128x128xf32>) -> tensor<128x128xf32> {\n"
    "  %zero = arith.constant 0.0 : f32\n"
    "  %e = tensor.empty() : tensor<128x128xf32>\n"
    "  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>\n"
    "  %mm = linalg.matmul ins(%a, %b : tensor<128x256xf32>, tensor<256x128xf32>)\n"
    "                      outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>\n"
    "  %e2 = tensor.empty() : tensor<128x128xf32>\n"
    "  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,\n"
    "      affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],\n"
    "      iterator_types = [\"parallel\", \"parallel\"]}\n"
    "      ins(%mm, %bias : tensor<128x128xf32>, tensor<128x128xf32>)\n"
    "      outs(%e2 : tensor<128x128xf32>) {\n"
    "    ^bb0(%x: f32, %y: f32, %o: f32):\n"
    "      %s = arith.addf %x, %y : f32\n"
    "      linalg.yield %s : f32\n"
    "  } -> tensor<128x128xf32>\n"
    "  return %r : tensor<128x128xf32>\n"
    "}\n";

/* Diagnostics of the context, kept (not printed) so that tests can read them. */
typedef struct Diags {
  PrunerText errors;
  int num_errors;
} Diags;

static void appendString(MlirStringRef s, void *user) {
  prunerTextAppendBytes((PrunerText *)user, s.data, s.length);
}

static MlirLogicalResult keepDiagnostic(MlirDiagnostic d, void *user) {
  Diags *diags = user;
  if (mlirDiagnosticGetSeverity(d) == MlirDiagnosticError) {
    diags->num_errors++;
    mlirDiagnosticPrint(d, appendString, &diags->errors);
    prunerTextAppendBytes(&diags->errors, "\n", 1);
  }
  return mlirLogicalResultSuccess();
}

typedef struct Fixture {
  MlirContext ctx;
  MlirModule module;
  Diags diags;
} Fixture;

static int setup(void **state) {
  Fixture *f = calloc(1, sizeof *f);
  f->ctx = prunerIrContextCreate();
  mlirContextAttachDiagnosticHandler(f->ctx, keepDiagnostic, &f->diags, NULL);
  f->module = mlirModuleCreateParse(f->ctx, mlirStringRefCreateFromCString(kModule));
  *state = f;
  return mlirModuleIsNull(f->module) ? -1 : 0;
}

static int teardown(void **state) {
  Fixture *f = *state;
  if (!mlirModuleIsNull(f->module))
    mlirModuleDestroy(f->module);
  mlirContextDestroy(f->ctx);
  free(f->diags.errors.data);
  free(f);
  return 0;
}

static char *printModule(MlirModule m) {
  PrunerText b = {0};
  mlirOperationPrint(mlirModuleGetOperation(m), appendString, &b);
  return b.data;
}

typedef struct Count {
  const char *name;
  const char *attr; /* when set: count only ops carrying this attribute */
  int n;
} Count;

static MlirWalkResult countOps(MlirOperation op, void *user) {
  Count *c = user;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (name.length == strlen(c->name) && memcmp(name.data, c->name, name.length) == 0 &&
      (!c->attr || !mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(
                       op, mlirStringRefCreateFromCString(c->attr)))))
    c->n++;
  return MlirWalkResultAdvance;
}

static int count(MlirModule m, const char *name, const char *attr) {
  Count c = {name, attr, 0};
  mlirOperationWalk(mlirModuleGetOperation(m), countOps, &c, MlirWalkPreOrder);
  return c.n;
}

/* Tunes f->module in memory for `target` with the models only, writes the winners into it
 * and destroys the session: the module and context must outlive it, unharmed. */
static void tuneInMemory(Fixture *f, const char *target, size_t tasks) {
  PrunerTuneOptions o = prunerTuneDefaultOptions();
  o.target = target;
  o.measure = PRUNER_TUNE_MEASURE_NONE;
  o.trials = 8;
  o.draft_size = 64;
  o.batch = 4;
  PrunerTuneSession s = NULL;
  PrunerStatus st = prunerTuneSessionCreateForModule(f->module, &o, &s);
  if (!st.ok)
    fail_msg("%s: create: %s", target, st.message);
  assert_int_equal(prunerTuneSessionNumTasks(s), tasks);
  st = prunerTuneSessionRun(s);
  if (!st.ok)
    fail_msg("%s: run: %s", target, st.message);
  /* Nothing is written into the caller's module before it is asked for. */
  assert_int_equal(count(f->module, "linalg.matmul", "pruner.config"), 0);
  st = prunerTuneSessionAnnotateModule(s);
  if (!st.ok)
    fail_msg("%s: annotate: %s", target, st.message);
  prunerTuneSessionDestroy(s);
}

static void test_tune_and_apply_gpu(void **state) {
  Fixture *f = *state;
  tuneInMemory(f, "sm_90", 1); /* the add is a candidate for fusion, not a task */
  assert_int_equal(count(f->module, "linalg.matmul", "pruner.config"), 1);
  assert_int_equal(count(f->module, "linalg.matmul", "pruner.tuning"), 1);
  /* GPU backends fuse the add into the matmul's kernel unless the winner promotes; then
   * it has a config of its own. Either way it is decided. */
  assert_int_equal(count(f->module, "linalg.generic", "pruner.config") +
                       count(f->module, "linalg.generic", "pruner.fused"),
                   1);
  assert_int_equal(count(f->module, "gpu.launch", NULL), 0);
  PrunerStatus st = prunerApplyConfig(mlirModuleGetOperation(f->module), "sm_90", NULL);
  if (!st.ok)
    fail_msg("apply sm_90: %s\n%s", st.message, f->diags.errors.data ? f->diags.errors.data : "");
  assert_int_equal(f->diags.num_errors, 0);
  assert_true(count(f->module, "gpu.launch", NULL) >= 1);
  assert_int_equal(count(f->module, "linalg.matmul", NULL), 0);
  assert_true(mlirOperationVerify(mlirModuleGetOperation(f->module)));
}

static void test_tune_and_apply_host(void **state) {
  Fixture *f = *state;
  tuneInMemory(f, "host", 2); /* the matmul and the add */
  assert_int_equal(count(f->module, "linalg.matmul", "pruner.config"), 1);
  assert_int_equal(count(f->module, "linalg.generic", "pruner.config"), 1); /* host: no fusion */
  PrunerStatus st = prunerApplyConfig(mlirModuleGetOperation(f->module), "host", NULL);
  if (!st.ok)
    fail_msg("apply host: %s\n%s", st.message, f->diags.errors.data ? f->diags.errors.data : "");
  assert_int_equal(f->diags.num_errors, 0);
  /* Each configured op became a call of its scheduled kernel; none is left as linalg. */
  assert_int_equal(count(f->module, "func.call", NULL), 2);
  assert_int_equal(count(f->module, "linalg.matmul", NULL), 0);
  assert_int_equal(count(f->module, "linalg.generic", NULL), 0);
  assert_true(mlirOperationVerify(mlirModuleGetOperation(f->module)));
}

/* A config whose register tile is larger than its task tile (9 rows of a 7-row task): an
 * error on the matmul naming the key, and not a single change to the module. */
static void expectRejected(Fixture *f, const char *target) {
  MlirOperation mm = {NULL}; /* the module's only matmul */
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(f->module));
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
    if (n.length == strlen("linalg.matmul") && memcmp(n.data, "linalg.matmul", n.length) == 0)
      mm = op;
  }
  assert_false(mlirOperationIsNull(mm));
  const char *bad = "{workgroup = [7, 64, 0], reduction = [0, 0, 16], thread = [9, 4, 0], "
                    "promote_operands = [], vector_width = 1}";
  mlirOperationSetDiscardableAttributeByName(
      mm, mlirStringRefCreateFromCString("pruner.config"),
      mlirAttributeParseGet(f->ctx, mlirStringRefCreateFromCString(bad)));
  char *before = printModule(f->module);
  PrunerStatus st = prunerApplyConfig(mlirModuleGetOperation(f->module), target, NULL);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "linalg.matmul"));
  assert_int_equal(f->diags.num_errors, 1);
  assert_non_null(strstr(f->diags.errors.data, "linalg.matmul"));
  char *after = printModule(f->module);
  assert_string_equal(before, after);
  free(before);
  free(after);
}

static void test_bad_config_gpu(void **state) { expectRejected(*state, "sm_90"); }
static void test_bad_config_host(void **state) { expectRejected(*state, "host"); }

/* What is not a module, or not a target, is a status (and an error on the op), never a
 * crash. */
static void test_bad_calls(void **state) {
  Fixture *f = *state;
  PrunerStatus st = prunerApplyConfig((MlirOperation){NULL}, "sm_90", NULL);
  assert_false(st.ok);
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(f->module));
  st = prunerApplyConfig(func, "sm_90", NULL);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "builtin.module"));
  st = prunerApplyConfig(mlirModuleGetOperation(f->module), "no-such-gpu", NULL);
  assert_false(st.ok);
  st = prunerApplyConfig(mlirModuleGetOperation(f->module), NULL, NULL);
  assert_false(st.ok);
  PrunerTuneOptions o = prunerTuneDefaultOptions();
  o.measure = PRUNER_TUNE_MEASURE_NONE;
  PrunerTuneSession s = (PrunerTuneSession)(uintptr_t)1;
  st = prunerTuneSessionCreateForModule((MlirModule){NULL}, &o, &s);
  assert_false(st.ok);
  assert_null(s);
  /* The conv rewrite would change the caller's module before the session annotates it:
   * refused, naming the function to call first. */
  o.conv1x1_as_matmul = true;
  s = (PrunerTuneSession)(uintptr_t)1;
  st = prunerTuneSessionCreateForModule(f->module, &o, &s);
  assert_false(st.ok);
  assert_null(s);
  assert_non_null(strstr(st.message, "prunerIrConv1x1ToMatmul"));
  /* NULL options are the defaults (they crashed on a NULL dereference); a task index past
   * the end gives an empty task (it read past the array). */
  st = prunerTuneSessionCreateForModule(f->module, NULL, &s);
  assert_true(st.ok);
  assert_int_equal(prunerTuneSessionNumTasks(s), 1); /* sm_90: the add fuses */
  PrunerTuneTaskInfo info;
  memset(&info, 0xff, sizeof info);
  prunerTuneSessionGetTask(s, 5, &info);
  assert_null(info.workload);
  assert_false(info.has_best);
  prunerTuneSessionDestroy(s);
}

/* The options' strings are the caller's only during Create: a caller that reuses or
 * frees them afterwards (a C++ std::string, a buffer on its stack) does not change or
 * break the session (the host backend read `target` during Run: "host: target sm_90 is
 * not the host CPU"). */
static void test_option_strings_copied(void **state) {
  Fixture *f = *state;
  char target[16] = "host";
  char records[64];
  snprintf(records, sizeof records, "/tmp/pruner-embed-%ld.jsonl", (long)getpid());
  PrunerTuneOptions o = prunerTuneDefaultOptions();
  o.target = target;
  o.records_path = records;
  o.measure = PRUNER_TUNE_MEASURE_HOST; /* the backend starts during Run */
  o.trials = 2;
  o.batch = 1;
  o.final_candidates = 0;
  PrunerTuneSession s = NULL;
  PrunerStatus st = prunerTuneSessionCreateForModule(f->module, &o, &s);
  assert_true(st.ok);
  memset(target, 0, sizeof target);
  strcpy(target, "sm_90");
  strcpy(records, "/nonexistent/records.jsonl");
  st = prunerTuneSessionRun(s);
  if (!st.ok)
    fail_msg("%s", st.message);
  PrunerTuneTaskInfo info;
  prunerTuneSessionGetTask(s, 0, &info);
  assert_non_null(info.workload);
  assert_true(info.measured);
  prunerTuneSessionDestroy(s);
  char path[64];
  snprintf(path, sizeof path, "/tmp/pruner-embed-%ld.jsonl", (long)getpid());
  unlink(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_tune_and_apply_gpu, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tune_and_apply_host, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_config_gpu, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_config_host, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_calls, setup, teardown),
      cmocka_unit_test_setup_teardown(test_option_strings_copied, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test/unit/embed: a compiler that registered MLIR's dialects but not its passes (the
 * context docs/embedding.md allows). prunerApplyConfig's host path parses pass pipelines;
 * MLIR handed the parse error to a NULL callback, which ended the process
 * (std::bad_function_call) instead of returning the error apply.h promises. Its own
 * executable: nothing in this process may register the passes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <mlir-c/Diagnostics.h>
#include <mlir-c/IR.h>
#include <mlir-c/RegisterEverything.h>

#include "pruner/apply.h"

static const char *kModule =
    "func.func @mm(%a: tensor<16x8xf32>, %b: tensor<8x16xf32>, %c: tensor<16x16xf32>)\n"
    "    -> tensor<16x16xf32> {\n"
    "  %r = linalg.matmul {pruner.config = {workgroup = [16, 16, 0], reduction = [0, 0, 8],\n"
    "      thread = [2, 8, 0], promote_operands = [], vector_width = 1}}\n"
    "      ins(%a, %b : tensor<16x8xf32>, tensor<8x16xf32>) outs(%c : tensor<16x16xf32>)\n"
    "      -> tensor<16x16xf32>\n"
    "  return %r : tensor<16x16xf32>\n"
    "}\n";

static char g_errors[2048];

static void appendString(MlirStringRef s, void *user) {
  (void)user;
  size_t len = strlen(g_errors);
  snprintf(g_errors + len, sizeof g_errors - len, "%.*s", (int)s.length, s.data);
}

static MlirLogicalResult keepErrors(MlirDiagnostic d, void *user) {
  if (mlirDiagnosticGetSeverity(d) == MlirDiagnosticError)
    mlirDiagnosticPrint(d, appendString, user);
  return mlirLogicalResultSuccess();
}

static void test_apply_without_passes(void **state) {
  (void)state;
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry); /* dialects only: no mlirRegisterAllPasses */
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirContextAttachDiagnosticHandler(ctx, keepErrors, NULL, NULL);
  MlirModule m = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  assert_false(mlirModuleIsNull(m));
  PrunerStatus st = prunerApplyConfig(mlirModuleGetOperation(m), "host", NULL);
  assert_false(st.ok); /* and the process is still here */
  if (!strstr(g_errors, "the pass pipeline does not parse") ||
      !strstr(g_errors, "mlirRegisterAllPasses"))
    fail_msg("diagnostics: %s; status: %s", g_errors, st.message);
  mlirModuleDestroy(m);
  mlirContextDestroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_apply_without_passes)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test/unit/schedule: the C rewrites that run after a GPU schedule (pruner/schedule_ir.h),
 * on hand-written IR: the shared space as a number, and vector-load alignment through
 * the scf.for iter_args that a pipelined loop rotates its stage buffers through. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <mlir-c/IR.h>

#include "pruner/ir_context.h"
#include "pruner/schedule_ir.h"

static MlirContext ctx;

static int setup(void **state) {
  (void)state;
  ctx = prunerIrContextCreate();
  mlirContextLoadAllAvailableDialects(ctx);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  mlirContextDestroy(ctx);
  return 0;
}

typedef struct Printed {
  char *text;
  size_t len;
} Printed;

static void appendPrinted(MlirStringRef s, void *user) {
  Printed *p = user;
  p->text = realloc(p->text, p->len + s.length + 1);
  assert_non_null(p->text);
  memcpy(p->text + p->len, s.data, s.length);
  p->len += s.length;
  p->text[p->len] = '\0';
}

static char *printModule(MlirModule m) {
  Printed p = {NULL, 0};
  mlirOperationPrint(mlirModuleGetOperation(m), appendPrinted, &p);
  return p.text;
}

static size_t count(const char *text, const char *what) {
  size_t n = 0;
  for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
    ++n;
  return n;
}

/* A module shaped like a pipelined K loop after the schedule: a 16-byte aligned shared
 * global of three stage buffers (rows of 40 f16, 80 bytes) reaches an outlined function as
 * an argument; the loop rotates a 32x32 view of one stage through an iter_arg and loads a
 * vector<2xf16> at column `col` of it. The view yielded for the next step starts at
 * column `next_col` of its stage. */
static MlirModule pipelinedModule(int col, int next_col) {
  char text[4096];
  int n = snprintf(
      text, sizeof text,
      "module {\n"
      "  memref.global \"private\" @buf : memref<3x32x40xf16, %1$s> {alignment = 16 : i64}\n"
      "  func.func private @steps(%%b: memref<3x32x40xf16, %1$s>, %%o: memref<4xvector<2xf16>>) {\n"
      "    %%c0 = arith.constant 0 : index\n"
      "    %%c1 = arith.constant 1 : index\n"
      "    %%c2 = arith.constant 2 : index\n"
      "    %%c4 = arith.constant 4 : index\n"
      "    %%col = arith.constant %2$d : index\n"
      "    %%v = memref.subview %%b[%%c0, 0, 0] [1, 32, 32] [1, 1, 1] : memref<3x32x40xf16, %1$s> "
      "to "
      "memref<32x32xf16, %3$s, %1$s>\n"
      "    %%r = scf.for %%i = %%c0 to %%c4 step %%c1 iter_args(%%cur = %%v) -> "
      "(memref<32x32xf16, %3$s, %1$s>) {\n"
      "      %%x = vector.load %%cur[%%c0, %%col] : memref<32x32xf16, %3$s, %1$s>, vector<2xf16>\n"
      "      memref.store %%x, %%o[%%i] : memref<4xvector<2xf16>>\n"
      "      %%s = arith.remui %%i, %%c2 : index\n"
      "      %%n = memref.subview %%b[%%s, 0, %4$d] [1, 32, 32] [1, 1, 1] : "
      "memref<3x32x40xf16, %1$s> to memref<32x32xf16, %3$s, %1$s>\n"
      "      scf.yield %%n : memref<32x32xf16, %3$s, %1$s>\n"
      "    }\n"
      "    return\n"
      "  }\n"
      "  func.func @caller(%%o: memref<4xvector<2xf16>>) {\n"
      "    %%g = memref.get_global @buf : memref<3x32x40xf16, %1$s>\n"
      "    call @steps(%%g, %%o) : (memref<3x32x40xf16, %1$s>, memref<4xvector<2xf16>>) -> ()\n"
      "    return\n"
      "  }\n"
      "}\n",
      "#gpu.address_space<workgroup>", col, "strided<[40, 1], offset: ?>", next_col);
  assert_true(n > 0 && (size_t)n < sizeof text);
  MlirModule m = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  assert_false(mlirModuleIsNull(m));
  return m;
}

/* Every workgroup memref (the global, the get_global, the call's operand, the outlined
 * function's signature and argument, the views and the iter_arg) becomes the number 3,
 * the module still verifies, and a second run changes nothing. */
static void test_shared_space_as_number(void **state) {
  (void)state;
  MlirModule m = pipelinedModule(2, 0);
  int retyped = 0;
  assert_true(prunerScheduleSharedSpaceAsNumber(mlirModuleGetOperation(m), &retyped).ok);
  assert_true(retyped >= 8);
  assert_true(mlirOperationVerify(mlirModuleGetOperation(m)));
  char *text = printModule(m);
  assert_null(strstr(text, "workgroup"));
  assert_non_null(strstr(text, "memref.global \"private\" @buf : memref<3x32x40xf16, 3>"));
  assert_non_null(strstr(text, "func.func private @steps(%arg0: memref<3x32x40xf16, 3>"));
  assert_int_equal(count(text, "strided<[40, 1], offset: ?>, 3>"), 5);
  free(text);
  assert_true(prunerScheduleSharedSpaceAsNumber(mlirModuleGetOperation(m), &retyped).ok);
  assert_int_equal(retyped, 0);
  mlirModuleDestroy(m);
}

/* Alignment through a rotated iter_arg: the least of the init's and the yielded view's.
 * Both views start 16-byte aligned, so the load at column 2 is 4-byte aligned; when the
 * yielded view starts at column 1 (2 bytes), nothing beyond the element is proven. */
static void test_iter_arg_alignment(void **state) {
  (void)state;
  for (int next_col = 0; next_col <= 1; ++next_col) {
    MlirModule m = pipelinedModule(2, next_col);
    int aligned = -1;
    assert_true(
        prunerScheduleAlignVectorAccesses(mlirModuleGetOperation(m), PRUNER_ARG_ALIGNMENT, &aligned)
            .ok);
    char *text = printModule(m);
    if (next_col == 0) {
      assert_int_equal(aligned, 1);
      assert_non_null(strstr(text, "{alignment = 4 : i64} : memref<32x32xf16"));
    } else {
      assert_int_equal(aligned, 0);
      assert_null(strstr(text, "{alignment = 4 : i64}"));
    }
    free(text);
    mlirModuleDestroy(m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shared_space_as_number),
      cmocka_unit_test(test_iter_arg_alignment),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

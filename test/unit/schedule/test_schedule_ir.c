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

/* A K step as @pruner_bufferize leaves a pipelined config's: in the K loop, the step's A
 * and B tiles are fresh allocations (promote_tensor's), filled by copies and read by the
 * tagged matmul; C comes from outside the loop. A's rows of 32 f16 (64 bytes) and B's of
 * 48 (96 bytes, six 16-byte units) get 8 more; `outside` passes an allocation from outside
 * the loop as B instead, which is no tile. */
static MlirModule stepModule(bool outside) {
  char text[4096];
  int n = snprintf(
      text, sizeof text,
      "func.func @f(%%a: memref<64x256xf16>, %%b: memref<256x48xf16>, %%c: memref<64x48xf32>) {\n"
      "  %%c0 = arith.constant 0 : index\n"
      "  %%c32 = arith.constant 32 : index\n"
      "  %%c256 = arith.constant 256 : index\n"
      "  %%out = memref.alloc() : memref<32x48xf16>\n"
      "  scf.for %%k = %%c0 to %%c256 step %%c32 {\n"
      "    %%sa = memref.subview %%a[0, %%k] [64, 32] [1, 1] : memref<64x256xf16> to "
      "memref<64x32xf16, strided<[256, 1], offset: ?>>\n"
      "    %%sb = memref.subview %%b[%%k, 0] [32, 48] [1, 1] : memref<256x48xf16> to "
      "memref<32x48xf16, strided<[48, 1], offset: ?>>\n"
      "    %%ta = memref.alloc() {alignment = 64 : i64} : memref<64x32xf16>\n"
      "    linalg.copy ins(%%sa : memref<64x32xf16, strided<[256, 1], offset: ?>>) "
      "outs(%%ta : memref<64x32xf16>)\n"
      "    %%tb = memref.alloc() {alignment = 64 : i64} : memref<32x48xf16>\n"
      "    linalg.copy ins(%%sb : memref<32x48xf16, strided<[48, 1], offset: ?>>) "
      "outs(%%tb : memref<32x48xf16>)\n"
      "    linalg.matmul {t.promote} ins(%%ta, %%%s : memref<64x32xf16>, memref<32x48xf16>) "
      "outs(%%c : memref<64x48xf32>)\n"
      "  }\n"
      "  return\n"
      "}\n",
      outside ? "out" : "tb");
  assert_true(n > 0 && (size_t)n < sizeof text);
  MlirModule m = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  assert_false(mlirModuleIsNull(m));
  return m;
}

/* The step's two tiles become subviews of longer-row allocations (64x40 and 32x56: rows
 * of 80 and 112 bytes, odd in 16-byte units) and the module verifies. The caller asks only
 * for pipelined configs, whose shared memory counts the padding, so everything else is an
 * error with the module unchanged: a second run (the operands are views now), an operand
 * from outside the loop, no op tagged, two ops tagged. */
static void test_pad_staged_rows(void **state) {
  (void)state;
  MlirModule m = stepModule(false);
  int padded = -1;
  assert_true(prunerSchedulePadStagedRows(mlirModuleGetOperation(m), "t.promote", &padded).ok);
  assert_int_equal(padded, 2);
  assert_true(mlirOperationVerify(mlirModuleGetOperation(m)));
  char *text = printModule(m);
  assert_non_null(strstr(text, "memref.alloc() {alignment = 64 : i64} : memref<64x40xf16>"));
  assert_non_null(strstr(text, "memref.alloc() {alignment = 64 : i64} : memref<32x56xf16>"));
  assert_non_null(strstr(text, "memref<64x40xf16> to memref<64x32xf16, strided<[40, 1]>>"));
  assert_non_null(strstr(text, "memref<32x56xf16> to memref<32x48xf16, strided<[56, 1]>>"));
  /* The copies write, and the matmul reads, the views. */
  assert_int_equal(count(text, " : memref<64x32xf16, strided<[40, 1]>>)"), 1);
  assert_int_equal(count(text, " : memref<32x48xf16, strided<[56, 1]>>)"), 1);
  assert_non_null(strstr(text, "linalg.matmul {t.promote} ins(%subview_2, %subview_4 : "
                               "memref<64x32xf16, strided<[40, 1]>>, memref<32x48xf16, "
                               "strided<[56, 1]>>)"));
  /* Run again, the operands are views, not tile allocations: an error, nothing changed. */
  PrunerStatus again = prunerSchedulePadStagedRows(mlirModuleGetOperation(m), "t.promote", NULL);
  assert_false(again.ok);
  assert_non_null(strstr(again.message, "operand 0 of the op tagged t.promote is not a tile"));
  char *after = printModule(m);
  assert_string_equal(after, text);
  free(after);
  free(text);
  PrunerStatus none = prunerSchedulePadStagedRows(mlirModuleGetOperation(m), "none.promote", NULL);
  assert_false(none.ok);
  assert_non_null(strstr(none.message, "0 ops tagged none.promote"));
  mlirModuleDestroy(m);

  /* B from outside the loop: an error before anything changes, so A, checked and
   * paddable first, stays unpadded too. */
  m = stepModule(true);
  PrunerStatus outside = prunerSchedulePadStagedRows(mlirModuleGetOperation(m), "t.promote", NULL);
  assert_false(outside.ok);
  assert_non_null(strstr(outside.message, "operand 1"));
  text = printModule(m);
  assert_null(strstr(text, "64x40xf16"));
  free(text);
  mlirModuleDestroy(m);

  MlirModule two = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString(
               "func.func @g(%a: memref<4xf32>) {\n"
               "  linalg.copy {t.promote} ins(%a : memref<4xf32>) outs(%a : memref<4xf32>)\n"
               "  linalg.copy {t.promote} ins(%a : memref<4xf32>) outs(%a : memref<4xf32>)\n"
               "  return\n}\n"));
  assert_false(mlirModuleIsNull(two));
  PrunerStatus s = prunerSchedulePadStagedRows(mlirModuleGetOperation(two), "t.promote", NULL);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, "2 ops tagged t.promote"));
  mlirModuleDestroy(two);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shared_space_as_number),
      cmocka_unit_test(test_iter_arg_alignment),
      cmocka_unit_test(test_pad_staged_rows),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

/* Unit tests of workloads: builders (loop orders and indexing as linalg generalizes the
 * named ops), keys, flops and bytes, verification and contiguous loops. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pruner/workload.h"

static void matmulBuilder(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 512, 256, 1024, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_true(prunerWorkloadVerify(&w).ok);
  assert_string_equal(w.key, "matmul:512x256x1024:f32,f32->f32");
  assert_string_equal(w.op_name, "linalg.matmul");
  assert_int_equal(w.num_loops, 3);
  assert_int_equal(w.loop_kinds[2], PRUNER_LOOP_REDUCTION);
  assert_string_equal(prunerLoopRoleName(w.loop_roles[0]), "m");
  assert_string_equal(prunerLoopRoleName(w.loop_roles[2]), "k");
  /* A is m x k, B is k x n, C is m x n. */
  assert_int_equal(w.operands[0].shape[0], 512);
  assert_int_equal(w.operands[0].shape[1], 1024);
  assert_int_equal(w.operands[1].index_coeff[1][1], 1);
  assert_true(prunerWorkloadFlops(&w) == 2.0 * 512 * 256 * 1024);
  assert_true(prunerWorkloadBytes(&w) == 4.0 * (512 * 1024 + 1024 * 256 + 512 * 256));
  /* Body: mul then add into the accumulator, yielded. */
  assert_int_equal(w.body_len, 2);
  assert_int_equal(w.body[0].opcode, PRUNER_BODY_MUL);
  assert_int_equal(w.body[1].opcode, PRUNER_BODY_ADD);
  assert_int_equal(w.body_yield[0], 4);
  assert_int_equal(w.body_ops, 2);
  assert_int_equal(prunerWorkloadContiguousLoop(&w, 0), 2); /* A walks k */
  assert_int_equal(prunerWorkloadContiguousLoop(&w, 1), 1); /* B walks n */
  assert_int_equal(prunerWorkloadContiguousLoop(&w, 2), 1);
}

static void mixedPrecisionBody(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 64, 64, 64, PRUNER_DTYPE_F16, PRUNER_DTYPE_F32);
  assert_true(prunerWorkloadVerify(&w).ok);
  assert_string_equal(w.key, "matmul:64x64x64:f16,f16->f32");
  assert_int_equal(w.body_len, 4); /* two casts, mul, add */
  assert_int_equal(w.body[0].opcode, PRUNER_BODY_CAST);
  assert_int_equal(w.body[2].args[0], 3);
  assert_int_equal(w.body[2].args[1], 4);
  assert_int_equal(w.body_ops, 2);
  assert_int_equal(w.body_yield[0], 6);
}

static void batchMatmulBuilder(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadBatchMatmul(&w, 12, 128, 64, 32, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_true(prunerWorkloadVerify(&w).ok);
  assert_string_equal(w.key, "batch_matmul:12x128x64x32:f32,f32->f32");
  /* (b, m, n, k): A = b x m x k, B = b x k x n. */
  assert_int_equal(w.operands[0].shape[2], 32);
  assert_int_equal(w.operands[1].shape[2], 64);
  assert_int_equal(w.loop_kinds[3], PRUNER_LOOP_REDUCTION);
}

/* linalg.conv_2d_nhwc_hwcf generalizes to loops (n, oh, ow, f, kh, kw, c) and input map
 * (d0, d1 * s + d4 * d, d2 * s + d5 * d, d6). */
static void convNhwcBuilder(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadConv2dNhwcHwcf(&w, 1, 58, 58, 64, 3, 3, 32, 2, 1, PRUNER_DTYPE_F32);
  assert_true(prunerWorkloadVerify(&w).ok);
  assert_string_equal(w.key, "conv_2d_nhwc_hwcf:1x28x28x32x3x3x64:f32,f32->f32:s2x2d1x1");
  const PrunerLoopRole roles[7] = {PRUNER_ROLE_IMAGE,    PRUNER_ROLE_OUT_H,   PRUNER_ROLE_OUT_W,
                                   PRUNER_ROLE_OUT_CHANNEL, PRUNER_ROLE_FILTER_H,
                                   PRUNER_ROLE_FILTER_W, PRUNER_ROLE_IN_CHANNEL};
  for (int l = 0; l < 7; ++l) assert_int_equal(w.loop_roles[l], roles[l]);
  assert_int_equal(w.operands[0].index_coeff[1][1], 2);
  assert_int_equal(w.operands[0].index_coeff[1][4], 1);
  assert_int_equal(w.operands[0].index_coeff[2][2], 2);
  assert_int_equal(w.operands[0].index_coeff[2][5], 1);
  assert_int_equal(w.operands[0].index_coeff[3][6], 1);
  assert_int_equal(w.operands[1].index_coeff[3][3], 1); /* filter's f */
  assert_int_equal(w.operands[2].shape[1], 28);
  assert_true(prunerWorkloadFlops(&w) == 2.0 * 28 * 28 * 32 * 9 * 64);
  assert_int_equal(prunerWorkloadContiguousLoop(&w, 0), 6); /* input walks c */
  assert_int_equal(prunerWorkloadContiguousLoop(&w, 2), 3); /* output walks f */
}

/* linalg.conv_2d_nchw_fchw: loops (n, f, oh, ow, c, kh, kw), input map
 * (d0, d4, d2 * s + d5 * d, d3 * s + d6 * d), filter (d1, d4, d5, d6). */
static void convNchwBuilder(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadConv2dNchwFchw(&w, 2, 3, 230, 230, 64, 7, 7, 2, 1, PRUNER_DTYPE_F32);
  assert_true(prunerWorkloadVerify(&w).ok);
  assert_string_equal(w.key, "conv_2d_nchw_fchw:2x64x112x112x3x7x7:f32,f32->f32:s2x2d1x1");
  assert_int_equal(w.loop_roles[1], PRUNER_ROLE_OUT_CHANNEL);
  assert_int_equal(w.loop_roles[4], PRUNER_ROLE_IN_CHANNEL);
  assert_int_equal(w.loop_roles[6], PRUNER_ROLE_FILTER_W);
  assert_int_equal(w.operands[0].index_coeff[1][4], 1);
  assert_int_equal(w.operands[0].index_coeff[3][3], 2);
  assert_int_equal(w.operands[0].index_coeff[3][6], 1);
  assert_int_equal(w.operands[1].index_coeff[0][1], 1);
  assert_int_equal(prunerWorkloadContiguousLoop(&w, 0), 6); /* iw: kw has coefficient 1 */
  assert_int_equal(prunerWorkloadContiguousLoop(&w, 2), 3); /* output walks ow */
  /* Dilation 2 at stride 1: iw = ow + 2 kw; ow (parallel) is the contiguous loop. */
  prunerWorkloadConv2dNchwFchw(&w, 1, 8, 20, 20, 8, 3, 3, 1, 2, PRUNER_DTYPE_F16);
  assert_true(prunerWorkloadVerify(&w).ok);
  assert_int_equal(w.bounds[2], 16);
  assert_int_equal(prunerWorkloadContiguousLoop(&w, 0), 3);
  assert_non_null(strstr(w.key, ":s1x1d2x2"));
}

static void keyStability(void **state) {
  (void)state;
  PrunerWorkload a, b;
  prunerWorkloadConv2dNhwcHwcf(&a, 1, 58, 58, 64, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
  prunerWorkloadConv2dNhwcHwcf(&b, 1, 58, 58, 64, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
  assert_string_equal(a.key, b.key);
  prunerWorkloadComputeKey(&b); /* recomputing changes nothing */
  assert_string_equal(a.key, b.key);
  prunerWorkloadConv2dNhwcHwcf(&b, 1, 58, 60, 64, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
  assert_string_not_equal(a.key, b.key);
  prunerWorkloadConv2dNhwcHwcf(&b, 1, 58, 58, 64, 3, 3, 64, 1, 2, PRUNER_DTYPE_F32);
  assert_string_not_equal(a.key, b.key);
  prunerWorkloadMatmul(&a, 128, 64, 32, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  prunerWorkloadMatmul(&b, 128, 64, 16, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_string_not_equal(a.key, b.key);
  prunerWorkloadMatmul(&b, 128, 64, 32, PRUNER_DTYPE_F16, PRUNER_DTYPE_F32);
  assert_string_not_equal(a.key, b.key);
}

/* A generic is keyed by a hash of its structure: the same generic gets the same key, a
 * transposed operand or another body a different one. */
static void genericKeys(void **state) {
  (void)state;
  PrunerWorkload a, b;
  prunerWorkloadMatmul(&a, 64, 32, 16, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  a.kind = PRUNER_OP_CONTRACTION;
  snprintf(a.op_name, sizeof(a.op_name), "linalg.generic");
  prunerWorkloadComputeKey(&a);
  b = a;
  memset(b.key, 0, sizeof(b.key));
  prunerWorkloadComputeKey(&b);
  assert_string_equal(a.key, b.key);
  const char *prefix = "contraction:64x32x16:f32,f32->f32:";
  assert_int_equal(strncmp(a.key, prefix, strlen(prefix)), 0);
  assert_int_equal(strlen(a.key), strlen(prefix) + 8); /* 8 hex digits of hash */
  /* B transposed: n x k instead of k x n. */
  memset(b.operands[1].index_coeff, 0, sizeof(b.operands[1].index_coeff));
  b.operands[1].index_coeff[0][1] = 1;
  b.operands[1].index_coeff[1][2] = 1;
  b.operands[1].shape[0] = 32;
  b.operands[1].shape[1] = 16;
  assert_true(prunerWorkloadVerify(&b).ok);
  prunerWorkloadComputeKey(&b);
  assert_string_not_equal(a.key, b.key);
  b = a;
  b.body[0].opcode = PRUNER_BODY_MAX;
  prunerWorkloadComputeKey(&b);
  assert_string_not_equal(a.key, b.key);
}

static void verifyCatchesErrors(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 64, 32, 16, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerWorkload bad = w;
  bad.bounds[1] = 0;
  PrunerStatus st = prunerWorkloadVerify(&bad);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "loop 1"));
  bad = w;
  bad.operands[0].shape[1] = 8; /* k is 16 */
  st = prunerWorkloadVerify(&bad);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "operand 0 dim 1"));
  bad = w;
  bad.operands[2].index_coeff[1][2] = 1; /* output indexed by k */
  assert_false(prunerWorkloadVerify(&bad).ok);
  bad = w;
  bad.body[1].args[1] = 9;
  assert_false(prunerWorkloadVerify(&bad).ok);
  bad = w;
  bad.operands[2].is_output = 0;
  assert_false(prunerWorkloadVerify(&bad).ok);
  /* Huge bounds and coefficients (from a record or manifest) are reported, not
   * overflowed (UBSan: signed overflow before the checked arithmetic). */
  bad = w;
  bad.bounds[0] = INT64_MAX;
  bad.operands[0].index_coeff[0][0] = 4;
  st = prunerWorkloadVerify(&bad);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "overflows 64 bits"));
  bad = w;
  bad.bounds[2] = (int64_t)1 << 62;
  bad.operands[0].index_coeff[1][0] = 2;
  bad.operands[0].index_coeff[1][2] = 2;
  assert_false(prunerWorkloadVerify(&bad).ok);
}

static void names(void **state) {
  (void)state;
  assert_string_equal(prunerOpKindName(PRUNER_OP_CONV_2D_NCHW_FCHW), "conv_2d_nchw_fchw");
  assert_string_equal(prunerDTypeName(PRUNER_DTYPE_BF16), "bf16");
  assert_int_equal(prunerDTypeBytes(PRUNER_DTYPE_F64), 8);
  assert_int_equal(prunerDTypeBytes(PRUNER_DTYPE_I8), 1);
  PrunerDType t;
  assert_true(prunerDTypeParse("f16", &t));
  assert_int_equal(t, PRUNER_DTYPE_F16);
  assert_false(prunerDTypeParse("f8", &t));
  assert_string_equal(prunerLoopRoleName(PRUNER_ROLE_IN_CHANNEL), "c");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(matmulBuilder),   cmocka_unit_test(mixedPrecisionBody),
      cmocka_unit_test(batchMatmulBuilder), cmocka_unit_test(convNhwcBuilder),
      cmocka_unit_test(convNchwBuilder), cmocka_unit_test(keyStability),
      cmocka_unit_test(genericKeys),     cmocka_unit_test(verifyCatchesErrors),
      cmocka_unit_test(names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

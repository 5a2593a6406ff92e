/* test/unit/ir/test_ir.c: lib/ir through the MLIR C API.
 *
 * Workloads read from IR must equal the builders' (same key), config attributes must
 * round-trip and reject bad input naming the key, and the valid count that the
 * expose-space lit test checks must equal a brute-force count over the raw space. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/Dialect/Arith.h>
#include <mlir-c/Dialect/Func.h>
#include <mlir-c/Dialect/Linalg.h>
#include <mlir-c/Dialect/Math.h>
#include <mlir-c/Dialect/Tensor.h>
#include <mlir-c/IR.h>

#include "pruner/file.h"
#include "pruner/ir.h"
#include "pruner/space.h"
#include "pruner/target.h"

/* ---- fixtures --------------------------------------------------------------------- */

typedef struct Fixture {
  MlirContext ctx;
  MlirModule module;
} Fixture;

static MlirContext newContext(void) {
  MlirContext ctx = mlirContextCreate();
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__func__(), ctx);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__arith__(), ctx);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__tensor__(), ctx);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__math__(), ctx);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__linalg__(), ctx);
  return ctx;
}

static int setup(void **state) {
  Fixture *f = calloc(1, sizeof *f);
  f->ctx = newContext();
  *state = f;
  return 0;
}

static int teardown(void **state) {
  Fixture *f = *state;
  if (!mlirModuleIsNull(f->module))
    mlirModuleDestroy(f->module);
  mlirContextDestroy(f->ctx);
  free(f);
  return 0;
}

typedef struct FindState {
  const char *name;
  int skip;
  MlirOperation found;
} FindState;

static MlirWalkResult findVisit(MlirOperation op, void *user) {
  FindState *s = user;
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  if (n.length == strlen(s->name) && strncmp(n.data, s->name, n.length) == 0) {
    if (s->skip-- == 0) {
      s->found = op;
      return MlirWalkResultInterrupt;
    }
  }
  return MlirWalkResultAdvance;
}

/* Parses `text` into the fixture and returns the `index`-th op named `name`. */
static MlirOperation parseAndFind(Fixture *f, const char *text, const char *name, int index) {
  if (!mlirModuleIsNull(f->module))
    mlirModuleDestroy(f->module);
  f->module = mlirModuleCreateParse(f->ctx, mlirStringRefCreateFromCString(text));
  assert_false(mlirModuleIsNull(f->module));
  FindState s = {name, index, {NULL}};
  mlirOperationWalk(mlirModuleGetOperation(f->module), findVisit, &s, MlirWalkPreOrder);
  assert_false(mlirOperationIsNull(s.found));
  return s.found;
}

static void expectError(PrunerStatus s, const char *fragment) {
  if (s.ok || !strstr(s.message, fragment))
    fail_msg("expected an error containing \"%s\", got %s: \"%s\"", fragment, s.ok ? "ok" : "error",
             s.message);
}

/* ---- workloads ---------------------------------------------------------------------- */

static const char *kMatmul =
    "func.func @f(%a: tensor<256x128xf32>, %b: tensor<128x512xf32>) -> tensor<256x512xf32> {\n"
    "  %z = arith.constant 0.0 : f32\n"
    "  %e = tensor.empty() : tensor<256x512xf32>\n"
    "  %c = linalg.fill ins(%z : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>\n"
    "  %r = linalg.matmul ins(%a, %b : tensor<256x128xf32>, tensor<128x512xf32>)\n"
    "                     outs(%c : tensor<256x512xf32>) -> tensor<256x512xf32>\n"
    "  return %r : tensor<256x512xf32>\n"
    "}\n";

static void test_matmul_matches_builder(void **state) {
  Fixture *f = *state;
  PrunerWorkload w, ref;
  PrunerStatus s = prunerWorkloadFromOperation(parseAndFind(f, kMatmul, "linalg.matmul", 0), &w);
  assert_true(s.ok);
  prunerWorkloadMatmul(&ref, 256, 512, 128, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_int_equal(w.kind, PRUNER_OP_MATMUL);
  assert_int_equal(w.num_loops, 3);
  assert_int_equal(w.bounds[0], 256);
  assert_int_equal(w.bounds[1], 512);
  assert_int_equal(w.bounds[2], 128);
  assert_int_equal(w.loop_roles[0], PRUNER_ROLE_M);
  assert_int_equal(w.loop_roles[1], PRUNER_ROLE_N);
  assert_int_equal(w.loop_roles[2], PRUNER_ROLE_K);
  assert_int_equal(w.loop_kinds[2], PRUNER_LOOP_REDUCTION);
  assert_int_equal(w.body_len, ref.body_len);
  assert_int_equal(w.body_hash, ref.body_hash);
  assert_string_equal(w.key, ref.key);
}

/* prunerWorkloadElementwiseAdd / ReduceSum describe what lib/ir reads from the generics
 * pruner-compile used to write as text: same key, body and operands. */
static const char *kAddGeneric =
    "func.func @add(%a: tensor<64x128xf16>, %b: tensor<64x128xf16>, %c: tensor<64x128xf16>)"
    " -> tensor<64x128xf16> {\n"
    "  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,"
    " affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],"
    " iterator_types = [\"parallel\", \"parallel\"]}\n"
    "      ins(%a, %b : tensor<64x128xf16>, tensor<64x128xf16>) outs(%c : tensor<64x128xf16>) {\n"
    "  ^bb0(%x: f16, %y: f16, %o: f16):\n"
    "    %s = arith.addf %x, %y : f16\n"
    "    linalg.yield %s : f16\n"
    "  } -> tensor<64x128xf16>\n"
    "  return %0 : tensor<64x128xf16>\n}\n";
static const char *kSumGeneric =
    "func.func @reduce(%a: tensor<8x16x32xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {\n"
    "  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>,"
    " affine_map<(d0, d1, d2) -> (d0, d1)>],"
    " iterator_types = [\"parallel\", \"parallel\", \"reduction\"]}\n"
    "      ins(%a : tensor<8x16x32xf32>) outs(%c : tensor<8x16xf32>) {\n"
    "  ^bb0(%x: f32, %acc: f32):\n"
    "    %s = arith.addf %x, %acc : f32\n"
    "    linalg.yield %s : f32\n"
    "  } -> tensor<8x16xf32>\n"
    "  return %0 : tensor<8x16xf32>\n}\n";

static void test_generic_builders_match_ir(void **state) {
  Fixture *f = *state;
  PrunerWorkload w, ref;
  assert_true(prunerWorkloadFromOperation(parseAndFind(f, kAddGeneric, "linalg.generic", 0), &w).ok);
  prunerWorkloadElementwiseAdd(&ref, (const int64_t[]){64, 128}, 2, PRUNER_DTYPE_F16);
  assert_true(prunerWorkloadVerify(&ref).ok);
  assert_int_equal(w.kind, ref.kind);
  assert_int_equal(w.body_hash, ref.body_hash);
  assert_int_equal(w.num_inputs, ref.num_inputs);
  assert_string_equal(w.key, ref.key);
  PrunerWorkload built;
  assert_true(prunerWorkloadBuild("elementwise", (const int64_t[]){64, 128}, 2,
                                  PRUNER_DTYPE_F16, &built).ok);
  assert_string_equal(built.key, ref.key);

  assert_true(prunerWorkloadFromOperation(parseAndFind(f, kSumGeneric, "linalg.generic", 0), &w).ok);
  prunerWorkloadReduceSum(&ref, (const int64_t[]){8, 16, 32}, 3, PRUNER_DTYPE_F32);
  assert_true(prunerWorkloadVerify(&ref).ok);
  assert_int_equal(w.kind, PRUNER_OP_REDUCTION);
  assert_int_equal(w.loop_kinds[2], PRUNER_LOOP_REDUCTION);
  assert_int_equal(w.body_hash, ref.body_hash);
  assert_string_equal(w.key, ref.key);
  /* Kinds and sizes that do not fit are errors naming them. */
  PrunerStatus st = prunerWorkloadBuild("matmul", (const int64_t[]){4, 4}, 2, PRUNER_DTYPE_F32,
                                        &built);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "matmul with 2 sizes"));
  st = prunerWorkloadBuild("reduction", (const int64_t[]){4, 0}, 2, PRUNER_DTYPE_F32, &built);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "size 1 is 0"));
}

static void test_fill_is_fused_not_tunable(void **state) {
  Fixture *f = *state;
  MlirOperation fill = parseAndFind(f, kMatmul, "linalg.fill", 0);
  assert_true(prunerIsLinalgOp(fill));
  assert_true(prunerIsFusedLinalgOp(fill));
  PrunerWorkload w;
  expectError(prunerWorkloadFromOperation(fill, &w), "linalg.fill");
  MlirOperation ret = parseAndFind(f, kMatmul, "func.return", 0);
  assert_false(prunerIsLinalgOp(ret));
}

static void test_batch_matmul_matches_builder(void **state) {
  Fixture *f = *state;
  const char *text =
      "func.func @f(%a: tensor<12x128x64xf32>, %b: tensor<12x64x128xf32>, "
      "%c: tensor<12x128x128xf32>) -> tensor<12x128x128xf32> {\n"
      "  %r = linalg.batch_matmul ins(%a, %b : tensor<12x128x64xf32>, tensor<12x64x128xf32>)\n"
      "       outs(%c : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>\n"
      "  return %r : tensor<12x128x128xf32>\n}\n";
  PrunerWorkload w, ref;
  assert_true(prunerWorkloadFromOperation(parseAndFind(f, text, "linalg.batch_matmul", 0), &w).ok);
  prunerWorkloadBatchMatmul(&ref, 12, 128, 128, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_int_equal(w.kind, PRUNER_OP_BATCH_MATMUL);
  assert_int_equal(w.loop_roles[0], PRUNER_ROLE_BATCH);
  assert_int_equal(w.loop_roles[3], PRUNER_ROLE_K);
  assert_string_equal(w.key, ref.key);
}

static void test_convs_match_builders(void **state) {
  Fixture *f = *state;
  const char *nchw = "func.func @f(%i: tensor<1x3x230x230xf32>, %k: tensor<64x3x7x7xf32>, "
                     "%o: tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32> {\n"
                     "  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, "
                     "strides = dense<2> : tensor<2xi64>}\n"
                     "       ins(%i, %k : tensor<1x3x230x230xf32>, tensor<64x3x7x7xf32>)\n"
                     "       outs(%o : tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32>\n"
                     "  return %r : tensor<1x64x112x112xf32>\n}\n";
  PrunerWorkload w, ref;
  assert_true(
      prunerWorkloadFromOperation(parseAndFind(f, nchw, "linalg.conv_2d_nchw_fchw", 0), &w).ok);
  prunerWorkloadConv2dNchwFchw(&ref, 1, 3, 230, 230, 64, 7, 7, 2, 1, PRUNER_DTYPE_F32);
  assert_int_equal(w.strides[0], 2);
  assert_int_equal(w.strides[1], 2);
  assert_int_equal(w.loop_roles[1], PRUNER_ROLE_OUT_CHANNEL);
  assert_int_equal(w.loop_roles[2], PRUNER_ROLE_OUT_H);
  assert_int_equal(w.loop_roles[4], PRUNER_ROLE_IN_CHANNEL);
  assert_int_equal(w.loop_roles[6], PRUNER_ROLE_FILTER_W);
  assert_int_equal(w.operands[0].index_coeff[2][2], 2); /* ih = 2 * oh + kh */
  assert_int_equal(w.operands[0].index_coeff[2][5], 1);
  assert_string_equal(w.key, ref.key);

  const char *nhwc = "func.func @f(%i: tensor<1x58x58x64xf32>, %k: tensor<3x3x64x64xf32>, "
                     "%o: tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32> {\n"
                     "  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, "
                     "strides = dense<1> : tensor<2xi64>}\n"
                     "       ins(%i, %k : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>)\n"
                     "       outs(%o : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>\n"
                     "  return %r : tensor<1x56x56x64xf32>\n}\n";
  assert_true(
      prunerWorkloadFromOperation(parseAndFind(f, nhwc, "linalg.conv_2d_nhwc_hwcf", 0), &w).ok);
  prunerWorkloadConv2dNhwcHwcf(&ref, 1, 58, 58, 64, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
  assert_int_equal(w.kind, PRUNER_OP_CONV_2D_NHWC_HWCF);
  assert_int_equal(w.loop_roles[0], PRUNER_ROLE_IMAGE);
  assert_int_equal(w.loop_roles[3], PRUNER_ROLE_OUT_CHANNEL);
  assert_int_equal(w.loop_roles[4], PRUNER_ROLE_FILTER_H);
  assert_string_equal(w.key, ref.key);
}

static void test_depthwise_and_mixed_precision(void **state) {
  Fixture *f = *state;
  const char *text =
      "func.func @dw(%i: tensor<1x58x58x64xf32>, %k: tensor<3x3x64xf32>, "
      "%o: tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32> {\n"
      "  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, "
      "strides = dense<1> : tensor<2xi64>}\n"
      "       ins(%i, %k : tensor<1x58x58x64xf32>, tensor<3x3x64xf32>)\n"
      "       outs(%o : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>\n"
      "  return %r : tensor<1x56x56x64xf32>\n}\n"
      "func.func @mixed(%a: tensor<64x32xf16>, %b: tensor<32x128xf16>, "
      "%c: tensor<64x128xf32>) -> tensor<64x128xf32> {\n"
      "  %r = linalg.matmul ins(%a, %b : tensor<64x32xf16>, tensor<32x128xf16>)\n"
      "       outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>\n"
      "  return %r : tensor<64x128xf32>\n}\n";
  PrunerWorkload w, ref;
  assert_true(
      prunerWorkloadFromOperation(parseAndFind(f, text, "linalg.depthwise_conv_2d_nhwc_hwc", 0), &w)
          .ok);
  assert_int_equal(w.kind, PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC);
  assert_int_equal(w.num_loops, 6);
  assert_int_equal(w.loop_roles[3], PRUNER_ROLE_OUT_CHANNEL); /* the depth channel */
  assert_int_equal(w.loop_roles[4], PRUNER_ROLE_FILTER_H);
  assert_int_equal(w.bounds[3], 64);
  prunerWorkloadDepthwiseConv2dNhwcHwc(&ref, 1, 58, 58, 64, 3, 3, 1, 1, PRUNER_DTYPE_F32);
  assert_string_equal(w.key, ref.key);
  assert_int_equal(memcmp(w.operands, ref.operands, sizeof w.operands), 0);

  /* Named ops with narrower inputs get extf casts in their region: same body as the
   * builder's (cast, cast, mul, add), so the same key. */
  assert_true(prunerWorkloadFromOperation(parseAndFind(f, text, "linalg.matmul", 0), &w).ok);
  prunerWorkloadMatmul(&ref, 64, 128, 32, PRUNER_DTYPE_F16, PRUNER_DTYPE_F32);
  assert_int_equal(w.body_len, 4);
  assert_int_equal(w.body[0].opcode, PRUNER_BODY_CAST);
  assert_int_equal(w.body[0].dtype, PRUNER_DTYPE_F32);
  assert_string_equal(w.key, ref.key);
}

static void test_transposed_matmul_is_contraction(void **state) {
  Fixture *f = *state;
  const char *text =
      "func.func @f(%a: tensor<64x32xf32>, %b: tensor<128x32xf32>, %c: tensor<64x128xf32>) "
      "-> tensor<64x128xf32> {\n"
      "  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,\n"
      "         affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]\n"
      "       ins(%a, %b : tensor<64x32xf32>, tensor<128x32xf32>)\n"
      "       outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>\n"
      "  return %r : tensor<64x128xf32>\n}\n";
  PrunerWorkload w;
  PrunerStatus s = prunerWorkloadFromOperation(parseAndFind(f, text, "linalg.matmul", 0), &w);
  assert_true(s.ok);
  assert_int_equal(w.kind, PRUNER_OP_CONTRACTION);
  assert_int_equal(w.bounds[1], 128);
  assert_int_equal(w.loop_roles[0], PRUNER_ROLE_M);
  assert_int_equal(w.loop_roles[1], PRUNER_ROLE_N);
  assert_int_equal(w.loop_roles[2], PRUNER_ROLE_K);
  assert_int_equal(w.operands[1].index_coeff[0][1], 1); /* B[n][k] */
  assert_int_equal(w.operands[1].index_coeff[1][2], 1);
}

static void test_generics(void **state) {
  Fixture *f = *state;
  const char *text =
      "#id = affine_map<(d0, d1) -> (d0, d1)>\n"
      "#row = affine_map<(d0, d1) -> (d0)>\n"
      "func.func @f(%x: tensor<64x256xf32>, %acc: tensor<64xf32>, %o: tensor<64x256xf32>)\n"
      "    -> (tensor<64xf32>, tensor<64x256xf32>) {\n"
      "  %zero = arith.constant 0.0 : f32\n"
      "  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = [\"parallel\", "
      "\"reduction\"]}\n"
      "      ins(%x : tensor<64x256xf32>) outs(%acc : tensor<64xf32>) {\n"
      "  ^bb0(%v: f32, %m: f32):\n"
      "    %s = arith.addf %v, %m : f32\n"
      "    linalg.yield %s : f32\n"
      "  } -> tensor<64xf32>\n"
      "  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = [\"parallel\", "
      "\"parallel\"]}\n"
      "      ins(%x : tensor<64x256xf32>) outs(%o : tensor<64x256xf32>) {\n"
      "  ^bb0(%v: f32, %u: f32):\n"
      "    %n = math.exp %v : f32\n"
      "    %m = arith.maximumf %n, %zero : f32\n"
      "    linalg.yield %m : f32\n"
      "  } -> tensor<64x256xf32>\n"
      "  return %r, %e : tensor<64xf32>, tensor<64x256xf32>\n}\n";
  PrunerWorkload w;
  assert_true(prunerWorkloadFromOperation(parseAndFind(f, text, "linalg.generic", 0), &w).ok);
  assert_int_equal(w.kind, PRUNER_OP_REDUCTION);
  assert_int_equal(w.loop_roles[0], PRUNER_ROLE_PARALLEL);
  assert_int_equal(w.loop_roles[1], PRUNER_ROLE_REDUCED);
  assert_int_equal(w.body_len, 1);
  assert_int_equal(w.body[0].opcode, PRUNER_BODY_ADD);
  assert_int_equal(w.body[0].args[0], 0);
  assert_int_equal(w.body[0].args[1], 1);
  assert_int_equal(w.body_yield[0], 2);

  assert_true(prunerWorkloadFromOperation(parseAndFind(f, text, "linalg.generic", 1), &w).ok);
  assert_int_equal(w.kind, PRUNER_OP_ELEMENTWISE);
  /* exp, the captured constant 0, max: values 2, 3, 4. */
  assert_int_equal(w.body_len, 3);
  assert_int_equal(w.body[0].opcode, PRUNER_BODY_EXP);
  assert_int_equal(w.body[1].opcode, PRUNER_BODY_CONST);
  assert_int_equal(w.body[2].opcode, PRUNER_BODY_MAX);
  assert_int_equal(w.body[2].args[0], 2);
  assert_int_equal(w.body[2].args[1], 3);
  assert_int_equal(w.body_yield[0], 4);
  assert_int_equal(w.body_ops, 2);
}

/* The unary float math of GELU (erf or tanh), LayerNorm (rsqrt), log-softmax (log) and
 * sqrt / absf are body ops (they were "unsupported body op"). */
static void test_math_body_ops(void **state) {
  Fixture *f = *state;
  const char *text =
      "#id = affine_map<(d0, d1) -> (d0, d1)>\n"
      "func.func @f(%x: tensor<8x16xf32>, %o: tensor<8x16xf32>) -> tensor<8x16xf32> {\n"
      "  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = [\"parallel\", "
      "\"parallel\"]}\n"
      "      ins(%x : tensor<8x16xf32>) outs(%o : tensor<8x16xf32>) {\n"
      "  ^bb0(%v: f32, %u: f32):\n"
      "    %a = math.tanh %v : f32\n"
      "    %b = math.log %a : f32\n"
      "    %c = math.sqrt %b : f32\n"
      "    %d = math.rsqrt %c : f32\n"
      "    %g = math.erf %d : f32\n"
      "    %h = math.absf %g : f32\n"
      "    linalg.yield %h : f32\n"
      "  } -> tensor<8x16xf32>\n"
      "  return %e : tensor<8x16xf32>\n}\n";
  PrunerWorkload w;
  PrunerStatus st = prunerWorkloadFromOperation(parseAndFind(f, text, "linalg.generic", 0), &w);
  assert_true(st.ok);
  PrunerBodyOpcode want[] = {PRUNER_BODY_TANH, PRUNER_BODY_LOG, PRUNER_BODY_SQRT,
                             PRUNER_BODY_RSQRT, PRUNER_BODY_ERF, PRUNER_BODY_ABS};
  assert_int_equal(w.body_len, 6);
  for (int i = 0; i < 6; ++i) {
    assert_int_equal(w.body[i].opcode, want[i]);
    assert_int_equal(w.body[i].args[0], i == 0 ? 0 : 2 + i - 1);
  }
  assert_int_equal(w.body_ops, 6);
}

static void test_not_tunable_reasons(void **state) {
  Fixture *f = *state;
  PrunerWorkload w;
  const char *dynamic =
      "func.func @f(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>, %c: tensor<?x64xf32>) "
      "-> tensor<?x64xf32> {\n"
      "  %r = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x64xf32>)\n"
      "       outs(%c : tensor<?x64xf32>) -> tensor<?x64xf32>\n"
      "  return %r : tensor<?x64xf32>\n}\n";
  expectError(prunerWorkloadFromOperation(parseAndFind(f, dynamic, "linalg.matmul", 0), &w),
              "linalg.matmul: dynamic shape tensor<?x64xf32>");
  const char *empty =
      "func.func @f(%a: tensor<0x8xf32>, %b: tensor<8x16xf32>, %c: tensor<0x16xf32>) "
      "-> tensor<0x16xf32> {\n"
      "  %r = linalg.matmul ins(%a, %b : tensor<0x8xf32>, tensor<8x16xf32>)\n"
      "       outs(%c : tensor<0x16xf32>) -> tensor<0x16xf32>\n"
      "  return %r : tensor<0x16xf32>\n}\n";
  expectError(prunerWorkloadFromOperation(parseAndFind(f, empty, "linalg.matmul", 0), &w),
              "linalg.matmul: operand 0 dimension 0 has size 0 (empty tensors");
  const char *memref =
      "func.func @f(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {\n"
      "  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : "
      "memref<8x8xf32>)\n"
      "  return\n}\n";
  expectError(prunerWorkloadFromOperation(parseAndFind(f, memref, "linalg.matmul", 0), &w),
              "memref");
  const char *sine =
      "#id = affine_map<(d0) -> (d0)>\n"
      "func.func @f(%x: tensor<64xf32>, %o: tensor<64xf32>) -> tensor<64xf32> {\n"
      "  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = [\"parallel\"]}\n"
      "      ins(%x : tensor<64xf32>) outs(%o : tensor<64xf32>) {\n"
      "  ^bb0(%v: f32, %u: f32):\n"
      "    %t = math.sin %v : f32\n"
      "    linalg.yield %t : f32\n"
      "  } -> tensor<64xf32>\n"
      "  return %r : tensor<64xf32>\n}\n";
  expectError(prunerWorkloadFromOperation(parseAndFind(f, sine, "linalg.generic", 0), &w),
              "unsupported body op math.sin");
  const char *pool =
      "func.func @f(%i: tensor<1x8x8x4xf32>, %k: tensor<2x2xf32>, %o: tensor<1x4x4x4xf32>) "
      "-> tensor<1x4x4x4xf32> {\n"
      "  %r = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, "
      "strides = dense<2> : tensor<2xi64>}\n"
      "       ins(%i, %k : tensor<1x8x8x4xf32>, tensor<2x2xf32>)\n"
      "       outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>\n"
      "  return %r : tensor<1x4x4x4xf32>\n}\n";
  expectError(prunerWorkloadFromOperation(parseAndFind(f, pool, "linalg.pooling_nhwc_max", 0), &w),
              "linalg.pooling_nhwc_max: unsupported named op");
}

/* ---- config attribute ------------------------------------------------------------------ */

static void matmulWorkload(PrunerWorkload *w) {
  prunerWorkloadMatmul(w, 256, 512, 128, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
}

static PrunerStatus parseConfig(Fixture *f, const PrunerWorkload *w, const char *text,
                                PrunerConfig *out) {
  MlirAttribute a = mlirAttributeParseGet(f->ctx, mlirStringRefCreateFromCString(text));
  assert_false(mlirAttributeIsNull(a));
  return prunerConfigFromAttribute(w, a, out);
}

typedef struct PrintBuf {
  char text[512];
  size_t len;
} PrintBuf;

static void printChunk(MlirStringRef s, void *user) {
  PrintBuf *b = user;
  size_t n = s.length < sizeof b->text - 1 - b->len ? s.length : sizeof b->text - 1 - b->len;
  memcpy(b->text + b->len, s.data, n);
  b->len += n;
  b->text[b->len] = '\0';
}

static void test_config_round_trip(void **state) {
  Fixture *f = *state;
  PrunerWorkload w;
  matmulWorkload(&w);
  PrunerConfig c = {.workgroup = {64, 64, 0},
                    .reduction = {0, 0, 16},
                    .thread = {4, 4, 0},
                    .promote_operands = 0x3,
                    .vector_width = 4};
  MlirAttribute a = prunerConfigToAttribute(f->ctx, &w, &c);
  PrintBuf buf = {.len = 0};
  mlirAttributePrint(a, printChunk, &buf);
  assert_string_equal(buf.text, "{promote_operands = [0, 1], reduction = [0, 0, 16], "
                                "thread = [4, 4, 0], vector_width = 4 : i64, "
                                "workgroup = [64, 64, 0]}");
  PrunerConfig back;
  PrunerStatus s = parseConfig(f, &w, buf.text, &back);
  assert_true(s.ok);
  assert_true(prunerConfigEqual(&c, &back));

  /* The space's own text form parses to the same config. */
  char text[256];
  prunerConfigFormat(&w, &c, text, sizeof text);
  s = parseConfig(f, &w, text, &back);
  if (!s.ok)
    fail_msg("prunerConfigFormat output \"%s\" does not parse: %s", text, s.message);
  assert_true(prunerConfigEqual(&c, &back));

  /* array<i64: ..> is accepted too; missing keys default (promote none, vector width 1). */
  s = parseConfig(f, &w,
                  "{workgroup = array<i64: 32, 128, 0>, reduction = array<i64: 0, 0, 8>, "
                  "thread = array<i64: 2, 8, 0>}",
                  &back);
  assert_true(s.ok);
  assert_int_equal(back.workgroup[1], 128);
  assert_int_equal(back.reduction[2], 8);
  assert_int_equal(back.thread[1], 8);
  assert_int_equal(back.promote_operands, 0);
  assert_int_equal(back.vector_width, 1);
}

static void test_config_errors(void **state) {
  Fixture *f = *state;
  PrunerWorkload w;
  matmulWorkload(&w);
  PrunerConfig c;
  expectError(parseConfig(f, &w, "{workgroup = [64, 64, 0], tile = [1]}", &c),
              "pruner.config on linalg.matmul: unknown key 'tile'");
  expectError(parseConfig(f, &w, "{thread = [4, 4]}", &c),
              "key 'thread' has 2 entries, expected 3");
  expectError(parseConfig(f, &w, "{reduction = [0, 0, 1.5]}", &c),
              "key 'reduction': entry 2 is not an integer");
  expectError(parseConfig(f, &w, "{workgroup = [64, -1, 0]}", &c),
              "key 'workgroup': entry 1 is negative");
  expectError(parseConfig(f, &w, "{workgroup = \"64x64\"}", &c),
              "key 'workgroup' must be a list of integers");
  expectError(parseConfig(f, &w, "{promote_operands = [0, 3]}", &c),
              "key 'promote_operands': operand index 3 out of range");
  expectError(parseConfig(f, &w, "{promote_operands = [1, 1]}", &c), "listed twice");
  expectError(parseConfig(f, &w, "{vector_width = [4]}", &c),
              "key 'vector_width' must be an integer");
  expectError(parseConfig(f, &w, "{vector_width = 0}", &c), "key 'vector_width' = 0");
  expectError(parseConfig(f, &w, "[64, 64, 0]", &c), "expected a dictionary attribute");
  /* Integers that do not fit int64 are refused, not cut to their low word. */
  expectError(parseConfig(f, &w, "{workgroup = [18446744073709551680 : i128, 64, 0]}", &c),
              "key 'workgroup': entry 0 is not an integer of at most 64 bits");
  expectError(parseConfig(f, &w, "{workgroup = [18446744073709551615 : ui64, 64, 0]}", &c),
              "key 'workgroup': entry 0 is not an integer of at most 64 bits");
  expectError(parseConfig(f, &w, "{workgroup = [true, 64, 0]}", &c),
              "key 'workgroup': entry 0 is not an integer");
  expectError(parseConfig(f, &w, "{vector_width = 36893488147419103236 : i128}", &c),
              "key 'vector_width' must be an integer");
  /* Huge values parse, then prunerConfigCheck names them (no overflow in its products). */
  PrunerTargetDesc t;
  assert_true(prunerTargetLookup("h200", &t).ok);
  PrunerStatus s = parseConfig(f, &w,
                               "{workgroup = [9223372036854775807, 9223372036854775807, 0], "
                               "thread = [1, 1, 0], reduction = [0, 0, 4611686018427387904]}",
                               &c);
  assert_true(s.ok);
  expectError(prunerConfigCheck(&w, &t, &c), "does not divide the loop bounds");
  s = parseConfig(f, &w, "{workgroup = [0, 64, 0], thread = [0, 4, 0], reduction = [0, 0, 16]}",
                  &c);
  assert_true(s.ok);
  expectError(prunerConfigCheck(&w, &t, &c), "workgroup tile [0, 64, 0] is 0 for parallel loop 0");
}

/* ---- the valid count of the lit test, against brute force ------------------------------ */

static void test_lit_count_matches_brute_force(void **state) {
  Fixture *f = *state;
  const char *src = getenv("PRUNER_SOURCE_DIR");
  if (!src)
    skip();
  char path[1024];
  snprintf(path, sizeof path, "%s/test/lit/expose-space/matmul.mlir", src);
  char *text = NULL;
  PrunerStatus read = prunerReadFile(path, &text, NULL);
  if (!read.ok)
    fail_msg("%s", read.message);
  /* The lit test's CHECK line carries the count the plugin must print. */
  const char *at = strstr(text, "valid_configs = ");
  if (!at)
    fail_msg("%s has no 'valid_configs = ' CHECK", path);
  long long expected = atoll(at + strlen("valid_configs = "));

  PrunerWorkload w;
  PrunerStatus s = prunerWorkloadFromOperation(parseAndFind(f, text, "linalg.matmul", 0), &w);
  free(text);
  assert_true(s.ok);
  PrunerTargetDesc t;
  assert_true(prunerTargetLookup("sm_90", &t).ok);
  PrunerSpace space;
  assert_true(prunerSpaceCreate(&w, &t, NULL, &space).ok);
  uint64_t brute = 0, raw_size = prunerSpaceRawSize(space);
  PrunerConfig c;
  for (uint64_t raw = 0; raw < raw_size; ++raw) {
    prunerSpaceDecodeRaw(space, raw, &c);
    brute += prunerConfigIsValid(&w, &t, &c);
  }
  assert_true(brute > 0);
  assert_int_equal(brute, prunerSpaceCount(space));
  assert_int_equal(brute, (uint64_t)expected);

  MlirAttribute attr = prunerSpaceToAttribute(f->ctx, space);
  MlirAttribute count =
      mlirDictionaryAttrGetElementByName(attr, mlirStringRefCreateFromCString("valid_configs"));
  assert_int_equal(mlirIntegerAttrGetValueInt(count), (int64_t)brute);
  prunerSpaceDestroy(space);
}

/* FLOPs past 2^63 are written as f64: the cast to i64 was undefined behaviour and wrote
 * INT64_MIN. A 2^21 x 2^21 x 2^20 matmul (2^62 points, 2^63 FLOPs) on a target of unknown
 * memory size. */
static void test_space_attr_huge_flops(void **state) {
  Fixture *f = *state;
  PrunerWorkload w;
  int64_t n = (int64_t)1 << 21;
  prunerWorkloadMatmul(&w, n, n, n / 2, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerTargetDesc t;
  assert_true(prunerTargetLookup("sm_90", &t).ok);
  t.dram_bytes = 0;
  PrunerSpace space;
  PrunerStatus st = prunerSpaceCreate(&w, &t, NULL, &space);
  if (!st.ok)
    fail_msg("%s", st.message);
  MlirAttribute attr = prunerSpaceToAttribute(f->ctx, space);
  MlirAttribute workload =
      mlirDictionaryAttrGetElementByName(attr, mlirStringRefCreateFromCString("workload"));
  MlirAttribute flops =
      mlirDictionaryAttrGetElementByName(workload, mlirStringRefCreateFromCString("flops"));
  assert_true(mlirAttributeIsAFloat(flops));
  assert_true(mlirFloatAttrGetValueDouble(flops) == 0x1p63);
  prunerSpaceDestroy(space);
  /* 2^63 - 2^61 FLOPs still fit: an exact i64. */
  int64_t k = n / 2 - n / 8;
  prunerWorkloadMatmul(&w, n, n, k, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_true(prunerSpaceCreate(&w, &t, NULL, &space).ok);
  attr = prunerSpaceToAttribute(f->ctx, space);
  workload = mlirDictionaryAttrGetElementByName(attr, mlirStringRefCreateFromCString("workload"));
  flops = mlirDictionaryAttrGetElementByName(workload, mlirStringRefCreateFromCString("flops"));
  assert_true(mlirAttributeIsAInteger(flops));
  assert_true(mlirIntegerAttrGetValueInt(flops) == 2 * n * n * k);
  prunerSpaceDestroy(space);
}

/* ---- prunerWalkTunableOps ------------------------------------------------------------ */

typedef struct WalkLog {
  int tunable, rejected, stop_after;
  char keys[4][PRUNER_WORKLOAD_KEY_SIZE];
  char why[PRUNER_STATUS_MESSAGE_SIZE];
} WalkLog;

static MlirWalkResult logVisit(MlirOperation op, const PrunerWorkload *w, const PrunerStatus *why,
                               void *user) {
  (void)op;
  WalkLog *log = user;
  if (w) {
    snprintf(log->keys[log->tunable++], sizeof log->keys[0], "%s", w->key);
    assert_null(why);
  } else {
    assert_non_null(why);
    assert_false(why->ok);
    snprintf(log->why, sizeof log->why, "%s", why->message);
    ++log->rejected;
  }
  return log->tunable == log->stop_after ? MlirWalkResultInterrupt : MlirWalkResultAdvance;
}

/* Fills are skipped without a call, a dynamic matmul comes with its reason, tunable ops in
 * pre-order with their workloads, and an interrupt stops the walk. */
static void test_walk_tunable_ops(void **state) {
  Fixture *f = *state;
  const char *text =
      "func.func @f(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>, %d: tensor<?x32xf32>,\n"
      "             %e: tensor<?x16xf32>, %x: tensor<8x8x8xf32>, %y: tensor<8x8x8xf32>)\n"
      "    -> (tensor<64x16xf32>, tensor<?x16xf32>, tensor<8x8x8xf32>) {\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %i = tensor.empty() : tensor<64x16xf32>\n"
      "  %c = linalg.fill ins(%z : f32) outs(%i : tensor<64x16xf32>) -> tensor<64x16xf32>\n"
      "  %m = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x16xf32>)\n"
      "                     outs(%c : tensor<64x16xf32>) -> tensor<64x16xf32>\n"
      "  %n = linalg.matmul ins(%d, %b : tensor<?x32xf32>, tensor<32x16xf32>)\n"
      "                     outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>\n"
      "  %j = tensor.empty() : tensor<8x8x8xf32>\n"
      "  %k = linalg.batch_matmul ins(%x, %y : tensor<8x8x8xf32>, tensor<8x8x8xf32>)\n"
      "                     outs(%j : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>\n"
      "  return %m, %n, %k : tensor<64x16xf32>, tensor<?x16xf32>, tensor<8x8x8xf32>\n"
      "}\n";
  f->module = mlirModuleCreateParse(f->ctx, mlirStringRefCreateFromCString(text));
  assert_false(mlirModuleIsNull(f->module));
  MlirOperation root = mlirModuleGetOperation(f->module);
  WalkLog log = {0};
  log.stop_after = -1;
  prunerWalkTunableOps(root, logVisit, &log);
  assert_int_equal(log.tunable, 2);
  assert_int_equal(log.rejected, 1);
  assert_non_null(strstr(log.why, "dynamic shape"));
  assert_non_null(strstr(log.keys[0], "matmul"));
  assert_non_null(strstr(log.keys[1], "batch_matmul"));
  WalkLog first = {0};
  first.stop_after = 1;
  prunerWalkTunableOps(root, logVisit, &first);
  assert_int_equal(first.tunable, 1);
  assert_int_equal(first.rejected, 0);
  assert_string_equal(first.keys[0], log.keys[0]);
}

/* ---- functions a whole-module check can run --------------------------------------- */

static void test_tensor_functions(void **state) {
  Fixture *f = *state;
  parseAndFind(f,
               "func.func @mm(%a: tensor<4x8xf32>, %b: tensor<8x2xi8>) -> (tensor<4x2xf32>, "
               "tensor<3xf16>) {\n"
               "  %x = tensor.empty() : tensor<4x2xf32>\n"
               "  %y = tensor.empty() : tensor<3xf16>\n"
               "  return %x, %y : tensor<4x2xf32>, tensor<3xf16>\n"
               "}\n"
               "func.func private @helper(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
               "  return %a : tensor<2xf32>\n"
               "}\n"
               "func.func private @decl(tensor<2xf32>) -> tensor<2xf32>\n"
               "func.func @scalar(%a: tensor<2xf32>, %s: f32) -> tensor<2xf32> {\n"
               "  return %a : tensor<2xf32>\n"
               "}\n"
               "func.func @dyn(%a: tensor<?xf32>) -> tensor<?xf32> {\n"
               "  return %a : tensor<?xf32>\n"
               "}\n"
               "func.func @second(%a: tensor<5xi32>) -> tensor<5xi32> {\n"
               "  return %a : tensor<5xi32>\n"
               "}\n",
               "func.func", 0);
  PrunerFunctionSignature fs[4];
  char skipped[200];
  size_t n = prunerIrTensorFunctions(f->module, fs, 4, skipped, sizeof skipped);
  assert_int_equal(n, 2); /* @mm and @second: private, declared, scalar, dynamic left out */
  assert_string_equal(fs[0].name, "mm");
  assert_int_equal(fs[0].num_args, 2);
  assert_int_equal(fs[0].num_results, 2);
  assert_int_equal(fs[0].args[1].dtype, PRUNER_DTYPE_I8);
  assert_int_equal(fs[0].args[1].rank, 2);
  assert_int_equal(fs[0].args[1].shape[0], 8);
  assert_int_equal(fs[0].results[1].dtype, PRUNER_DTYPE_F16);
  assert_int_equal(fs[0].results[1].shape[0], 3);
  assert_string_equal(fs[1].name, "second");
  assert_non_null(strstr(skipped, "@scalar: argument 1 is f32, not a static tensor"));
  /* The count goes on past the cap. */
  assert_int_equal(prunerIrTensorFunctions(f->module, fs, 1, skipped, sizeof skipped), 2);
  assert_string_equal(fs[0].name, "mm");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_walk_tunable_ops, setup, teardown),
      cmocka_unit_test_setup_teardown(test_space_attr_huge_flops, setup, teardown),
      cmocka_unit_test_setup_teardown(test_matmul_matches_builder, setup, teardown),
      cmocka_unit_test_setup_teardown(test_generic_builders_match_ir, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fill_is_fused_not_tunable, setup, teardown),
      cmocka_unit_test_setup_teardown(test_batch_matmul_matches_builder, setup, teardown),
      cmocka_unit_test_setup_teardown(test_convs_match_builders, setup, teardown),
      cmocka_unit_test_setup_teardown(test_depthwise_and_mixed_precision, setup, teardown),
      cmocka_unit_test_setup_teardown(test_transposed_matmul_is_contraction, setup, teardown),
      cmocka_unit_test_setup_teardown(test_math_body_ops, setup, teardown),
      cmocka_unit_test_setup_teardown(test_generics, setup, teardown),
      cmocka_unit_test_setup_teardown(test_not_tunable_reasons, setup, teardown),
      cmocka_unit_test_setup_teardown(test_config_round_trip, setup, teardown),
      cmocka_unit_test_setup_teardown(test_config_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_lit_count_matches_brute_force, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tensor_functions, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

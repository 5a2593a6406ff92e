/* test/unit/schedule: the tensor-core schedule (mma = 1) checked numerically on the host.
 *
 * The schedule runs with gpu_mapping off: blocks, the fill's thread forall, warps and K
 * steps stay scf.forall / scf.for loops (run sequentially), and each warp's K step is the
 * same vectorized contraction, unrolled to 16x8x16 pieces, that convert-vector-to-gpu
 * turns into mma.sync on the GPU; here the host lowering computes those pieces. So this
 * checks the block / warp / K tiling, the fill and the unrolling, not the upstream lane
 * mapping of mma.sync fragments (that needs a GPU: test/gpu/session.sh). Inputs are f16
 * multiples of 1/8 in [-1, 1] (exact in f16), products and f32 sums are exact: any
 * difference is a bug. Configs: every 16th valid mma config of the space plus hand-written
 * edge cases; max|diff| is printed per config. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/ExecutionEngine.h>
#include <mlir-c/IR.h>
#include <mlir-c/Pass.h>

#include "pruner/apply.h"
#include "pruner/ir.h"
#include "pruner/ir_context.h"
#include "pruner/schedule.h"
#include "pruner/space.h"
#include "pruner/target.h"

#define HOST_LOWERING                                                                              \
  "canonicalize,cse,canonicalize,convert-linalg-to-loops,"                                         \
  "convert-vector-to-scf{full-unroll=true},lower-affine,expand-strided-metadata,"                  \
  "lower-affine,convert-scf-to-cf,convert-vector-to-llvm,finalize-memref-to-llvm,"                 \
  "convert-arith-to-llvm,convert-math-to-llvm,convert-index-to-llvm,convert-cf-to-llvm,"           \
  "convert-ub-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts"

static MlirContext ctx;
static const PrunerApplyOptions kNoMapping = {.gpu_mapping = false, .c_interface = false};
static PrunerTargetDesc target;

static int setup(void **state) {
  (void)state;
  ctx = prunerIrContextCreate();
  mlirContextLoadAllAvailableDialects(ctx);
  assert_true(prunerTargetLookup("sm_90", &target).ok);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  mlirContextDestroy(ctx);
  return 0;
}

static void runPipeline(MlirModule m, const char *pipeline) {
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirLogicalResult r = mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm),
                                              mlirStringRefCreateFromCString(pipeline), NULL, NULL);
  assert_true(mlirLogicalResultIsSuccess(r));
  r = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(m));
  mlirPassManagerDestroy(pm);
  assert_true(mlirLogicalResultIsSuccess(r));
}

static int64_t numElements(const PrunerOperand *o) {
  int64_t n = 1;
  for (int d = 0; d < o->rank; ++d)
    n *= o->shape[d];
  return n;
}

typedef void (*Fn3)(PrunerMemrefDescriptor *, PrunerMemrefDescriptor *, PrunerMemrefDescriptor *,
                    PrunerMemrefDescriptor *);

/* Operand data: A and B f16, C f32 (the only layout the mma rules accept). */
typedef struct Data {
  _Float16 *a, *b;
  float *c;
} Data;

static void runKernel(MlirModule m, const PrunerWorkload *w, const Data *d, float *out) {
  MlirStringRef lib =
      mlirStringRefCreateFromCString("/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so");
  MlirExecutionEngine jit = mlirExecutionEngineCreate(m, 0, 1, &lib, false, false);
  assert_false(mlirExecutionEngineIsNull(jit));
  void *fn = mlirExecutionEngineLookup(jit, mlirStringRefCreateFromCString("_mlir_ciface_kernel"));
  assert_non_null(fn);
  size_t na = (size_t)numElements(&w->operands[0]), nb = (size_t)numElements(&w->operands[1]),
         nc = (size_t)numElements(&w->operands[2]);
  _Float16 *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b);
  float *c = malloc(nc * sizeof *c);
  memcpy(a, d->a, na * sizeof *a);
  memcpy(b, d->b, nb * sizeof *b);
  memcpy(c, d->c, nc * sizeof *c);
  PrunerMemrefDescriptor args[3], result;
  prunerScheduleMemrefDescriptor(&args[0], a, &w->operands[0]);
  prunerScheduleMemrefDescriptor(&args[1], b, &w->operands[1]);
  prunerScheduleMemrefDescriptor(&args[2], c, &w->operands[2]);
  memset(&result, 0, sizeof result);
  ((Fn3)fn)(&result, &args[0], &args[1], &args[2]);
  const float *res = (const float *)result.aligned + result.offset;
  memcpy(out, res, nc * sizeof(float));
  free(a);
  free(b);
  free(c);
  mlirExecutionEngineDestroy(jit);
}

static MlirModule parseWithCInterface(const char *text) {
  MlirModule m = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  assert_false(mlirModuleIsNull(m));
  MlirOperation f = prunerIrLookupSymbol(m, "kernel");
  assert_false(mlirOperationIsNull(f));
  mlirOperationSetDiscardableAttributeByName(
      f, mlirStringRefCreateFromCString("llvm.emit_c_interface"), mlirUnitAttrGet(ctx));
  return m;
}

/* The configured op (the last linalg op of @kernel) as a workload. */
static void opWorkload(MlirModule m, PrunerWorkload *w) {
  MlirOperation f = prunerIrLookupSymbol(m, "kernel");
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(f, 0));
  MlirOperation last = {NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (prunerIsLinalgOp(op) && !prunerIsFusedLinalgOp(op))
      last = op;
  assert_false(mlirOperationIsNull(last));
  assert_true(prunerWorkloadFromOperation(last, w).ok);
}

static void randomData(const PrunerWorkload *w, Data *d) {
  unsigned seed = 4321;
  int64_t na = numElements(&w->operands[0]), nb = numElements(&w->operands[1]),
          nc = numElements(&w->operands[2]);
  d->a = malloc((size_t)na * sizeof *d->a);
  d->b = malloc((size_t)nb * sizeof *d->b);
  d->c = malloc((size_t)nc * sizeof *d->c);
  for (int64_t i = 0; i < na; ++i)
    d->a[i] = (_Float16)((float)((int)(rand_r(&seed) % 17) - 8) / 8.0f);
  for (int64_t i = 0; i < nb; ++i)
    d->b[i] = (_Float16)((float)((int)(rand_r(&seed) % 17) - 8) / 8.0f);
  for (int64_t i = 0; i < nc; ++i) /* the fill must overwrite these */
    d->c[i] = (float)((int)(rand_r(&seed) % 17) - 8);
}

/* The one linalg.matmul under `m`. */
static MlirOperation findMatmul(MlirModule m) {
  MlirOperation f = prunerIrLookupSymbol(m, "kernel");
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(f, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
    if (name.length == 13 && strncmp(name.data, "linalg.matmul", 13) == 0)
      return op;
  }
  fail_msg("no linalg.matmul after the rewrite");
  return (MlirOperation){NULL};
}

/* max |diff| of the tiled program of `text` against the untiled op: its op configured in
 * `text`, or (matmul_config non-NULL) its 1x1 conv rewritten as a matmul
 * (prunerIrConv1x1ToMatmul) that then gets `matmul_config`. */
static double checkModuleAs(const char *text, const char *matmul_config, const char *label) {
  MlirModule ref = parseWithCInterface(text);
  PrunerWorkload w;
  opWorkload(ref, &w);
  Data d;
  randomData(&w, &d);
  size_t nc = (size_t)numElements(&w.operands[2]);
  float *want = malloc(nc * sizeof(float)), *got = malloc(nc * sizeof(float));
  runPipeline(ref, "builtin.module(one-shot-bufferize{bufferize-function-boundaries "
                   "function-boundary-type-conversion=identity-layout-map}," HOST_LOWERING ")");
  runKernel(ref, &w, &d, want);
  mlirModuleDestroy(ref);

  MlirModule m = parseWithCInterface(text);
  if (matmul_config) {
    int rewritten = 0;
    assert_true(prunerIrConv1x1ToMatmul(mlirModuleGetOperation(m), &rewritten).ok);
    assert_int_equal(rewritten, 1);
    MlirAttribute attr =
        mlirAttributeParseGet(ctx, mlirStringRefCreateFromCString(matmul_config));
    assert_false(mlirAttributeIsNull(attr));
    mlirOperationSetDiscardableAttributeByName(
        findMatmul(m), mlirStringRefCreateFromCString(PRUNER_CONFIG_ATTR), attr);
  }
  PrunerStatus s = prunerApplyConfig(mlirModuleGetOperation(m), "sm_90", &kNoMapping);
  if (!s.ok)
    fail_msg("%s: %s", label, s.message);
  runPipeline(m, "builtin.module(scf-forall-to-for," HOST_LOWERING ")");
  runKernel(m, &w, &d, got);
  mlirModuleDestroy(m);
  double worst = 0;
  for (size_t i = 0; i < nc; ++i) {
    double diff = got[i] > want[i] ? got[i] - want[i] : want[i] - got[i];
    if (diff > worst)
      worst = diff;
  }
  printf("  %-70s max|diff| = %g\n", label, worst);
  free(d.a);
  free(d.b);
  free(d.c);
  free(want);
  free(got);
  return worst;
}

static double checkModule(const char *text, const char *label) {
  return checkModuleAs(text, NULL, label);
}

static char *withConfig(const char *tmpl, const char *config) {
  const char *at = strstr(tmpl, "CONFIG");
  assert_non_null(at);
  size_t size = strlen(tmpl) + strlen(config) + 1;
  char *text = malloc(size);
  snprintf(text, size, "%.*s%s%s", (int)(at - tmpl), tmpl, config, at + 6);
  return text;
}

/* Checks one config (its text) of the space; returns max|diff|. */
typedef double (*ConfigCheck)(const char *config, const char *label, const void *user);

/* `check` on every `stride`-th mma config of `w`'s space; fails on any difference. Returns
 * how many were checked. */
static int checkSpaceMma(const PrunerWorkload *w, uint64_t stride, const char *what,
                         ConfigCheck check, const void *user) {
  PrunerSpace space;
  assert_true(prunerSpaceCreate(w, &target, NULL, &space).ok);
  uint64_t raw = 0, seen = 0;
  int checked = 0;
  PrunerConfig c;
  while (prunerSpaceNext(space, &raw, &c)) {
    if (!c.mma || seen++ % stride)
      continue;
    char config[512], label[600];
    prunerConfigFormat(w, &c, config, sizeof config);
    snprintf(label, sizeof label, "%s %s", what, config);
    double diff = check(config, label, user);
    if (diff != 0)
      fail_msg("%s: max|diff| = %g", label, diff);
    ++checked;
  }
  prunerSpaceDestroy(space);
  return checked;
}

/* The template's op configured with `config`. */
static double checkTemplate(const char *config, const char *label, const void *tmpl) {
  char *text = withConfig(tmpl, config);
  double diff = checkModule(text, label);
  free(text);
  return diff;
}

/* Every `stride`-th mma config of the op's space, then the `extra` configs. Returns how
 * many mma configs were checked. */
static int checkKind(const char *tmpl, uint64_t stride, const char *const *extra) {
  char *plain = withConfig(tmpl, "{}");
  MlirModule m = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(plain));
  assert_false(mlirModuleIsNull(m));
  PrunerWorkload w;
  opWorkload(m, &w);
  mlirModuleDestroy(m);
  free(plain);
  int checked = checkSpaceMma(&w, stride, prunerOpKindName(w.kind), checkTemplate, tmpl);
  for (int i = 0; extra && extra[i]; ++i) {
    char label[600];
    snprintf(label, sizeof label, "%s %s", prunerOpKindName(w.kind), extra[i]);
    double diff = checkTemplate(extra[i], label, tmpl);
    if (diff != 0)
      fail_msg("%s: max|diff| = %g", label, diff);
    ++checked;
  }
  return checked;
}

static void test_matmul(void **state) {
  (void)state;
  static const char *tmpl =
      "func.func @kernel(%A: tensor<64x96xf16>, %B: tensor<96x32xf16>, %C: tensor<64x32xf32>) -> "
      "tensor<64x32xf32> {\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %f = linalg.fill ins(%z : f32) outs(%C : tensor<64x32xf32>) -> tensor<64x32xf32>\n"
      "  %r = linalg.matmul {pruner.config = CONFIG} ins(%A, %B : tensor<64x96xf16>, "
      "tensor<96x32xf16>)\n"
      "      outs(%f : tensor<64x32xf32>) -> tensor<64x32xf32>\n"
      "  return %r : tensor<64x32xf32>\n}\n";
  static const char *extra[] = {
      /* One block of 2 x 2 warps, two K steps of 48; one warp with one 16x8 tile. */
      "{workgroup = [64, 32, 0], reduction = [0, 0, 48], thread = [32, 16, 0], "
      "promote_operands = [], vector_width = 1, mma = 1}",
      "{workgroup = [16, 8, 0], reduction = [0, 0, 16], thread = [16, 8, 0], "
      "promote_operands = [], vector_width = 1, mma = 1}",
      /* 4 x 2 warps of 16 x 16, K step 48 (three mma K pieces). */
      "{workgroup = [64, 32, 0], reduction = [0, 0, 48], thread = [16, 16, 0], "
      "promote_operands = [], vector_width = 1, mma = 1}",
      /* Staged in shared memory: 2 x 2 warps, K steps of 32 and 48; one warp. */
      "{workgroup = [64, 32, 0], reduction = [0, 0, 32], thread = [32, 16, 0], "
      "promote_operands = [0, 1], vector_width = 1, mma = 1}",
      "{workgroup = [64, 32, 0], reduction = [0, 0, 48], thread = [32, 16, 0], "
      "promote_operands = [0, 1], vector_width = 1, mma = 1}",
      "{workgroup = [16, 8, 0], reduction = [0, 0, 16], thread = [16, 8, 0], "
      "promote_operands = [0, 1], vector_width = 1, mma = 1}",
      /* Pipelined: 2 and 3 stage buffers (K = 96: 3 steps). */
      "{workgroup = [64, 32, 0], reduction = [0, 0, 32], thread = [32, 16, 0], "
      "promote_operands = [0, 1], vector_width = 1, mma = 1, stages = 2}",
      "{workgroup = [64, 32, 0], reduction = [0, 0, 32], thread = [32, 16, 0], "
      "promote_operands = [0, 1], vector_width = 1, mma = 1, stages = 3}",
      NULL};
  /* An odd stride: the space lists each tile choice direct, then staged. */
  assert_true(checkKind(tmpl, 15, extra) > 3); /* the space has mma configs */
}

static void test_matmul_no_fill(void **state) {
  (void)state;
  /* Accumulating into C: the accumulator starts from C's values. */
  static const char *tmpl = "func.func @kernel(%A: tensor<32x32xf16>, %B: tensor<32x16xf16>, %C: "
                            "tensor<32x16xf32>) -> tensor<32x16xf32> {\n"
                            "  %r = linalg.matmul {pruner.config = CONFIG} ins(%A, %B : "
                            "tensor<32x32xf16>, tensor<32x16xf16>)\n"
                            "      outs(%C : tensor<32x16xf32>) -> tensor<32x16xf32>\n"
                            "  return %r : tensor<32x16xf32>\n}\n";
  static const char *extra[] = {
      "{workgroup = [32, 16, 0], reduction = [0, 0, 16], thread = [16, 8, 0], "
      "promote_operands = [], vector_width = 1, mma = 1}",
      "{workgroup = [32, 16, 0], reduction = [0, 0, 16], thread = [16, 8, 0], "
      "promote_operands = [0, 1], vector_width = 1, mma = 1}",
      "{workgroup = [32, 16, 0], reduction = [0, 0, 16], thread = [32, 16, 0], "
      "promote_operands = [0, 1], vector_width = 1, mma = 1, stages = 2}",
      NULL};
  checkKind(tmpl, 7, extra);
}

static void test_batch_matmul(void **state) {
  (void)state;
  static const char *tmpl =
      "func.func @kernel(%A: tensor<3x32x64xf16>, %B: tensor<3x64x48xf16>, %C: "
      "tensor<3x32x48xf32>) -> tensor<3x32x48xf32> {\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %f = linalg.fill ins(%z : f32) outs(%C : tensor<3x32x48xf32>) -> tensor<3x32x48xf32>\n"
      "  %r = linalg.batch_matmul {pruner.config = CONFIG} ins(%A, %B : tensor<3x32x64xf16>, "
      "tensor<3x64x48xf16>)\n"
      "      outs(%f : tensor<3x32x48xf32>) -> tensor<3x32x48xf32>\n"
      "  return %r : tensor<3x32x48xf32>\n}\n";
  static const char *extra[] = {
      "{workgroup = [1, 32, 48, 0], reduction = [0, 0, 0, 32], thread = [1, 16, 24, 0], "
      "promote_operands = [], vector_width = 1, mma = 1}",
      "{workgroup = [1, 32, 48, 0], reduction = [0, 0, 0, 32], thread = [1, 16, 24, 0], "
      "promote_operands = [0, 1], vector_width = 1, mma = 1}",
      "{workgroup = [1, 32, 16, 0], reduction = [0, 0, 0, 16], thread = [1, 32, 16, 0], "
      "promote_operands = [0, 1], vector_width = 1, mma = 1, stages = 3}",
      NULL};
  assert_true(checkKind(tmpl, 7, extra) > 1);
}

/* The module's 1x1 conv rewritten as a matmul that gets `config`. */
static double checkRewritten(const char *config, const char *label, const void *text) {
  return checkModuleAs(text, config, label);
}

/* A 1x1 stride-1 conv over two images rewritten as the GEMM it is: M = 2 * 6 * 8 = 96
 * rows cross image rows and images, which no conv tile may (docs/config.md rule 12); the
 * GEMM's tensor-core tiles must still compute the conv exactly. */
static void test_conv1x1_as_matmul(void **state) {
  (void)state;
  static const char *text =
      "func.func @kernel(%I: tensor<2x6x8x64xf16>, %W: tensor<1x1x64x48xf16>, %O: "
      "tensor<2x6x8x48xf32>) -> tensor<2x6x8x48xf32> {\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %f = linalg.fill ins(%z : f32) outs(%O : tensor<2x6x8x48xf32>) -> "
      "tensor<2x6x8x48xf32>\n"
      "  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = "
      "dense<1> : tensor<2xi64>} ins(%I, %W : tensor<2x6x8x64xf16>, tensor<1x1x64x48xf16>)\n"
      "      outs(%f : tensor<2x6x8x48xf32>) -> tensor<2x6x8x48xf32>\n"
      "  return %r : tensor<2x6x8x48xf32>\n}\n";
  /* The GEMM's space: rewrite once and read the matmul's workload. */
  MlirModule m = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  assert_false(mlirModuleIsNull(m));
  assert_true(prunerIrConv1x1ToMatmul(mlirModuleGetOperation(m), NULL).ok);
  PrunerWorkload w;
  assert_true(prunerWorkloadFromOperation(findMatmul(m), &w).ok);
  mlirModuleDestroy(m);
  assert_int_equal(w.bounds[0], 96);
  int checked = checkSpaceMma(&w, 5, "conv 1x1 as matmul", checkRewritten, text);
  /* Pipelined, M tiles of 32 rows: rows 0-31 of image 0 span its output rows 0-3. */
  const char *extra = "{workgroup = [32, 16, 0], reduction = [0, 0, 32], thread = [32, 8, 0], "
                      "promote_operands = [0, 1], vector_width = 1, mma = 1, stages = 2}";
  double diff = checkModuleAs(text, extra, "conv 1x1 as matmul, pipelined 32x16 blocks");
  if (diff != 0)
    fail_msg("pipelined: max|diff| = %g", diff);
  assert_true(checked > 3);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matmul),
      cmocka_unit_test(test_matmul_no_fill),
      cmocka_unit_test(test_batch_matmul),
      cmocka_unit_test(test_conv1x1_as_matmul),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

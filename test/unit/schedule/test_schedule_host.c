/* test/unit/schedule: schedules checked numerically on the host, without a GPU.
 *
 * Each case is a function on tensors. The tiled program comes from the schedule with
 * gpu_mapping off (scf.forall kept, then run as scf.for), lowered with the host pipeline
 * (docs/host.md, H1) and run through the ExecutionEngine C API; the reference is the same
 * function bufferized untiled. Inputs are random multiples of 1/8 in [-1, 1], so every
 * f32 product and sum here is exact: any difference is a tiling, fusion or vectorization
 * bug, not rounding. Configs come from the space (evenly spaced valid indices) and from
 * hand-written ones that stress edge cases (one block, one thread, strided convs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/Diagnostics.h>
#include <mlir-c/Dialect/Transform/Interpreter.h>
#include <mlir-c/ExecutionEngine.h>
#include <mlir-c/IR.h>
#include <mlir-c/Pass.h>

#include "pruner/apply.h"
#include "pruner/ir.h"
#include "pruner/ir_context.h"
#include "pruner/schedule.h"
#include "pruner/schedule_ir.h"
#include "pruner/space.h"
#include "pruner/target.h"

#define HOST_LOWERING                                                                     \
  "canonicalize,cse,canonicalize,convert-linalg-to-loops,"                                \
  "convert-vector-to-scf{full-unroll=true},lower-affine,expand-strided-metadata,"         \
  "lower-affine,convert-scf-to-cf,convert-vector-to-llvm,finalize-memref-to-llvm,"        \
  "convert-arith-to-llvm,convert-math-to-llvm,convert-index-to-llvm,convert-cf-to-llvm,"  \
  "convert-ub-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts"

static MlirContext ctx;
/* The schedules run on the CPU: scf.forall kept, converted to loops. */
static const PrunerApplyOptions kNoMapping = {.gpu_mapping = false, .c_interface = false};
static PrunerTargetDesc target;

static int setup(void **state) {
  (void)state;
  ctx = prunerIrContextCreate();
  mlirContextLoadAllAvailableDialects(ctx);
  PrunerStatus s = prunerTargetLookup("sm_90", &target);
  assert_true(s.ok);
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


typedef void (*Fn2)(PrunerMemrefDescriptor *, PrunerMemrefDescriptor *, PrunerMemrefDescriptor *);
typedef void (*Fn3)(PrunerMemrefDescriptor *, PrunerMemrefDescriptor *, PrunerMemrefDescriptor *, PrunerMemrefDescriptor *);
typedef void (*Fn4)(PrunerMemrefDescriptor *, PrunerMemrefDescriptor *, PrunerMemrefDescriptor *, PrunerMemrefDescriptor *, PrunerMemrefDescriptor *);

/* JIT-compiles the lowered module and runs @kernel on copies of `data` (one f32 array per
 * operand); the function's result (its single output) is copied into `out`. */
static void runKernel(MlirModule m, const PrunerWorkload *w, float *const *data, float *out) {
  MlirStringRef lib = mlirStringRefCreateFromCString("/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so");
  MlirExecutionEngine jit = mlirExecutionEngineCreate(m, 0, 1, &lib, false, false);
  assert_false(mlirExecutionEngineIsNull(jit));
  void *fn = mlirExecutionEngineLookup(jit, mlirStringRefCreateFromCString("_mlir_ciface_kernel"));
  assert_non_null(fn);
  int nops = w->num_inputs + w->num_outputs;
  PrunerMemrefDescriptor args[PRUNER_MAX_OPERANDS], result;
  float *copies[PRUNER_MAX_OPERANDS];
  for (int o = 0; o < nops; ++o) {
    size_t bytes = (size_t)numElements(&w->operands[o]) * sizeof(float);
    copies[o] = malloc(bytes);
    memcpy(copies[o], data[o], bytes);
    prunerScheduleMemrefDescriptor(&args[o], copies[o], &w->operands[o]);
  }
  memset(&result, 0, sizeof result);
  switch (nops) {
  case 2: ((Fn2)fn)(&result, &args[0], &args[1]); break;
  case 3: ((Fn3)fn)(&result, &args[0], &args[1], &args[2]); break;
  case 4: ((Fn4)fn)(&result, &args[0], &args[1], &args[2], &args[3]); break;
  default: fail_msg("%d operands not supported by the harness", nops);
  }
  const PrunerOperand *o = &w->operands[w->num_inputs];
  const float *res = (const float *)result.aligned + result.offset;
  /* Identity layout is what bufferization was asked for; check before reading. */
  int64_t stride = 1;
  for (int i = o->rank - 1; i >= 0; --i) {
    assert_int_equal(result.sizes_strides[i], o->shape[i]);
    assert_int_equal(result.sizes_strides[o->rank + i], stride);
    stride *= o->shape[i];
  }
  memcpy(out, res, (size_t)numElements(o) * sizeof(float));
  for (int i = 0; i < nops; ++i)
    free(copies[i]);
  mlirExecutionEngineDestroy(jit);
}

static MlirModule parseWithCInterface(const char *text) {
  MlirModule m = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  assert_false(mlirModuleIsNull(m));
  MlirOperation f = prunerIrLookupSymbol(m, "kernel");
  assert_false(mlirOperationIsNull(f));
  mlirOperationSetDiscardableAttributeByName(f, mlirStringRefCreateFromCString("llvm.emit_c_interface"),
                                             mlirUnitAttrGet(ctx));
  return m;
}

static void reference(const char *text, const PrunerWorkload *w, float *const *data, float *out) {
  MlirModule m = parseWithCInterface(text);
  runPipeline(m, "builtin.module(one-shot-bufferize{bufferize-function-boundaries "
                 "function-boundary-type-conversion=identity-layout-map}," HOST_LOWERING ")");
  runKernel(m, w, data, out);
  mlirModuleDestroy(m);
}

static float *randomData(const PrunerOperand *o, unsigned *seed) {
  int64_t n = numElements(o);
  float *d = malloc((size_t)n * sizeof(float));
  for (int64_t i = 0; i < n; ++i)
    d[i] = (float)((int)(rand_r(seed) % 17) - 8) / 8.0f; /* multiples of 1/8 in [-1, 1] */
  return d;
}

static double compare(const PrunerWorkload *w, const float *got, const float *want) {
  double worst = 0;
  int64_t n = numElements(&w->operands[w->num_inputs]);
  for (int64_t i = 0; i < n; ++i) {
    double d = got[i] > want[i] ? got[i] - want[i] : want[i] - got[i];
    if (d > worst)
      worst = d;
  }
  return worst;
}

/* The first configured op of a module, as a workload (all cases here have one output of
 * the function, produced by the last op). */
static void lastOpWorkload(MlirModule m, PrunerWorkload *w, MlirOperation *op_out) {
  MlirOperation f = prunerIrLookupSymbol(m, "kernel");
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(f, 0));
  MlirOperation op = mlirBlockGetFirstOperation(body), last = {NULL};
  while (!mlirOperationIsNull(op)) {
    if (prunerIsLinalgOp(op) && !prunerIsFusedLinalgOp(op))
      last = op;
    op = mlirOperationGetNextInBlock(op);
  }
  assert_false(mlirOperationIsNull(last));
  PrunerStatus s = prunerWorkloadFromOperation(last, w);
  assert_true(s.ok);
  if (op_out)
    *op_out = last;
}

/* Runs the function in `text` (whose ops carry pruner.config) through pruner-apply-config
 * without GPU mapping and against the untiled reference; returns max |diff|. */
static double checkModule(const char *text, const char *label) {
  MlirModule m = parseWithCInterface(text);
  PrunerWorkload w;
  lastOpWorkload(m, &w, NULL);
  /* The function's operands: the last op's inputs/outputs are the function arguments in
   * every case below. */
  unsigned seed = 1234;
  float *data[PRUNER_MAX_OPERANDS];
  int nops = w.num_inputs + w.num_outputs;
  MlirOperation f = prunerIrLookupSymbol(m, "kernel");
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(f, 0));
  int nargs = (int)mlirBlockGetNumArguments(entry);
  assert_int_equal(nargs, nops);
  for (int o = 0; o < nops; ++o)
    data[o] = randomData(&w.operands[o], &seed);

  float *want = malloc((size_t)numElements(&w.operands[w.num_inputs]) * sizeof(float));
  float *got = malloc((size_t)numElements(&w.operands[w.num_inputs]) * sizeof(float));
  reference(text, &w, data, want);

  PrunerStatus s = prunerApplyConfig(mlirModuleGetOperation(m), "sm_90", &kNoMapping);
  if (!s.ok)
    fail_msg("%s: %s", label, s.message);
  runPipeline(m, "builtin.module(scf-forall-to-for," HOST_LOWERING ")");
  runKernel(m, &w, data, got);
  double diff = compare(&w, got, want);
  printf("  %-60s max|diff| = %g\n", label, diff);
  for (int o = 0; o < nops; ++o)
    free(data[o]);
  free(want);
  free(got);
  mlirModuleDestroy(m);
  return diff;
}

/* Substitutes the config text for the "CONFIG" marker of `tmpl`. */
static char *withConfig(const char *tmpl, const char *config) {
  const char *at = strstr(tmpl, "CONFIG");
  assert_non_null(at);
  size_t size = strlen(tmpl) + strlen(config) + 1;
  char *text = malloc(size);
  snprintf(text, size, "%.*s%s%s", (int)(at - tmpl), tmpl, config, at + 6);
  return text;
}

/* Checks the op of `tmpl` under `samples` evenly spaced valid configs of its space plus
 * the hand-written `extra` configs (NULL-terminated). */
static void checkKind(const char *tmpl, int samples, const char *const *extra) {
  /* The space of the op (parsed once without a config). */
  char *plain = withConfig(tmpl, "{}"); /* the workload ignores the attribute */
  MlirModule m = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(plain));
  assert_false(mlirModuleIsNull(m));
  PrunerWorkload w;
  lastOpWorkload(m, &w, NULL);
  mlirModuleDestroy(m);
  free(plain);
  PrunerSpace space;
  PrunerStatus s = prunerSpaceCreate(&w, &target, NULL, &space);
  assert_true(s.ok);
  uint64_t count = prunerSpaceCount(space);
  assert_true(count > 0);
  for (int i = 0; i < samples; ++i) {
    uint64_t index = (uint64_t)i * (count - 1) / (uint64_t)(samples > 1 ? samples - 1 : 1);
    PrunerConfig c;
    s = prunerSpaceGetConfig(space, index, &c);
    assert_true(s.ok);
    char config[512], label[600];
    prunerConfigFormat(&w, &c, config, sizeof config);
    char *text = withConfig(tmpl, config);
    snprintf(label, sizeof label, "%s #%llu %s", prunerOpKindName(w.kind),
             (unsigned long long)index, config);
    double diff = checkModule(text, label);
    free(text);
    if (diff != 0)
      fail_msg("%s: max|diff| = %g", label, diff);
  }
  prunerSpaceDestroy(space);
  for (int i = 0; extra && extra[i]; ++i) {
    char *text = withConfig(tmpl, extra[i]);
    char label[600];
    snprintf(label, sizeof label, "%s %s", prunerOpKindName(w.kind), extra[i]);
    double diff = checkModule(text, label);
    free(text);
    if (diff != 0)
      fail_msg("%s: max|diff| = %g", label, diff);
  }
}

static void test_matmul(void **state) {
  (void)state;
  static const char *tmpl =
      "func.func @kernel(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>) -> tensor<64x96xf32> {\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %f = linalg.fill ins(%z : f32) outs(%C : tensor<64x96xf32>) -> tensor<64x96xf32>\n"
      "  %r = linalg.matmul {pruner.config = CONFIG} ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>)\n"
      "      outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>\n"
      "  return %r : tensor<64x96xf32>\n}\n";
  static const char *extra[] = {
      "{workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], promote_operands = [], vector_width = 4}",
      "{workgroup = [64, 96, 0], reduction = [0, 0, 48], thread = [8, 3, 0], promote_operands = [], vector_width = 1}",
      "{workgroup = [16, 32, 0], reduction = [0, 0, 8], thread = [2, 4, 0], promote_operands = [], vector_width = 4}",
      /* Shared-memory promotion: both, A only, B only; scalar; K not tiled (one stage). */
      "{workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], promote_operands = [0, 1], vector_width = 4}",
      "{workgroup = [16, 32, 0], reduction = [0, 0, 8], thread = [2, 4, 0], promote_operands = [0], vector_width = 2}",
      "{workgroup = [32, 16, 0], reduction = [0, 0, 4], thread = [4, 2, 0], promote_operands = [1], vector_width = 2}",
      "{workgroup = [64, 32, 0], reduction = [0, 0, 12], thread = [8, 2, 0], promote_operands = [0, 1], vector_width = 1}",
      "{workgroup = [32, 96, 0], reduction = [0, 0, 48], thread = [2, 8, 0], promote_operands = [0], vector_width = 4}",
      NULL};
  checkKind(tmpl, 6, extra);
}

static void test_matmul_no_fill(void **state) {
  (void)state;
  /* Accumulating into C (no fill): the accumulator must start from C's values. */
  static const char *tmpl =
      "func.func @kernel(%A: tensor<32x16xf32>, %B: tensor<16x64xf32>, %C: tensor<32x64xf32>) -> tensor<32x64xf32> {\n"
      "  %r = linalg.matmul {pruner.config = CONFIG} ins(%A, %B : tensor<32x16xf32>, tensor<16x64xf32>)\n"
      "      outs(%C : tensor<32x64xf32>) -> tensor<32x64xf32>\n"
      "  return %r : tensor<32x64xf32>\n}\n";
  checkKind(tmpl, 2, NULL);
}

/* f16 inputs, f32 output, with 16-byte vectors (vector_width = 8, docs/config.md rule 1):
 * the harness feeds f32 and the function truncates to f16 first (multiples of 1/8 in
 * [-1, 1] are exact in f16). Direct and promoted, plus the space's samples. */
static void test_matmul_f16_wide(void **state) {
  (void)state;
  static const char *tmpl =
      "func.func @kernel(%A: tensor<32x32xf32>, %B: tensor<32x64xf32>, %C: tensor<32x64xf32>) -> tensor<32x64xf32> {\n"
      "  %ae = tensor.empty() : tensor<32x32xf16>\n"
      "  %be = tensor.empty() : tensor<32x64xf16>\n"
      "  %a = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = [\"parallel\", \"parallel\"]}\n"
      "      ins(%A : tensor<32x32xf32>) outs(%ae : tensor<32x32xf16>) {\n"
      "  ^bb0(%x: f32, %y: f16):\n    %t = arith.truncf %x : f32 to f16\n    linalg.yield %t : f16\n  } -> tensor<32x32xf16>\n"
      "  %b = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = [\"parallel\", \"parallel\"]}\n"
      "      ins(%B : tensor<32x64xf32>) outs(%be : tensor<32x64xf16>) {\n"
      "  ^bb0(%x: f32, %y: f16):\n    %t = arith.truncf %x : f32 to f16\n    linalg.yield %t : f16\n  } -> tensor<32x64xf16>\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %f = linalg.fill ins(%z : f32) outs(%C : tensor<32x64xf32>) -> tensor<32x64xf32>\n"
      "  %r = linalg.matmul {pruner.config = CONFIG} ins(%a, %b : tensor<32x32xf16>, tensor<32x64xf16>)\n"
      "      outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>\n"
      "  return %r : tensor<32x64xf32>\n}\n";
  static const char *extra[] = {
      "{workgroup = [16, 64, 0], reduction = [0, 0, 8], thread = [2, 8, 0], promote_operands = [], vector_width = 8}",
      "{workgroup = [16, 64, 0], reduction = [0, 0, 8], thread = [1, 8, 0], promote_operands = [0, 1], vector_width = 8}",
      "{workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [4, 8, 0], promote_operands = [1], vector_width = 8}",
      NULL};
  checkKind(tmpl, 6, extra);
}

static void test_batch_matmul(void **state) {
  (void)state;
  static const char *tmpl =
      "func.func @kernel(%A: tensor<3x32x16xf32>, %B: tensor<3x16x64xf32>, %C: tensor<3x32x64xf32>) -> tensor<3x32x64xf32> {\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %f = linalg.fill ins(%z : f32) outs(%C : tensor<3x32x64xf32>) -> tensor<3x32x64xf32>\n"
      "  %r = linalg.batch_matmul {pruner.config = CONFIG} ins(%A, %B : tensor<3x32x16xf32>, tensor<3x16x64xf32>)\n"
      "      outs(%f : tensor<3x32x64xf32>) -> tensor<3x32x64xf32>\n"
      "  return %r : tensor<3x32x64xf32>\n}\n";
  static const char *extra[] = {
      "{workgroup = [1, 32, 32, 0], reduction = [0, 0, 0, 8], thread = [1, 4, 4, 0], promote_operands = [], vector_width = 4}",
      "{workgroup = [1, 32, 32, 0], reduction = [0, 0, 0, 8], thread = [1, 4, 4, 0], promote_operands = [0, 1], vector_width = 4}",
      "{workgroup = [3, 16, 16, 0], reduction = [0, 0, 0, 16], thread = [1, 2, 4, 0], promote_operands = [0, 1], vector_width = 4}",
      NULL};
  checkKind(tmpl, 6, extra);
}

static void test_conv_nhwc(void **state) {
  (void)state;
  static const char *tmpl =
      "func.func @kernel(%I: tensor<1x10x10x8xf32>, %W: tensor<3x3x8x16xf32>, %O: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %f = linalg.fill ins(%z : f32) outs(%O : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>\n"
      "  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, pruner.config = CONFIG}\n"
      "      ins(%I, %W : tensor<1x10x10x8xf32>, tensor<3x3x8x16xf32>) outs(%f : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>\n"
      "  return %r : tensor<1x8x8x16xf32>\n}\n";
  static const char *extra[] = {
      "{workgroup = [1, 4, 8, 16, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 3, 8], thread = [1, 2, 2, 4, 0, 0, 0], promote_operands = [], vector_width = 4}",
      /* Implicit GEMM: the im2col tile (and the filter's) staged per K step of c. */
      "{workgroup = [1, 1, 8, 16, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 1, 4], thread = [1, 1, 1, 4, 0, 0, 0], promote_operands = [0, 1], vector_width = 4}",
      "{workgroup = [1, 1, 4, 16, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 1, 8], thread = [1, 1, 1, 2, 0, 0, 0], promote_operands = [0], vector_width = 2}",
      "{workgroup = [1, 1, 8, 8, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 1, 2], thread = [1, 1, 1, 1, 0, 0, 0], promote_operands = [0, 1], vector_width = 1}",
      NULL};
  checkKind(tmpl, 6, extra);
}

static void test_conv_nchw_7x7_stride2(void **state) {
  (void)state;
  static const char *tmpl =
      "func.func @kernel(%I: tensor<1x3x21x21xf32>, %W: tensor<8x3x7x7xf32>, %O: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %f = linalg.fill ins(%z : f32) outs(%O : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>\n"
      "  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>, pruner.config = CONFIG}\n"
      "      ins(%I, %W : tensor<1x3x21x21xf32>, tensor<8x3x7x7xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>\n"
      "  return %r : tensor<1x8x8x8xf32>\n}\n";
  static const char *extra[] = {
      "{workgroup = [1, 8, 4, 8, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 1, 7], thread = [1, 2, 1, 2, 0, 0, 0], promote_operands = [], vector_width = 2}",
      NULL};
  checkKind(tmpl, 6, extra);
}

static void test_elementwise(void **state) {
  (void)state;
  static const char *tmpl =
      "func.func @kernel(%X: tensor<32x64xf32>, %b: tensor<64xf32>, %O: tensor<32x64xf32>) -> tensor<32x64xf32> {\n"
      "  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],\n"
      "      iterator_types = [\"parallel\", \"parallel\"], pruner.config = CONFIG}\n"
      "      ins(%X, %b : tensor<32x64xf32>, tensor<64xf32>) outs(%O : tensor<32x64xf32>) {\n"
      "  ^bb0(%x: f32, %y: f32, %o: f32):\n"
      "    %s = arith.addf %x, %y : f32\n"
      "    %m = arith.maximumf %s, %x : f32\n"
      "    linalg.yield %m : f32\n"
      "  } -> tensor<32x64xf32>\n"
      "  return %r : tensor<32x64xf32>\n}\n";
  checkKind(tmpl, 6, NULL);
}

static void test_reduction(void **state) {
  (void)state;
  static const char *tmpl =
      "func.func @kernel(%X: tensor<4x32x64xf32>, %Y: tensor<4x32xf32>) -> tensor<4x32xf32> {\n"
      "  %r = linalg.generic {indexing_maps = [affine_map<(b, r, c) -> (b, r, c)>, affine_map<(b, r, c) -> (b, r)>],\n"
      "      iterator_types = [\"parallel\", \"parallel\", \"reduction\"], pruner.config = CONFIG}\n"
      "      ins(%X : tensor<4x32x64xf32>) outs(%Y : tensor<4x32xf32>) {\n"
      "  ^bb0(%x: f32, %acc: f32):\n"
      "    %m = arith.maximumf %x, %acc : f32\n"
      "    linalg.yield %m : f32\n"
      "  } -> tensor<4x32xf32>\n"
      "  return %r : tensor<4x32xf32>\n}\n";
  /* Cross-thread reductions (reduction_threads > 1): partial buffers, their fill, the
   * combine; one step per thread, several steps, the combine on fewer threads than R. */
  static const char *const cross[] = {
      "{workgroup = [1, 4, 0], reduction = [0, 0, 1], thread = [1, 4, 0], promote_operands = [], "
      "vector_width = 1, reduction_threads = 32}",
      "{workgroup = [2, 8, 0], reduction = [0, 0, 2], thread = [2, 8, 0], promote_operands = [], "
      "vector_width = 1, reduction_threads = 32}",
      "{workgroup = [1, 32, 0], reduction = [0, 0, 1], thread = [1, 32, 0], promote_operands = [], "
      "vector_width = 1, reduction_threads = 64}",
      /* The two-level combine (R >= 64): 2 elements per first-level thread, and rows of
       * an outer output dim walked by each thread. */
      "{workgroup = [1, 4, 0], reduction = [0, 0, 1], thread = [1, 4, 0], promote_operands = [], "
      "vector_width = 1, reduction_threads = 64}",
      "{workgroup = [2, 16, 0], reduction = [0, 0, 1], thread = [2, 16, 0], promote_operands = [], "
      "vector_width = 1, reduction_threads = 64}",
      NULL};
  checkKind(tmpl, 6, cross);
}

static bool isCrossThread(const PrunerConfig *c) { return prunerConfigReductionThreads(c) > 1; }
static bool isSplitK(const PrunerConfig *c) { return prunerConfigSplitK(c) > 1; }
static bool isImplicitGemm(const PrunerConfig *c) { return c->promote_operands != 0; }

/* Every `stride`-th config of the op's space that `pick` selects (every one with
 * PRUNER_HOST_CHECK_ALL=1: the compile study's host check, docs/compile.md). */
static void checkConfigsWhere(const char *tmpl, bool (*pick)(const PrunerConfig *), int stride,
                              const char *what) {
  char *plain = withConfig(tmpl, "{}");
  MlirModule m = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(plain));
  assert_false(mlirModuleIsNull(m));
  PrunerWorkload w;
  lastOpWorkload(m, &w, NULL);
  mlirModuleDestroy(m);
  free(plain);
  PrunerSpace space;
  assert_true(prunerSpaceCreate(&w, &target, NULL, &space).ok);
  const char *all = getenv("PRUNER_HOST_CHECK_ALL");
  if (all && all[0] == '1')
    stride = 1;
  uint64_t raw = 0, index = 0;
  int seen = 0, checked = 0;
  PrunerConfig c;
  for (; prunerSpaceNext(space, &raw, &c); ++index) {
    if (!pick(&c) || seen++ % stride)
      continue;
    char config[512], label[600];
    prunerConfigFormat(&w, &c, config, sizeof config);
    char *text = withConfig(tmpl, config);
    snprintf(label, sizeof label, "%s #%llu %s", prunerOpKindName(w.kind),
             (unsigned long long)index, config);
    double diff = checkModule(text, label);
    free(text);
    if (diff != 0)
      fail_msg("%s: max|diff| = %g", label, diff);
    ++checked;
  }
  printf("  %d of %d %s configs checked\n", checked, seen, what);
  assert_true(checked > 0);
  prunerSpaceDestroy(space);
}

static void checkCrossThreadConfigs(const char *tmpl) {
  checkConfigsWhere(tmpl, isCrossThread, 8, "cross-thread");
}

/* Implicit-GEMM convs (promote_operands on a conv_2d_nhwc_hwcf, docs/schedule.md): the
 * im2col tile built in (shared) memory per K step; strided, batched, 1x1, a 3-channel
 * stem-like (K steps of whole taps) and accumulating (no fill) convs, every 23rd listed
 * config of each space. */
static void test_conv_nhwc_implicit_gemm(void **state) {
  (void)state;
  static const char *const tmpls[] = {
      /* stride 2, with a fill */
      "func.func @kernel(%I: tensor<1x17x17x8xf32>, %W: tensor<3x3x8x16xf32>, %O: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %f = linalg.fill ins(%z : f32) outs(%O : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>\n"
      "  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>, pruner.config = CONFIG}\n"
      "      ins(%I, %W : tensor<1x17x17x8xf32>, tensor<3x3x8x16xf32>) outs(%f : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>\n"
      "  return %r : tensor<1x8x8x16xf32>\n}\n",
      /* batch 2, accumulating into O (no fill) */
      "func.func @kernel(%I: tensor<2x10x10x4xf32>, %W: tensor<3x3x4x32xf32>, %O: tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32> {\n"
      "  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, pruner.config = CONFIG}\n"
      "      ins(%I, %W : tensor<2x10x10x4xf32>, tensor<3x3x4x32xf32>) outs(%O : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>\n"
      "  return %r : tensor<2x8x8x32xf32>\n}\n",
      /* a stem-like conv: 3 channels, stride 2, K steps of whole taps (kw step 3, c 3) */
      "func.func @kernel(%I: tensor<1x15x15x3xf32>, %W: tensor<3x3x3x16xf32>, %O: tensor<1x7x7x16xf32>) -> tensor<1x7x7x16xf32> {\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %f = linalg.fill ins(%z : f32) outs(%O : tensor<1x7x7x16xf32>) -> tensor<1x7x7x16xf32>\n"
      "  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>, pruner.config = CONFIG}\n"
      "      ins(%I, %W : tensor<1x15x15x3xf32>, tensor<3x3x3x16xf32>) outs(%f : tensor<1x7x7x16xf32>) -> tensor<1x7x7x16xf32>\n"
      "  return %r : tensor<1x7x7x16xf32>\n}\n",
      /* 1x1 */
      "func.func @kernel(%I: tensor<1x8x8x32xf32>, %W: tensor<1x1x32x16xf32>, %O: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %f = linalg.fill ins(%z : f32) outs(%O : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>\n"
      "  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, pruner.config = CONFIG}\n"
      "      ins(%I, %W : tensor<1x8x8x32xf32>, tensor<1x1x32x16xf32>) outs(%f : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>\n"
      "  return %r : tensor<1x8x8x16xf32>\n}\n",
  };
  for (size_t i = 0; i < sizeof tmpls / sizeof *tmpls; ++i)
    checkConfigsWhere(tmpls[i], isImplicitGemm, 23, "implicit-GEMM");
}

/* batch_matmul with M = 1 per batch (attention's decode-time q . K^T shape), with a fill:
 * the cross-thread and the split-K checks run it. */
static const char *kBmmDecode =
    "func.func @kernel(%A: tensor<3x1x64xf32>, %B: tensor<3x64x32xf32>, %C: tensor<3x1x32xf32>) -> tensor<3x1x32xf32> {\n"
    "  %z = arith.constant 0.0 : f32\n"
    "  %f = linalg.fill ins(%z : f32) outs(%C : tensor<3x1x32xf32>) -> tensor<3x1x32xf32>\n"
    "  %r = linalg.batch_matmul {pruner.config = CONFIG} ins(%A, %B : tensor<3x1x64xf32>, tensor<3x64x32xf32>)\n"
    "      outs(%f : tensor<3x1x32xf32>) -> tensor<3x1x32xf32>\n"
    "  return %r : tensor<3x1x32xf32>\n}\n";

/* GEMV and skinny contractions with the cross-thread reduction (reduction_threads > 1,
 * docs/schedule.md): the threads split K, partials in shared memory, the fill fused into
 * the combine; the space's evenly spaced samples reach cross-thread configs too (its most
 * significant digit). */
static void test_gemv_cross_thread(void **state) {
  (void)state;
  static const char *tmpl =
      "func.func @kernel(%A: tensor<1x128xf32>, %B: tensor<128x96xf32>, %C: tensor<1x96xf32>) -> tensor<1x96xf32> {\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %f = linalg.fill ins(%z : f32) outs(%C : tensor<1x96xf32>) -> tensor<1x96xf32>\n"
      "  %r = linalg.matmul {pruner.config = CONFIG} ins(%A, %B : tensor<1x128xf32>, tensor<128x96xf32>)\n"
      "      outs(%f : tensor<1x96xf32>) -> tensor<1x96xf32>\n"
      "  return %r : tensor<1x96xf32>\n}\n";
  static const char *const cross[] = {
      "{workgroup = [1, 8, 0], reduction = [0, 0, 4], thread = [1, 8, 0], promote_operands = [], "
      "vector_width = 1, reduction_threads = 32}",
      "{workgroup = [1, 1, 0], reduction = [0, 0, 1], thread = [1, 1, 0], promote_operands = [], "
      "vector_width = 1, reduction_threads = 128}",
      "{workgroup = [1, 32, 0], reduction = [0, 0, 2], thread = [1, 32, 0], promote_operands = [], "
      "vector_width = 1, reduction_threads = 64}",
      /* Two-level combines whose first-level tile is not a power of two: 6 columns on 64
       * threads (3 per thread, 2 x 32 lanes), 12 on 128 (3 per thread, 4 x 32 lanes). */
      "{workgroup = [1, 6, 0], reduction = [0, 0, 2], thread = [1, 6, 0], promote_operands = [], "
      "vector_width = 1, reduction_threads = 64}",
      "{workgroup = [1, 12, 0], reduction = [0, 0, 1], thread = [1, 12, 0], promote_operands = [], "
      "vector_width = 1, reduction_threads = 128}",
      NULL};
  checkKind(tmpl, 6, cross);
  checkCrossThreadConfigs(tmpl);
  /* f16 inputs, f32 accumulation (the decode GEMV's types): the harness feeds f32, the
   * function truncates to f16 first (multiples of 1/8 in [-1, 1] are exact in f16), so
   * the configured matmul's arith.extf runs inside the partial loop. */
  static const char *half =
      "func.func @kernel(%A: tensor<1x128xf32>, %B: tensor<128x64xf32>, %C: tensor<1x64xf32>) -> tensor<1x64xf32> {\n"
      "  %ae = tensor.empty() : tensor<1x128xf16>\n"
      "  %be = tensor.empty() : tensor<128x64xf16>\n"
      "  %a = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = [\"parallel\", \"parallel\"]}\n"
      "      ins(%A : tensor<1x128xf32>) outs(%ae : tensor<1x128xf16>) {\n"
      "  ^bb0(%x: f32, %y: f16):\n    %t = arith.truncf %x : f32 to f16\n    linalg.yield %t : f16\n  } -> tensor<1x128xf16>\n"
      "  %b = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = [\"parallel\", \"parallel\"]}\n"
      "      ins(%B : tensor<128x64xf32>) outs(%be : tensor<128x64xf16>) {\n"
      "  ^bb0(%x: f32, %y: f16):\n    %t = arith.truncf %x : f32 to f16\n    linalg.yield %t : f16\n  } -> tensor<128x64xf16>\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %f = linalg.fill ins(%z : f32) outs(%C : tensor<1x64xf32>) -> tensor<1x64xf32>\n"
      "  %r = linalg.matmul {pruner.config = CONFIG} ins(%a, %b : tensor<1x128xf16>, tensor<128x64xf16>)\n"
      "      outs(%f : tensor<1x64xf32>) -> tensor<1x64xf32>\n"
      "  return %r : tensor<1x64xf32>\n}\n";
  static const char *const half_cross[] = {
      "{workgroup = [1, 16, 0], reduction = [0, 0, 4], thread = [1, 16, 0], promote_operands = [], "
      "vector_width = 1, reduction_threads = 32}",
      "{workgroup = [1, 4, 0], reduction = [0, 0, 1], thread = [1, 4, 0], promote_operands = [], "
      "vector_width = 1, reduction_threads = 64}",
      NULL};
  checkKind(half, 0, half_cross);
  checkCrossThreadConfigs(half);
  /* Skinny M = 2, accumulating into C (no fill): the combine adds C's values once. */
  static const char *acc =
      "func.func @kernel(%A: tensor<2x64xf32>, %B: tensor<64x32xf32>, %C: tensor<2x32xf32>) -> tensor<2x32xf32> {\n"
      "  %r = linalg.matmul {pruner.config = CONFIG} ins(%A, %B : tensor<2x64xf32>, tensor<64x32xf32>)\n"
      "      outs(%C : tensor<2x32xf32>) -> tensor<2x32xf32>\n"
      "  return %r : tensor<2x32xf32>\n}\n";
  static const char *const acc_cross[] = {
      "{workgroup = [2, 4, 0], reduction = [0, 0, 2], thread = [2, 4, 0], promote_operands = [], "
      "vector_width = 1, reduction_threads = 32}",
      NULL};
  checkKind(acc, 2, acc_cross);
  checkCrossThreadConfigs(acc);
  static const char *const bmm_cross[] = {
      "{workgroup = [1, 1, 4, 0], reduction = [0, 0, 0, 1], thread = [1, 1, 4, 0], "
      "promote_operands = [], vector_width = 1, reduction_threads = 32}",
      NULL};
  checkKind(kBmmDecode, 2, bmm_cross);
  checkCrossThreadConfigs(kBmmDecode);
}

static bool isSplitK(const PrunerConfig *c);
static void checkConfigsWhere(const char *tmpl, bool (*pick)(const PrunerConfig *), int stride,
                              const char *what);

/* Split-K over blocks (split_k > 1, docs/schedule.md): a partial kernel per slice into a
 * workspace, then a combining kernel; with a fill (fused into the combine), accumulating
 * into C (no fill), vectorized slices, one block per slice, a batch_matmul and a row
 * reduction. */
static void test_split_k(void **state) {
  (void)state;
  static const char *gemv =
      "func.func @kernel(%A: tensor<1x256xf32>, %B: tensor<256x96xf32>, %C: tensor<1x96xf32>) -> tensor<1x96xf32> {\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %f = linalg.fill ins(%z : f32) outs(%C : tensor<1x96xf32>) -> tensor<1x96xf32>\n"
      "  %r = linalg.matmul {pruner.config = CONFIG} ins(%A, %B : tensor<1x256xf32>, tensor<256x96xf32>)\n"
      "      outs(%f : tensor<1x96xf32>) -> tensor<1x96xf32>\n"
      "  return %r : tensor<1x96xf32>\n}\n";
  static const char *const gemv_split[] = {
      "{workgroup = [1, 32, 0], reduction = [0, 0, 8], thread = [1, 1, 0], promote_operands = [], "
      "vector_width = 1, split_k = 4}",
      "{workgroup = [1, 96, 0], reduction = [0, 0, 4], thread = [1, 2, 0], promote_operands = [], "
      "vector_width = 2, split_k = 8}",
      "{workgroup = [1, 32, 0], reduction = [0, 0, 32], thread = [1, 1, 0], promote_operands = [], "
      "vector_width = 1, split_k = 8}",
      "{workgroup = [1, 32, 0], reduction = [0, 0, 1], thread = [1, 1, 0], promote_operands = [], "
      "vector_width = 1, split_k = 64}",
      NULL};
  checkKind(gemv, 0, gemv_split);
  static const char *acc =
      "func.func @kernel(%A: tensor<8x128xf32>, %B: tensor<128x32xf32>, %C: tensor<8x32xf32>) -> tensor<8x32xf32> {\n"
      "  %r = linalg.matmul {pruner.config = CONFIG} ins(%A, %B : tensor<8x128xf32>, tensor<128x32xf32>)\n"
      "      outs(%C : tensor<8x32xf32>) -> tensor<8x32xf32>\n"
      "  return %r : tensor<8x32xf32>\n}\n";
  static const char *const acc_split[] = {
      "{workgroup = [8, 16, 0], reduction = [0, 0, 4], thread = [2, 2, 0], promote_operands = [], "
      "vector_width = 2, split_k = 2}",
      "{workgroup = [8, 32, 0], reduction = [0, 0, 16], thread = [1, 4, 0], promote_operands = [], "
      "vector_width = 4, split_k = 4}",
      NULL};
  checkKind(acc, 0, acc_split);
  static const char *const bmm_split[] = {
      "{workgroup = [1, 1, 32, 0], reduction = [0, 0, 0, 4], thread = [1, 1, 1, 0], "
      "promote_operands = [], vector_width = 1, split_k = 4}",
      NULL};
  checkKind(kBmmDecode, 0, bmm_split);
  static const char *rowsum =
      "func.func @kernel(%X: tensor<64x512xf32>, %Y: tensor<64xf32>) -> tensor<64xf32> {\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %f = linalg.fill ins(%z : f32) outs(%Y : tensor<64xf32>) -> tensor<64xf32>\n"
      "  %r = linalg.generic {indexing_maps = [affine_map<(r, c) -> (r, c)>, affine_map<(r, c) -> (r)>],\n"
      "      iterator_types = [\"parallel\", \"reduction\"], pruner.config = CONFIG}\n"
      "      ins(%X : tensor<64x512xf32>) outs(%f : tensor<64xf32>) {\n"
      "  ^bb0(%x: f32, %acc: f32):\n    %s = arith.addf %x, %acc : f32\n    linalg.yield %s : f32\n"
      "  } -> tensor<64xf32>\n"
      "  return %r : tensor<64xf32>\n}\n";
  static const char *const rowsum_split[] = {
      "{workgroup = [32, 0], reduction = [0, 8], thread = [1, 0], promote_operands = [], "
      "vector_width = 1, split_k = 16}",
      "{workgroup = [64, 0], reduction = [0, 64], thread = [2, 0], promote_operands = [], "
      "vector_width = 2, split_k = 8}",
      NULL};
  checkKind(rowsum, 0, rowsum_split);
  /* Every 40th split-K config the space lists for a GEMV with a long K (the listing needs
   * K >= 1024; docs/space.md), and for a row sum of long rows. */
  static const char *longk =
      "func.func @kernel(%A: tensor<1x2048xf32>, %B: tensor<2048x64xf32>, %C: tensor<1x64xf32>) -> tensor<1x64xf32> {\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %f = linalg.fill ins(%z : f32) outs(%C : tensor<1x64xf32>) -> tensor<1x64xf32>\n"
      "  %r = linalg.matmul {pruner.config = CONFIG} ins(%A, %B : tensor<1x2048xf32>, tensor<2048x64xf32>)\n"
      "      outs(%f : tensor<1x64xf32>) -> tensor<1x64xf32>\n"
      "  return %r : tensor<1x64xf32>\n}\n";
  checkConfigsWhere(longk, isSplitK, 40, "split-K");
  static const char *longrows =
      "func.func @kernel(%X: tensor<32x2048xf32>, %Y: tensor<32xf32>) -> tensor<32xf32> {\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %f = linalg.fill ins(%z : f32) outs(%Y : tensor<32xf32>) -> tensor<32xf32>\n"
      "  %r = linalg.generic {indexing_maps = [affine_map<(r, c) -> (r, c)>, affine_map<(r, c) -> (r)>],\n"
      "      iterator_types = [\"parallel\", \"reduction\"], pruner.config = CONFIG}\n"
      "      ins(%X : tensor<32x2048xf32>) outs(%f : tensor<32xf32>) {\n"
      "  ^bb0(%x: f32, %acc: f32):\n    %s = arith.addf %x, %acc : f32\n    linalg.yield %s : f32\n"
      "  } -> tensor<32xf32>\n"
      "  return %r : tensor<32xf32>\n}\n";
  checkConfigsWhere(longrows, isSplitK, 10, "split-K");
  /* Two parallel loops and a long row: the slices on z when both loops have several
   * blocks, a hand config forcing that (2 x 2 blocks of 64 threads, 8 slices). */
  static const char *rows3 =
      "func.func @kernel(%X: tensor<4x64x1024xf32>, %Y: tensor<4x64xf32>) -> tensor<4x64xf32> {\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %f = linalg.fill ins(%z : f32) outs(%Y : tensor<4x64xf32>) -> tensor<4x64xf32>\n"
      "  %r = linalg.generic {indexing_maps = [affine_map<(b, r, c) -> (b, r, c)>, affine_map<(b, r, c) -> (b, r)>],\n"
      "      iterator_types = [\"parallel\", \"parallel\", \"reduction\"], pruner.config = CONFIG}\n"
      "      ins(%X : tensor<4x64x1024xf32>) outs(%f : tensor<4x64xf32>) {\n"
      "  ^bb0(%x: f32, %acc: f32):\n    %s = arith.addf %x, %acc : f32\n    linalg.yield %s : f32\n"
      "  } -> tensor<4x64xf32>\n"
      "  return %r : tensor<4x64xf32>\n}\n";
  static const char *const rows3_split[] = {
      "{workgroup = [2, 32, 0], reduction = [0, 0, 16], thread = [1, 1, 0], promote_operands = [], "
      "vector_width = 1, split_k = 8}",
      NULL};
  checkKind(rows3, 0, rows3_split);
  checkConfigsWhere(rows3, isSplitK, 100, "split-K");
}

/* prunerScheduleDeviceWorkspaces on hand-written IR: every device-only host allocation
 * moves, however many (a walk holds 16: 40 take three), one a host op reads stays, and one
 * in a function with control flow is refused with a message, never left on the host. */
static void test_device_workspaces(void **state) {
  (void)state;
  char text[16384];
  size_t n = 0;
  n += (size_t)snprintf(text + n, sizeof text - n, "func.func @many(%%x: memref<4xf32>) {\n"
                                                   "  %%c1 = arith.constant 1 : index\n");
  for (int i = 0; i < 40; ++i)
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "  %%a%d = memref.alloc() : memref<%dxf32>\n"
                          "  gpu.launch blocks(%%b0, %%b1, %%b2) in (%%g0 = %%c1, %%g1 = %%c1, "
                          "%%g2 = %%c1) threads(%%t0, %%t1, %%t2) in (%%s0 = %%c1, %%s1 = %%c1, "
                          "%%s2 = %%c1) {\n"
                          "    %%v = memref.load %%a%d[%%t0] : memref<%dxf32>\n"
                          "    gpu.terminator\n  }\n",
                          i, i + 1, i, i + 1);
  n += (size_t)snprintf(text + n, sizeof text - n,
                        "  %%h = memref.alloc() : memref<4xf32>\n"
                        "  memref.copy %%h, %%x : memref<4xf32> to memref<4xf32>\n"
                        "  return\n}\n");
  MlirModule m = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  assert_false(mlirModuleIsNull(m));
  int moved = -1;
  PrunerStatus s = prunerScheduleDeviceWorkspaces(mlirModuleGetOperation(m), &moved);
  if (!s.ok)
    fail_msg("%s", s.message);
  assert_int_equal(moved, 40);
  assert_true(mlirOperationVerify(mlirModuleGetOperation(m)));
  mlirModuleDestroy(m);

  static const char *cf =
      "func.func @branchy(%c: i1) {\n"
      "  %c1 = arith.constant 1 : index\n"
      "  %a = memref.alloc() : memref<4xf32>\n"
      "  cf.cond_br %c, ^bb1, ^bb2\n"
      "^bb1:\n"
      "  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1) "
      "threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) {\n"
      "    %v = memref.load %a[%t0] : memref<4xf32>\n"
      "    gpu.terminator\n  }\n"
      "  return\n"
      "^bb2:\n"
      "  return\n}\n";
  m = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(cf));
  assert_false(mlirModuleIsNull(m));
  s = prunerScheduleDeviceWorkspaces(mlirModuleGetOperation(m), &moved);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, "several blocks"));
  mlirModuleDestroy(m);
}

/* A reduction initialised by a fill (a softmax's row max starts at -inf): apply-config
 * tags the fill, and the cross-thread schedule fuses it into the combining forall while
 * the partials get their own fill in the partial forall. */
static void test_reduction_fill(void **state) {
  (void)state;
  static const char *tmpl =
      "func.func @kernel(%X: tensor<4x32x64xf32>, %Y: tensor<4x32xf32>) -> tensor<4x32xf32> {\n"
      "  %ninf = arith.constant 0xFF800000 : f32\n"
      "  %f = linalg.fill ins(%ninf : f32) outs(%Y : tensor<4x32xf32>) -> tensor<4x32xf32>\n"
      "  %r = linalg.generic {indexing_maps = [affine_map<(b, r, c) -> (b, r, c)>, affine_map<(b, "
      "r, c) -> (b, r)>],\n"
      "      iterator_types = [\"parallel\", \"parallel\", \"reduction\"], pruner.config = "
      "CONFIG}\n"
      "      ins(%X : tensor<4x32x64xf32>) outs(%f : tensor<4x32xf32>) {\n"
      "  ^bb0(%x: f32, %acc: f32):\n"
      "    %m = arith.maximumf %x, %acc : f32\n"
      "    linalg.yield %m : f32\n"
      "  } -> tensor<4x32xf32>\n"
      "  return %r : tensor<4x32xf32>\n}\n";
  static const char *const cross[] = {
      "{workgroup = [1, 4, 0], reduction = [0, 0, 1], thread = [1, 4, 0], promote_operands = [], "
      "vector_width = 1, reduction_threads = 32}",
      "{workgroup = [2, 8, 0], reduction = [0, 0, 2], thread = [2, 8, 0], promote_operands = [], "
      "vector_width = 1, reduction_threads = 32}",
      "{workgroup = [1, 16, 0], reduction = [0, 0, 1], thread = [1, 16, 0], promote_operands = [], "
      "vector_width = 1, reduction_threads = 64}",
      NULL};
  checkKind(tmpl, 3, cross);
}

/* Runs a matmul + bias add function (arguments A 32x48, B 48x64, bias 64, C 32x64)
 * through pruner-apply-config without GPU mapping against the untiled reference. */
static MlirWalkResult countLinalg(MlirOperation op, void *user) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  if (n.length > 7 && memcmp(n.data, "linalg.", 7) == 0)
    ++*(int *)user;
  return MlirWalkResultAdvance;
}

static void checkMatmulBias(const char *text, const char *label, bool fused) {
  /* The harness feeds the function arguments in order: A, B, bias, C. Build that
   * operand list by hand (the last op's workload has different inputs). */
  PrunerWorkload w;
  memset(&w, 0, sizeof w);
  w.num_inputs = 3;
  w.num_outputs = 1;
  int64_t shapes[4][2] = {{32, 48}, {48, 64}, {64, 0}, {32, 64}};
  int ranks[4] = {2, 2, 1, 2};
  for (int o = 0; o < 4; ++o) {
    w.operands[o].rank = ranks[o];
    w.operands[o].dtype = PRUNER_DTYPE_F32;
    for (int d = 0; d < ranks[o]; ++d)
      w.operands[o].shape[d] = shapes[o][d];
  }
  unsigned seed = 99;
  float *data[4];
  for (int o = 0; o < 4; ++o)
    data[o] = randomData(&w.operands[o], &seed);
  float want[32 * 64], got[32 * 64];
  reference(text, &w, data, want);
  MlirModule m = parseWithCInterface(text);
  PrunerStatus s = prunerApplyConfig(mlirModuleGetOperation(m), "sm_90", &kNoMapping);
  if (!s.ok)
    fail_msg("%s: %s", label, s.message);
  /* Fused: everything is inside the one (forall) kernel, converted to loops; unfused
   * ops would be left as linalg ops outside it. */
  int linalg = 0;
  mlirOperationWalk(mlirModuleGetOperation(m), countLinalg, &linalg, MlirWalkPreOrder);
  if (fused && linalg)
    fail_msg("%s: %d linalg ops left; the consumer was not fused", label, linalg);
  runPipeline(m, "builtin.module(scf-forall-to-for," HOST_LOWERING ")");
  runKernel(m, &w, data, got);
  mlirModuleDestroy(m);
  double diff = compare(&w, got, want);
  printf("  %-60s max|diff| = %g\n", label, diff);
  for (int o = 0; o < 4; ++o)
    free(data[o]);
  assert_true(diff == 0);
}

static const char *kMatmulBias =
    "func.func @kernel(%A: tensor<32x48xf32>, %B: tensor<48x64xf32>, %bias: tensor<64xf32>, %C: tensor<32x64xf32>) -> tensor<32x64xf32> {\n"
    "  %z = arith.constant 0.0 : f32\n"
    "  %e = tensor.empty() : tensor<32x64xf32>\n"
    "  %f = linalg.fill ins(%z : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>\n"
    "  %mm = linalg.matmul {pruner.config = MMCFG}\n"
    "      ins(%A, %B : tensor<32x48xf32>, tensor<48x64xf32>) outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>\n"
    "  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],\n"
    "      iterator_types = [\"parallel\", \"parallel\"] CONFIG}\n"
    "      ins(%mm, %bias : tensor<32x64xf32>, tensor<64xf32>) outs(%C : tensor<32x64xf32>) {\n"
    "  ^bb0(%x: f32, %y: f32, %o: f32):\n"
    "    %s = arith.addf %x, %y : f32\n"
    "    %m = arith.maximumf %s, %o : f32\n"
    "    linalg.yield %m : f32\n"
    "  } -> tensor<32x64xf32>\n"
    "  return %r : tensor<32x64xf32>\n}\n";

static char *matmulBias(const char *mm_config, const char *bias_config) {
  char *a = withConfig(kMatmulBias, bias_config);
  const char *at = strstr(a, "MMCFG");
  size_t size = strlen(a) + strlen(mm_config) + 1;
  char *text = malloc(size);
  snprintf(text, size, "%.*s%s%s", (int)(at - a), a, mm_config, at + 5);
  free(a);
  return text;
}

static void test_matmul_bias(void **state) {
  (void)state;
  /* Two configured ops: each gets its own kernel, the bias add reads what the matmul
   * wrote. */
  char *text = matmulBias("{workgroup = [16, 32, 0], reduction = [0, 0, 16], thread = [2, 4, 0], promote_operands = [], vector_width = 4}",
                          ", pruner.config = {workgroup = [8, 64], reduction = [0, 0], thread = [1, 4], promote_operands = [], vector_width = 4}");
  checkMatmulBias(text, "matmul + bias (two configured ops)", false);
  free(text);
}

static void test_matmul_bias_fused(void **state) {
  (void)state;
  /* The bias add (with a max against C, so the output's old value matters) has no config:
   * it is fused into the matmul's kernel (tiled with the matmul's tiles, matmul and fill
   * fused into it). */
  static const char *configs[] = {
      "{workgroup = [16, 32, 0], reduction = [0, 0, 16], thread = [2, 4, 0], promote_operands = [], vector_width = 4}",
      "{workgroup = [32, 16, 0], reduction = [0, 0, 8], thread = [4, 2, 0], promote_operands = [], vector_width = 2}",
      "{workgroup = [8, 64, 0], reduction = [0, 0, 48], thread = [1, 2, 0], promote_operands = [], vector_width = 1}",
      "{workgroup = [32, 64, 0], reduction = [0, 0, 6], thread = [4, 8, 0], promote_operands = [], vector_width = 4}",
      NULL};
  for (int i = 0; configs[i]; ++i) {
    char *text = matmulBias(configs[i], "");
    char label[256];
    snprintf(label, sizeof label, "matmul + fused bias %s", configs[i] + 1);
    label[70] = '\0';
    checkMatmulBias(text, label, true);
    free(text);
  }
}

/* The library path lib/backend/gpu uses: payload text from the workload builders plus the
 * schedule's own @__transform_main (no tags, ops matched by name). */
static void checkBuilt(const PrunerWorkload *w, const PrunerConfig *c) {
  char *payload = NULL, *schedule = NULL;
  PrunerStatus s = prunerSchedulePayload(w, "kernel", true, &payload);
  assert_true(s.ok);
  PrunerScheduleOptions opts = prunerScheduleDefaultOptions();
  opts.gpu_mapping = false;
  s = prunerScheduleBuild(w, c, &target, &opts, &schedule);
  if (!s.ok)
    fail_msg("%s", s.message);
  unsigned seed = 7;
  float *data[PRUNER_MAX_OPERANDS];
  int nops = w->num_inputs + w->num_outputs;
  for (int o = 0; o < nops; ++o)
    data[o] = randomData(&w->operands[o], &seed);
  int64_t n = numElements(&w->operands[w->num_inputs]);
  float *want = malloc((size_t)n * sizeof(float)), *got = malloc((size_t)n * sizeof(float));
  reference(payload, w, data, want);

  MlirModule m = parseWithCInterface(payload);
  MlirModule sm = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(schedule));
  assert_false(mlirModuleIsNull(sm));
  MlirOperation main = mlirBlockGetFirstOperation(mlirModuleGetBody(sm));
  while (!mlirOperationIsNull(main)) {
    MlirAttribute sym = mlirOperationGetAttributeByName(main, mlirStringRefCreateFromCString("sym_name"));
    if (!mlirAttributeIsNull(sym) && strncmp(mlirStringAttrGetValue(sym).data, "__transform_main", 16) == 0)
      break;
    main = mlirOperationGetNextInBlock(main);
  }
  assert_false(mlirOperationIsNull(main));
  MlirTransformOptions to = mlirTransformOptionsCreate();
  MlirLogicalResult r = mlirTransformApplyNamedSequence(mlirModuleGetOperation(m), main,
                                                        mlirModuleGetOperation(sm), to);
  mlirTransformOptionsDestroy(to);
  assert_true(mlirLogicalResultIsSuccess(r));
  runPipeline(m, "builtin.module(scf-forall-to-for," HOST_LOWERING ")");
  runKernel(m, w, data, got);
  double diff = compare(w, got, want);
  char label[256];
  prunerConfigFormatShort(w, c, label, sizeof label);
  printf("  built %-18s %-40s max|diff| = %g\n", prunerOpKindName(w->kind), label, diff);
  assert_true(diff == 0);
  mlirModuleDestroy(sm);
  mlirModuleDestroy(m);
  for (int o = 0; o < nops; ++o)
    free(data[o]);
  free(want);
  free(got);
  free(payload);
  free(schedule);
}

static void test_library_path(void **state) {
  (void)state;
  PrunerWorkload w;
  PrunerConfig c;
  memset(&c, 0, sizeof c);
  prunerWorkloadMatmul(&w, 64, 32, 16, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  int64_t wg[] = {32, 32, 0}, red[] = {0, 0, 8}, th[] = {4, 2, 0};
  memcpy(c.workgroup, wg, sizeof wg);
  memcpy(c.reduction, red, sizeof red);
  memcpy(c.thread, th, sizeof th);
  c.vector_width = 2;
  checkBuilt(&w, &c);

  prunerWorkloadConv2dNchwFchw(&w, 1, 3, 15, 15, 8, 7, 7, 2, 1, PRUNER_DTYPE_F32);
  memset(&c, 0, sizeof c);
  int64_t cwg[] = {1, 8, 5, 5, 0, 0, 0}, cred[] = {0, 0, 0, 0, 1, 1, 7}, cth[] = {1, 2, 1, 1, 0, 0, 0};
  memcpy(c.workgroup, cwg, sizeof cwg);
  memcpy(c.reduction, cred, sizeof cred);
  memcpy(c.thread, cth, sizeof cth);
  c.vector_width = 1;
  checkBuilt(&w, &c);
}

/* One check per path (docs/schedule.md): prunerScheduleBuildChecked builds what
 * prunerScheduleBuild builds for a valid config without checking it again, and
 * prunerScheduleBuild still rejects an invalid one with prunerConfigCheck's message. */
static void test_build_checked(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 256, 128, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerSpace space;
  assert_true(prunerSpaceCreate(&w, &target, NULL, &space).ok);
  PrunerConfig cs[24];
  uint64_t rng = 11;
  size_t n = prunerSpaceSample(space, 24, &rng, NULL, NULL, cs, NULL);
  assert_true(n > 0);
  for (size_t i = 0; i < n; ++i) {
    for (int variant = 0; variant < 2; ++variant) {
      PrunerScheduleOptions o = prunerScheduleDefaultOptions();
      o.gpu_mapping = variant == 0;
      char *a = NULL, *b = NULL;
      assert_true(prunerScheduleBuild(&w, &cs[i], &target, &o, &a).ok);
      assert_true(prunerScheduleBuildChecked(&w, &cs[i], &o, &b).ok);
      assert_string_equal(a, b);
      free(a);
      free(b);
    }
  }
  PrunerConfig bad = cs[0];
  bad.thread[0] = 3; /* divides no power-of-two workgroup tile */
  PrunerStatus want = prunerConfigCheck(&w, &target, &bad);
  assert_false(want.ok);
  char *text = NULL;
  PrunerStatus got = prunerScheduleBuild(&w, &bad, &target, NULL, &text);
  assert_false(got.ok);
  assert_null(text);
  assert_string_equal(got.message, want.message);
  prunerSpaceDestroy(space);
  /* Consumer fusion: the direct schedule only; the refusal names the kind, and the
   * schedule refuses a fusion request for it (pruner-apply-config asks first). */
  PrunerConfig direct;
  memset(&direct, 0, sizeof direct);
  direct.workgroup[0] = direct.workgroup[1] = 32;
  direct.thread[0] = direct.thread[1] = 4;
  direct.reduction[2] = 16;
  direct.vector_width = 4;
  assert_null(prunerScheduleConsumerRefusal(&w, &direct));
  PrunerConfig kinds[4] = {direct, direct, direct, direct};
  kinds[0].promote_operands = 3u;
  kinds[1].reduction_threads = 32;
  kinds[2].split_k = 4;
  kinds[3].mma = 1;
  static const char *const names[4] = {"promote_operands", "a cross-thread reduction",
                                       "split-K", "tensor cores (mma)"};
  for (int i = 0; i < 4; ++i)
    assert_string_equal(prunerScheduleConsumerRefusal(&w, &kinds[i]), names[i]);
  PrunerScheduleOptions fuse = prunerScheduleDefaultOptions();
  fuse.match_attr = "pruner.apply_0";
  fuse.fuse_consumer = true;
  kinds[2].reduction[2] = 8; /* 64 / 4 slices of 16: one step of 8 divides it */
  text = NULL;
  got = prunerScheduleBuildChecked(&w, &kinds[2], &fuse, &text);
  assert_false(got.ok);
  assert_null(text);
  assert_non_null(strstr(got.message, "this one has split-K"));
}


/* The pipeliner counts a wait's numGroups in K steps; a step of ours commits one group per
 * staged operand. prunerSchedulePipelineWaits scales every counted wait of a function by
 * the groups its one pipelined loop commits per iteration (the loop's and the peeled
 * epilogue's), once; a function with two pipelined loops, or one group per step, keeps
 * the pipeliner's counts. */
static const char *kPipelinedLoop =
    "  scf.for %i = %c0 to %c4 step %c1 {\n"
    "    nvgpu.device_async_wait %g {numGroups = 2 : i32}\n"
    "    %t0 = nvgpu.device_async_copy %src[%c0], %dst[%c0, %c0], 8 : memref<64xf16> to "
    "memref<3x64xf16, 3>\n"
    "    %g0 = nvgpu.device_async_create_group %t0\n"
    "    %t1 = nvgpu.device_async_copy %src[%c0], %dst[%c1, %c0], 8 : memref<64xf16> to "
    "memref<3x64xf16, 3>\n"
    "    %g1 = nvgpu.device_async_create_group %t1\n"
    "  }\n";

static MlirModule parsePipelined(int loops) {
  char text[4096];
  int n = snprintf(text, sizeof text,
                   "func.func @piped(%%src: memref<64xf16>, %%dst: memref<3x64xf16, 3>) {\n"
                   "  %%c0 = arith.constant 0 : index\n"
                   "  %%c1 = arith.constant 1 : index\n"
                   "  %%c4 = arith.constant 4 : index\n"
                   "  %%t = nvgpu.device_async_copy %%src[%%c0], %%dst[%%c0, %%c0], 8 : "
                   "memref<64xf16> to memref<3x64xf16, 3>\n"
                   "  %%g = nvgpu.device_async_create_group %%t\n");
  for (int i = 0; i < loops; ++i)
    n += snprintf(text + n, sizeof text - (size_t)n, "%s", kPipelinedLoop);
  snprintf(text + n, sizeof text - (size_t)n,
           "  nvgpu.device_async_wait %%g {numGroups = 1 : i32}\n"
           "  nvgpu.device_async_wait %%g {numGroups = 0 : i32}\n"
           "  nvgpu.device_async_wait %%g\n"
           "  return\n}\n");
  MlirModule m = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  assert_false(mlirModuleIsNull(m));
  return m;
}

static MlirWalkResult collectWaitCounts(MlirOperation op, void *user) {
  int *counts = user; /* counts[0]: how many; then each numGroups, -1 when absent */
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (name.length != strlen("nvgpu.device_async_wait") ||
      memcmp(name.data, "nvgpu.device_async_wait", name.length) != 0)
    return MlirWalkResultAdvance;
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("numGroups"));
  counts[1 + counts[0]++] = mlirAttributeIsNull(a) ? -1 : (int)mlirIntegerAttrGetValueInt(a);
  return MlirWalkResultAdvance;
}

static void test_pipeline_waits(void **state) {
  (void)state;
  MlirModule m = parsePipelined(1);
  int scaled = -1;
  PrunerStatus s = prunerSchedulePipelineWaits(mlirModuleGetOperation(m), &scaled);
  assert_true(s.ok);
  assert_int_equal(scaled, 3); /* the loop's wait and the epilogue's counted two */
  int counts[8] = {0};
  mlirOperationWalk(mlirModuleGetOperation(m), collectWaitCounts, counts, MlirWalkPreOrder);
  assert_int_equal(counts[0], 4);
  assert_int_equal(counts[1], 4);  /* 2 steps x 2 groups */
  assert_int_equal(counts[2], 2);  /* 1 step */
  assert_int_equal(counts[3], 0);
  assert_int_equal(counts[4], -1); /* an uncounted wait (wait for all) stays so */
  /* A second run changes nothing. */
  s = prunerSchedulePipelineWaits(mlirModuleGetOperation(m), &scaled);
  assert_true(s.ok);
  assert_int_equal(scaled, 0);
  assert_true(mlirOperationVerify(mlirModuleGetOperation(m)));
  mlirModuleDestroy(m);

  /* Two pipelined loops in one function: whose epilogue is whose cannot be told, so the
   * counts stay (waiting for more is slower, never wrong). */
  m = parsePipelined(2);
  s = prunerSchedulePipelineWaits(mlirModuleGetOperation(m), &scaled);
  assert_true(s.ok);
  assert_int_equal(scaled, 0);
  mlirModuleDestroy(m);
}

static MlirWalkResult countContract(MlirOperation op, void *user) {
  int *n = user; /* [mulf with contract, addf with contract, ops with other flags set] */
  MlirAttribute fm = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("fastmath"));
  if (mlirAttributeIsNull(fm))
    return MlirWalkResultAdvance;
  MlirContext c = mlirOperationGetContext(op);
  MlirAttribute contract =
      mlirAttributeParseGet(c, mlirStringRefCreateFromCString("#arith.fastmath<contract>"));
  MlirAttribute none =
      mlirAttributeParseGet(c, mlirStringRefCreateFromCString("#arith.fastmath<none>"));
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (mlirAttributeEqual(fm, none))
    return MlirWalkResultAdvance;
  if (!mlirAttributeEqual(fm, contract))
    n[2]++;
  else if (name.length == 10 && strncmp(name.data, "arith.mulf", 10) == 0)
    n[0]++;
  else if (name.length == 10 && strncmp(name.data, "arith.addf", 10) == 0)
    n[1]++;
  return MlirWalkResultAdvance;
}

/* FMA contraction (prunerScheduleContractMulAdd): an add of a product and that product
 * get `contract`; a lone add, a lone multiply and ops with flags of their own do not; a
 * second run changes nothing. */
static void test_contract_mul_add(void **state) {
  (void)state;
  MlirModule m = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString(
               "func.func @f(%a: f32, %b: f32, %c: f32) -> (f32, f32, f32, f32) {\n"
               "  %p = arith.mulf %a, %b : f32\n"
               "  %s = arith.addf %c, %p : f32\n"          /* fused with %p */
               "  %l = arith.addf %a, %b : f32\n"          /* lone add */
               "  %q = arith.mulf %a, %c : f32\n"          /* lone multiply */
               "  %u = arith.mulf %b, %c fastmath<nnan> : f32\n"
               "  %v = arith.addf %u, %a : f32\n"          /* its product has flags */
               "  return %s, %l, %q, %v : f32, f32, f32, f32\n}\n"));
  assert_false(mlirModuleIsNull(m));
  int marked = -1;
  assert_true(prunerScheduleContractMulAdd(mlirModuleGetOperation(m), &marked).ok);
  assert_int_equal(marked, 2);
  int n[3] = {0};
  mlirOperationWalk(mlirModuleGetOperation(m), countContract, n, MlirWalkPreOrder);
  assert_int_equal(n[0], 1);
  assert_int_equal(n[1], 1);
  assert_int_equal(n[2], 1); /* the user's nnan stays */
  assert_true(prunerScheduleContractMulAdd(mlirModuleGetOperation(m), &marked).ok);
  assert_int_equal(marked, 0);
  assert_true(mlirOperationVerify(mlirModuleGetOperation(m)));
  mlirModuleDestroy(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matmul),
      cmocka_unit_test(test_matmul_no_fill),
      cmocka_unit_test(test_batch_matmul),
      cmocka_unit_test(test_matmul_f16_wide),
      cmocka_unit_test(test_conv_nhwc),
      cmocka_unit_test(test_conv_nhwc_implicit_gemm),
      cmocka_unit_test(test_conv_nchw_7x7_stride2),
      cmocka_unit_test(test_elementwise),
      cmocka_unit_test(test_reduction),
      cmocka_unit_test(test_reduction_fill),
      cmocka_unit_test(test_gemv_cross_thread),
      cmocka_unit_test(test_split_k),
      cmocka_unit_test(test_device_workspaces),
      cmocka_unit_test(test_pipeline_waits),
      cmocka_unit_test(test_contract_mul_add),
      cmocka_unit_test(test_matmul_bias),
      cmocka_unit_test(test_matmul_bias_fused),
      cmocka_unit_test(test_library_path),
      cmocka_unit_test(test_build_checked),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

/* test/unit/host: the host CPU backend, measured for real (no GPU needed).
 *
 * - Every op kind (matmul, batch_matmul, conv NHWC, conv NCHW, elementwise, reduction):
 *   configs spread over the host space are JIT-compiled, run on random inputs and checked
 *   against the reference (OpenBLAS for matmuls, the C interpreter otherwise) inside
 *   prunerHostMeasure; each must come back ok with a tiny error.
 * - The tuned 512^3 matmul and the untiled lowering are both measured and correct, and
 *   the tuned one is vectorized where the untiled one is scalar (its speed-up, ~300x on
 *   a quiet machine, is printed, not asserted: it depends on the machine's load; speed
 *   targets belong to tools/pruner-bench).
 * - Space rules: every enumerated config passes prunerConfigCheck, bad ones are named.
 * - Packing B: packable ops, packed configs in the space and measured exact.
 * - The thread pools' environment: set where unset, a user's setting kept, and the
 *   kernels' libomp really spins 1 ms under the passive policy. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <mlir-c/IR.h>

#include "pruner/backend/host.h"
#include "pruner/backend/host_rules.h"
#include "pruner/draft.h"
#include "pruner/ir.h"
#include "pruner/ir_context.h"
#include "pruner/space.h"

#include "../../../lib/backend/host/host_internal.h" /* PRUNER_HOST_LIBOMP */

static PrunerHost host;
static PrunerTargetDesc target;

/* A host measuring on `threads` threads with few, short samples (these tests check
 * results, not times). */
static PrunerHost createTestHost(int threads) {
  PrunerHostOptions o = prunerHostDefaultOptions();
  o.threads = threads;
  o.min_samples = 1;
  o.max_samples = 3;
  o.min_sample_seconds = 0;
  o.timeout_seconds = 120;
  PrunerHost h;
  PrunerStatus s = prunerHostCreate(&o, &h);
  if (!s.ok)
    fail_msg("%s", s.message);
  return h;
}

static int setup(void **state) {
  (void)state;
  host = createTestHost(1);
  target = *prunerHostGetTarget(host);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  prunerHostDestroy(host);
  return 0;
}

/* The workload of the single linalg op in `text` (read through lib/ir like any module). */
static void workloadFromText(const char *text, PrunerWorkload *w) {
  MlirContext ctx = prunerIrContextCreate();
  mlirContextLoadAllAvailableDialects(ctx);
  MlirModule m = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  assert_false(mlirModuleIsNull(m));
  MlirOperation f = mlirBlockGetFirstOperation(mlirModuleGetBody(m));
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(f, 0));
  MlirOperation op = mlirBlockGetFirstOperation(body);
  while (!mlirOperationIsNull(op) && !(prunerIsLinalgOp(op) && !prunerIsFusedLinalgOp(op)))
    op = mlirOperationGetNextInBlock(op);
  assert_false(mlirOperationIsNull(op));
  PrunerStatus s = prunerWorkloadFromOperation(op, w);
  if (!s.ok)
    fail_msg("%s", s.message);
  mlirModuleDestroy(m);
  mlirContextDestroy(ctx);
}

/* Measures config `c` of `w`, prints it, and fails unless it ran and matched the
 * reference. */
static void measureChecked(const PrunerWorkload *w, const PrunerConfig *c) {
  PrunerHostResult r;
  prunerHostMeasure(host, w, c, &r);
  char label[256];
  prunerConfigFormatShort(w, c, label, sizeof label);
  printf("  %-36s %-12s %10.1f us  err %g\n", label, prunerRecordStatusName(r.record.status),
         r.record.median_us, r.record.max_abs_error);
  if (r.record.status != PRUNER_RECORD_OK)
    fail_msg("%s %s: %s: %s", w->key, label, prunerRecordStatusName(r.record.status),
             r.record.error);
  assert_true(r.record.max_abs_error <= 1e-4);
}

/* Measures `samples` configs evenly spread over the space (first and last included). */
static void checkSpace(const PrunerWorkload *w, int samples) {
  PrunerSpace space;
  PrunerStatus s = prunerSpaceCreate(w, &target, NULL, &space);
  if (!s.ok)
    fail_msg("%s", s.message);
  uint64_t count = prunerSpaceCount(space);
  assert_true(count > 0);
  for (int i = 0; i < samples; ++i) {
    uint64_t index = (uint64_t)i * (count - 1) / (uint64_t)(samples - 1);
    PrunerConfig c;
    assert_true(prunerSpaceGetConfig(space, index, &c).ok);
    PrunerHostResult r;
    prunerHostMeasure(host, w, &c, &r);
    char label[256];
    prunerConfigFormatShort(w, &c, label, sizeof label);
    printf("  %-18s #%-5llu of %-5llu %-36s %-12s %10.1f us  err %g\n", prunerOpKindName(w->kind),
           (unsigned long long)index, (unsigned long long)count, label,
           prunerRecordStatusName(r.record.status), r.record.median_us, r.record.max_abs_error);
    if (r.record.status != PRUNER_RECORD_OK)
      fail_msg("%s %s: %s: %s", w->key, label, prunerRecordStatusName(r.record.status),
               r.record.error);
    assert_true(r.record.max_abs_error <= 1e-4);
    assert_true(r.record.median_us > 0);
    assert_true(r.record.num_samples >= 1);
  }
  prunerSpaceDestroy(space);
}

static void test_matmul(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 96, 128, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  checkSpace(&w, 6);
}

/* A vectorized loop whose bound no whole vector of the lanes divides (1,000 classes on a
 * 16-lane CPU) gets the widest narrower vector that does; a bound no vector of 4 or more
 * divides (a prime) the full lanes, the loop split (below). Checked against the described
 * lanes, measured and compared with the reference. */
static void test_matmul_narrow_vectors(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 1, 1000, 256, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  int lanes = prunerHostTargetSimdLanes(&target), width = prunerHostVectorWidth(&w, &target);
  assert_true(width >= 4 && width <= lanes && 1000 % width == 0);
  assert_true(width == lanes || 1000 % (2 * width) != 0); /* the widest that divides */
  checkSpace(&w, 4);
  prunerWorkloadMatmul(&w, 97, 61, 53, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_int_equal(prunerHostVectorWidth(&w, &target), lanes);
  checkSpace(&w, 3);
}

/* A bound the lanes do not divide but half of them do (6.5 vectors): the space offers the
 * narrower vector, every task tile dividing the loop, and the full lanes, every task tile
 * splitting it; a bound below the lanes, the widest vector that fits (docs/host.md,
 * "Narrow vectors or the full lanes"). The draft ranks a full-lanes config first on this
 * compute-bound GEMM (a quarter-width vector ran a 256x196x2304 GEMM 3.6x slower than the
 * full lanes split). iree-cpu's space, whose tiles are IREE's distribution and vector
 * tiles, has both widths. The best config of each width is measured and checked against
 * the reference. */
static void test_narrow_or_full_lanes(void **state) {
  (void)state;
  int lanes = prunerHostTargetSimdLanes(&target);
  if (lanes < 8)
    skip(); /* half of 4 lanes is no vector the space offers */
  int64_t cols = 6 * lanes + lanes / 2;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 192, cols, 256, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_int_equal(prunerHostVectorWidth(&w, &target), lanes / 2);
  int64_t widths[4];
  assert_int_equal(prunerHostVectorCandidates(&w, &target, widths, 4), 2);
  assert_true(widths[0] == lanes / 2 && widths[1] == lanes);
  /* Below the lanes: 8 columns take 8-lane vectors (they were scalar, 0.13x OpenBLAS on a
   * 512x8x512 GEMM), 12 take 4 lanes whole or 8 split; the same on every ISA of 8 or more
   * lanes. */
  PrunerWorkload small;
  prunerWorkloadMatmul(&small, 64, 8, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_int_equal(prunerHostVectorCandidates(&small, &target, widths, 4), 1);
  assert_int_equal(widths[0], 8);
  prunerWorkloadMatmul(&small, 64, 12, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_int_equal(prunerHostVectorCandidates(&small, &target, widths, 4), 2);
  assert_true(widths[0] == 4 && widths[1] == 8);
  /* No vector of 4 or more divides 10 or 5: the widest that fits, split (8 + 2, 4 + 1). */
  prunerWorkloadMatmul(&small, 64, 10, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_int_equal(prunerHostVectorCandidates(&small, &target, widths, 4), 1);
  assert_int_equal(widths[0], 8);
  prunerWorkloadMatmul(&small, 64, 5, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_int_equal(prunerHostVectorCandidates(&small, &target, widths, 4), 1);
  assert_int_equal(widths[0], 4);
  checkSpace(&small, 3);

  PrunerSpace space;
  PrunerDraft draft;
  PrunerStatus s = prunerSpaceCreate(&w, &target, NULL, &space);
  if (!s.ok)
    fail_msg("%s", s.message);
  s = prunerDraftCreate(&w, &target, &draft);
  if (!s.ok)
    fail_msg("%s", s.message);
  uint64_t count = prunerSpaceCount(space), per_width[2] = {0, 0};
  PrunerConfig c, best[2] = {0}, top = {0};
  double best_us[2] = {INFINITY, INFINITY}, top_us = INFINITY;
  for (uint64_t i = 0; i < count; ++i) {
    assert_true(prunerSpaceGetConfig(space, i, &c).ok);
    assert_true(prunerConfigCheck(&w, &target, &c).ok);
    int k = c.vector_width == lanes;
    assert_true(k || c.vector_width == lanes / 2);
    ++per_width[k];
    /* Narrow: whole tasks; full lanes: the loop split at a multiple of the lanes. */
    assert_int_equal(cols % c.workgroup[1] != 0, k);
    assert_int_equal(c.workgroup[1] % c.vector_width, 0);
    double us = prunerDraftPredictUs(draft, &c);
    if (us < best_us[k]) {
      best_us[k] = us;
      best[k] = c;
    }
    if (us < top_us) {
      top_us = us;
      top = c;
    }
  }
  printf("  %s: %llu configs at %d lanes, %llu at %d; draft's best %.1f / %.1f us\n", w.key,
         (unsigned long long)per_width[0], lanes / 2, (unsigned long long)per_width[1], lanes,
         best_us[0], best_us[1]);
  assert_true(per_width[0] > 0 && per_width[1] > 0);
  assert_int_equal(top.vector_width, lanes);
  PrunerConfig split_narrow = best[0]; /* the narrow vector on a split loop: refused */
  split_narrow.workgroup[1] = 3 * lanes;
  split_narrow.thread[1] = lanes / 2;
  s = prunerConfigCheck(&w, &target, &split_narrow);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, "takes dividing task tiles only"));
  prunerDraftDestroy(draft);
  prunerSpaceDestroy(space);

  PrunerTargetDesc iree = target;
  iree.kind = PRUNER_TARGET_IREE_CPU;
  s = prunerSpaceCreate(&w, &iree, NULL, &space);
  if (!s.ok)
    fail_msg("%s", s.message);
  uint64_t iree_wide = 0;
  for (uint64_t i = 0; i < prunerSpaceCount(space); ++i) {
    assert_true(prunerSpaceGetConfig(space, i, &c).ok);
    assert_true(prunerConfigCheck(&w, &iree, &c).ok);
    iree_wide += c.vector_width == lanes;
  }
  assert_true(iree_wide > 0 && iree_wide < prunerSpaceCount(space));
  c.vector_width = lanes / 4; /* neither of the two */
  assert_false(prunerConfigCheck(&w, &iree, &c).ok);
  prunerSpaceDestroy(space);

  for (int k = 0; k < 2; ++k)
    measureChecked(&w, &best[k]);
}

/* Split loops (docs/host.md, "Split loops"): bounds with no dividing task tile (521 rows
 * and columns: a prime over the 512 limit) are split at the last multiple of a task tile
 * that does not divide them; the main part runs the config, the remainder is one task
 * along the loop. Every config of such a space is valid, its parts cover the op,
 * remainders along B's loops do not pack, and split configs (packed ones too) are
 * measured and checked. The remainders' vector tiles are checked on every ISA; a tile
 * wider than its remainder arises here under AVX2 (48-column tasks leave 41). */
static void test_split_loops(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 521, 521, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  int lanes = prunerHostTargetSimdLanes(&target);
  assert_int_equal(prunerHostVectorWidth(&w, &target), lanes);
  PrunerSpace space;
  PrunerStatus s = prunerSpaceCreate(&w, &target, NULL, &space);
  if (!s.ok)
    fail_msg("%s", s.message);
  uint64_t count = prunerSpaceCount(space), two = 0, packed_two = 0;
  PrunerConfig c, pick = {0}, pick_packed = {0};
  for (uint64_t i = 0; i < count; ++i) {
    assert_true(prunerSpaceGetConfig(space, i, &c).ok);
    assert_true(prunerConfigCheck(&w, &target, &c).ok);
    assert_int_equal(c.vector_width, lanes);
    assert_true(521 % c.workgroup[0] != 0 && 521 % c.workgroup[1] != 0);
    PrunerHostPart parts[PRUNER_HOST_MAX_PARTS];
    int n = prunerHostConfigParts(&w, &c, parts);
    assert_int_equal(n, 4);
    int64_t m0 = 521 / c.workgroup[0] * c.workgroup[0];
    int64_t n0 = 521 / c.workgroup[1] * c.workgroup[1];
    for (int p = 0; p < 4; ++p) {
      const PrunerWorkload *pw = &parts[p].workload;
      const PrunerConfig *pc = &parts[p].config;
      assert_int_equal(pw->bounds[0], p & 1 ? 521 - m0 : m0);
      assert_int_equal(pw->bounds[1], p & 2 ? 521 - n0 : n0);
      assert_int_equal(pw->bounds[2], 64);
      for (int l = 0; l < 2; ++l) {
        assert_int_equal(pw->bounds[l] % pc->workgroup[l], 0);
        assert_true(pc->thread[l] >= 1 && pc->thread[l] <= pc->workgroup[l]);
      }
      /* Vectorized register tiles are 1, 2 or 4 whole vectors (or all of a remainder
       * narrower than one), and a peeled tail is at most one vector: partial vectors
       * wider than one and 3-vector tiles ran 6-50x slower. */
      int64_t tile = pc->thread[1], tail = pc->workgroup[1] % tile;
      assert_true(tile == lanes || tile == 2 * lanes || tile == 4 * lanes ||
                  (tile == pw->bounds[1] && tile < lanes));
      assert_true(tail <= lanes);
      if (p & 2) /* a remainder of B's columns is not packed */
        assert_int_equal(pc->promote_operands, 0);
      else if (pc->promote_operands != c.promote_operands)
        fail_msg("part %d of a packed config lost its packing", p);
    }
    ++two;
    if (c.workgroup[1] >= 4 * lanes && c.thread[0] >= 4 && !c.promote_operands)
      pick = c;
    if (c.promote_operands && c.workgroup[1] >= 4 * lanes && c.thread[0] >= 4) {
      pick_packed = c;
      ++packed_two;
    }
  }
  printf("  %s: %llu configs, all split on both loops (%llu packed)\n", w.key,
         (unsigned long long)two, (unsigned long long)packed_two);
  assert_true(count > 0 && pick.vector_width > 0 && pick_packed.vector_width > 0);
  const PrunerConfig *measured[2] = {&pick, &pick_packed};
  for (int i = 0; i < 2; ++i)
    measureChecked(&w, measured[i]);
  prunerSpaceDestroy(space);
  /* Packing is judged on the main part: 512 rows in one task, all of n and k, a panel as
   * wide as the task tile nothing there, and the remainders do not pack. */
  PrunerConfig unpacked = {.workgroup = {512, 2 * lanes, 0}, .reduction = {0, 0, 64},
                           .thread = {2, 2 * lanes, 0}, .vector_width = lanes};
  PrunerWorkload narrow;
  prunerWorkloadMatmul(&narrow, 521, 2 * lanes, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_true(prunerConfigCheck(&narrow, &target, &unpacked).ok);
  PrunerConfig packed = unpacked;
  packed.promote_operands = 1u << 1;
  PrunerStatus st = prunerConfigCheck(&narrow, &target, &packed);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "tiles nothing"));
  /* At most three loops split: a fourth is refused by name (an NHWC conv, 3x7x7x61). */
  PrunerWorkload conv;
  prunerWorkloadConv2dNhwcHwcf(&conv, 3, 9, 9, 8, 3, 3, 61, 1, 1, PRUNER_DTYPE_F32);
  PrunerConfig four = {.workgroup = {2, 4, 4, 2 * lanes}, .reduction = {0, 0, 0, 0, 1, 3, 8},
                       .thread = {1, 1, 4, lanes}, .vector_width = lanes};
  st = prunerConfigCheck(&conv, &target, &four);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "split already (at most 3)"));
  four.workgroup[0] = 3; /* three split loops: valid */
  st = prunerConfigCheck(&conv, &target, &four);
  if (!st.ok)
    fail_msg("%s", st.message);
  /* A bound with dividing tiles keeps them and is not split (BERT FFN's 3072). */
  prunerWorkloadMatmul(&w, 128, 3072, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_true(prunerSpaceCreate(&w, &target, NULL, &space).ok);
  count = prunerSpaceCount(space);
  for (uint64_t i = 0; i < count; ++i) {
    assert_true(prunerSpaceGetConfig(space, i, &c).ok);
    assert_true(128 % c.workgroup[0] == 0 && 3072 % c.workgroup[1] == 0);
  }
  prunerSpaceDestroy(space);
}

static void test_batch_matmul(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadBatchMatmul(&w, 3, 48, 64, 32, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  checkSpace(&w, 5);
}

static void test_conv_nhwc(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadConv2dNhwcHwcf(&w, 1, 10, 10, 8, 3, 3, 32, 1, 1, PRUNER_DTYPE_F32);
  checkSpace(&w, 6);
}

static void test_conv_nchw_strided(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadConv2dNchwFchw(&w, 1, 3, 15, 15, 8, 3, 3, 2, 1, PRUNER_DTYPE_F32);
  checkSpace(&w, 4);
}

/* A config of the NCHW conv below, its (n, f, oh, ow) task and register tiles given. */
static PrunerConfig nchwConfig(int64_t n, int64_t f, int64_t oh, int64_t ow, int64_t f_reg,
                               int64_t ow_reg, int vector_width) {
  PrunerConfig c = {.workgroup = {n, f, oh, ow, 0, 0, 0}, .reduction = {0, 0, 0, 0, 5, 1, 3},
                    .thread = {1, f_reg, 1, ow_reg, 0, 0, 0}, .vector_width = vector_width};
  return c;
}

/* NCHW convs run as their channels-last twin (docs/host.md, "NCHW convolutions run
 * channels-last"): the twin is the NHWC conv (loops, shapes and index maps), configs map
 * to it by role and back, its space vectorizes f; kernels of several tasks (each with its
 * own output tile), of one task and of a split loop, vectorized or scalar, are checked
 * against the reference, with strides and dilations that differ between h and w and two
 * images. IREE's CPU backend keeps the NCHW op. */
static void test_conv_nchw_channels_last(void **state) {
  (void)state;
  PrunerWorkload w, twin, nhwc;
  workloadFromText(
      "func.func @f(%I: tensor<2x5x13x14xf32>, %W: tensor<32x5x3x3xf32>,\n"
      "             %O: tensor<2x32x6x10xf32>) -> tensor<2x32x6x10xf32> {\n"
      "  %r = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>,\n"
      "                                 strides = dense<[2, 1]> : tensor<2xi64>}\n"
      "      ins(%I, %W : tensor<2x5x13x14xf32>, tensor<32x5x3x3xf32>)\n"
      "      outs(%O : tensor<2x32x6x10xf32>) -> tensor<2x32x6x10xf32>\n"
      "  return %r : tensor<2x32x6x10xf32>\n}\n",
      &w);
  int twin_loop[PRUNER_MAX_LOOPS];
  assert_true(prunerHostRunsChannelsLast(&w, &target));
  PrunerTargetDesc iree = target;
  iree.kind = PRUNER_TARGET_IREE_CPU;
  assert_false(prunerHostRunsChannelsLast(&w, &iree));
  /* A dataset of host version 2 timed scalar NCHW kernels: its study keeps their rules. */
  PrunerTargetDesc version2 = target;
  version2.codegen_version = 2;
  assert_false(prunerHostRunsChannelsLast(&w, &version2));
  assert_int_equal(prunerHostVectorWidth(&w, &version2), 1);
  assert_true(prunerHostChannelsLastWorkload(&w, &twin, twin_loop));
  assert_true(prunerWorkloadVerify(&twin).ok);
  assert_string_equal(twin.key, w.key); /* messages and records name the op */
  /* Equal strides: the twin is the NHWC conv of the same sizes, loop for loop. */
  PrunerWorkload square;
  prunerWorkloadConv2dNchwFchw(&square, 2, 5, 13, 14, 32, 3, 3, 2, 1, PRUNER_DTYPE_F32);
  assert_true(prunerHostChannelsLastWorkload(&square, &twin, twin_loop));
  prunerWorkloadConv2dNhwcHwcf(&nhwc, 2, 13, 14, 5, 3, 3, 32, 2, 1, PRUNER_DTYPE_F32);
  PrunerWorkload none;
  int none_loop[PRUNER_MAX_LOOPS];
  assert_false(prunerHostChannelsLastWorkload(&nhwc, &none, none_loop)); /* NCHW only */
  assert_int_equal(twin.kind, PRUNER_OP_CONV_2D_NHWC_HWCF);
  assert_memory_equal(twin.bounds, nhwc.bounds, sizeof twin.bounds);
  assert_memory_equal(twin.loop_roles, nhwc.loop_roles, sizeof twin.loop_roles);
  for (int o = 0; o < 3; ++o) {
    assert_memory_equal(twin.operands[o].shape, nhwc.operands[o].shape,
                        sizeof nhwc.operands[o].shape);
    assert_memory_equal(twin.operands[o].index_coeff, nhwc.operands[o].index_coeff,
                        sizeof nhwc.operands[o].index_coeff);
  }
  const int lanes = prunerHostTargetSimdLanes(&target);
  PrunerConfig c = nchwConfig(1, 32, 2, 10, lanes, 5, lanes), back, in_twin;
  prunerHostConfigToTwin(&c, twin_loop, 7, &in_twin);
  assert_int_equal(in_twin.workgroup[3], 32); /* f is the twin's loop 3 */
  assert_int_equal(in_twin.reduction[6], 5);  /* c its loop 6 */
  prunerHostConfigFromTwin(&in_twin, twin_loop, 7, &back);
  assert_memory_equal(&back, &c, sizeof c);
  /* f is vectorized (32 is a multiple of every x86 lane count). */
  assert_int_equal(prunerHostVectorWidth(&w, &target), lanes);
  assert_int_equal(prunerHostVectorWidth(&w, &iree), 1);

  const struct {
    PrunerConfig config;
    bool tasks_transpose; /* several tasks, one part: the output tile moves per task */
  } cases[] = {
      {nchwConfig(1, 32, 2, 10, lanes, 5, lanes), true},
      {nchwConfig(2, 32, 6, 10, lanes, 5, lanes), false}, /* one task */
      {nchwConfig(1, 32, 4, 10, lanes, 5, lanes), false}, /* oh split: 4 + 2 */
      {nchwConfig(1, 32, 2, 10, 4, 5, 1), true},          /* scalar */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    char label[256], *text = NULL;
    prunerConfigFormatShort(&w, &cases[i].config, label, sizeof label);
    PrunerStatus st = prunerHostScheduleBuild(&w, &cases[i].config, &target, &text);
    if (!st.ok)
      fail_msg("%s: %s", label, st.message);
    assert_non_null(strstr(text, "match ops{[\"linalg.conv_2d_nhwc_hwcf\"]}"));
    assert_true((strstr(text, "fuse_into_containing_op %zfill") != NULL) ==
                cases[i].tasks_transpose);
    free(text);
    PrunerHostResult r;
    prunerHostMeasure(host, &w, &cases[i].config, &r);
    printf("  nchw channels-last %-36s %-12s %10.1f us  err %g\n", label,
           prunerRecordStatusName(r.record.status), r.record.median_us, r.record.max_abs_error);
    if (r.record.status != PRUNER_RECORD_OK)
      fail_msg("%s: %s: %s", label, prunerRecordStatusName(r.record.status), r.record.error);
    assert_true(r.record.max_abs_error <= 1e-4);
  }
  /* A bad config is named in the twin's terms, and says so. */
  PrunerConfig bad = nchwConfig(1, 32, 2, 10, lanes, 5, lanes);
  bad.thread[2] = 2; /* oh */
  PrunerStatus st = prunerConfigCheck(&w, &target, &bad);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "2-D convolutions keep it at 1"));
  assert_non_null(strstr(st.message, "channels-last twin"));
}

static void test_elementwise(void **state) {
  (void)state;
  PrunerWorkload w;
  workloadFromText(
      "func.func @f(%X: tensor<64x96xf32>, %b: tensor<96xf32>, %O: tensor<64x96xf32>) -> tensor<64x96xf32> {\n"
      "  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],\n"
      "      iterator_types = [\"parallel\", \"parallel\"]}\n"
      "      ins(%X, %b : tensor<64x96xf32>, tensor<96xf32>) outs(%O : tensor<64x96xf32>) {\n"
      "  ^bb0(%x: f32, %y: f32, %o: f32):\n"
      "    %s = arith.addf %x, %y : f32\n"
      "    %m = arith.maximumf %s, %x : f32\n"
      "    linalg.yield %m : f32\n"
      "  } -> tensor<64x96xf32>\n"
      "  return %r : tensor<64x96xf32>\n}\n",
      &w);
  checkSpace(&w, 5);
}

static void test_reduction(void **state) {
  (void)state;
  PrunerWorkload w;
  workloadFromText(
      "func.func @f(%X: tensor<4x32x64xf32>, %Y: tensor<4x32xf32>) -> tensor<4x32xf32> {\n"
      "  %r = linalg.generic {indexing_maps = [affine_map<(b, r, c) -> (b, r, c)>, affine_map<(b, r, c) -> (b, r)>],\n"
      "      iterator_types = [\"parallel\", \"parallel\", \"reduction\"]}\n"
      "      ins(%X : tensor<4x32x64xf32>) outs(%Y : tensor<4x32xf32>) {\n"
      "  ^bb0(%x: f32, %acc: f32):\n"
      "    %s = arith.addf %x, %acc : f32\n"
      "    linalg.yield %s : f32\n"
      "  } -> tensor<4x32xf32>\n"
      "  return %r : tensor<4x32xf32>\n}\n",
      &w);
  checkSpace(&w, 5);
}

static void test_tuned_vs_untiled_512(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 512, 512, 512, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  /* docs/host.md H5's best 512^3 schedule: [256, 512, 128] cache tile, 6x64 register tile. */
  PrunerConfig c;
  memset(&c, 0, sizeof c);
  c.workgroup[0] = 256;
  c.workgroup[1] = 512;
  c.reduction[2] = 128;
  c.thread[0] = 6;
  c.thread[1] = 4 * target.warp_size <= 64 ? 4 * target.warp_size : 64;
  c.vector_width = target.warp_size;
  if (c.thread[0] * (c.thread[1] / c.vector_width) + c.thread[1] / c.vector_width + 1 >
      target.regs_per_sm)
    c.thread[0] = 2; /* 16-register CPUs (AVX2) */
  PrunerHostResult tuned, untiled;
  prunerHostMeasure(host, &w, &c, &tuned);
  if (tuned.record.status != PRUNER_RECORD_OK)
    fail_msg("tuned: %s", tuned.record.error);
  prunerHostMeasure(host, &w, NULL, &untiled);
  if (untiled.record.status != PRUNER_RECORD_OK)
    fail_msg("untiled: %s", untiled.record.error);
  double flops = prunerWorkloadFlops(&w);
  printf("  512^3 tuned %.1f us (%.1f GFLOP/s), untiled %.1f us (%.2f GFLOP/s): %.0fx\n",
         tuned.record.median_us, flops / tuned.record.median_us / 1e3, untiled.record.median_us,
         flops / untiled.record.median_us / 1e3, untiled.record.median_us / tuned.record.median_us);
  /* Machine-independent: both timed (samples, a positive median) and exact. */
  const PrunerRecord *rs[2] = {&tuned.record, &untiled.record};
  for (int i = 0; i < 2; ++i) {
    assert_true(rs[i]->num_samples >= 1);
    assert_true(rs[i]->median_us > 0);
    assert_true(rs[i]->max_abs_error == 0.0);
  }
  /* What makes the tuned kernel fast, checked in its code rather than its time: vector
   * FMAs over the register tile's row, where the untiled lowering has no vector at all. */
  char *tuned_llvm = NULL, *untiled_llvm = NULL, fma[64];
  assert_true(prunerHostLowerText(&w, &c, &target, 2, &tuned_llvm).ok);
  assert_true(prunerHostLowerText(&w, NULL, &target, 2, &untiled_llvm).ok);
  snprintf(fma, sizeof fma, ") -> vector<%dxf32>", (int)c.thread[1]);
  const char *at = strstr(tuned_llvm, "llvm.intr.fmuladd(");
  assert_non_null(at);
  assert_non_null(strstr(at, fma));
  assert_null(strstr(untiled_llvm, "vector<"));
  free(tuned_llvm);
  free(untiled_llvm);
}

static void test_baseline(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 128, 128, 128, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerHostResult r;
  prunerHostMeasureBaseline(host, &w, &r);
  assert_true(r.record.is_baseline);
  assert_string_equal(r.record.baseline_name, "openblas");
  if (r.record.status != PRUNER_RECORD_OK)
    fail_msg("%s", r.record.error);
  printf("  openblas core %s: %.1f us\n", r.baseline_core, r.record.median_us);
  assert_true(r.baseline_core[0] != '\0');
  /* No sgemm for an elementwise op. */
  const int64_t dims[2] = {16, 32};
  prunerWorkloadElementwiseAdd(&w, dims, 2, PRUNER_DTYPE_F32);
  assert_null(prunerHostBlasBaselineMethod(&w));
  prunerHostMeasureBaseline(host, &w, &r);
  assert_int_equal(r.record.status, PRUNER_RECORD_INVALID);
  /* Nor for sizes past cblas' int: a 2^62x2x2 matmul was a 0-row sgemm, "ok" in 0.04 us. */
  prunerWorkloadMatmul(&w, (int64_t)1 << 62, 2, 2, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_false(prunerHostHasBlasBaseline(&w));
  prunerHostMeasureBaseline(host, &w, &r);
  assert_int_equal(r.record.status, PRUNER_RECORD_INVALID);
  prunerWorkloadMatmul(&w, 2147483648LL, 2, 2, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_false(prunerHostHasBlasBaseline(&w));
  /* A candidate of that workload fails by name in the worker (element counts checked),
   * instead of allocating a wrapped size. */
  PrunerConfig c = {.workgroup = {16, 2, 0}, .reduction = {0, 0, 2}, .thread = {1, 2, 0},
                    .vector_width = 1};
  prunerWorkloadMatmul(&w, (int64_t)1 << 62, 2, 2, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerHostResult *m = malloc(sizeof *m);
  assert_non_null(m);
  prunerHostMeasure(host, &w, &c, m);
  if (m->record.status != PRUNER_RECORD_LAUNCH_ERROR)
    fail_msg("status %s: %s", prunerRecordStatusName(m->record.status), m->record.error);
  assert_non_null(strstr(m->record.error, "more elements than this host can address"));
  free(m);
}

/* The first config of w's host space on the tests' target. */
static PrunerConfig firstConfig(const PrunerWorkload *w) {
  PrunerSpace space;
  PrunerConfig c;
  assert_true(prunerSpaceCreate(w, &target, NULL, &space).ok);
  assert_true(prunerSpaceGetConfig(space, 0, &c).ok);
  prunerSpaceDestroy(space);
  return c;
}

/* The convs of the BLAS baseline's tests: strided, dilated, batched and 1x1, both layouts. */
static const struct {
  bool nchw;
  int64_t n, ih, iw, c, kh, kw, f, stride, dilation;
  const char *method;
} conv_cases[] = {
    {false, 2, 11, 13, 8, 3, 3, 16, 2, 1, "im2col + sgemm"},
    {false, 1, 12, 12, 5, 3, 2, 7, 1, 2, "im2col + sgemm"},
    {false, 2, 6, 5, 16, 1, 1, 24, 1, 1, "sgemm on the input (1x1 conv)"},
    {false, 1, 7, 7, 16, 1, 1, 8, 2, 1, "im2col + sgemm"},  /* 1x1 but strided */
    {false, 1, 12, 12, 4, 3, 3, 8, 2, 1, "im2col + sgemm"}, /* an unused last row and column */
    {true, 2, 15, 14, 3, 3, 3, 8, 2, 1, "im2col + sgemm"},
    {true, 1, 9, 9, 4, 2, 3, 5, 1, 2, "im2col + sgemm"},
    {true, 2, 6, 6, 8, 1, 1, 4, 1, 1, "sgemm on the input (1x1 conv)"},
};

static void convCase(size_t i, PrunerWorkload *w) {
  if (conv_cases[i].nchw)
    prunerWorkloadConv2dNchwFchw(w, conv_cases[i].n, conv_cases[i].c, conv_cases[i].ih,
                                 conv_cases[i].iw, conv_cases[i].f, conv_cases[i].kh,
                                 conv_cases[i].kw, conv_cases[i].stride, conv_cases[i].dilation,
                                 PRUNER_DTYPE_F32);
  else
    prunerWorkloadConv2dNhwcHwcf(w, conv_cases[i].n, conv_cases[i].ih, conv_cases[i].iw,
                                 conv_cases[i].c, conv_cases[i].kh, conv_cases[i].kw,
                                 conv_cases[i].f, conv_cases[i].stride, conv_cases[i].dilation,
                                 PRUNER_DTYPE_F32);
}

/* oneDNN's entry alone for `w` (a conv kind it covers), checked against the reference:
 * where it loads it must compute `w` right, name its implementation and, on a narrowed
 * target (PRUNER_HOST_ISA=avx2), run no AVX-512 kernel, as OpenBLAS does not; where the
 * library is missing (or in an ASan build) the entry must say why. */
static void measureOnednn(const PrunerWorkload *w) {
  assert_true(prunerHostHasOnednnBaseline(w));
  static PrunerHostRemeasure rem;
  prunerHostRemeasureBaselines(host, w, NULL, 0, false, false, true, &rem);
  assert_int_equal(rem.num_entries, 1);
  assert_true(rem.has_onednn);
  const PrunerHostRemeasureEntry *e = &rem.entries[0];
  if (e->status == PRUNER_RECORD_OK) {
    assert_true(e->median_us > 0);
    assert_true(rem.onednn_impl[0] != '\0');
    if (prunerHostTargetFeatures(&target)[0] && prunerHostTargetSimdLanes(&target) < 16)
      assert_null(strstr(rem.onednn_impl, "avx512"));
    printf("  oneDNN %s: %.1f us (%s)\n", rem.onednn_impl, e->median_us, w->key);
  } else if (!strstr(e->error, "could not be loaded") && !strstr(e->error, "built without") &&
             !strstr(e->error, "AddressSanitizer")) {
    fail_msg("oneDNN on %s: %s %s", w->key, prunerRecordStatusName(e->status), e->error);
  }
}

/* Convolutions' baseline: im2col + sgemm (NHWC: one GEMM over the batch; NCHW: one per
 * image), or sgemm on the input itself for a 1x1 stride-1 conv. The worker checks each
 * against the interpreter's reference, so a wrong im2col (a stride, a dilation, a batch
 * offset) fails here as WRONG_RESULT. */
static void test_conv_baseline(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof conv_cases / sizeof conv_cases[0]; ++i) {
    PrunerWorkload w;
    convCase(i, &w);
    assert_true(prunerHostHasBlasBaseline(&w));
    assert_string_equal(prunerHostBlasBaselineMethod(&w), conv_cases[i].method);
    PrunerHostResult r;
    prunerHostMeasureBaseline(host, &w, &r);
    if (r.record.status != PRUNER_RECORD_OK)
      fail_msg("%s: %s %s", w.key, prunerRecordStatusName(r.record.status), r.record.error);
    assert_true(r.record.is_baseline);
    assert_true(r.record.median_us > 0);
    assert_true(r.record.max_abs_error < 1e-3);
    assert_int_equal(r.baseline_copy_threads,
                     strcmp(conv_cases[i].method, "im2col + sgemm") == 0 ? 1 : 0);
    /* oneDNN's convolution on the same buffers, checked against the same reference. */
    measureOnednn(&w);
  }
  /* The final check's path: a conv config and its baseline back to back. */
  PrunerWorkload w;
  prunerWorkloadConv2dNhwcHwcf(&w, 1, 10, 10, 8, 3, 3, 16, 1, 1, PRUNER_DTYPE_F32);
  PrunerConfig c = firstConfig(&w);
  static PrunerHostRemeasure rem;
  prunerHostRemeasure(host, &w, &c, 1, true, &rem);
  assert_int_equal(rem.num_entries, 2);
  assert_true(rem.has_baseline);
  for (int i = 0; i < 2; ++i)
    if (rem.entries[i].status != PRUNER_RECORD_OK)
      fail_msg("entry %d: %s", i, rem.entries[i].error);
}

/* oneDNN's depthwise convolution (grouped, one channel per group) as the conv library
 * baseline of a depthwise conv, which has no BLAS one: checked against the reference like
 * every entry (a stride, a dilation, the HWC filter's grouping), or, where the library is
 * missing or the build has ASan, an entry that says so. */
static void test_onednn_depthwise(void **state) {
  (void)state;
  const int64_t cases[][7] = {/* n, ih, iw, c, k, stride, dilation */
                              {1, 30, 30, 48, 3, 1, 1},
                              {1, 17, 15, 32, 3, 2, 1},
                              {1, 12, 12, 16, 3, 1, 2},
                              {2, 12, 12, 16, 3, 2, 1}}; /* two images, an unused last row */
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    PrunerWorkload w;
    prunerWorkloadDepthwiseConv2dNhwcHwc(&w, cases[i][0], cases[i][1], cases[i][2], cases[i][3],
                                         cases[i][4], cases[i][4], cases[i][5], cases[i][6],
                                         PRUNER_DTYPE_F32);
    assert_false(prunerHostHasBlasBaseline(&w));
    measureOnednn(&w);
  }
}

/* The im2col copy runs on the baseline's threads (docs/host.md, "The OpenBLAS baseline of
 * a convolution"): rows split over 3 threads, whatever the machine's cores, must give the
 * reference's output in both layouts. */
static void test_conv_baseline_threads(void **state) {
  (void)state;
  PrunerHost threaded = createTestHost(3);
  for (size_t i = 0; i < sizeof conv_cases / sizeof conv_cases[0]; ++i) {
    PrunerWorkload w;
    convCase(i, &w);
    PrunerHostResult r;
    prunerHostMeasureBaseline(threaded, &w, &r);
    if (r.record.status != PRUNER_RECORD_OK)
      fail_msg("%s on 3 threads: %s %s", w.key, prunerRecordStatusName(r.record.status),
               r.record.error);
    assert_true(r.record.max_abs_error < 1e-3);
    bool copy = strcmp(conv_cases[i].method, "im2col + sgemm") == 0;
    assert_int_equal(r.baseline_copy_threads, copy ? 3 : 0);
  }
  prunerHostDestroy(threaded);
}

/* The final check's back-to-back re-measurement: every good kernel gets one sample per
 * round (interleaved), statistics in order; a config that cannot be built is reported
 * in its own entry without disturbing the others; OpenBLAS comes last. */
static void test_remeasure(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 96, 128, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerSpace space;
  assert_true(prunerSpaceCreate(&w, &target, NULL, &space).ok);
  PrunerConfig c[3];
  assert_true(prunerSpaceGetConfig(space, 0, &c[0]).ok);
  assert_true(prunerSpaceGetConfig(space, prunerSpaceCount(space) - 1, &c[1]).ok);
  prunerSpaceDestroy(space);
  c[2] = c[0];
  c[2].workgroup[0] = 200; /* over the bound 96 */
  static PrunerHostRemeasure rem;
  prunerHostRemeasure(host, &w, c, 3, true, &rem);
  assert_int_equal(rem.num_entries, 4);
  assert_true(rem.has_baseline);
  assert_true(rem.rounds >= PRUNER_HOST_REMEASURE_MIN_ROUNDS);
  assert_true(rem.rounds <= PRUNER_MAX_SAMPLES);
  const int good[3] = {0, 1, 3};
  for (int k = 0; k < 3; ++k) {
    const PrunerHostRemeasureEntry *e = &rem.entries[good[k]];
    if (e->status != PRUNER_RECORD_OK)
      fail_msg("entry %d: %s: %s", good[k], prunerRecordStatusName(e->status), e->error);
    assert_int_equal(e->num_samples, rem.rounds);
    assert_true(e->min_us > 0);
    assert_true(e->min_us <= e->p25_us && e->p25_us <= e->median_us);
    assert_true(e->median_us <= e->p75_us && e->p75_us <= e->max_us);
    printf("  entry %d: median %.2f us, IQR %.2f-%.2f, %d rounds\n", good[k], e->median_us,
           e->p25_us, e->p75_us, rem.rounds);
  }
  assert_int_equal(rem.entries[2].status, PRUNER_RECORD_COMPILE_ERROR);
  assert_non_null(strstr(rem.entries[2].error, "is not in [1, bound 96]"));
  assert_int_equal(rem.entries[2].num_samples, 0);
  assert_true(rem.baseline_core[0] != '\0');
  /* No baseline for a workload without sgemm: only the configs come back. */
  const int64_t dims[2] = {16, 32};
  prunerWorkloadElementwiseAdd(&w, dims, 2, PRUNER_DTYPE_F32);
  prunerHostRemeasure(host, &w, NULL, 0, true, &rem);
  assert_int_equal(rem.num_entries, 0);
  assert_false(rem.has_baseline);
}

/* BLIS as a second baseline in the same rounds: the entry after OpenBLAS, checked against
 * the same reference; where libblis.so.4 is missing the entry says so and the others are
 * timed as usual. OpenBLAS and BLIS both export cblas_sgemm: each must give its own
 * core name (a clash would call one library twice). */
static void test_remeasure_blis(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 96, 128, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerConfig c = firstConfig(&w);
  static PrunerHostRemeasure rem;
  prunerHostRemeasureBaselines(host, &w, &c, 1, true, true, true, &rem);
  assert_int_equal(rem.num_entries, 3); /* no oneDNN entry for a matmul */
  assert_false(rem.has_onednn);
  assert_true(rem.has_baseline);
  assert_true(rem.has_blis);
  for (int i = 0; i < 2; ++i)
    if (rem.entries[i].status != PRUNER_RECORD_OK)
      fail_msg("entry %d: %s", i, rem.entries[i].error);
  const PrunerHostRemeasureEntry *b = &rem.entries[2];
  if (b->status == PRUNER_RECORD_OK) {
    assert_int_equal(b->num_samples, rem.rounds);
    assert_true(b->min_us > 0 && b->median_us <= b->max_us);
    assert_true(rem.blis_core[0] != '\0');
    printf("  BLIS (%s) median %.2f us, OpenBLAS (%s) %.2f us\n", rem.blis_core, b->median_us,
           rem.baseline_core, rem.entries[1].median_us);
  } else {
    assert_int_equal(b->status, PRUNER_RECORD_LAUNCH_ERROR);
    assert_non_null(strstr(b->error, "libblis"));
    printf("  no BLIS here: %s\n", b->error);
  }
  /* A conv's im2col + sgemm with BLIS's sgemm: checked against the reference too. */
  prunerWorkloadConv2dNhwcHwcf(&w, 1, 10, 10, 8, 3, 3, 16, 1, 1, PRUNER_DTYPE_F32);
  prunerHostRemeasureBaselines(host, &w, NULL, 0, true, true, false, &rem);
  assert_int_equal(rem.num_entries, 2);
  if (rem.entries[0].status != PRUNER_RECORD_OK)
    fail_msg("OpenBLAS on the conv: %s", rem.entries[0].error);
  assert_true(rem.entries[1].status == PRUNER_RECORD_OK ||
              strstr(rem.entries[1].error, "libblis") != NULL);
  /* No sgemm form: no BLIS entry either. */
  const int64_t dims[2] = {16, 32};
  prunerWorkloadElementwiseAdd(&w, dims, 2, PRUNER_DTYPE_F32);
  prunerHostRemeasureBaselines(host, &w, NULL, 0, true, true, true, &rem);
  assert_int_equal(rem.num_entries, 0);
  assert_false(rem.has_blis);
}

static void test_space_rules(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 512, 512, 512, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerSpace space;
  assert_true(prunerSpaceCreate(&w, &target, NULL, &space).ok);
  uint64_t count = prunerSpaceCount(space), seen = 0, raw = 0;
  printf("  512^3 host space: %llu valid of %llu raw\n", (unsigned long long)count,
         (unsigned long long)prunerSpaceRawSize(space));
  /* Large enough to tell search methods apart, small enough to scan in milliseconds and
   * to sample for a dataset (docs/host.md, "Space"). */
  assert_true(count >= 1000 && count <= 40000);
  PrunerConfig c;
  while (prunerSpaceNext(space, &raw, &c)) {
    PrunerStatus s = prunerConfigCheck(&w, &target, &c);
    if (!s.ok)
      fail_msg("enumerated config rejected: %s", s.message);
    assert_int_equal(c.vector_width, prunerHostTargetSimdLanes(&target));
    assert_int_equal(c.thread[1] % c.vector_width, 0);
    ++seen;
  }
  assert_int_equal(seen, count);
  /* The host meaning of the GPU-named fields, read through their host names. */
  int lanes = prunerHostTargetSimdLanes(&target);
  assert_true(lanes == 4 || lanes == 8 || lanes == 16);
  assert_int_equal(lanes, target.warp_size);
  assert_true(prunerHostTargetCores(&target) >= 1);
  assert_int_equal(prunerHostTargetCores(&target), target.sm_count);
  /* Bad configs are named. */
  assert_true(prunerSpaceGetConfig(space, 0, &c).ok);
  PrunerConfig bad = c;
  bad.vector_width = 3;
  PrunerStatus s = prunerConfigCheck(&w, &target, &bad);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, "vector_width = 3"));
  bad = c;
  bad.workgroup[0] = 1000;
  s = prunerConfigCheck(&w, &target, &bad);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, "workgroup tile 1000"));
  bad = c;
  bad.thread[0] = 8;
  bad.thread[1] = 64;
  bad.workgroup[1] = 64;
  s = prunerConfigCheck(&w, &target, &bad);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, "SIMD registers"));
  PrunerHostResult r;
  prunerHostMeasure(host, &w, &bad, &r);
  assert_int_equal(r.record.status, PRUNER_RECORD_INVALID);
  /* The schedule's public entry checks too, with the rules' own message (the internal
   * already-checked entry that pruner-cpu-pipeline reaches does not check again). */
  char *text = NULL;
  PrunerStatus built = prunerHostScheduleBuild(&w, &bad, &target, &text);
  assert_false(built.ok);
  assert_null(text);
  assert_string_equal(built.message, s.message);
  assert_true(prunerHostScheduleBuild(&w, &c, &target, &text).ok);
  assert_non_null(strstr(text, "tile_using_for"));
  free(text);
  prunerSpaceDestroy(space);
}

/* A 64x48 (K 32) f32 contraction generic whose B operand is indexed by `b_map` with
 * shape `b_shape` ("(k, n)" and "32x48": a matmul; "(n, k)" and "48x32": B transposed). */
static const char *contractionGeneric(char *buf, size_t size, const char *b_map,
                                      const char *b_shape) {
  snprintf(buf, size,
           "#a = affine_map<(m, n, k) -> (m, k)>\n#b = affine_map<(m, n, k) -> %s>\n"
           "#c = affine_map<(m, n, k) -> (m, n)>\n"
           "func.func @f(%%a: tensor<64x32xf32>, %%b: tensor<%sxf32>, %%c: tensor<64x48xf32>) -> "
           "tensor<64x48xf32> {\n"
           "  %%r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = [\"parallel\", "
           "\"parallel\", \"reduction\"]} ins(%%a, %%b : tensor<64x32xf32>, tensor<%sxf32>) "
           "outs(%%c : tensor<64x48xf32>) {\n"
           "  ^bb0(%%x: f32, %%y: f32, %%z: f32):\n    %%p = arith.mulf %%x, %%y : f32\n"
           "    %%s = arith.addf %%z, %%p : f32\n    linalg.yield %%s : f32\n"
           "  } -> tensor<64x48xf32>\n  return %%r : tensor<64x48xf32>\n}\n",
           b_map, b_shape, b_shape);
  return buf;
}

/* Packing B (docs/host.md, "Packing B"): which ops may pack, that the space offers it
 * (and only it) beside every unpacked config, that packed kernels measure exact on a
 * matmul, a batch_matmul and a contraction generic, and that bad packing is named. */
static void test_packing(void **state) {
  (void)state;
  PrunerWorkload mm, bmm, conv, ew, bt, cg;
  prunerWorkloadMatmul(&mm, 96, 128, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  prunerWorkloadBatchMatmul(&bmm, 3, 48, 64, 32, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  prunerWorkloadConv2dNhwcHwcf(&conv, 1, 10, 10, 8, 3, 3, 32, 1, 1, PRUNER_DTYPE_F32);
  int64_t dims[2] = {64, 64};
  prunerWorkloadElementwiseAdd(&ew, dims, 2, PRUNER_DTYPE_F32);
  /* B transposed (rows along k): its rows do not run along the vectorized loop. */
  char text[2048];
  workloadFromText(contractionGeneric(text, sizeof text, "(n, k)", "48x32"), &bt);
  /* The same matmul as a contraction generic: packable like linalg.matmul. */
  workloadFromText(contractionGeneric(text, sizeof text, "(k, n)", "32x48"), &cg);
  assert_int_equal(prunerHostPackableOperand(&mm), 1);
  assert_int_equal(prunerHostPackableOperand(&bmm), 1);
  assert_int_equal(prunerHostPackableOperand(&cg), 1);
  assert_int_equal(prunerHostPackableOperand(&conv), -1);
  assert_int_equal(prunerHostPackableOperand(&ew), -1);
  assert_int_equal(prunerHostPackableOperand(&bt), -1);

  const PrunerWorkload *packable[] = {&mm, &bmm, &cg};
  for (size_t i = 0; i < 3; ++i) {
    const PrunerWorkload *w = packable[i];
    PrunerSpace space;
    assert_true(prunerSpaceCreate(w, &target, NULL, &space).ok);
    uint64_t raw = 0, packed = 0, unpacked = 0, lone = 0;
    PrunerConfig c, first_packed;
    while (prunerSpaceNext(space, &raw, &c)) {
      assert_true(c.promote_operands == 0 || c.promote_operands == 2u);
      if (c.promote_operands) {
        if (!packed)
          first_packed = c;
        ++packed;
        /* Its unpacked twin is in the space too. */
        PrunerConfig twin = c;
        twin.promote_operands = 0;
        assert_true(prunerSpaceContains(space, &twin));
      } else {
        ++unpacked;
        /* Its packed twin is in the space unless a rule refuses it: a config that tiles
         * nothing has no panel to pack, and a peeled loop of B leaves a scalar remainder. */
        PrunerConfig twin = c;
        twin.promote_operands = 2u;
        PrunerStatus why = prunerConfigCheck(w, &target, &twin);
        if (prunerSpaceContains(space, &twin))
          assert_true(why.ok);
        else if (why.ok ||
                 (!strstr(why.message, "tiles nothing") && !strstr(why.message, "peeled")))
          fail_msg("%s: the packed twin is missing: %s", w->key, why.ok ? "valid" : why.message);
        else
          ++lone;
      }
    }
    printf("  %s: %llu packed, %llu unpacked configs (%llu without a packed twin)\n", w->key,
           (unsigned long long)packed, (unsigned long long)unpacked, (unsigned long long)lone);
    assert_int_equal(packed + lone, unpacked);
    PrunerHostResult r;
    prunerHostMeasure(host, w, &first_packed, &r);
    char label[256];
    prunerConfigFormatShort(w, &first_packed, label, sizeof label);
    if (r.record.status != PRUNER_RECORD_OK)
      fail_msg("%s %s: %s", w->key, label, r.record.error);
    assert_true(r.record.max_abs_error <= 1e-4);
    /* The packed schedule promotes operand 1 and tiles the copy by rows. */
    char *text = NULL;
    assert_true(prunerHostScheduleBuild(w, &first_packed, &target, &text).ok);
    assert_non_null(strstr(text, "operands_to_promote = [1]"));
    assert_non_null(strstr(text, "match ops{[\"linalg.copy\"]}"));
    free(text);
    prunerSpaceDestroy(space);
  }
  /* Ops that cannot pack never get it; a config asking for it is named. */
  PrunerSpace space;
  assert_true(prunerSpaceCreate(&conv, &target, NULL, &space).ok);
  PrunerConfig c;
  assert_true(prunerSpaceGetConfig(space, 0, &c).ok);
  c.promote_operands = 2;
  PrunerStatus st = prunerConfigCheck(&conv, &target, &c);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "promote_operands = [1]"));
  assert_non_null(strstr(st.message, "this op has none"));
  prunerSpaceDestroy(space);

  /* A small matmul where one task can cover the whole op with one reduction step and a
   * register panel as wide as the task: then nothing tiles operand 1 and there is no tile
   * to pack (promote stages subviews; such configs failed to apply before the rule). The
   * config asking for it is named, and every config the space offers, packed or not,
   * compiles and runs (on AVX2 the space has packed configs with an 8-wide task tile). */
  PrunerWorkload tiny;
  prunerWorkloadMatmul(&tiny, 16, 16, 8, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerConfig whole = {.workgroup = {16, 16}, .reduction = {0, 0, 8}, .thread = {4, 16},
                        .vector_width = prunerHostTargetSimdLanes(&target)};
  assert_true(prunerConfigCheck(&tiny, &target, &whole).ok);
  whole.promote_operands = 2;
  st = prunerConfigCheck(&tiny, &target, &whole);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "tiles nothing"));
  assert_true(prunerSpaceCreate(&tiny, &target, NULL, &space).ok);
  assert_false(prunerSpaceContains(space, &whole));
  uint64_t raw = 0;
  size_t offered = 0;
  while (prunerSpaceNext(space, &raw, &c)) {
    PrunerHostResult r;
    prunerHostMeasure(host, &tiny, &c, &r);
    char label[256];
    prunerConfigFormatShort(&tiny, &c, label, sizeof label);
    if (r.record.status != PRUNER_RECORD_OK)
      fail_msg("%s %s: a config of the space failed: %s", tiny.key, label, r.record.error);
    ++offered;
  }
  assert_true(offered > 0);
  prunerSpaceDestroy(space);

  /* Packing with B's batch loop peeled (3 heads per task, 2 per register tile) is refused
   * by name: the panel's remainder ran scalar, 12-60x slower. Unpacked, the same tiles
   * peel both register loops (batch and m, innermost first: peeling the batch loop first
   * invalidated the m loop's handle) and compute the right result. */
  PrunerWorkload heads;
  prunerWorkloadBatchMatmul(&heads, 6, 32, 32, 16, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerConfig peeled = {.workgroup = {3, 32, 32, 0}, .reduction = {0, 0, 0, 16},
                         .thread = {2, 7, prunerHostTargetSimdLanes(&target), 0},
                         .vector_width = prunerHostTargetSimdLanes(&target),
                         .promote_operands = 2};
  st = prunerConfigCheck(&heads, &target, &peeled);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "register tile 2 of loop 0 (b) peeled from its task tile 3"));
  peeled.promote_operands = 0;
  assert_true(prunerConfigCheck(&heads, &target, &peeled).ok);
  PrunerHostResult two_peels;
  prunerHostMeasure(host, &heads, &peeled, &two_peels);
  if (two_peels.record.status != PRUNER_RECORD_OK)
    fail_msg("two peeled register loops: %s", two_peels.record.error);
  assert_true(two_peels.record.max_abs_error <= 1e-4);
}

/* What the host can measure, decided before any trial: f32 only, and operand data within
 * the worker's memory limit (every trial of a 3 x 4 GB op ended in "out of memory"). */
static void test_measurable(void **state) {
  (void)state;
  char why[200];
  int64_t small[2] = {64, 64};
  PrunerWorkload w;
  prunerWorkloadElementwiseAdd(&w, small, 2, PRUNER_DTYPE_F32);
  assert_true(prunerHostMeasurable(&w, why, sizeof why));
  prunerWorkloadElementwiseAdd(&w, small, 2, PRUNER_DTYPE_F16);
  assert_false(prunerHostMeasurable(&w, why, sizeof why));
  assert_non_null(strstr(why, "f32 workloads only"));
  int64_t big[2] = {32768, 32768}; /* 4 GiB per operand: 4 + 4 + 3 x 4 GiB */
  prunerWorkloadElementwiseAdd(&w, big, 2, PRUNER_DTYPE_F32);
  assert_false(prunerHostMeasurable(&w, why, sizeof why));
  assert_non_null(strstr(why, "its operands need 20480 MB in the measuring worker"));
  /* An NCHW conv's kernel holds channels-last copies too: 1.5 GiB of input and of output
   * need 2 x 1.5 + 4 x 1.5 = 9 GiB with them, past the limit; the same conv in NHWC
   * (no copies: 1.5 + 3 x 1.5 = 6 GiB) fits. */
  prunerWorkloadConv2dNchwFchw(&w, 1, 256, 1024, 1536, 256, 1, 1, 1, 1, PRUNER_DTYPE_F32);
  assert_false(prunerHostMeasurable(&w, why, sizeof why));
  assert_non_null(strstr(why, "its operands and their channels-last copies need 92"));
  prunerWorkloadConv2dNhwcHwcf(&w, 1, 1024, 1536, 256, 1, 1, 256, 1, 1, PRUNER_DTYPE_F32);
  assert_true(prunerHostMeasurable(&w, why, sizeof why));
}

/* prunerHostSetThreadPoolEnvironment in a forked process (its environment and libomp are
 * its own): every variable is set where it was unset, a user's value is kept, and the
 * kernels' libomp honours KMP_BLOCKTIME under OMP_WAIT_POLICY=PASSIVE (1 ms; the passive
 * policy alone makes it 0 ms, and sleeping threads' wake-up is what the spin avoids). */
static void test_thread_pool_environment(void **state) {
  (void)state;
  static const char *const names[] = {"OMP_WAIT_POLICY", "KMP_BLOCKTIME", "GOMP_SPINCOUNT",
                                      "OPENBLAS_THREAD_TIMEOUT"};
  static const char *const wanted[] = {"PASSIVE", "1", "100000", "7"};
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    int failed = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
      unsetenv(names[i]);
    setenv("OPENBLAS_THREAD_TIMEOUT", "7", 1); /* the user's */
    /* libomp reads its variables once, when it starts: it must not have started here. */
    if (dlopen(PRUNER_HOST_LIBOMP, RTLD_NOW | RTLD_NOLOAD)) {
      fprintf(stderr, "libomp is loaded in the test process already: run this test first\n");
      _exit(2);
    }
    prunerHostSetThreadPoolEnvironment();
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
      const char *v = getenv(names[i]);
      if (!v || strcmp(v, wanted[i]) != 0) {
        fprintf(stderr, "%s=%s, expected %s\n", names[i], v ? v : "(unset)", wanted[i]);
        failed = 1;
      }
    }
    void *omp = dlopen(PRUNER_HOST_LIBOMP, RTLD_NOW | RTLD_LOCAL);
    int (*blocktime)(void) = omp ? (int (*)(void))dlsym(omp, "kmp_get_blocktime") : NULL;
    int ms = blocktime ? blocktime() : -1;
    if (ms != 1) {
      fprintf(stderr, "libomp's blocktime %d ms (%s), expected 1\n", ms,
              omp ? "kmp_get_blocktime" : dlerror());
      failed = 1;
    }
    _exit(failed);
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  /* The child started libomp and left by _exit: its registration is ours to remove. */
  char registration[96];
  snprintf(registration, sizeof registration, "/dev/shm/__KMP_REGISTERED_LIB_%d_%d", (int)pid,
           (int)getuid());
  unlink(registration);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

/* This process's children as /proc lists them ("" when it does not). */
static void childrenList(char *out, size_t size) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
  out[0] = '\0';
  FILE *f = fopen(path, "r");
  if (f) {
    if (!fgets(out, (int)size, f))
      out[0] = '\0';
    fclose(f);
  }
}

/* A child listed now that `before` did not list; 0 when none (or no list). */
static int newChild(const char *before) {
  char now[256];
  childrenList(now, sizeof now);
  for (char *p = strtok(now, " \n"); p; p = strtok(NULL, " \n")) {
    char word[32];
    snprintf(word, sizeof word, " %s ", p);
    char padded[260];
    snprintf(padded, sizeof padded, " %s ", before);
    if (!strstr(padded, word))
      return atoi(p);
  }
  return 0;
}

/* A measuring child ends without its exit handlers (killed, or _exit), so what it made
 * is removed by the parent: the perf listener's JIT dumps (in a folder of the host's
 * under TMPDIR, gone with the host) and libomp's registration of the child's pid in
 * /dev/shm. Before, every measuring child left one of each behind. */
static void test_leaves_no_files(void **state) {
  (void)state;
  char dir[] = "/tmp/pruner-host-files-XXXXXX";
  assert_non_null(mkdtemp(dir));
  const char *old_tmp = getenv("TMPDIR");
  char *saved_tmp = old_tmp ? strdup(old_tmp) : NULL;
  const char *old_dump = getenv("JITDUMPDIR");
  char *saved_dump = old_dump ? strdup(old_dump) : NULL;
  setenv("TMPDIR", dir, 1);
  unsetenv("JITDUMPDIR");
  /* A tuner that died without destroying its host (a pid that is gone: a child reaped
   * at once) left its folder, with a child's mark and that child's registration. */
  pid_t gone = fork();
  assert_true(gone >= 0);
  if (gone == 0)
    _exit(0);
  assert_int_equal(waitpid(gone, NULL, 0), gone);
  char stale[160], mark[200], stale_registration[96];
  snprintf(stale, sizeof stale, "%s/pruner-jit-%d-AbCdEf", dir, (int)gone);
  snprintf(mark, sizeof mark, "%s/child-%d", stale, (int)gone);
  snprintf(stale_registration, sizeof stale_registration, "/dev/shm/__KMP_REGISTERED_LIB_%d_%d",
           (int)gone, (int)getuid());
  assert_int_equal(mkdir(stale, 0700), 0);
  FILE *touch = fopen(mark, "w");
  assert_non_null(touch);
  fclose(touch);
  FILE *shm = fopen(stale_registration, "w"); /* NULL without /dev/shm: not checked */
  if (shm)
    fclose(shm);
  char before[256];
  childrenList(before, sizeof before);
  PrunerHost h = createTestHost(1);
  if (access(stale, F_OK) == 0)
    fail_msg("%s of a tuner that is gone was not removed", stale);
  if (shm && access(stale_registration, F_OK) == 0)
    fail_msg("%s of a child that is gone was not removed", stale_registration);
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 32, 32, 32, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerSpace space;
  assert_true(prunerSpaceCreate(&w, &target, NULL, &space).ok);
  PrunerConfig c;
  assert_true(prunerSpaceGetConfig(space, 0, &c).ok);
  prunerSpaceDestroy(space);
  PrunerHostResult r;
  prunerHostMeasure(h, &w, &c, &r);
  assert_int_equal(r.record.status, PRUNER_RECORD_OK);
  /* The measuring child: the child of this process that was not there before the host
   * (/proc lists a thread's children; without the list the libomp part is not checked). */
  int child = newChild(before);
  char registration[96] = "";
  if (child > 0) {
    snprintf(registration, sizeof registration, "/dev/shm/__KMP_REGISTERED_LIB_%d_%d", child,
             (int)getuid());
    if (access(registration, F_OK) != 0) /* none made (no /dev/shm): nothing to check */
      registration[0] = '\0';
  }
  prunerHostDestroy(h);
  if (registration[0] && access(registration, F_OK) == 0)
    fail_msg("%s is left behind", registration);
  printf("libomp's registration of child %d: %s\n", child,
         registration[0] ? "made and removed" : "not checked");
  if (saved_tmp)
    setenv("TMPDIR", saved_tmp, 1);
  else
    unsetenv("TMPDIR");
  if (saved_dump)
    setenv("JITDUMPDIR", saved_dump, 1);
  free(saved_tmp);
  free(saved_dump);
  /* Nothing of the host's left in its TMPDIR: rmdir fails on a folder with anything in. */
  if (rmdir(dir) != 0)
    fail_msg("%s is not empty after the host is gone", dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_thread_pool_environment), /* first: before libomp starts */
      cmocka_unit_test(test_measurable),
      cmocka_unit_test(test_leaves_no_files),
      cmocka_unit_test(test_space_rules),
      cmocka_unit_test(test_packing),
      cmocka_unit_test(test_matmul),
      cmocka_unit_test(test_batch_matmul),
      cmocka_unit_test(test_matmul_narrow_vectors),
      cmocka_unit_test(test_narrow_or_full_lanes),
      cmocka_unit_test(test_split_loops),
      cmocka_unit_test(test_conv_nhwc),
      cmocka_unit_test(test_conv_nchw_strided),
      cmocka_unit_test(test_conv_nchw_channels_last),
      cmocka_unit_test(test_elementwise),
      cmocka_unit_test(test_reduction),
      cmocka_unit_test(test_baseline),
      cmocka_unit_test(test_conv_baseline),
      cmocka_unit_test(test_conv_baseline_threads),
      cmocka_unit_test(test_onednn_depthwise),
      cmocka_unit_test(test_remeasure),
      cmocka_unit_test(test_remeasure_blis),
      cmocka_unit_test(test_tuned_vs_untiled_512),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

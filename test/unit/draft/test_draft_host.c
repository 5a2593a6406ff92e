/* Unit tests of the host CPU draft (lib/backend/host/draft_host.c, docs/host.md "Draft"): the
 * cache-level traffic of the loop nest and the 2-D conv's accumulators (unhoisted before
 * host code-generator version 4, in registers since), on a fixed description of the
 * dataset machine (data/README.md), so that results do not depend on the machine the
 * tests run on. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pruner/backend/host_rules.h"
#include "pruner/draft.h"

/* One Zen 4 core as lib/backend/host/target_host.c describes it: AVX-512, 32 KiB L1d, 1 MiB L2,
 * 32 MiB L3, 2596 MHz, one 512-bit FMA per cycle (83 GFLOP/s), 10 GB/s DRAM. */
static PrunerTargetDesc zen4Core(void) {
  PrunerTargetDesc t;
  memset(&t, 0, sizeof t);
  t.kind = PRUNER_TARGET_HOST;
  strcpy(t.name, "test-zen4-1c");
  strcpy(t.arch, "host");
  t.sm_count = 1;
  t.warp_size = 16;
  t.regs_per_sm = 32;
  t.boost_clock_mhz = 2596;
  t.peak_fp32_gflops = 2596e6 * 16 * 2 / 1e9;
  t.smem_per_sm = 32 * 1024;
  t.l2_bytes = 1024 * 1024;
  t.smem_per_block = 32 * 1024 * 1024;
  t.dram_gbps = 10;
  t.max_threads_per_block = 1;
  return t;
}

/* One core of the Intel Xeon of the *-intel datasets (Emerald Rapids, data/README.md):
 * AVX-512 with two FMA pipes, 48 KiB L1d, 2 MiB L2, 260 MiB L3, 2300 MHz. */
static PrunerTargetDesc xeonCore(void) {
  PrunerTargetDesc t = zen4Core();
  strcpy(t.name, "test-xeon-1c");
  t.boost_clock_mhz = 2300;
  t.peak_fp32_gflops = 2300e6 * 16 * 2 * 2 / 1e9;
  t.smem_per_sm = 48 * 1024;
  t.l2_bytes = 2048 * 1024;
  t.smem_per_block = 260 * 1024 * 1024;
  return t;
}

static PrunerConfig matmulConfig(int64_t wm, int64_t wn, int64_t k, int64_t tm, int64_t tn) {
  PrunerConfig c;
  memset(&c, 0, sizeof c);
  c.workgroup[0] = wm;
  c.workgroup[1] = wn;
  c.reduction[2] = k;
  c.thread[0] = tm;
  c.thread[1] = tn;
  c.vector_width = 16;
  return c;
}

/* An NHWC conv's config (loops n, oh, ow, f, kh, kw, c): a task of one output row of
 * `wow` columns and `wf` filters, register tile 1 x `tow` columns x `tf` filters, reduction
 * steps kh 1, kw `kw`, c `kc`, 16 lanes. */
static PrunerConfig convConfig(int64_t wow, int64_t wf, int64_t tow, int64_t tf, int64_t kw,
                               int64_t kc) {
  PrunerConfig c;
  memset(&c, 0, sizeof c);
  c.workgroup[0] = c.workgroup[1] = 1;
  c.workgroup[2] = wow;
  c.workgroup[3] = wf;
  c.thread[0] = c.thread[1] = 1;
  c.thread[2] = tow;
  c.thread[3] = tf;
  c.reduction[4] = 1;
  c.reduction[5] = kw;
  c.reduction[6] = kc;
  c.vector_width = 16;
  return c;
}

static PrunerDraftSymbols scoreOn(const PrunerTargetDesc *target, const PrunerWorkload *w,
                                  const PrunerConfig *c) {
  PrunerTargetDesc t = *target;
  PrunerDraft d;
  PrunerStatus st = prunerDraftCreate(w, &t, &d);
  if (!st.ok)
    fail_msg("%s", st.message);
  PrunerDraftSymbols s;
  if (!prunerDraftScore(d, c, NULL, &s))
    fail_msg("config rejected");
  prunerDraftDestroy(d);
  return s;
}

static PrunerDraftSymbols score(const PrunerWorkload *w, const PrunerConfig *c) {
  PrunerTargetDesc t = zen4Core();
  return scoreOn(&t, w, c);
}

/* A reduction run costs its accumulators' loads and stores, not a fixed exit and latency
 * (docs/host.md, "Draft"). On the Xeon the 512^3 matmul's 6 x 4 tile (wg 64 x 512)
 * measures 0.932x from a 32 to a 512 k step (docs/quality.md, "The runs' fixed cost");
 * with 26 fixed cycles a run the draft said 0.883x. */
static void test_run_cost_of_a_short_k_step(void **state) {
  (void)state;
  PrunerTargetDesc t = xeonCore();
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 512, 512, 512, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerConfig k32 = matmulConfig(64, 512, 32, 6, 64), k512 = matmulConfig(64, 512, 512, 6, 64);
  double ratio = scoreOn(&t, &w, &k512).predicted_us / scoreOn(&t, &w, &k32).predicted_us;
  assert_true(ratio > 0.91 && ratio < 0.95);
}

/* The case tune2 measured (docs/host.md, "Kernel quality"): on the 128x3072x768 matmul,
 * B (9.4 MB) is far above L2, so 32-row tasks read it from L3 four times and 128-row
 * tasks once. The draft used to count only compulsory bytes once everything fit L3 and
 * ranked wg32x64 r64 t8x32 (0.57x OpenBLAS) first, above wg128x512 r128 t8x32 (0.94x). */
static void test_llc_rereads_of_b_per_row_task(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 128, 3072, 768, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerConfig narrow = matmulConfig(32, 64, 64, 8, 32);
  /* Same register tile, so only the cache traffic differs (measured 26.0 vs 15.8 ms). */
  PrunerConfig wide = matmulConfig(128, 512, 128, 8, 32);
  PrunerDraftSymbols sn = score(&w, &narrow), sw = score(&w, &wide);
  double b_bytes = 768.0 * 3072 * 4;
  /* Bytes from beyond L2: B at least once per row task (4 for 32-row tasks, 1 for 128). */
  assert_true(sn.dram_bytes >= 4 * b_bytes);
  assert_true(sw.dram_bytes < 2 * b_bytes);
  assert_true(sn.memory_us > 2 * sw.memory_us);
  assert_true(sw.predicted_us < sn.predicted_us);
}

/* Everything fits L2 (16x16x16): what crosses L2 is each operand once (the output read and
 * written), and nothing comes from DRAM (the timed reruns find it resident). */
static void test_fitting_problem_is_compulsory_traffic(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 16, 16, 16, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerConfig c = matmulConfig(16, 16, 16, 4, 16);
  PrunerDraftSymbols s = score(&w, &c);
  double compulsory = (16.0 * 16 * 3 + 16.0 * 16) * 4; /* A, B, C in; C out */
  assert_true(s.dram_bytes == compulsory);
  assert_true(s.global_load_bytes == compulsory);
}

/* A cache block whose B slice (512 x 32 per register tile, 64 KiB) exceeds L1: only one
 * register step (8 rows x 32 columns x 1 k) fits, so every register tile brings its A
 * rows (8 x 512), B columns (512 x 32) and C tile (8 x 32, read and written) from L2, for
 * each of the 8 tasks x 8 x 16 register tiles. Hand-computed. */
static void test_l1_fills_of_a_spilling_block(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 512, 512, 512, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerConfig c = matmulConfig(64, 512, 512, 8, 32);
  double per_tile = (8.0 * 512 + 512.0 * 32 + 2 * 8.0 * 32) * 4;
  assert_true(score(&w, &c).global_load_bytes == per_tile * 8 * 8 * 16);
}

/* Before host code-generator version 4 the 2-D conv's accumulator made memory round trips
 * every step (no hoist), so a step of three kw taps amortized them over three times the
 * FMAs of a one-tap step: the measured 2x of data/host-conv-nhwc.jsonl (kw = 3 vs 1 at
 * every register tile), whose records timed those kernels and are studied with them. */
static void test_conv_whole_kw_beats_one_tap_before_version_4(void **state) {
  (void)state;
  PrunerTargetDesc t = zen4Core();
  t.codegen_version = 1; /* the records of data/host-conv-nhwc.jsonl carry no version */
  PrunerWorkload w;
  prunerWorkloadConv2dNhwcHwcf(&w, 1, 30, 30, 32, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
  PrunerConfig one = convConfig(28, 64, 4, 64, 1, 32), whole = convConfig(28, 64, 4, 64, 3, 32);
  PrunerDraftSymbols s1 = scoreOn(&t, &w, &one), s3 = scoreOn(&t, &w, &whole);
  assert_true(s1.predicted_us > 1.5 * s3.predicted_us);
}

/* This build's conv kernels keep the output tile in registers (version 4): no round trips,
 * so the one-tap step is no longer charged them and the same tile is predicted faster
 * than the version-2 kernel's. Measured on the Xeon (data/host-conv-nhwc-intel.jsonl,
 * version 4): the 4 x 4 tile's best with kw = 3 is the file's best and with kw = 1 1.01x;
 * with version 2 the same file's kw = 1 configs were up to 2x slower. */
static void test_conv_accumulators_in_registers(void **state) {
  (void)state;
  PrunerTargetDesc today = xeonCore(), v2 = xeonCore(); /* two FMA pipes: stores bound v2 */
  v2.codegen_version = 2;
  PrunerWorkload w;
  prunerWorkloadConv2dNhwcHwcf(&w, 1, 30, 30, 32, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
  PrunerConfig one = convConfig(28, 64, 4, 64, 1, 32), whole = convConfig(28, 64, 4, 64, 3, 32);
  PrunerDraftSymbols s1 = scoreOn(&today, &w, &one), s3 = scoreOn(&today, &w, &whole);
  assert_true(s1.predicted_us < 1.2 * s3.predicted_us);
  assert_true(s3.predicted_us < scoreOn(&v2, &w, &whole).predicted_us);
  assert_true(s1.predicted_us < scoreOn(&v2, &w, &one).predicted_us / 1.5);
  /* iree-cpu configs are scored by this model too, for IREE's own kernels, which did not
   * change: they keep the round trips whatever the version. */
  PrunerTargetDesc iree = xeonCore();
  iree.kind = PRUNER_TARGET_IREE_CPU;
  PrunerDraftSymbols si, sv2;
  assert_true(prunerHostDraftScore(&w, &iree, &one, &si));
  assert_true(prunerHostDraftScore(&w, &v2, &one, &sv2));
  assert_true(fabs(si.predicted_us - sv2.predicted_us) < 1e-9 * sv2.predicted_us);
}

/* A batch_matmul's register tile over the batch loop shares no B vector between its rows
 * (B[b, k, n] differs per b), unlike a tile over m (B[k, n] serves every row). On a core
 * with two FMA pipes (Intel Xeon SP) the loads then bind: per step a 4x1x16 tile (b x m x
 * n) issues 4 FMAs (2 cycles), 4 broadcasts + 4 B vectors (4 cycles on 2 load ports) and
 * 15 uops with the loop's 3 (3.75 cycles at 4 a cycle): port balance 2 / 4. A 1x4x16
 * tile loads B once: 5 loads (2.5 cycles), 12 uops (3 cycles): balance 2 / 3. */
static void test_batch_tile_loads_b_per_batch(void **state) {
  (void)state;
  PrunerTargetDesc xeon = zen4Core();
  xeon.peak_fp32_gflops *= 2; /* two 512-bit FMA pipes */
  PrunerWorkload w;
  prunerWorkloadBatchMatmul(&w, 4, 96, 128, 384, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  /* loops: b, m, n, k */
  PrunerConfig batch;
  memset(&batch, 0, sizeof batch);
  int64_t wg[3] = {4, 4, 16};
  for (int l = 0; l < 3; ++l)
    batch.workgroup[l] = wg[l];
  batch.reduction[3] = 384;
  batch.vector_width = 16;
  PrunerConfig rows = batch;
  int64_t tb[3] = {4, 1, 16}, tm[3] = {1, 4, 16};
  for (int l = 0; l < 3; ++l) {
    batch.thread[l] = tb[l];
    rows.thread[l] = tm[l];
  }
  PrunerDraft d;
  PrunerStatus st = prunerDraftCreate(&w, &xeon, &d);
  if (!st.ok)
    fail_msg("%s", st.message);
  PrunerDraftSymbols sb, sm;
  assert_true(prunerDraftScore(d, &batch, NULL, &sb));
  assert_true(prunerDraftScore(d, &rows, NULL, &sm));
  prunerDraftDestroy(d);
  assert_true(fabs(sb.vector_efficiency - 0.5) < 1e-9);
  assert_true(fabs(sm.vector_efficiency - 2.0 / 3.0) < 1e-9);
  assert_true(sb.predicted_us > sm.predicted_us);
  /* One FMA pipe (Zen 4): the FMAs bind either way. */
  assert_true(score(&w, &batch).vector_efficiency == 1.0);
}

/* A 2-D conv's register step needs its accumulators, one broadcast per tile row and one
 * filter vector per tile vector; LLVM spills the 3x3 conv's steps whose demand passes the
 * register file by more than two (scripts/conv-spill-census.sh). On the ResNet conv the
 * 12 x 2 tile (24 + 12 + 2 = 38 of 32 registers) measured 1.18x the best tile on the
 * Zen 4 and 14 x 2 1.36x (data/host-resnet-conv-wide.jsonl); the draft used to favour
 * them. 8 x 2 (26) and 6 x 4 (34, two over: no spill) fill the accumulator knee without
 * spilling. Here ow = 48, which all three tiles divide (no peeled remainder). */
static void test_conv_tile_over_the_register_file_spills(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadConv2dNhwcHwcf(&w, 1, 50, 50, 64, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
  PrunerConfig t12x2 = convConfig(48, 64, 12, 32, 3, 32), t8x2 = convConfig(48, 64, 8, 32, 3, 32),
               t6x4 = convConfig(48, 64, 6, 64, 3, 32);
  PrunerDraftSymbols s12 = score(&w, &t12x2), s8 = score(&w, &t8x2), s6 = score(&w, &t6x4);
  /* All three cover the knee and are store-bound alike: only the spills differ. */
  assert_true(fabs(s6.register_penalty - s8.register_penalty) < 1e-9);
  double ratio = s12.register_penalty / s8.register_penalty;
  assert_true(ratio > 1.1 && ratio < 1.3);
  assert_true(s12.predicted_us > s8.predicted_us);
}

/* A tile's accumulator chains are as long as its run's reduction block; when the block is
 * short the next tiles' chains overlap them (OOO_WINDOW_FMAS, 16 FMAs: docs/quality.md
 * "Short runs overlap"). On the Xeon (FMA latency 4 x 2 pipes: 8 chains needed) a 1 x 16
 * matmul tile with k steps of 4 has 16 / 4 = 4 chains in flight, cover 4 / 8; with k steps
 * of 64 only its own accumulator, cover 1 / 8, as a long-k tile always had. (The host
 * space's k steps are 32 and more where K allows: a shipped matmul changes only for K
 * under 16; a depthwise conv's 3 kw taps are the case that matters.) */
static void test_short_runs_overlap(void **state) {
  (void)state;
  PrunerTargetDesc xeon = xeonCore();
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 64, 64, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerConfig short_k = matmulConfig(64, 64, 4, 1, 16), long_k = matmulConfig(64, 64, 64, 1, 16);
  PrunerDraftSymbols ss = scoreOn(&xeon, &w, &short_k), sl = scoreOn(&xeon, &w, &long_k);
  assert_true(fabs(ss.occupancy - 0.5) < 1e-9);
  assert_true(fabs(sl.occupancy - 0.125) < 1e-9);
  assert_true(ss.compute_us < sl.compute_us);
  /* A tile with the 8 chains of its own is covered either way. */
  PrunerConfig wide = matmulConfig(64, 64, 4, 2, 64);
  assert_true(fabs(scoreOn(&xeon, &w, &wide).occupancy - 1.0) < 1e-9);
}

/* A depthwise conv config of the 28x28 convs below: tasks of the whole 28 x 28 pixels and
 * `task_channels` channels, one-pixel register tiles of 16 channels, kh one tap a step and
 * kw `kw` taps. */
static PrunerConfig depthwiseConfig(int64_t task_channels, int64_t kw) {
  PrunerConfig c;
  memset(&c, 0, sizeof c);
  c.workgroup[0] = 1;
  c.workgroup[1] = c.workgroup[2] = 28;
  c.workgroup[3] = task_channels;
  c.thread[0] = c.thread[1] = c.thread[2] = 1;
  c.thread[3] = 16;
  c.reduction[4] = 1;
  c.reduction[5] = kw;
  c.vector_width = 16;
  return c;
}

/* A task whose slice of an operand's contiguous dim is one 64-byte line, with the dim
 * going on, has its L1 fills counted twice (ONE_LINE_TASK_FILLS: the prefetchers fetch
 * the line beside, another task's; docs/quality.md "One-line tasks"). A depthwise conv
 * of 32 channels in tasks of 16 runs two tasks, each the nest of the 16-channel conv
 * below: without the charge twice its fills, with it four times. The 16-channel conv's
 * dim ends with its line, so it pays nothing; nor does a task of 32 channels. */
static void test_one_line_tasks_fetch_the_line_beside(void **state) {
  (void)state;
  PrunerTargetDesc xeon = xeonCore();
  PrunerWorkload w16, w32;
  prunerWorkloadDepthwiseConv2dNhwcHwc(&w16, 1, 30, 30, 16, 3, 3, 1, 1, PRUNER_DTYPE_F32);
  prunerWorkloadDepthwiseConv2dNhwcHwc(&w32, 1, 30, 30, 32, 3, 3, 1, 1, PRUNER_DTYPE_F32);
  PrunerConfig c = depthwiseConfig(16, 1);
  PrunerDraftSymbols s16 = scoreOn(&xeon, &w16, &c), s32 = scoreOn(&xeon, &w32, &c);
  assert_true(s16.global_load_bytes > 0);
  assert_true(fabs(s32.global_load_bytes / s16.global_load_bytes - 4.0) < 1e-9);
  c.workgroup[3] = 32;
  PrunerDraftSymbols whole = scoreOn(&xeon, &w32, &c);
  assert_true(whole.global_load_bytes < s32.global_load_bytes);
}

/* A depthwise conv whose tasks hold two channel tiles has a 2-trip channel loop innermost.
 * Its exit is predicted (SHORT_LOOP_TRIPS: not charged), and each register tile's run
 * still loads and stores its accumulators, as in every other contraction (docs/quality.md
 * "Short loops and the depthwise conv's runs"). Until 2026-12-07 that loop's every run
 * paid a 15-cycle exit: on this 28x28x32 conv the 32-channel tasks' compute term was 4x
 * the 16-channel ones'; they measure alike (163 and 167 us for 2 and 4 channel tiles on the
 * Xeon's 28x28x192 conv). The same config in tasks of 16 and 32 channels: the same FMAs,
 * register tiles and accumulator runs, so now nearly the same compute term. */
static void test_short_loop_exits_are_predicted(void **state) {
  (void)state;
  PrunerTargetDesc xeon = xeonCore();
  PrunerWorkload w;
  prunerWorkloadDepthwiseConv2dNhwcHwc(&w, 1, 30, 30, 32, 3, 3, 1, 1, PRUNER_DTYPE_F32);
  PrunerConfig c = depthwiseConfig(16, 3);
  PrunerDraftSymbols one = scoreOn(&xeon, &w, &c);
  c.workgroup[3] = 32;
  PrunerDraftSymbols two = scoreOn(&xeon, &w, &c);
  assert_true(one.compute_us > 0);
  assert_true(fabs(two.compute_us / one.compute_us - 1.0) < 0.05);
}

/* A full 2-D conv's step of three kw taps chains three FMAs per accumulator, and such
 * tiles need MULTI_TAP_CHAIN_LATENCY (1.5) more cycles of cover per FMA (docs/quality.md
 * "Chains of taps"): on the Xeon (latency 4 x 2 pipes) 11 accumulators instead of 8. The
 * 4 x 2 tile (8) is covered 8 / 11 with three taps and whole with one, so its one-tap step
 * is now predicted faster (a quiet Zen 3 measures it 5% faster); a 6 x 2 tile (12) is
 * covered either way. A depthwise conv's taps keep the window's overlap alone: a one-pixel
 * tile's run of 3 FMAs leaves 16 / 3 chains in flight, cover (16 / 3) / 8. */
static void test_conv_tap_chains_need_more_accumulators(void **state) {
  (void)state;
  PrunerTargetDesc xeon = xeonCore();
  PrunerWorkload w;
  prunerWorkloadConv2dNhwcHwcf(&w, 1, 30, 30, 32, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
  PrunerConfig one = convConfig(28, 64, 4, 32, 1, 32), three = convConfig(28, 64, 4, 32, 3, 32);
  PrunerDraftSymbols s1 = scoreOn(&xeon, &w, &one), s3 = scoreOn(&xeon, &w, &three);
  assert_true(fabs(s1.occupancy - 1.0) < 1e-9);
  assert_true(fabs(s3.occupancy - 8.0 / 11.0) < 1e-9);
  assert_true(s1.predicted_us < s3.predicted_us);
  PrunerConfig wide = convConfig(28, 64, 6, 32, 3, 32);
  assert_true(fabs(scoreOn(&xeon, &w, &wide).occupancy - 1.0) < 1e-9);
  PrunerWorkload dw;
  prunerWorkloadDepthwiseConv2dNhwcHwc(&dw, 1, 30, 30, 32, 3, 3, 1, 1, PRUNER_DTYPE_F32);
  PrunerConfig taps = depthwiseConfig(16, 3);
  assert_true(fabs(scoreOn(&xeon, &dw, &taps).occupancy - 16.0 / 3.0 / 8.0) < 1e-9);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_llc_rereads_of_b_per_row_task),
      cmocka_unit_test(test_fitting_problem_is_compulsory_traffic),
      cmocka_unit_test(test_l1_fills_of_a_spilling_block),
      cmocka_unit_test(test_conv_whole_kw_beats_one_tap_before_version_4),
      cmocka_unit_test(test_conv_accumulators_in_registers),
      cmocka_unit_test(test_batch_tile_loads_b_per_batch),
      cmocka_unit_test(test_conv_tile_over_the_register_file_spills),
      cmocka_unit_test(test_run_cost_of_a_short_k_step),
      cmocka_unit_test(test_short_runs_overlap),
      cmocka_unit_test(test_one_line_tasks_fetch_the_line_beside),
      cmocka_unit_test(test_short_loop_exits_are_predicted),
      cmocka_unit_test(test_conv_tap_chains_need_more_accumulators),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

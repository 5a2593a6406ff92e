/* Unit tests of the draft model on hand-computed cases (docs/draft.md). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pruner/draft.h"

static PrunerTargetDesc h100(void) {
  PrunerTargetDesc t;
  PrunerStatus st = prunerTargetLookup("h100", &t);
  assert_true(st.ok);
  return t;
}

static PrunerDraft makeDraft(const PrunerWorkload *w, const PrunerTargetDesc *t) {
  PrunerDraft d;
  PrunerStatus st = prunerDraftCreate(w, t, &d);
  if (!st.ok) fail_msg("%s", st.message);
  return d;
}

/* The whole space of `w` on `t` ranked by the draft (best first): the space, the draft and
 * the ranking, which the caller releases. */
typedef struct Ranked {
  PrunerSpace space;
  PrunerDraft draft;
  PrunerDraftCandidate *all;
  size_t count;
} Ranked;

static Ranked rankSpace(const PrunerWorkload *w, const PrunerTargetDesc *t) {
  Ranked r;
  assert_true(prunerSpaceCreate(w, t, NULL, &r.space).ok);
  r.draft = makeDraft(w, t);
  uint64_t count = prunerSpaceCount(r.space);
  r.all = calloc(count, sizeof *r.all);
  r.count = prunerDraftTopN(r.draft, r.space, count, r.all);
  assert_int_equal(r.count, count);
  return r;
}

/* Rank of the best config with one thread per output and no split-K (asserted to exist). */
static size_t bestOneThread(const Ranked *r) {
  size_t one = 0;
  while (one < r->count && (prunerConfigReductionThreads(&r->all[one].config) > 1 ||
                            prunerConfigSplitK(&r->all[one].config) > 1))
    ++one;
  assert_true(one < r->count);
  return one;
}

static void releaseRanked(Ranked *r) {
  free(r->all);
  prunerDraftDestroy(r->draft);
  prunerSpaceDestroy(r->space);
}

/* A matmul config: block tile (m, n), K step, thread tile (tm, tn). */
static PrunerConfig mm(int64_t wm, int64_t wn, int64_t k, int64_t tm, int64_t tn,
                       uint32_t promote, int vw) {
  PrunerConfig c;
  memset(&c, 0, sizeof c);
  c.workgroup[0] = wm;
  c.workgroup[1] = wn;
  c.reduction[2] = k;
  c.thread[0] = tm;
  c.thread[1] = tn;
  c.promote_operands = promote;
  c.vector_width = vw;
  return c;
}

static void scoreOk(PrunerDraft d, const PrunerConfig *c, const PrunerKernelResources *r,
                    PrunerDraftSymbols *s) {
  if (!prunerDraftScore(d, c, r, s)) {
    char buf[256];
    prunerConfigFormatShort(prunerDraftGetWorkload(d), c, buf, sizeof buf);
    fail_msg("config %s unexpectedly rejected", buf);
  }
}

static void test_rejects_over_shared_memory(void **state) {
  (void)state;
  PrunerTargetDesc t = h100();
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 1024, 1024, 1024, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerDraft d = makeDraft(&w, &t);
  /* (64 x 256 + 256 x 64) x 4 B = 128 KiB of promoted tiles > the 48 KiB static limit
   * the space's validity rules apply (docs/space.md). */
  PrunerConfig big = mm(64, 64, 256, 2, 2, 3, 2);
  assert_false(prunerDraftScore(d, &big, NULL, NULL));
  assert_true(prunerDraftPredictUs(d, &big) < 0);
  /* The same tiles unpromoted fit. */
  PrunerConfig small = mm(64, 64, 256, 2, 2, 0, 2);
  assert_true(prunerDraftScore(d, &small, NULL, NULL));
  /* ptxas' shared memory over the limit rejects too. */
  PrunerKernelResources res = {.registers = 32, .shared_bytes = 300 * 1024};
  PrunerConfig ok = mm(64, 64, 16, 4, 4, 0, 4);
  assert_false(prunerDraftScore(d, &ok, &res, NULL));
  prunerDraftDestroy(d);
}

static void test_double_block_tile_halves_global_traffic(void **state) {
  (void)state;
  PrunerTargetDesc t = h100();
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 1024, 1024, 1024, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerDraft d = makeDraft(&w, &t);
  PrunerDraftSymbols a, b;
  PrunerConfig ca = mm(32, 32, 16, 4, 4, 3, 4), cb = mm(64, 64, 16, 8, 8, 3, 4);
  scoreOk(d, &ca, NULL, &a);
  scoreOk(d, &cb, NULL, &b);
  /* Hand count: A: 1024 blocks x 64 steps x 32 x 16 x 4 B = 128 MiB, the same for B. */
  assert_float_equal(a.global_load_bytes, 2.0 * 1024 * 64 * 32 * 16 * 4, 1.0);
  assert_float_equal(b.global_load_bytes, a.global_load_bytes / 2.0, 1.0);
  /* Output is written once either way: 4 MiB. */
  assert_float_equal(a.global_store_bytes, 1024.0 * 1024 * 4, 1.0);
  assert_float_equal(b.global_store_bytes, a.global_store_bytes, 1.0);
  assert_true(a.dram_bytes <= a.global_load_bytes + a.global_store_bytes);
  assert_true(a.dram_bytes >= 3.0 * 1024 * 1024 * 4 - 1.0); /* compulsory */
  prunerDraftDestroy(d);
}

static void test_extra_block_pays_second_wave(void **state) {
  (void)state;
  PrunerTargetDesc t = h100();
  PrunerWorkload w1, w2;
  /* 128 x 128 tiles with 4 x 4 per thread: 1024 threads; with 64 registers (ptxas) a
   * block takes all 65536 registers of an SM, so one block per SM. */
  prunerWorkloadMatmul(&w1, 128 * t.sm_count, 128, 1024, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  prunerWorkloadMatmul(&w2, 128 * (t.sm_count + 1), 128, 1024, PRUNER_DTYPE_F32,
                       PRUNER_DTYPE_F32);
  PrunerConfig c = mm(128, 128, 16, 4, 4, 3, 4);
  PrunerKernelResources r = {.registers = 64, .shared_bytes = 16384};
  PrunerDraft d1 = makeDraft(&w1, &t), d2 = makeDraft(&w2, &t);
  PrunerDraftSymbols s1, s2;
  scoreOk(d1, &c, &r, &s1);
  scoreOk(d2, &c, &r, &s2);
  assert_int_equal(s1.blocks_per_sm, 1);
  assert_int_equal(s1.limiter, PRUNER_DRAFT_LIMIT_REGISTERS);
  assert_int_equal(s1.blocks, t.sm_count);
  assert_int_equal(s2.blocks, t.sm_count + 1);
  assert_float_equal(s1.waves, 1.0, 0.0);
  assert_float_equal(s2.waves, 2.0, 0.0);
  assert_float_equal(s2.waves_fractional, (t.sm_count + 1.0) / t.sm_count, 1e-12);
  /* One more block (0.8% more work) costs about a second wave of compute. */
  assert_true(s2.compute_us > 1.8 * s1.compute_us);
  assert_true(s2.predicted_us > 1.5 * (s1.predicted_us - s1.launch_us));
  prunerDraftDestroy(d1);
  prunerDraftDestroy(d2);
}

static void test_occupancy_matches_cuda_rules(void **state) {
  (void)state;
  PrunerTargetDesc t = h100();
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 1024, 1024, 1024, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerDraft d = makeDraft(&w, &t);
  PrunerDraftSymbols s;
  /* 128 threads, 64 registers, no smem on sm_90: a warp takes 64 x 32 = 2048 registers
   * (a multiple of 256); a sub-partition's 16384 hold 8 warps, the SM 32 warps = 8 blocks
   * of 4 warps; threads would allow 16, blocks 32, smem (1 KiB reserved) 228. */
  PrunerConfig c128 = mm(32, 64, 16, 4, 4, 0, 4);
  PrunerKernelResources r64 = {.registers = 64};
  scoreOk(d, &c128, &r64, &s);
  assert_int_equal(s.threads_per_block, 128);
  assert_int_equal(s.blocks_per_sm, 8);
  assert_int_equal(s.limiter, PRUNER_DRAFT_LIMIT_REGISTERS);
  assert_float_equal(s.occupancy, 0.5, 1e-12);
  assert_true(s.registers_from_ptxas);
  /* 256 threads, 32 registers, 48 KiB static smem: registers allow 8, threads 8, smem
   * floor(228 KiB / 49 KiB) = 4. */
  PrunerConfig c256 = mm(64, 64, 16, 4, 4, 0, 4);
  PrunerKernelResources r32 = {.registers = 32, .shared_bytes = 48 * 1024};
  scoreOk(d, &c256, &r32, &s);
  assert_int_equal(s.blocks_per_sm, 4);
  assert_int_equal(s.limiter, PRUNER_DRAFT_LIMIT_SHARED);
  /* 37 registers round up to 40 per thread in 256-register warp units (1280 / warp):
   * 16384 / 1280 = 12 warps per sub-partition, 48 per SM, 12 blocks of 4 warps; threads
   * allow 16. */
  PrunerKernelResources r37 = {.registers = 37};
  scoreOk(d, &c128, &r37, &s);
  assert_int_equal(s.blocks_per_sm, 12);
  assert_int_equal(s.limiter, PRUNER_DRAFT_LIMIT_REGISTERS);
  /* 1024 threads x 80 registers exceeds the 64 K per-block register file: unlaunchable. */
  PrunerConfig c1024 = mm(128, 128, 16, 4, 4, 0, 4);
  PrunerKernelResources r80 = {.registers = 80};
  assert_false(prunerDraftScore(d, &c1024, &r80, &s));
  prunerDraftDestroy(d);
}

static void test_more_flops_not_faster(void **state) {
  (void)state;
  PrunerTargetDesc t = h100();
  const PrunerConfig configs[] = {
      mm(64, 64, 16, 4, 4, 3, 4), mm(32, 32, 8, 2, 2, 0, 1), mm(128, 64, 32, 8, 4, 1, 4),
      mm(16, 64, 16, 1, 4, 2, 4), mm(64, 128, 16, 8, 8, 0, 4),
  };
  for (size_t i = 0; i < sizeof configs / sizeof configs[0]; ++i) {
    double prev = 0.0;
    for (int64_t k = 256; k <= 4096; k *= 2) {
      PrunerWorkload w;
      prunerWorkloadMatmul(&w, 1024, 1024, k, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
      PrunerDraft d = makeDraft(&w, &t);
      PrunerDraftSymbols s;
      scoreOk(d, &configs[i], NULL, &s);
      assert_true(s.predicted_us >= prev);
      prev = s.predicted_us;
      prunerDraftDestroy(d);
    }
  }
}

static void test_one_block_slower_than_full_wave(void **state) {
  (void)state;
  PrunerTargetDesc t = h100();
  PrunerConfig c = mm(64, 64, 16, 4, 4, 3, 4);
  PrunerWorkload one, full;
  /* Same per-block work (64 x 64 x 1024); 1 block vs 4 blocks on every SM. */
  prunerWorkloadMatmul(&one, 64, 64, 1024, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  prunerWorkloadMatmul(&full, 64 * 4 * t.sm_count, 64, 1024, PRUNER_DTYPE_F32,
                       PRUNER_DTYPE_F32);
  PrunerDraft d1 = makeDraft(&one, &t), df = makeDraft(&full, &t);
  PrunerDraftSymbols s1, sf;
  scoreOk(d1, &c, NULL, &s1);
  scoreOk(df, &c, NULL, &sf);
  assert_int_equal(s1.blocks, 1);
  assert_true(sf.waves == 1.0);
  double gflops1 = s1.flops / s1.predicted_us, gflopsf = sf.flops / sf.predicted_us;
  assert_true(gflopsf > 50.0 * gflops1);
  /* The same total work as one block or spread over many: the single block is slower. */
  PrunerWorkload w;
  /* 128 x 128: the largest block the compile-cost limit allows (docs/space.md). */
  prunerWorkloadMatmul(&w, 128, 128, 1024, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerDraft d = makeDraft(&w, &t);
  PrunerConfig single = mm(128, 128, 16, 8, 8, 0, 4), spread = mm(32, 32, 16, 2, 2, 0, 2);
  PrunerDraftSymbols ss, sp;
  scoreOk(d, &single, NULL, &ss);
  scoreOk(d, &spread, NULL, &sp);
  assert_int_equal(ss.blocks, 1);
  assert_int_equal(sp.blocks, 16);
  assert_true(ss.predicted_us > 2.0 * sp.predicted_us);
  prunerDraftDestroy(d);
  prunerDraftDestroy(d1);
  prunerDraftDestroy(df);
}

typedef struct Scored {
  double us;
  uint64_t index;
} Scored;

static int cmpScored(const void *a, const void *b) {
  const Scored *x = a, *y = b;
  if (x->us != y->us) return x->us < y->us ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static void test_topn_equals_brute_force(void **state) {
  (void)state;
  PrunerTargetDesc t = h100();
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 128, 64, 96, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerSpace space;
  PrunerStatus st = prunerSpaceCreate(&w, &t, NULL, &space);
  assert_true(st.ok);
  PrunerDraft d = makeDraft(&w, &t);
  uint64_t count = prunerSpaceCount(space);
  assert_true(count > 50);
  Scored *all = calloc(count, sizeof *all);
  size_t valid = 0;
  for (uint64_t i = 0; i < count; ++i) {
    PrunerConfig c;
    assert_true(prunerSpaceGetConfig(space, i, &c).ok);
    PrunerDraftSymbols s;
    if (prunerDraftScore(d, &c, NULL, &s)) all[valid++] = (Scored){s.predicted_us, i};
  }
  /* The memoized batch gives every config's exact symbols; an invalid config is flagged. */
  {
    size_t nb = (size_t)count + 1;
    PrunerConfig *cs = calloc(nb, sizeof *cs);
    PrunerDraftSymbols *sym = calloc(nb, sizeof *sym);
    bool *ok = calloc(nb, sizeof *ok);
    for (uint64_t i = 0; i < count; ++i) assert_true(prunerSpaceGetConfig(space, i, &cs[i]).ok);
    cs[count] = cs[0];
    cs[count].thread[0] = 3; /* does not divide the workgroup tile */
    assert_int_equal(prunerDraftScoreBatch(d, cs, nb, sym, ok), valid);
    assert_false(ok[count]);
    for (uint64_t i = 0; i < count; ++i) {
      PrunerDraftSymbols one;
      assert_int_equal(ok[i], prunerDraftScore(d, &cs[i], NULL, &one));
      if (ok[i]) assert_memory_equal(&one, &sym[i], sizeof one);
    }
    free(cs);
    free(sym);
    free(ok);
  }
  qsort(all, valid, sizeof *all, cmpScored);
  const size_t sizes[] = {1, 7, 40, (size_t)count + 10};
  for (size_t k = 0; k < 4; ++k) {
    size_t n = sizes[k];
    PrunerDraftCandidate *out = calloc(n, sizeof *out);
    size_t got = prunerDraftTopN(d, space, n, out);
    assert_int_equal(got, n < valid ? n : valid);
    for (size_t i = 0; i < got; ++i) {
      assert_int_equal(out[i].index, all[i].index);
      assert_float_equal(out[i].predicted_us, all[i].us, 0.0);
      PrunerConfig c;
      assert_true(prunerSpaceGetConfig(space, out[i].index, &c).ok);
      assert_true(prunerConfigEqual(&c, &out[i].config));
    }
    free(out);
  }
  /* A range scan equals the brute force restricted to the range. */
  uint64_t begin = count / 3, end = 2 * count / 3;
  PrunerDraftScanOptions range = {begin, end, 0, 0};
  PrunerDraftCandidate out[10];
  uint64_t scored = 0;
  size_t got = prunerDraftTopNScan(d, space, &range, 10, out, &scored);
  size_t j = 0;
  for (size_t i = 0; i < valid && j < got; ++i) {
    if (all[i].index < begin || all[i].index >= end) continue;
    assert_int_equal(out[j].index, all[i].index);
    ++j;
  }
  assert_int_equal(j, got);
  assert_true(scored <= end - begin);
  /* A sample never returns duplicates and is reproducible from its seed. */
  PrunerDraftScanOptions sample = {0, 0, 4 * count, 42};
  PrunerDraftCandidate s1[20], s2[20];
  size_t g1 = prunerDraftTopNScan(d, space, &sample, 20, s1, NULL);
  size_t g2 = prunerDraftTopNScan(d, space, &sample, 20, s2, NULL);
  assert_int_equal(g1, g2);
  for (size_t i = 0; i < g1; ++i) {
    assert_int_equal(s1[i].index, s2[i].index);
    for (size_t k = 0; k < i; ++k) assert_true(s1[i].index != s1[k].index);
    if (i > 0) assert_true(s1[i].predicted_us >= s1[i - 1].predicted_us);
  }
  /* With 4x oversampling of a small space, the sample finds the true best. */
  assert_int_equal(s1[0].index, all[0].index);
  free(all);
  prunerDraftDestroy(d);
  prunerSpaceDestroy(space);
}

static void test_features(void **state) {
  (void)state;
  PrunerTargetDesc t = h100();
  PrunerWorkload w;
  prunerWorkloadConv2dNhwcHwcf(&w, 1, 58, 58, 64, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
  PrunerDraft d = makeDraft(&w, &t);
  int n = prunerDraftNumFeatures();
  assert_true(n > 20);
  for (int i = 0; i < n; ++i) {
    assert_non_null(prunerDraftFeatureName(i));
    for (int j = 0; j < i; ++j)
      assert_string_not_equal(prunerDraftFeatureName(i), prunerDraftFeatureName(j));
  }
  assert_null(prunerDraftFeatureName(n));
  PrunerConfig c;
  memset(&c, 0, sizeof c);
  /* conv loops (n, oh, ow, f, kh, kw, c). */
  c.workgroup[0] = 1; c.workgroup[1] = 4; c.workgroup[2] = 8; c.workgroup[3] = 32;
  c.thread[0] = 1; c.thread[1] = 1; c.thread[2] = 2; c.thread[3] = 4;
  c.reduction[4] = 1; c.reduction[5] = 1; c.reduction[6] = 8;
  c.vector_width = 4;
  PrunerDraftSymbols s;
  scoreOk(d, &c, NULL, &s);
  float *f = calloc(n, sizeof *f);
  prunerDraftSymbolsToFeatures(&s, f);
  for (int i = 0; i < n; ++i) assert_true(isfinite(f[i]));
  assert_float_equal(f[0], log2(1.0 + s.predicted_us), 1e-4);
  free(f);
  /* Conv traffic from index_coeff: a 4x8 output tile with a 3x3 window reads a 6x10 input
   * halo per kh/kw step of 1 -> per block and step (1 x 4 x 8 x 8) input elements. */
  assert_true(s.global_load_bytes > 0);
  assert_true(s.dram_bytes >= prunerWorkloadBytes(&w) - 1.0);
  prunerDraftDestroy(d);
}

static void test_spearman(void **state) {
  (void)state;
  const double a[] = {1, 2, 3, 4, 5};
  const double up[] = {10, 20, 30, 40, 50};
  const double down[] = {5, 4, 3, 2, 1};
  const double tie[] = {1, 1, 2, 2, 3};
  assert_float_equal(prunerDraftSpearman(a, up, 5), 1.0, 1e-12);
  assert_float_equal(prunerDraftSpearman(a, down, 5), -1.0, 1e-12);
  /* Ranks of tie: 1.5 1.5 3.5 3.5 5 vs 1..5: r = 0.9486832980505138 (hand computed). */
  assert_float_equal(prunerDraftSpearman(a, tie, 5), 0.9486832980505138, 1e-9);
  assert_true(isnan(prunerDraftSpearman(a, up, 1)));
  const double flat[] = {2, 2, 2, 2, 2};
  assert_true(isnan(prunerDraftSpearman(a, flat, 5)));
}

/* Cross-thread reductions (docs/draft.md): a row reduction with few, long rows (128 rows
 * of 4096) leaves one thread per output 128 threads on a 132-SM GPU; splitting each row
 * over a block's threads fills the GPU, so the draft ranks a reduction_threads > 1 config
 * first, far ahead of the best one-thread config. The partials count as shared memory
 * and their traffic grows with reduction_threads. */
static void test_cross_thread_reduction(void **state) {
  (void)state;
  PrunerTargetDesc t;
  assert_true(prunerTargetLookup("sm_90", &t).ok);
  PrunerWorkload w;
  int64_t dims[2] = {128, 4096};
  assert_true(prunerWorkloadBuild("reduction", dims, 2, PRUNER_DTYPE_F32, &w).ok);
  Ranked r = rankSpace(&w, &t);
  PrunerDraft d = r.draft;
  PrunerDraftCandidate *all = r.all;
  assert_true(prunerConfigReductionThreads(&all[0].config) > 1);
  size_t one = bestOneThread(&r);
  assert_true(all[0].predicted_us * 4.0 < all[one].predicted_us);
  PrunerConfig c;
  memset(&c, 0, sizeof c);
  c.workgroup[0] = c.thread[0] = 1;
  c.reduction[1] = 8;
  c.vector_width = 1;
  c.reduction_threads = 128;
  PrunerDraftSymbols a, b;
  scoreOk(d, &c, NULL, &a);
  assert_int_equal(a.threads_per_block, 128);
  assert_int_equal(a.blocks, 128);
  /* The partials and the combine's 32 first-level sums (docs/draft.md). */
  assert_int_equal(a.smem_per_block, (128 + 32) * 4);
  c.reduction_threads = 256;
  scoreOk(d, &c, NULL, &b);
  assert_int_equal(b.smem_per_block, (256 + 32) * 4);
  assert_true(b.shared_store_bytes > a.shared_store_bytes);
  releaseRanked(&r);
}

/* Split-K over blocks (docs/draft.md): on a GEMV whose output is tiny and whose K is
 * long (1x128x16384 f32, an 8 MiB B: 128 outputs cannot fill 132 SMs, nor 108), the draft
 * ranks a split-K config first on the H200 and the A100; its score carries the combining
 * kernel's launch, and the slices multiply the blocks of its un-split twin. */
static void test_split_k(void **state) {
  (void)state;
  static const char *const targets[] = {"sm_90", "a100-40gb"};
  for (int i = 0; i < 2; ++i) {
    PrunerTargetDesc t;
    assert_true(prunerTargetLookup(targets[i], &t).ok);
    PrunerWorkload w;
    prunerWorkloadMatmul(&w, 1, 128, 16384, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
    Ranked r = rankSpace(&w, &t);
    PrunerDraft d = r.draft;
    const PrunerConfig *best = &r.all[0].config;
    assert_true(prunerConfigSplitK(best) > 1);
    PrunerDraftSymbols split, plain;
    scoreOk(d, best, NULL, &split);
    PrunerConfig twin = *best;
    twin.split_k = 0;
    scoreOk(d, &twin, NULL, &plain);
    assert_int_equal(split.blocks, plain.blocks * prunerConfigSplitK(best));
    assert_true(split.launch_us == 2.0 * plain.launch_us);
    assert_true(split.predicted_us < plain.predicted_us);
    printf("  %s: best %s split_k = %d, %.2f us (un-split %.2f us)\n", targets[i],
           prunerOpKindName(w.kind), (int)prunerConfigSplitK(best), split.predicted_us,
           plain.predicted_us);
    releaseRanked(&r);
  }
}

/* The decode-time GEMV of GPT-2 (1x2304x768, f16 inputs, f32 accumulation): one thread
 * per output gives few, long-running threads; splitting K over a block's threads
 * (reduction_threads > 1) gives 144+ blocks of short loops, so on both the H200 and the
 * A100 the draft ranks a cross-thread config first and ahead of every one-thread one. */
static void test_gemv_cross_thread(void **state) {
  (void)state;
  static const char *const targets[] = {"sm_90", "a100-40gb"};
  for (int i = 0; i < 2; ++i) {
    PrunerTargetDesc t;
    assert_true(prunerTargetLookup(targets[i], &t).ok);
    PrunerWorkload w;
    prunerWorkloadMatmul(&w, 1, 2304, 768, PRUNER_DTYPE_F16, PRUNER_DTYPE_F32);
    Ranked r = rankSpace(&w, &t);
    PrunerDraftCandidate *all = r.all;
    assert_true(prunerConfigReductionThreads(&all[0].config) > 1);
    size_t one = bestOneThread(&r);
    assert_true(all[0].predicted_us * 1.5 < all[one].predicted_us);
    PrunerLaunchShape ls;
    prunerConfigLaunchShape(&w, &all[0].config, &ls);
    assert_true(ls.blocks >= t.sm_count);
    releaseRanked(&r);
  }
}

/* f16 GEMMs of BERT-base (FFN up and down, batch 128 tokens; attention scores) and GPT-2
 * (QKV over 1024 tokens): a tensor-core config ranks first, on the H200 and the A100, and
 * beats the best FMA config by a wide margin (the tensor rate is 15x / 16x the FMA rate). */
static void test_tensor_cores_rank_first(void **state) {
  (void)state;
  static const int64_t shapes[][4] = {
      {1, 128, 3072, 768}, {1, 128, 768, 3072}, {12, 128, 128, 64}, {1, 1024, 2304, 768}};
  static const char *targets[] = {"h200", "a100-80gb"};
  for (int ti = 0; ti < 2; ++ti) {
    PrunerTargetDesc t;
    assert_true(prunerTargetLookup(targets[ti], &t).ok);
    for (int i = 0; i < 4; ++i) {
      PrunerWorkload w;
      if (shapes[i][0] > 1)
        prunerWorkloadBatchMatmul(&w, shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3],
                                  PRUNER_DTYPE_F16, PRUNER_DTYPE_F32);
      else
        prunerWorkloadMatmul(&w, shapes[i][1], shapes[i][2], shapes[i][3], PRUNER_DTYPE_F16,
                             PRUNER_DTYPE_F32);
      PrunerSpace space;
      assert_true(prunerSpaceCreate(&w, &t, NULL, &space).ok);
      PrunerDraft d = makeDraft(&w, &t);
      PrunerDraftCandidate best[64];
      size_t got = prunerDraftTopN(d, space, 64, best);
      assert_true(got > 0);
      assert_int_equal(best[0].config.mma, 1);
      /* The best FMA config: scan the space without the mma list. */
      uint64_t raw = 0;
      PrunerConfig c;
      double fma_best = 1e30;
      while (prunerSpaceNext(space, &raw, &c)) {
        if (c.mma)
          break;
        double us = prunerDraftPredictUs(d, &c);
        if (us > 0 && us < fma_best)
          fma_best = us;
      }
      /* Small shapes are launch-bound on both kinds; the GEMMs with real work are not. */
      if (shapes[i][0] == 1)
        assert_true(best[0].predicted_us * 1.5 < fma_best);
      prunerDraftDestroy(d);
      prunerSpaceDestroy(space);
    }
  }
}

/* A staged tensor-core config (promote_operands = [0, 1]) against its global-memory twin,
 * GPT-2 QKV on the H200: its tiles' shared memory is reported and taken from occupancy,
 * the fragment loads cost fewer issue slots, and with a single resident block per SM the
 * per-step copy chain cannot be covered, so that twin pair ranks the global one first. */
static void test_staged_tensor_cores(void **state) {
  (void)state;
  PrunerTargetDesc t;
  assert_true(prunerTargetLookup("h200", &t).ok);
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 1024, 2304, 768, PRUNER_DTYPE_F16, PRUNER_DTYPE_F32);
  PrunerDraft d = makeDraft(&w, &t);
  PrunerConfig direct;
  memset(&direct, 0, sizeof direct);
  direct.mma = PRUNER_MMA_M16N8K16;
  direct.vector_width = 1;
  direct.workgroup[0] = 64;
  direct.workgroup[1] = 128;
  direct.thread[0] = 16;
  direct.thread[1] = 32;
  direct.reduction[2] = 64;
  PrunerConfig staged = direct;
  staged.promote_operands = 3u;
  assert_true(prunerConfigCheck(&w, &t, &direct).ok);
  assert_true(prunerConfigCheck(&w, &t, &staged).ok);
  PrunerDraftSymbols a, b;
  assert_true(prunerDraftScore(d, &direct, NULL, &a));
  assert_true(prunerDraftScore(d, &staged, NULL, &b));
  PrunerLaunchShape ls;
  prunerConfigLaunchShape(&w, &staged, &ls);
  assert_int_equal(ls.smem_bytes, (64 + 128) * 64 * 2);
  assert_int_equal(b.smem_per_block, ls.smem_bytes);
  assert_int_equal(a.smem_per_block, 0);
  assert_true(b.shared_store_bytes > 0 && b.shared_load_bytes > 0);
  assert_true(b.blocks_per_sm <= a.blocks_per_sm);
  /* Both are bound by the SM's L1 pipe: the global twin's fragment loads touch 8 (A) and
   * 4 (B) lines each, the staged twin's unpadded 128- and 256-byte rows make every
   * ldmatrix 8-way conflicted. On the H200 the two measured 135.7 and 138.7 us
   * (data/h200-2026-12-04-tc-qkv.jsonl); the draft ties them within 5%, the global one
   * first, as measured. */
  assert_true(b.shared_us > 0 && a.shared_us > 0);
  assert_true(a.predicted_us <= b.predicted_us && b.predicted_us <= a.predicted_us * 1.05);
  /* One 1024-thread block per SM with a 256-step K loop: the staged chain dominates. */
  PrunerWorkload deep;
  prunerWorkloadMatmul(&deep, 256, 256, 16384, PRUNER_DTYPE_F16, PRUNER_DTYPE_F32);
  PrunerDraft dd = makeDraft(&deep, &t);
  PrunerConfig big = direct;
  big.workgroup[0] = 128;
  big.workgroup[1] = 256;
  big.thread[0] = 32;
  big.thread[1] = 32;
  big.reduction[2] = 64;
  PrunerConfig big_staged = big;
  big_staged.promote_operands = 3u;
  PrunerStatus st = prunerConfigCheck(&deep, &t, &big_staged); /* 48 KiB: at the limit */
  if (!st.ok)
    fail_msg("%s", st.message);
  assert_true(prunerDraftScore(dd, &big, NULL, &a));
  assert_true(prunerDraftScore(dd, &big_staged, NULL, &b));
  assert_int_equal(b.blocks_per_sm, 1);
  assert_true(b.predicted_us > a.predicted_us);
  /* Pipelined (3 stages, a 128 x 64 block, K step 32): the block's own two steps of work
   * cover the copies' round trip, the single-stage twin waits for both copies every step;
   * its stage buffers count three times, with their rows padded (32 -> 40 and 64 -> 72
   * f16, prunerStagedRowElems). */
  PrunerConfig one = big_staged, three = big_staged;
  one.workgroup[1] = three.workgroup[1] = 64; /* 256 threads: room for the pipeline's registers */
  one.reduction[2] = three.reduction[2] = 32; /* 43.5 KiB at three stages */
  three.stages = 3;
  st = prunerConfigCheck(&deep, &t, &three);
  if (!st.ok)
    fail_msg("%s", st.message);
  PrunerDraftSymbols s1, s3;
  assert_true(prunerDraftScore(dd, &one, NULL, &s1));
  assert_true(prunerDraftScore(dd, &three, NULL, &s3));
  assert_int_equal(s1.smem_per_block, (128 * 32 + 32 * 64) * 2);
  assert_int_equal(s3.smem_per_block, 3 * (128 * 40 + 32 * 72) * 2);
  assert_true(s3.predicted_us < s1.predicted_us);
  /* The L1 term: per warp and K step the one-stage tiles' 64- and 128-byte rows make its
   * 4 ldmatrix.x4 4-way and its 8 .x2.trans 8-way conflicted (16 x 4 + 16 x 8 = 192
   * wavefronts), the padded rows none (16 + 16 = 32); both add the warp's 12 of the
   * block's copies. */
  assert_true(s3.shared_us > 0);
  assert_true(fabs(s1.shared_us / s3.shared_us - (192.0 + 12.0) / (32.0 + 12.0)) < 1e-6);
  prunerDraftDestroy(dd);
  prunerDraftDestroy(d);
}

static void test_create_rejects_bad_target(void **state) {
  (void)state;
  PrunerTargetDesc t = h100();
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 64, 64, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerDraft d = NULL;
  t.dram_gbps = 0;
  PrunerStatus st = prunerDraftCreate(&w, &t, &d);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "dram_gbps"));
  assert_non_null(strstr(st.message, w.key));
  assert_null(d);
  /* Host targets are modelled by draft_host.c; one without SIMD lanes is refused. */
  t = h100();
  t.kind = PRUNER_TARGET_HOST;
  t.warp_size = 0;
  st = prunerDraftCreate(&w, &t, &d);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "warp_size"));
  /* ... and one without SIMD registers (a 2-D conv's accumulator knee is a share of them). */
  t = h100();
  t.kind = PRUNER_TARGET_HOST;
  t.warp_size = 16;
  t.regs_per_sm = 0;
  st = prunerDraftCreate(&w, &t, &d);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "regs_per_sm"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rejects_over_shared_memory),
      cmocka_unit_test(test_tensor_cores_rank_first),
      cmocka_unit_test(test_staged_tensor_cores),
      cmocka_unit_test(test_double_block_tile_halves_global_traffic),
      cmocka_unit_test(test_extra_block_pays_second_wave),
      cmocka_unit_test(test_occupancy_matches_cuda_rules),
      cmocka_unit_test(test_more_flops_not_faster),
      cmocka_unit_test(test_one_block_slower_than_full_wave),
      cmocka_unit_test(test_topn_equals_brute_force),
      cmocka_unit_test(test_features),
      cmocka_unit_test(test_spearman),
      cmocka_unit_test(test_create_rejects_bad_target),
      cmocka_unit_test(test_cross_thread_reduction),
      cmocka_unit_test(test_gemv_cross_thread),
      cmocka_unit_test(test_split_k),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

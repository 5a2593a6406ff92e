/* test/unit/iree: the IREE backend's rules without IREE.
 *
 * - iree-cpu is a target of its own kind and key, described from this machine.
 * - Spaces of the four op kinds are not empty and every config they hold passes the
 *   iree-cpu rules; elementwise ops and batch-1 convolutions are refused by name (IREE
 *   changes their loops before it applies a spec).
 * - The rules name what is wrong: a vector tile that does not divide its distribution
 *   tile, a vector tile over IREE's large-vector limit, a conv window step other than 1, a
 *   scalar vector_width.
 * - The attribute text is IREE's (keys in IREE's printed order, the pipeline per op).
 * - iree-cuda:<gpu> is the GPU's description under its own kind, key and family, with the
 *   GPU space less what IREE's GPU config cannot state (cross-thread reductions); its
 *   tensor-core configs are written as IREE's mma_kind with intrinsic-count tiles.
 * - The spec has IREE's tuning-spec shape, one matcher per workload (name, bounds,
 *   bitwidths), leaves out a workload the matchers cannot tell apart, and refuses an
 *   invalid config naming its workload. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pruner/backend/iree_rules.h"
#include "pruner/draft.h"
#include "pruner/random.h"

static PrunerTargetDesc target(void) {
  PrunerTargetDesc t;
  PrunerStatus st = prunerTargetLookup("iree-cpu", &t);
  if (!st.ok)
    fail_msg("%s", st.message);
  return t;
}

static void test_target(void **state) {
  (void)state;
  PrunerTargetDesc t = target();
  assert_int_equal(t.kind, PRUNER_TARGET_IREE_CPU);
  assert_string_equal(t.arch, "iree-cpu");
  assert_true(t.warp_size >= 4); /* SIMD lanes of f32 */
  char key[128];
  prunerTargetKey(&t, key, sizeof key);
  assert_true(strncmp(key, "iree-cpu:", 9) == 0);
  char names[1024];
  prunerTargetListNames(names, sizeof names);
  assert_non_null(strstr(names, "iree-cpu"));
}

static void checkSpace(PrunerWorkload *w) {
  PrunerTargetDesc t = target();
  PrunerSpace space;
  PrunerStatus st = prunerSpaceCreate(w, &t, NULL, &space);
  if (!st.ok)
    fail_msg("%s", st.message);
  uint64_t count = prunerSpaceCount(space);
  assert_true(count > 0);
  uint64_t raw = 0, seen = 0;
  PrunerConfig c;
  while (prunerSpaceNext(space, &raw, &c)) {
    ++seen;
    PrunerStatus v = prunerIreeCpuConfigCheck(w, &t, NULL, &c);
    if (!v.ok)
      fail_msg("%s: %s", w->key, v.message);
    for (int l = 0; l < w->num_loops; ++l)
      if (w->loop_kinds[l] == PRUNER_LOOP_PARALLEL)
        assert_int_equal(c.workgroup[l] % c.thread[l], 0);
    /* The host backend's packing knob is its own schedule, not an IREE one. */
    assert_int_equal(c.promote_operands, 0);
  }
  assert_int_equal(seen, count);
  prunerSpaceDestroy(space);
}

static void test_spaces(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 128, 768, 256, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  checkSpace(&w);
  prunerWorkloadBatchMatmul(&w, 12, 128, 128, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  checkSpace(&w);
  prunerWorkloadConv2dNhwcHwcf(&w, 2, 18, 18, 64, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
  checkSpace(&w);
  int64_t dims[2] = {512, 1024};
  prunerWorkloadReduceSum(&w, dims, 2, PRUNER_DTYPE_F32);
  checkSpace(&w);

  prunerWorkloadElementwiseAdd(&w, dims, 2, PRUNER_DTYPE_F32);
  PrunerTargetDesc t = target();
  PrunerSpace space = NULL;
  PrunerStatus st = prunerSpaceCreate(&w, &t, NULL, &space);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "not an op kind this backend configures"));
  assert_non_null(strstr(st.message, "elementwise"));
  /* A batch-1 convolution: IREE folds its unit loop before the spec applies. */
  prunerWorkloadConv2dNhwcHwcf(&w, 1, 18, 18, 64, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
  st = prunerSpaceCreate(&w, &t, NULL, &space);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "unit batch loop"));
  /* A 3-D reduction: IREE collapses its loops before the spec applies. */
  int64_t dims3[3] = {12, 128, 128};
  prunerWorkloadReduceSum(&w, dims3, 3, PRUNER_DTYPE_F32);
  st = prunerSpaceCreate(&w, &t, NULL, &space);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "only 2-D reductions are tuned"));
}

/* The first config of the space (valid on any CPU), for edits. */
static PrunerConfig firstConfig(const PrunerWorkload *w) {
  PrunerTargetDesc t = target();
  PrunerSpace space;
  PrunerStatus st = prunerSpaceCreate(w, &t, NULL, &space);
  if (!st.ok)
    fail_msg("%s", st.message);
  PrunerConfig c;
  st = prunerSpaceGetConfig(space, 0, &c);
  if (!st.ok)
    fail_msg("%s", st.message);
  prunerSpaceDestroy(space);
  return c;
}

static void test_rules_name_the_fault(void **state) {
  (void)state;
  PrunerTargetDesc t = target();
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 96, 256, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerConfig c = firstConfig(&w);
  assert_true(prunerIreeCpuConfigIsValid(&w, &t, NULL, &c));
  PrunerConfig bad = c;
  bad.workgroup[0] = 32;
  bad.thread[0] = 6; /* 32 % 6 != 0 */
  PrunerStatus st = prunerConfigCheck(&w, &t, &bad);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "vector_common_parallel 6 of loop 0 (m) does not divide "
                                     "its distribution tile 32"));
  /* IREE's large-vector limit: native vector bytes x 512, reached here by the reduction
   * step whatever the SIMD width (8 x lanes x 64 x 4 bytes >= lanes x 4 x 512). */
  bad = c;
  bad.workgroup[0] = 96;
  bad.thread[0] = 8;
  bad.workgroup[1] = c.thread[1];
  bad.reduction[2] = 64;
  st = prunerConfigCheck(&w, &t, &bad);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "IREE refuses"));
  bad = c;
  bad.vector_width = 1;
  st = prunerConfigCheck(&w, &t, &bad);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "vector_width = 1"));
  bad = c;
  bad.promote_operands = 2; /* the host's packing: valid there, not here */
  st = prunerConfigCheck(&w, &t, &bad);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "promote_operands = [1]; IREE's CPU lowering config"));

  prunerWorkloadConv2dNhwcHwcf(&w, 2, 18, 18, 64, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
  c = firstConfig(&w);
  bad = c;
  bad.reduction[4] = 3; /* kh */
  st = prunerConfigCheck(&w, &t, &bad);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "vector_reduction 3 of loop 4 (kh)"));
}

static void test_attribute_text(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 256, 128, 512, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerConfig c;
  memset(&c, 0, sizeof c);
  c.workgroup[0] = 64;
  c.workgroup[1] = 128;
  c.thread[0] = 4;
  c.thread[1] = 32;
  c.reduction[2] = 1;
  c.vector_width = 16;
  char buf[1024];
  prunerIreeCpuLoweringConfig(&w, &c, buf, sizeof buf);
  assert_string_equal(buf, "#iree_cpu.lowering_config<cache_parallel = [64, 128, 0], "
                           "distribution = [64, 128, 0], vector_common_parallel = [4, 32, 0], "
                           "vector_reduction = [0, 0, 1]>");
  prunerIreeCpuCompilationInfo(&w, &c, buf, sizeof buf);
  assert_non_null(strstr(buf, "#iree_codegen.compilation_info<lowering_config = "
                              "#iree_cpu.lowering_config<"));
  assert_non_null(strstr(buf, "translation_info = #iree_codegen.translation_info<pipeline = "
                              "#iree_cpu.pipeline<DoubleTilingExpert>>>"));
  /* The GPU form (CUDA): IREE's GPU lowering config and TileAndFuse with the block. */
  c.reduction[2] = 16;
  c.promote_operands = 3;
  c.thread[0] = 4;
  c.thread[1] = 4;
  prunerIreeGpuLoweringConfig(&w, &c, buf, sizeof buf);
  assert_string_equal(buf, "#iree_gpu.lowering_config<{promote_operands = [0, 1], reduction = "
                           "[0, 0, 16], thread = [4, 4, 0], workgroup = [64, 128, 0]}>");
  PrunerTargetDesc gpu;
  PrunerStatus st = prunerTargetLookup("sm_80", &gpu);
  if (!st.ok)
    fail_msg("%s", st.message);
  prunerIreeGpuCompilationInfo(&w, &gpu, &c, buf, sizeof buf);
  assert_non_null(strstr(buf, "#iree_gpu.pipeline<TileAndFuse> workgroup_size = [32, 16, 1] "
                              "subgroup_size = 32>>"));
  prunerWorkloadConv2dNhwcHwcf(&w, 2, 18, 18, 64, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
  assert_string_equal(prunerIreeCpuPipeline(&w), "ConvTileAndDecomposeExpert");
}

/* cache_parallel, a knob of its own: the space holds configs whose cache tile splits the
 * distribution tile, each once (encode/decode round trip), the attribute text shows it,
 * the rules refuse a cache tile that does not nest, the draft scores it, and other
 * targets refuse a cache tile (they have no such level). */
static void test_cache_parallel(void **state) {
  (void)state;
  PrunerTargetDesc t = target();
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 128, 256, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerSpace space = NULL;
  assert_true(prunerSpaceCreate(&w, &t, NULL, &space).ok);
  uint64_t n = prunerSpaceCount(space), with_cache = 0;
  PrunerConfig c, found;
  memset(&found, 0, sizeof found);
  for (uint64_t i = 0; i < n; i += 1 + n / 997) {
    assert_true(prunerSpaceGetConfig(space, i, &c).ok);
    uint64_t back = 0;
    assert_true(prunerSpaceGetIndex(space, &c, &back).ok);
    assert_int_equal(back, i);
    if (prunerConfigHasCache(&c)) {
      ++with_cache;
      found = c;
      for (int l = 0; l < 2; ++l)
        if (c.cache[l])
          assert_true(c.workgroup[l] % c.cache[l] == 0 && c.cache[l] % c.thread[l] == 0 &&
                      c.cache[l] < c.workgroup[l]);
    }
  }
  assert_true(with_cache > 0);
  prunerSpaceDestroy(space);
  PrunerDraftSymbols sym;
  assert_true(prunerIreeCpuDraftScore(&w, &t, &found, &sym));
  assert_true(sym.predicted_us > 0);

  memset(&c, 0, sizeof c);
  c.workgroup[0] = 64;
  c.workgroup[1] = 128;
  c.cache[1] = 32;
  c.thread[0] = 4;
  c.thread[1] = t.warp_size; /* one SIMD vector of f32 */
  c.reduction[2] = 1;
  c.vector_width = t.warp_size;
  PrunerStatus st = prunerConfigCheck(&w, &t, &c);
  if (!st.ok)
    fail_msg("%s", st.message);
  char buf[1024];
  prunerIreeCpuLoweringConfig(&w, &c, buf, sizeof buf);
  assert_non_null(strstr(buf, "cache_parallel = [64, 32, 0], distribution = [64, 128, 0]"));
  PrunerConfig bad = c;
  bad.cache[1] = 48; /* 128 % 48 != 0 */
  st = prunerConfigCheck(&w, &t, &bad);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "cache_parallel 48 of loop 1 (n) does not divide its "
                                     "distribution tile 128"));
  bad = c;
  bad.cache[0] = 2; /* the vector tile 4 does not fit */
  st = prunerConfigCheck(&w, &t, &bad);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "does not divide its cache_parallel tile 2"));
  bad = c;
  bad.cache[2] = 8;
  st = prunerConfigCheck(&w, &t, &bad);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "a reduction loop"));
  PrunerTargetDesc host;
  assert_true(prunerTargetLookup("host", &host).ok);
  st = prunerConfigCheck(&w, &host, &c);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "'cache'"));
}

/* A cross-thread reduction config is valid for our GPU schedule but has no IREE GPU
 * lowering_config form: refused with the reason, not translated into another kernel. */
static void test_gpu_refuses_reduction_threads(void **state) {
  (void)state;
  PrunerTargetDesc gpu;
  assert_true(prunerTargetLookup("sm_80", &gpu).ok);
  PrunerWorkload w;
  int64_t dims[2] = {128, 4096};
  assert_true(prunerWorkloadBuild("reduction", dims, 2, PRUNER_DTYPE_F32, &w).ok);
  PrunerConfig c;
  memset(&c, 0, sizeof c);
  c.workgroup[0] = c.thread[0] = 2;
  c.reduction[1] = 8;
  c.vector_width = 1;
  c.reduction_threads = 128;
  assert_true(prunerConfigCheck(&w, &gpu, &c).ok);
  PrunerStatus st = prunerIreeGpuConfigCheck(&w, &gpu, &c);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "reduction_threads = 128"));
  c.reduction_threads = 0;
  c.thread[0] = 1;
  c.workgroup[0] = 32;
  st = prunerIreeGpuConfigCheck(&w, &gpu, &c);
  if (!st.ok)
    fail_msg("%s", st.message);
}

/* iree-cuda:<gpu>: the GPU's description under its own kind, key and family; its space is
 * the GPU space without what IREE's GPU lowering_config cannot state (no reduction_threads
 * knob), its tensor-core configs are IREE's mma_kind configs, its rules refuse what IREE
 * cannot state by name, and the GPU draft scores its configs. */
static int compareConfigBytes(const void *a, const void *b) {
  return memcmp(a, b, sizeof(PrunerConfig));
}

static void test_iree_cuda(void **state) {
  (void)state;
  PrunerTargetDesc gpu, t;
  assert_true(prunerTargetLookup("sm_80", &gpu).ok);
  PrunerStatus st = prunerTargetLookup("iree-cuda:sm_80", &t);
  if (!st.ok)
    fail_msg("%s", st.message);
  assert_int_equal(t.kind, PRUNER_TARGET_IREE_CUDA);
  assert_int_equal(t.sm_count, gpu.sm_count);
  assert_string_equal(t.name, gpu.name);
  char key[96], family[32];
  prunerTargetKey(&t, key, sizeof key);
  assert_string_equal(key, "iree-cuda:sm_80:a100-40gb:108sm");
  prunerTargetFamily(&t, family, sizeof family);
  assert_string_equal(family, "iree-cuda-sm_80");
  PrunerTargetDesc back;
  assert_true(prunerTargetFromKey(key, NULL, &back, NULL, 0).ok);
  assert_int_equal(back.kind, PRUNER_TARGET_IREE_CUDA);
  assert_string_equal(prunerIreeCudaArch(&t), "sm_80");
  PrunerTargetDesc h200;
  assert_true(prunerTargetLookup("iree-cuda:h200", &h200).ok);
  assert_string_equal(h200.arch, "sm_90");
  assert_string_equal(prunerIreeCudaArch(&h200), "sm_89"); /* IREE 3.13 has no sm_90 */
  st = prunerTargetLookup("iree-cuda:iree-cpu", &back);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "takes a GPU of the table"));
  assert_false(prunerTargetLookup("iree-cuda:", &back).ok);

  /* An f16 GEMV: the GPU space offers cross-thread reductions and tensor cores... */
  PrunerWorkload w;
  int64_t dims[3] = {16, 256, 512};
  assert_true(prunerWorkloadBuild("matmul", dims, 3, PRUNER_DTYPE_F16, &w).ok);
  PrunerSpace gs = NULL, is = NULL;
  assert_true(prunerSpaceCreate(&w, &gpu, NULL, &gs).ok);
  assert_true(prunerSpaceCreate(&w, &t, NULL, &is).ok);
  uint64_t gpu_xr = 0, gpu_mma = 0, gpu_staged = 0, gpu_wide = 0, gpu_split = 0, iree_mma = 0;
  PrunerConfig staged;
  for (uint64_t i = 0; i < prunerSpaceCount(gs); ++i) {
    PrunerConfig c;
    assert_true(prunerSpaceGetConfig(gs, i, &c).ok);
    gpu_xr += prunerConfigReductionThreads(&c) > 1;
    gpu_mma += c.mma != 0 && !c.promote_operands;
    if (c.mma && c.promote_operands) /* staged in shared memory by our schedule: ours only */
      staged = c, ++gpu_staged;
    gpu_wide += c.vector_width == 8 && prunerConfigSplitK(&c) == 1; /* 16-byte f16 loads: ours only */
    gpu_split += prunerConfigSplitK(&c) > 1; /* two kernels and a workspace: ours only */
  }
  assert_true(gpu_xr > 0);
  assert_true(gpu_mma > 0);
  assert_true(gpu_staged > 0);
  assert_true(gpu_wide > 0);
  st = prunerConfigCheck(&w, &t, &staged);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "stages tensor-core operands itself"));
  /* ...iree-cuda's holds the same global-memory tensor-core configs (IREE's mma_kind
   * states them; IREE promotes their operands itself), no cross-thread one and no vector
   * width 8 (IREE chooses its own vector sizes), no split-K; every config of it is a GPU config and
   * the draft scores it. */
  /* Split-K (listed on our GPU targets for long reductions only; none at K = 512): two
   * kernels and a workspace, which IREE's lowering_config cannot state. */
  PrunerConfig split = staged;
  memset(&split, 0, sizeof split);
  split.workgroup[0] = split.thread[0] = 1;
  split.workgroup[1] = 64;
  split.thread[1] = 2;
  split.reduction[2] = 16;
  split.vector_width = 2; /* split-K's width is the widest its thread tile fits */
  split.split_k = 4;
  assert_true(prunerConfigCheck(&w, &gpu, &split).ok);
  st = prunerConfigCheck(&w, &t, &split);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "split_k = 4 (two kernels and a workspace) is for the "
                                     "project's GPU targets only"));
  /* One iree-cuda config per set of tiles (its lowering_config has no width) for each GPU
   * config IREE can state: the GPU lists a direct config's tiles with width 1 and its
   * widest, a promoted one's with every width that fits. */
  PrunerConfig *tiles = calloc(prunerSpaceCount(gs), sizeof *tiles);
  assert_non_null(tiles);
  size_t num_tiles = 0;
  for (uint64_t i = 0; i < prunerSpaceCount(gs); ++i) {
    PrunerConfig c;
    assert_true(prunerSpaceGetConfig(gs, i, &c).ok);
    if (prunerConfigReductionThreads(&c) > 1 || (c.mma && c.promote_operands) ||
        prunerConfigSplitK(&c) > 1)
      continue;
    PrunerConfig key;
    memset(&key, 0, sizeof key);
    memcpy(key.workgroup, c.workgroup, sizeof key.workgroup);
    memcpy(key.thread, c.thread, sizeof key.thread);
    memcpy(key.reduction, c.reduction, sizeof key.reduction);
    key.promote_operands = c.promote_operands;
    key.mma = c.mma;
    tiles[num_tiles++] = key;
  }
  qsort(tiles, num_tiles, sizeof *tiles, compareConfigBytes);
  size_t distinct = 0;
  for (size_t i = 0; i < num_tiles; ++i)
    distinct += i == 0 || memcmp(&tiles[i], &tiles[i - 1], sizeof *tiles) != 0;
  free(tiles);
  assert_int_equal(prunerSpaceCount(is), distinct);
  (void)gpu_wide;
  PrunerDraft d = NULL;
  st = prunerDraftCreate(&w, &t, &d);
  if (!st.ok)
    fail_msg("%s", st.message);
  for (uint64_t i = 0; i < prunerSpaceCount(is); ++i) {
    PrunerConfig c;
    assert_true(prunerSpaceGetConfig(is, i, &c).ok);
    assert_true(prunerConfigReductionThreads(&c) <= 1);
    /* The GPU's twin: the same config, or, for a direct f16 one at iree-cuda's widest (4),
     * the GPU's widest (8). */
    PrunerConfig twin = c;
    if (!prunerConfigCheck(&w, &gpu, &twin).ok && !c.promote_operands && c.vector_width == 4)
      twin.vector_width = 8;
    assert_true(prunerConfigCheck(&w, &gpu, &twin).ok);
    uint64_t index;
    assert_true(prunerSpaceGetIndex(gs, &twin, &index).ok);
    PrunerDraftSymbols sym;
    assert_true(prunerDraftScore(d, &c, NULL, &sym));
    assert_true(sym.predicted_us > 0);
    if (c.mma) {
      ++iree_mma;
      /* IREE's form: intrinsic counts for the subgroup tile and the K step, the block's
       * threads in x. */
      char info[2048];
      prunerIreeGpuCompilationInfo(&w, &t, &c, info, sizeof info);
      assert_non_null(strstr(info, "mma_kind = #iree_gpu.mma_layout<NV_MMA_SYNC_F32_16x8x16_F16>"));
      assert_non_null(strstr(info, "promote_operands = [0, 1]"));
      char want[128];
      snprintf(want, sizeof want, "reduction = [0, 0, %lld], subgroup = [%lld, %lld, 0]",
               (long long)c.reduction[2] / 16, (long long)c.thread[0] / 16,
               (long long)c.thread[1] / 8);
      assert_non_null(strstr(info, want));
      PrunerLaunchShape ls;
      prunerConfigLaunchShape(&w, &c, &ls);
      snprintf(want, sizeof want, "workgroup_size = [%lld, 1, 1]",
               (long long)(ls.block[0] * ls.block[1] * ls.block[2]));
      assert_non_null(strstr(info, want));
    }
  }
  assert_int_equal(iree_mma, gpu_mma);
  /* The rules refuse a cross-thread config by name, and a tensor-core K step that is not
   * whole intrinsics. */
  PrunerConfig c;
  bool found = false;
  for (uint64_t i = 0; i < prunerSpaceCount(gs) && !found; ++i) {
    assert_true(prunerSpaceGetConfig(gs, i, &c).ok);
    found = prunerConfigReductionThreads(&c) > 1;
  }
  assert_true(found);
  st = prunerConfigCheck(&w, &t, &c);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "IREE's GPU lowering_config has no cross-thread"));
  assert_false(prunerConfigIsValid(&w, &t, &c));
  found = false;
  for (uint64_t i = 0; i < prunerSpaceCount(gs) && !found; ++i) {
    assert_true(prunerSpaceGetConfig(gs, i, &c).ok);
    found = c.mma != 0;
  }
  assert_true(found);
  c.reduction[2] = 8;
  st = prunerIreeGpuExpressible(&w, &c);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "whole m16n8k16 intrinsics"));
  prunerDraftDestroy(d);
  prunerSpaceDestroy(gs);
  prunerSpaceDestroy(is);
}

static void test_spec(void **state) {
  (void)state;
  PrunerTargetDesc t = target();
  PrunerWorkload mm, mm2, conv;
  prunerWorkloadMatmul(&mm, 96, 256, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  prunerWorkloadMatmul(&mm2, 96, 256, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  prunerWorkloadConv2dNhwcHwcf(&conv, 2, 18, 18, 64, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
  const PrunerWorkload *ws[3] = {&mm, &mm2, &conv};
  PrunerConfig cs[3] = {firstConfig(&mm), firstConfig(&mm2), firstConfig(&conv)};
  char *text = NULL;
  size_t skipped = 0;
  PrunerStatus st = prunerIreeSpecText(&t, ws, cs, 3, &text, &skipped);
  if (!st.ok)
    fail_msg("%s", st.message);
  assert_int_equal(skipped, 1); /* mm2 looks like mm to the matchers */
  assert_non_null(strstr(text, "module attributes {transform.with_named_sequence, "
                               "iree_codegen.tuning_spec_with_default_entrypoint}"));
  assert_non_null(strstr(text, "attributes {iree_codegen.tuning_spec_entrypoint}"));
  assert_non_null(strstr(text, "transform.annotate %op \"compilation_info\" = %config"));
  /* The matmul by IREE's contraction matcher: element types, exact maps, extents. */
  assert_non_null(strstr(text, "transform.iree.match.contraction %op, lhs_type = f32, "
                               "rhs_type = f32, output_type = f32, indexing_maps = "
                               "[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, "
                               "d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]"));
  assert_non_null(strstr(text, "transform.iree.match.dims_equal %n, [256]"));
  assert_null(strstr(text, "transform.match.operation_name %op [\"linalg.matmul\"]"));
  assert_non_null(strstr(text, "[\"linalg.conv_2d_nhwc_hwcf\", \"linalg.generic\"]"));
  assert_non_null(strstr(text, "@match_0 -> @apply_op_config"));
  assert_null(strstr(text, "@match_1 ->"));
  assert_non_null(strstr(text, ", @match_2 -> @apply_op_config"));
  assert_non_null(strstr(text, "transform.match.structured.elemental_bitwidth"));
  assert_non_null(strstr(text, "transform.param.constant 16 : i64")); /* the conv's OH */
  char want[1024];
  prunerIreeCpuLoweringConfig(&conv, &cs[2], want, sizeof want);
  assert_non_null(strstr(text, want));
  free(text);

  cs[0].thread[0] = cs[0].workgroup[0] + 1; /* not a divisor */
  st = prunerIreeSpecText(&t, ws, cs, 1, &text, NULL);
  assert_false(st.ok);
  assert_null(text);
  assert_non_null(strstr(st.message, mm.op_name));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_target),
      cmocka_unit_test(test_spaces),
      cmocka_unit_test(test_rules_name_the_fault),
      cmocka_unit_test(test_attribute_text),
      cmocka_unit_test(test_spec),
      cmocka_unit_test(test_gpu_refuses_reduction_threads),
      cmocka_unit_test(test_iree_cuda),
      cmocka_unit_test(test_cache_parallel),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

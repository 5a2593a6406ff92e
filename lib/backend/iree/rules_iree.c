/* lib/backend/iree/rules_iree.c: what iree-cpu configs are (docs/iree.md): the target, the
 * knobs and validity rules of the space, the IREE attribute text of a config, and the
 * tuning spec IREE loads. MLIR-free and IREE-free: everything here is text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pruner/backend/host_rules.h"
#include "pruner/backend/iree_rules.h"
#include "pruner/draft.h"
#include "pruner/schedule.h"
#include "pruner/text.h"

void prunerIreeCpuTargetDesc(PrunerTargetDesc *out) {
  PrunerHostInfo info;
  prunerHostDescribe(&info);
  prunerHostTargetDesc(&info, out);
  out->kind = PRUNER_TARGET_IREE_CPU;
  snprintf(out->arch, sizeof out->arch, "iree-cpu");
}

PrunerSpaceOptions prunerIreeCpuSpaceDefaultOptions(void) {
  return prunerHostSpaceDefaultOptions();
}

static bool isConv2d(const PrunerWorkload *w) {
  return w->kind == PRUNER_OP_CONV_2D_NHWC_HWCF || w->kind == PRUNER_OP_CONV_2D_NCHW_FCHW ||
         w->kind == PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC;
}

/* The op kinds this backend writes configs for: the ones whose op IREE configures with
 * the workload's loops, so that a matcher on name, bounds and bitwidths finds it in the
 * dispatch (docs/iree.md, "What it cannot tune"). IREE collapses the dimensions of
 * elementwise ops and fuses them into their producers, and lowers NCHW convolutions and
 * transposed contractions through layout changes: their dispatch ops are not the
 * workload's. */
static bool supportedKind(const PrunerWorkload *w) {
  switch (w->kind) {
  case PRUNER_OP_MATMUL:
  case PRUNER_OP_BATCH_MATMUL:
  case PRUNER_OP_CONV_2D_NHWC_HWCF:
  case PRUNER_OP_REDUCTION:
    return true;
  default:
    return false;
  }
}

/* IREE drops a conv's unit batch loop (n = 1) when it forms the dispatch, so the spec sees
 * a 6-loop op, and the pass that puts the batch loop back before lowering does not carry a
 * user config over (IREE 3.13; docs/iree.md, "What it cannot tune"): such convolutions
 * keep IREE's own config. */
static bool unitBatchConv(const PrunerWorkload *w) {
  if (!isConv2d(w))
    return false;
  for (int l = 0; l < w->num_loops; ++l)
    if (w->loop_roles[l] == PRUNER_ROLE_IMAGE && w->bounds[l] == 1)
      return true;
  return false;
}

/* IREE collapses the loops of a reduction with more than one parallel or reduction loop
 * (a 12x128x128 row sum becomes 1536x128) before it configures it, so a matcher on the
 * workload's bounds finds nothing: only 2-D reductions (one loop of each) are tuned. */
static bool collapsedReduction(const PrunerWorkload *w) {
  return w->kind == PRUNER_OP_REDUCTION && w->num_loops != 2;
}

/* IREE interchanges a 2-D reduction over the outer loop (a column sum: ["reduction",
 * "parallel"]) so that the reduction loop is innermost before it configures it: its
 * configured IR shows ["parallel", "reduction"] with the input map (d0, d1) -> (d1, d0),
 * and a compilation_info on the op survives the interchange and is read in the new order.
 * So matchers and lowering configs are written in that order (ireeOrder); a matcher in
 * the op's own order found nothing (every candidate was "IREE did not apply the spec"). */
static bool interchangedReduction(const PrunerWorkload *w) {
  return w->kind == PRUNER_OP_REDUCTION && w->num_loops == 2 &&
         w->loop_kinds[0] == PRUNER_LOOP_REDUCTION && w->loop_kinds[1] == PRUNER_LOOP_PARALLEL;
}

static void swap64(int64_t *a, int64_t *b) {
  int64_t x = *a;
  *a = *b;
  *b = x;
}

/* `w` and `c` in IREE's loop order (interchangedReduction: loops 0 and 1 swapped, in the
 * bounds, kinds, roles, operand maps and every per-loop tile), into the buffers; other
 * workloads as they are. Returns the workload to write; *c_out the config. */
static const PrunerWorkload *ireeOrder(const PrunerWorkload *w, const PrunerConfig *c,
                                       PrunerWorkload *w_buf, PrunerConfig *c_buf,
                                       const PrunerConfig **c_out) {
  if (c_out)
    *c_out = c;
  if (!interchangedReduction(w))
    return w;
  *w_buf = *w;
  swap64(&w_buf->bounds[0], &w_buf->bounds[1]);
  PrunerLoopKind k = w_buf->loop_kinds[0];
  w_buf->loop_kinds[0] = w_buf->loop_kinds[1];
  w_buf->loop_kinds[1] = k;
  PrunerLoopRole r = w_buf->loop_roles[0];
  w_buf->loop_roles[0] = w_buf->loop_roles[1];
  w_buf->loop_roles[1] = r;
  for (int o = 0; o < w->num_inputs + w->num_outputs; ++o)
    for (int d = 0; d < PRUNER_MAX_RANK; ++d)
      swap64(&w_buf->operands[o].index_coeff[d][0], &w_buf->operands[o].index_coeff[d][1]);
  if (c && c_out) {
    *c_buf = *c;
    swap64(&c_buf->workgroup[0], &c_buf->workgroup[1]);
    swap64(&c_buf->reduction[0], &c_buf->reduction[1]);
    swap64(&c_buf->thread[0], &c_buf->thread[1]);
    swap64(&c_buf->cache[0], &c_buf->cache[1]);
    *c_out = c_buf;
  }
  return w_buf;
}

/* vector_reduction candidates: the kh and kw taps one at a time (the conv pipeline
 * decomposes the 2-D window into 1-D convolutions), other reduction loops by a power of
 * two up to 32 dividing the bound (IREE's own defaults are 1, 8 and 16). */
static int reductionCandidates(const PrunerWorkload *w, int l, int64_t *out, int cap) {
  PrunerLoopRole r = w->loop_roles[l];
  int n = 0;
  if (isConv2d(w) && (r == PRUNER_ROLE_FILTER_H || r == PRUNER_ROLE_FILTER_W)) {
    out[n++] = 1;
    return n;
  }
  for (int64_t p = 1; p <= 32 && p <= w->bounds[l] && n < cap; p *= 2)
    if (w->bounds[l] % p == 0)
      out[n++] = p;
  return n;
}

PrunerStatus prunerIreeCpuSpaceKnobs(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                     const PrunerSpaceOptions *opts, PrunerKnob *knobs, int cap,
                                     int *num_knobs) {
  *num_knobs = 0;
  if (!supportedKind(w))
    return prunerStatusError("iree-cpu: %s (%s) is not an op kind this backend configures "
                             "(matmul, batch_matmul, conv_2d_nhwc_hwcf, reduction)",
                             w->key, prunerOpKindName(w->kind));
  if (collapsedReduction(w))
    return prunerStatusError("iree-cpu: %s: IREE collapses the loops of a reduction with "
                             "more than two loops before it applies a tuning spec; only 2-D "
                             "reductions are tuned",
                             w->key);
  if (unitBatchConv(w))
    return prunerStatusError("iree-cpu: %s: IREE folds the unit batch loop of a convolution "
                             "before it applies a tuning spec and drops a config given to the "
                             "folded op; IREE keeps its own config for it",
                             w->key);
  /* The host's task and register tiles are IREE's distribution and vector tiles. */
  PrunerStatus st = prunerHostSpaceKnobs(w, t, opts, knobs, cap, num_knobs);
  if (!st.ok)
    return st;
  for (int k = 0; k < *num_knobs; ++k) {
    PrunerKnob *knob = &knobs[k];
    if (knob->kind == PRUNER_KNOB_REDUCTION)
      knob->num_values =
          reductionCandidates(w, knob->loop, knob->values, PRUNER_MAX_KNOB_VALUES * 4);
    if (knob->kind == PRUNER_KNOB_PROMOTE)
      knob->num_values = 1; /* {0}: IREE's CPU lowering config has no packing knob here */
  }
  /* cache_parallel: the two innermost parallel loops' distribution tiles split by 1, 2 or
   * 4 each (IREE tiles the distribution tile again at this level, around the vector tile;
   * docs/iree.md, "Space"). The last knob, so that the other knobs keep their digits. */
  int inner, outer;
  prunerConfigCacheLoops(w, &inner, &outer);
  if (inner >= 0) {
    if (*num_knobs >= cap)
      return prunerStatusError("iree-cpu: %s: more than %d knobs", w->key, cap);
    PrunerKnob *knob = &knobs[(*num_knobs)++];
    memset(knob, 0, sizeof *knob);
    knob->kind = PRUNER_KNOB_CACHE_SPLIT;
    knob->loop = -1;
    for (int64_t b = 1; b <= (outer >= 0 ? 4 : 1); b *= 2)
      for (int64_t a = 1; a <= 4; a *= 2)
        knob->values[knob->num_values++] = a + 256 * b;
  }
  return prunerStatusOk();
}

#define FAIL(...)                                                                                  \
  do {                                                                                             \
    if (status)                                                                                    \
      *status = prunerStatusError("config on %s (iree-cpu): " __VA_ARGS__);                        \
    return false;                                                                                  \
  } while (0)

static bool check(const PrunerWorkload *w, const PrunerTargetDesc *t,
                  const PrunerSpaceOptions *opts, const PrunerConfig *c, PrunerStatus *status) {
  const char *op = w->op_name;
  if (!supportedKind(w))
    FAIL("op kind %s has no IREE CPU pipeline in this backend", op, prunerOpKindName(w->kind));
  if (collapsedReduction(w))
    FAIL("a reduction of %d loops cannot be configured by a tuning spec (IREE collapses its "
         "loops first)",
         op, w->num_loops);
  if (unitBatchConv(w))
    FAIL("a convolution with batch 1 cannot be configured by a tuning spec (IREE folds the "
         "unit loop first)",
         op);
  char list[128];
  if (c->promote_operands)
    FAIL("promote_operands = %s; IREE's CPU lowering config does not take it (the host's "
         "packing is the host backend's own schedule)",
         op, prunerConfigFormatPromote(c->promote_operands, list, sizeof list));
  /* IREE vectorizes every config itself and the lowering config has no vector width: the
   * width is the host space's, which says which vector tiles the space offers and counts
   * the register budget (the SIMD lanes, or the widest narrower vector dividing the bound:
   * an output of 72 or 100 columns had no config at all when only the full lanes were
   * accepted; and beside that one the widest that fits, on a split loop: docs/iree.md). */
  int64_t widths[2];
  int num_widths = prunerHostVectorCandidates(w, t, widths, 2);
  if (c->vector_width != widths[0] && (num_widths < 2 || c->vector_width != widths[1])) {
    if (num_widths < 2)
      FAIL("vector_width = %d; iree-cpu configs use %d (the SIMD lanes where a vector fits)",
           op, (int)c->vector_width, (int)widths[0]);
    FAIL("vector_width = %d; iree-cpu configs use %d (dividing the loop) or %d (the loop "
         "split)",
         op, (int)c->vector_width, (int)widths[0], (int)widths[1]);
  }
  for (int l = 0; l < w->num_loops; ++l) {
    const char *role = prunerLoopRoleName(w->loop_roles[l]);
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION) {
      PrunerLoopRole r = w->loop_roles[l];
      if (isConv2d(w) && (r == PRUNER_ROLE_FILTER_H || r == PRUNER_ROLE_FILTER_W) &&
          c->reduction[l] != 1)
        FAIL("vector_reduction %lld of loop %d (%s): the conv pipeline takes the window one "
             "tap at a time (1)",
             op, (long long)c->reduction[l], l, role);
      continue;
    }
    /* Vector tiles nest in the distribution tiles: IREE tiles each level inside the
     * previous one, and a remainder would leave a partial vector tile in every workgroup
     * (a distribution tile that does not divide the bound leaves one partial workgroup,
     * which IREE tiles itself: docs/iree.md). */
    if (c->thread[l] >= 1 && c->workgroup[l] >= 1 && c->workgroup[l] % c->thread[l])
      FAIL("vector_common_parallel %lld of loop %d (%s) does not divide its distribution "
           "tile %lld",
           op, (long long)c->thread[l], l, role, (long long)c->workgroup[l]);
    /* The cache tile nests the same way: inside the distribution tile, around the vector
     * tile (0: the distribution tile). */
    int64_t ca = c->cache[l];
    if (ca < 0 || (ca > 0 && c->workgroup[l] >= 1 && c->workgroup[l] % ca))
      FAIL("cache_parallel %lld of loop %d (%s) does not divide its distribution tile %lld", op,
           (long long)ca, l, role, (long long)c->workgroup[l]);
    if (ca > 0 && c->thread[l] >= 1 && ca % c->thread[l])
      FAIL("vector_common_parallel %lld of loop %d (%s) does not divide its cache_parallel "
           "tile %lld",
           op, (long long)c->thread[l], l, role, (long long)ca);
  }
  for (int l = 0; l < w->num_loops; ++l)
    if (w->loop_kinds[l] != PRUNER_LOOP_PARALLEL && c->cache[l])
      FAIL("cache_parallel %lld on loop %d (%s), a reduction loop; cache tiles are for "
           "parallel loops (0 here)",
           op, (long long)c->cache[l], l, prunerLoopRoleName(w->loop_roles[l]));
  /* IREE's CPU codegen refuses an op whose vectors reach native_vector_size x 512 bytes
   * (LLVMCPU's large-vector check; native_vector_size is the SIMD register's bytes): the
   * unrolled vector op spans the whole vector tile, parallel and reduction loops together
   * (measured: 8 x 32 x 32 f32 = 32768 bytes is refused on AVX-512). */
  int64_t vector_elems = 1, max_bytes = 1;
  for (int l = 0; l < w->num_loops; ++l) {
    int64_t tile = w->loop_kinds[l] == PRUNER_LOOP_REDUCTION ? c->reduction[l] : c->thread[l];
    vector_elems *= tile > 0 ? tile : 1;
  }
  for (int o = 0; o < w->num_inputs + w->num_outputs; ++o)
    if (prunerDTypeBytes(w->operands[o].dtype) > max_bytes)
      max_bytes = prunerDTypeBytes(w->operands[o].dtype);
  int64_t limit = (int64_t)(t->warp_size > 0 ? t->warp_size : 1) * 4 * 512;
  if (vector_elems * max_bytes >= limit)
    FAIL("the vector tile (vector_common_parallel x vector_reduction) spans %lld bytes; IREE "
         "refuses %lld bytes and more on this CPU",
         op, (long long)(vector_elems * max_bytes), (long long)limit);
  PrunerStatus host = prunerHostConfigCheck(w, t, opts, c);
  if (!host.ok) {
    if (status)
      *status = prunerStatusError("%s (iree-cpu uses the host's tile rules)", host.message);
    return false;
  }
  return true;
}

PrunerStatus prunerIreeCpuConfigCheck(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                      const PrunerSpaceOptions *opts, const PrunerConfig *config) {
  PrunerStatus st = prunerStatusOk();
  check(w, t, opts, config, &st);
  return st;
}

bool prunerIreeCpuConfigIsValid(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                const PrunerSpaceOptions *opts, const PrunerConfig *config) {
  return check(w, t, opts, config, NULL);
}

const char *prunerIreeCpuPipeline(const PrunerWorkload *w) {
  return isConv2d(w) ? "ConvTileAndDecomposeExpert" : "DoubleTilingExpert";
}

/* "[a, b, c]" of one level: parallel loops from `par`, reduction loops from `red` (either
 * may be NULL for zeros). */
static void appendLevel(PrunerText *b, const PrunerWorkload *w, const int64_t *par,
                        const int64_t *red) {
  prunerTextAppend(b, "[");
  for (int l = 0; l < w->num_loops; ++l) {
    bool is_par = w->loop_kinds[l] == PRUNER_LOOP_PARALLEL;
    const int64_t *src = is_par ? par : red;
    prunerTextAppend(b, "%s%lld", l ? ", " : "", (long long)(src ? src[l] : 0));
  }
  prunerTextAppend(b, "]");
}

static char *loweringConfig(const PrunerWorkload *op_w, const PrunerConfig *op_c) {
  PrunerText b = {0};
  PrunerWorkload w_buf;
  PrunerConfig c_buf;
  const PrunerConfig *c = op_c;
  const PrunerWorkload *w = ireeOrder(op_w, op_c, &w_buf, &c_buf, &c);
  /* The keys in the order IREE prints them, so that a test can find this text in
   * iree-compile's output. cache_parallel is the config's cache tile, the distribution
   * tile where it has none (as IREE's own defaults set it). */
  int64_t cache[PRUNER_MAX_LOOPS];
  for (int l = 0; l < w->num_loops; ++l)
    cache[l] = c->cache[l] ? c->cache[l] : c->workgroup[l];
  prunerTextAppend(&b, "#iree_cpu.lowering_config<cache_parallel = ");
  appendLevel(&b, w, cache, NULL);
  prunerTextAppend(&b, ", distribution = ");
  appendLevel(&b, w, c->workgroup, NULL);
  prunerTextAppend(&b, ", vector_common_parallel = ");
  appendLevel(&b, w, c->thread, NULL);
  prunerTextAppend(&b, ", vector_reduction = ");
  appendLevel(&b, w, NULL, c->reduction);
  prunerTextAppend(&b, ">");
  if (b.failed) {
    free(b.data);
    return NULL;
  }
  return b.data;
}

int prunerIreeCpuLoweringConfig(const PrunerWorkload *w, const PrunerConfig *config, char *buf,
                                size_t size) {
  char *text = loweringConfig(w, config);
  int n = snprintf(buf, size, "%s", text ? text : "");
  free(text);
  return n;
}

int prunerIreeCpuCompilationInfo(const PrunerWorkload *w, const PrunerConfig *config, char *buf,
                                 size_t size) {
  char *text = loweringConfig(w, config);
  int n = snprintf(buf, size,
                   "#iree_codegen.compilation_info<lowering_config = %s, translation_info = "
                   "#iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<%s>>>",
                   text ? text : "", prunerIreeCpuPipeline(w));
  free(text);
  return n;
}

/* A tensor-core config (mma = 1, docs/config.md: `workgroup` the block tile, `thread` each
 * warp's tile, `reduction` the K step, in elements) as IREE states it (docs/iree.md,
 * "Tensor cores"): the mma.sync m16n8k16 intrinsic, the block tile in elements, each
 * subgroup's tile and the K step in intrinsics (16 x 8 x 16), A and B promoted to shared
 * memory (IREE's TileAndFuse stages them; our own kernel reads global memory), and
 * convert_acc_gemm as in IREE's default for these ops. Keys in IREE's printed order. */
static void appendMmaLoweringConfig(PrunerText *b, const PrunerWorkload *w, const PrunerConfig *c) {
  int k = w->num_loops - 1, n = k - 1, m = k - 2; /* (b,) m, n, k: prunerMmaWorkloadOk */
  prunerTextAppend(b, "convert_acc_gemm, mma_kind = #iree_gpu.mma_layout<NV_MMA_SYNC_F32_16x8x16_F16>, "
                      "promote_operands = [0, 1], reduction = [");
  for (int l = 0; l < w->num_loops; ++l)
    prunerTextAppend(b, "%s%lld", l ? ", " : "", (long long)(l == k ? c->reduction[k] / 16 : 0));
  prunerTextAppend(b, "], subgroup = [");
  for (int l = 0; l < w->num_loops; ++l)
    prunerTextAppend(b, "%s%lld", l ? ", " : "",
                     (long long)(l == m ? c->thread[m] / 16 : l == n ? c->thread[n] / 8 : 0));
  prunerTextAppend(b, "], workgroup = [");
  for (int l = 0; l < w->num_loops; ++l)
    prunerTextAppend(b, "%s%lld", l ? ", " : "", (long long)(l == k ? 0 : c->workgroup[l]));
  prunerTextAppend(b, "]");
}

static char *gpuLoweringConfig(const PrunerWorkload *w, const PrunerConfig *c) {
  PrunerText b = {0};
  if (c->mma) {
    prunerTextAppend(&b, "#iree_gpu.lowering_config<{");
    appendMmaLoweringConfig(&b, w, c);
    prunerTextAppend(&b, "}>");
    if (b.failed) {
      free(b.data);
      return NULL;
    }
    return b.data;
  }
  /* Keys in IREE's printed (alphabetical) order; promote_operands only when set. */
  prunerTextAppend(&b, "#iree_gpu.lowering_config<{");
  if (c->promote_operands) {
    prunerTextAppend(&b, "promote_operands = [");
    int k = 0;
    for (int o = 0; o < w->num_inputs + w->num_outputs; ++o)
      if (c->promote_operands & (1u << o))
        prunerTextAppend(&b, "%s%d", k++ ? ", " : "", o);
    prunerTextAppend(&b, "], ");
  }
  prunerTextAppend(&b, "reduction = ");
  appendLevel(&b, w, NULL, c->reduction);
  prunerTextAppend(&b, ", thread = ");
  appendLevel(&b, w, c->thread, NULL);
  prunerTextAppend(&b, ", workgroup = ");
  appendLevel(&b, w, c->workgroup, NULL);
  prunerTextAppend(&b, "}>");
  if (b.failed) {
    free(b.data);
    return NULL;
  }
  return b.data;
}

int prunerIreeGpuLoweringConfig(const PrunerWorkload *w, const PrunerConfig *config, char *buf,
                                size_t size) {
  char *text = gpuLoweringConfig(w, config);
  int n = snprintf(buf, size, "%s", text ? text : "");
  free(text);
  return n;
}

PrunerStatus prunerIreeGpuExpressible(const PrunerWorkload *w, const PrunerConfig *config) {
  if (prunerConfigReductionThreads(config) > 1)
    return prunerStatusError("reduction_threads = %d on %s: IREE's GPU lowering_config has no "
                             "cross-thread reduction field (docs/iree.md)",
                             (int)config->reduction_threads, w->op_name);
  /* Tensor cores: IREE's subgroup tiles and K step count intrinsics (16 x 8 x 16). */
  if (config->mma) {
    int k = w->num_loops - 1, n = k - 1, m = k - 2;
    if (m < 0 || config->reduction[k] % 16 || config->thread[m] % 16 || config->thread[n] % 8)
      return prunerStatusError("mma = %d on %s: warp tile and K step must be whole m16n8k16 "
                               "intrinsics for IREE's subgroup tiles (docs/iree.md)",
                               (int)config->mma, w->op_name);
  }
  return prunerStatusOk();
}

PrunerStatus prunerIreeGpuConfigCheck(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                      const PrunerConfig *config) {
  /* iree-cuda targets check expressibility in prunerConfigCheck itself. */
  PrunerStatus st = prunerIreeGpuExpressible(w, config);
  return st.ok ? prunerConfigCheck(w, t, config) : st;
}

const char *prunerIreeCudaArch(const PrunerTargetDesc *t) {
  /* IREE 3.13's table of NVIDIA targets ends at sm_89 (iree-org/iree#22147): sm_90 and
   * later are refused. PTX built for sm_89 runs on them (the driver compiles it). */
  return t->compute_capability >= 90 ? "sm_89" : t->arch;
}

int prunerIreeGpuCompilationInfo(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                 const PrunerConfig *config, char *buf, size_t size) {
  char *text = gpuLoweringConfig(w, config);
  PrunerLaunchShape shape;
  prunerConfigLaunchShape(w, config, &shape);
  /* Tensor cores: IREE lays the block's subgroups out in x alone (its own default for
   * these ops: workgroup_size = [128, 1, 1] for 4 subgroups) and double-buffers the
   * promoted tiles as its default does (prefetch_num_stages = 2). */
  long long bx = shape.block[0], by = shape.block[1], bz = shape.block[2];
  if (config->mma) {
    bx = bx * by * bz;
    by = bz = 1;
  }
  int n = snprintf(buf, size,
                   "#iree_codegen.compilation_info<lowering_config = %s, translation_info = "
                   "#iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> "
                   "workgroup_size = [%lld, %lld, %lld] subgroup_size = %d%s>>",
                   text ? text : "", bx, by, bz, t && t->warp_size > 0 ? t->warp_size : 32,
                   config->mma ? ", {gpu_pipeline_options = #iree_gpu.pipeline_options<"
                                 "prefetch_num_stages = 2>}"
                               : "");
  free(text);
  return n;
}

/* ---- the tuning spec ---------------------------------------------------------------- */

/* The op name in the dispatch IREE configures: IREE generalizes named convolutions into
 * linalg.generic before configuration (loops in the same order), and for GPUs named
 * contractions too, so those matchers take both names. */
static void appendOpNames(PrunerText *b, const PrunerWorkload *w, bool gpu) {
  if (strcmp(w->op_name, "linalg.generic") != 0 && (isConv2d(w) || gpu))
    prunerTextAppend(b, "[\"%s\", \"linalg.generic\"]", w->op_name);
  else
    prunerTextAppend(b, "[\"%s\"]", w->op_name);
}

/* Whether `w` is a contraction IREE's own contraction matcher can state exactly. */
static bool ireeContraction(const PrunerWorkload *w) {
  if (w->kind != PRUNER_OP_MATMUL && w->kind != PRUNER_OP_BATCH_MATMUL &&
      w->kind != PRUNER_OP_CONTRACTION)
    return false;
  if (w->num_inputs != 2 || w->num_outputs != 1)
    return false;
  for (int l = 0; l < w->num_loops; ++l)
    if (w->loop_roles[l] != PRUNER_ROLE_BATCH && w->loop_roles[l] != PRUNER_ROLE_M &&
        w->loop_roles[l] != PRUNER_ROLE_N && w->loop_roles[l] != PRUNER_ROLE_K)
      return false;
  return true;
}

/* affine_map<(d0, ..) -> (..)> of operand `o` from its index coefficients. */
static void appendOperandMap(PrunerText *b, const PrunerWorkload *w, int o) {
  const PrunerOperand *op = &w->operands[o];
  prunerTextAppend(b, "affine_map<(");
  for (int l = 0; l < w->num_loops; ++l)
    prunerTextAppend(b, "%sd%d", l ? ", " : "", l);
  prunerTextAppend(b, ") -> (");
  for (int d = 0; d < op->rank; ++d) {
    prunerTextAppend(b, "%s", d ? ", " : "");
    bool first = true;
    for (int l = 0; l < w->num_loops; ++l) {
      int64_t c = op->index_coeff[d][l];
      if (c == 0)
        continue;
      prunerTextAppend(b, "%sd%d", first ? "" : " + ", l);
      if (c != 1)
        prunerTextAppend(b, " * %lld", (long long)c);
      first = false;
    }
    if (first)
      prunerTextAppend(b, "0");
  }
  prunerTextAppend(b, ")>");
}

/* IREE's contraction matcher (transform.iree.match.contraction, in IREE 3.13): any
 * contraction op (linalg.matmul, or the linalg.generic IREE makes of a 1x1 convolution)
 * with these element types and exactly these indexing maps, and its batch / m / n / k
 * extents. The upstream matchers cannot see indexing maps: the config of a plain matmul
 * also went onto the transposed matmul IREE fuses from a linalg.transpose feeding it, a
 * kernel never measured (module check 0.79-0.92x), and did not go onto a 1x1 conv, which
 * IREE configures as such a generic. */
static void appendContractionMatch(PrunerText *b, const PrunerWorkload *w) {
  prunerTextAppend(b,
                   "    %%batch, %%m, %%n, %%k = transform.iree.match.contraction %%op, "
                   "lhs_type = %s, rhs_type = %s, output_type = %s, indexing_maps = [",
                   prunerDTypeName(w->operands[0].dtype),
                   prunerDTypeName(w->operands[1].dtype),
                   prunerDTypeName(w->operands[2].dtype));
  for (int o = 0; o < 3; ++o) {
    prunerTextAppend(b, "%s", o ? ", " : "");
    appendOperandMap(b, w, o);
  }
  prunerTextAppend(b, "] : !transform.any_op -> !transform.param<i64>\n");
  const PrunerLoopRole roles[4] = {PRUNER_ROLE_BATCH, PRUNER_ROLE_M, PRUNER_ROLE_N,
                                   PRUNER_ROLE_K};
  const char *names[4] = {"batch", "m", "n", "k"};
  for (int r = 0; r < 4; ++r) {
    prunerTextAppend(b, "    transform.iree.match.dims_equal %%%s, [", names[r]);
    int k = 0;
    for (int l = 0; l < w->num_loops; ++l)
      if (w->loop_roles[l] == roles[r])
        prunerTextAppend(b, "%s%lld", k++ ? ", " : "", (long long)w->bounds[l]);
    prunerTextAppend(b, "] : !transform.param<i64>\n");
  }
}

/* Whether the matchers of `a` and `b` match the same ops (the later one is then left out
 * of the spec). IREE's contraction matcher states element types and indexing maps
 * exactly, so two contractions differ there when any type or map differs (an f16 and a
 * bf16 matmul of one shape); the upstream matchers see bounds and bitwidths only. */
static bool ireeMatchersAlike(const PrunerWorkload *a, const PrunerWorkload *b, bool gpu) {
  if (gpu || !ireeContraction(a) || !ireeContraction(b))
    return prunerScheduleMatchersAlike(a, b);
  if (a->num_loops != b->num_loops)
    return false;
  for (int l = 0; l < a->num_loops; ++l)
    if (a->bounds[l] != b->bounds[l] || a->loop_roles[l] != b->loop_roles[l])
      return false;
  for (int o = 0; o < 3; ++o) {
    const PrunerOperand *x = &a->operands[o], *y = &b->operands[o];
    if (x->dtype != y->dtype || x->rank != y->rank)
      return false;
    for (int d = 0; d < x->rank; ++d)
      for (int l = 0; l < a->num_loops; ++l)
        if (x->index_coeff[d][l] != y->index_coeff[d][l])
          return false;
  }
  return true;
}

static void appendMatcher(PrunerText *b, size_t index, const PrunerWorkload *w, bool gpu,
                          const char *compilation_info) {
  prunerTextAppend(b,
                   "  // %s\n"
                   "  transform.named_sequence @match_%zu(%%op: !transform.any_op "
                   "{transform.readonly}) -> (!transform.any_op, !transform.any_param) {\n",
                   w->key, index);
  if (!gpu && ireeContraction(w)) {
    appendContractionMatch(b, w);
  } else {
    prunerTextAppend(b, "    transform.match.operation_name %%op ");
    appendOpNames(b, w, gpu);
    prunerTextAppend(b, " : !transform.any_op\n");
    /* The generic form of the body check: IREE 3.13 and MLIR 22 print its property
     * differently. */
    prunerScheduleAppendStructuredMatch(b, "%op", w, true);
  }
  prunerTextAppend(b,
                   "    %%config = transform.param.constant %s -> !transform.any_param\n"
                   "    transform.yield %%op, %%config : !transform.any_op, !transform.any_param\n"
                   "  }\n",
                   compilation_info);
}

PrunerStatus prunerIreeSpecText(const PrunerTargetDesc *t, const PrunerWorkload *const *workloads,
                                const PrunerConfig *configs, size_t n, char **text,
                                size_t *skipped) {
  *text = NULL;
  if (skipped)
    *skipped = 0;
  PrunerText b = {0};
  bool cuda = t && (t->kind == PRUNER_TARGET_GPU || t->kind == PRUNER_TARGET_IREE_CUDA);
  prunerTextAppend(&b,
                   "// pruner-mlir tuning spec for IREE (%s; docs/iree.md).\n"
                   "// Use: iree-compile --iree-codegen-tuning-spec-path=THIS ...\n%s%s%s"
                   "module attributes {transform.with_named_sequence, "
                   "iree_codegen.tuning_spec_with_default_entrypoint} {\n"
                   "  transform.named_sequence @apply_op_config(%%op: !transform.any_op "
                   "{transform.readonly}, %%config: !transform.any_param {transform.readonly}) {\n"
                   "    transform.annotate %%op \"compilation_info\" = %%config : "
                   "!transform.any_op, !transform.any_param\n"
                   "    transform.yield\n"
                   "  }\n",
                   t ? t->name : "iree-cpu",
                   cuda ? "// IREE 3.13's CUDA pipeline does not load tuning specs: compile the "
                          "tuned module\n// (pruner-tune -o), whose ops carry the same "
                          "compilation_info:\n// iree-compile TUNED.mlir "
                          "--iree-hal-target-device=cuda --iree-cuda-target="
                        : "",
                   cuda ? prunerIreeCudaArch(t) : "", cuda ? "\n" : "");
  size_t *kept = malloc((n + 1) * sizeof *kept);
  if (!kept) {
    free(b.data);
    return prunerStatusError("out of memory writing the IREE tuning spec");
  }
  size_t num_kept = 0;
  PrunerStatus st = prunerStatusOk();
  for (size_t i = 0; i < n && st.ok; ++i) {
    const PrunerWorkload *w = workloads[i];
    bool gpu = t && (t->kind == PRUNER_TARGET_GPU || t->kind == PRUNER_TARGET_IREE_CUDA);
    /* Matchers see the op as IREE configures it (ireeOrder; IREE's CPU pipeline). */
    PrunerWorkload order_buf, kept_buf;
    const PrunerWorkload *match_w = gpu ? w : ireeOrder(w, NULL, &order_buf, NULL, NULL);
    bool clash = false;
    for (size_t j = 0; j < num_kept; ++j)
      clash |= ireeMatchersAlike(
          gpu ? workloads[kept[j]] : ireeOrder(workloads[kept[j]], NULL, &kept_buf, NULL, NULL),
          match_w, gpu);
    if (clash) {
      if (skipped)
        ++*skipped;
      continue;
    }
    if (t) {
      st = gpu ? prunerIreeGpuConfigCheck(w, t, &configs[i])
               : prunerIreeCpuConfigCheck(w, t, NULL, &configs[i]);
      if (!st.ok)
        break;
    }
    char info[2048];
    int len = gpu ? prunerIreeGpuCompilationInfo(w, t, &configs[i], info, sizeof info)
                  : prunerIreeCpuCompilationInfo(w, &configs[i], info, sizeof info);
    if (len < 0 || (size_t)len >= sizeof info) {
      st = prunerStatusError("IREE tuning spec: the config of %s does not fit", w->key);
      break;
    }
    appendMatcher(&b, i, match_w, gpu, info);
    kept[num_kept++] = i;
  }
  if (st.ok) {
    prunerTextAppend(&b, "  transform.named_sequence @__kernel_config(%%variant_op: "
                         "!transform.any_op {transform.consumed}) -> !transform.any_op "
                         "attributes {iree_codegen.tuning_spec_entrypoint} {\n");
    if (num_kept == 0) {
      /* IREE takes a default-entrypoint spec only with exactly a foreach_match and a yield
       * in it, and a foreach_match needs a pair: one whose matcher matches no op ("must
       * contain exactly two operations", when there was no tuned op). */
      prunerTextAppend(&b, "    %%res = transform.foreach_match in %%variant_op\n"
                           "        @match_nothing -> @apply_op_config\n"
                           "      : (!transform.any_op) -> !transform.any_op\n"
                           "    transform.yield %%res : !transform.any_op\n  }\n");
      prunerTextAppend(&b, "  // No tuned op: this matcher matches none; IREE keeps its configs.\n"
                           "  transform.named_sequence @match_nothing(%%op: !transform.any_op "
                           "{transform.readonly}) -> (!transform.any_op, !transform.any_param) {\n"
                           "    transform.match.operation_name %%op [\"pruner.no_tuned_op\"] : "
                           "!transform.any_op\n"
                           "    %%config = transform.param.constant 0 : i64 -> "
                           "!transform.any_param\n"
                           "    transform.yield %%op, %%config : !transform.any_op, "
                           "!transform.any_param\n  }\n}\n");
    } else {
      prunerTextAppend(&b, "    %%res = transform.foreach_match in %%variant_op\n");
      for (size_t j = 0; j < num_kept; ++j)
        prunerTextAppend(&b, "        %s@match_%zu -> @apply_op_config\n", j ? ", " : "", kept[j]);
      prunerTextAppend(&b, "      : (!transform.any_op) -> !transform.any_op\n"
                           "    transform.yield %%res : !transform.any_op\n  }\n}\n");
    }
  }
  free(kept);
  if (!st.ok || b.failed) {
    free(b.data);
    return st.ok ? prunerStatusError("out of memory writing the IREE tuning spec") : st;
  }
  *text = b.data;
  return prunerStatusOk();
}

/* Instructions of a loop iteration itself (increment, compare, branch), the sustained
 * issue width of FP-heavy loops, and loads per cycle: the host draft's constants
 * (docs/host.md, "Draft"). */
#define IREE_LOOP_UOPS 3.0
#define IREE_ISSUE_WIDTH 4.0
#define IREE_LOADS_PER_CYCLE 2.0

/* vector_reduction term (docs/iree.md, "Draft"): IREE unrolls the vector tile's reduction
 * steps (vector_reduction, r) into one vector.contract, so the reduction loop's own
 * instructions are paid once per r steps; the host draft charges them every step. Per
 * step: rows x vectors FMAs, rows broadcasts and `vectors` loads of B; cycles bounded by
 * the FMA pipes, the load ports and the issue width. Unrolling keeps the B rows of the r
 * steps in flight: past the SIMD registers (accumulators + B vectors of two steps) the
 * step slows in proportion (spills). Returns the compute time's factor, 1 at r = 1. */
static double vectorReductionFactor(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                    const PrunerConfig *c) {
  int vl = prunerHostVectorLoop(w);
  double rows = 1, vectors = 1, r = 1;
  for (int l = 0; l < w->num_loops; ++l) {
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION)
      r *= c->reduction[l] > 0 ? (double)c->reduction[l] : 1.0;
    else if (l == vl && c->vector_width > 1)
      vectors = (double)c->thread[l] / c->vector_width;
    else
      rows *= c->thread[l] > 0 ? (double)c->thread[l] : 1.0;
  }
  double lanes = prunerHostTargetSimdLanes(t), cores = prunerHostTargetCores(t);
  double clock = t->boost_clock_mhz * 1e6;
  double pipes = t->peak_fp32_gflops * 1e9 / (cores * 2.0 * lanes * clock);
  if (!(pipes >= 1.0))
    pipes = 1.0;
  double fmas = rows * vectors, loads = rows + vectors;
  double base = fmas / pipes, load_cycles = loads / IREE_LOADS_PER_CYCLE;
  if (load_cycles > base)
    base = load_cycles;
  double one = (fmas + loads + IREE_LOOP_UOPS) / IREE_ISSUE_WIDTH;
  double unrolled = (fmas + loads + IREE_LOOP_UOPS / r) / IREE_ISSUE_WIDTH;
  double before = one > base ? one : base, after = unrolled > base ? unrolled : base;
  double live = fmas + vectors * (r < 2 ? r : 2) + 1,
         regs = t->regs_per_sm > 0 ? t->regs_per_sm : 16;
  double spill = live > regs ? live / regs : 1.0;
  return after / before * spill;
}

bool prunerIreeCpuDraftScore(const PrunerWorkload *w, const PrunerTargetDesc *t,
                             const PrunerConfig *config, PrunerDraftSymbols *out) {
  PrunerConfig host = *config;
  memset(host.cache, 0, sizeof host.cache);
  for (int l = 0; l < w->num_loops; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION)
      host.reduction[l] = w->bounds[l];
  if (!prunerHostDraftScore(w, t, &host, out))
    return false;
  double factor = vectorReductionFactor(w, t, config);
  /* cache_parallel term: the host draft's cache levels see the tile that IREE walks with
   * the whole reduction, the cache tile; tasks, cores and compute stay the distribution
   * tile's. The cache terms of the cache-tile nest, scaled to this config's busy cores. */
  if (prunerConfigHasCache(config)) {
    PrunerConfig inner = host;
    for (int l = 0; l < w->num_loops; ++l)
      if (config->cache[l] > 0)
        inner.workgroup[l] = config->cache[l];
    PrunerDraftSymbols s;
    if (prunerHostDraftScore(w, t, &inner, &s) && out->sm_utilization > 0) {
      double scale = s.sm_utilization / out->sm_utilization;
      out->l2_us = s.l2_us * scale;
      out->memory_us = s.memory_us * scale;
      out->shared_us = s.shared_us * scale;
      out->dram_bytes = s.dram_bytes;
      out->global_load_bytes = s.global_load_bytes;
    }
  }
  if (factor != 1.0 || prunerConfigHasCache(config)) {
    /* Recombined as the host draft does: the slowest term, a tenth of the others, the
     * call (docs/host.md, "Draft"). */
    out->compute_us *= factor;
    double terms[4] = {out->compute_us, out->memory_us, out->l2_us, out->shared_us};
    double worst = 0, sum = 0;
    for (int i = 0; i < 4; ++i) {
      sum += terms[i];
      if (terms[i] > worst)
        worst = terms[i];
    }
    out->predicted_us = worst + 0.1 * (sum - worst) + out->launch_us;
  }
  return true;
}

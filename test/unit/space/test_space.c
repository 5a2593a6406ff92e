/* Unit tests of the tuning space: counts against an independent brute force over the
 * cartesian product of candidates, index <-> config round trips, agreement between the
 * fast scan and prunerConfigCheck, specific diagnostics and the launch shape. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pruner/backend/host_rules.h"
#include "pruner/space.h"

static PrunerTargetDesc h200(void) {
  PrunerTargetDesc t;
  assert_true(prunerTargetLookup("h200", &t).ok);
  return t;
}

/* An all-parallel 2-D generic: out = a + b. */
static void elementwise2d(PrunerWorkload *w, int64_t m, int64_t n) {
  memset(w, 0, sizeof(*w));
  w->kind = PRUNER_OP_ELEMENTWISE;
  snprintf(w->op_name, sizeof(w->op_name), "linalg.generic");
  w->num_loops = 2;
  w->bounds[0] = m;
  w->bounds[1] = n;
  w->loop_roles[0] = w->loop_roles[1] = PRUNER_ROLE_PARALLEL;
  w->num_inputs = 2;
  w->num_outputs = 1;
  for (int i = 0; i < 3; ++i) {
    w->operands[i].rank = 2;
    w->operands[i].shape[0] = m;
    w->operands[i].shape[1] = n;
    w->operands[i].index_coeff[0][0] = w->operands[i].index_coeff[1][1] = 1;
    w->operands[i].is_output = i == 2;
  }
  w->strides[0] = w->strides[1] = w->dilations[0] = w->dilations[1] = 1;
  w->body_len = 1;
  w->body[0] = (PrunerBodyOp){PRUNER_BODY_ADD, {0, 1}, 0.0, PRUNER_DTYPE_F32};
  w->body_yield[0] = 3;
  prunerWorkloadComputeKey(w);
  assert_true(prunerWorkloadVerify(w).ok);
}

/* Row max: out[b, i] = max_j in[b, i, j]. */
static void rowReduction(PrunerWorkload *w, int64_t b, int64_t m, int64_t n) {
  memset(w, 0, sizeof(*w));
  w->kind = PRUNER_OP_REDUCTION;
  snprintf(w->op_name, sizeof(w->op_name), "linalg.generic");
  w->num_loops = 3;
  w->bounds[0] = b;
  w->bounds[1] = m;
  w->bounds[2] = n;
  w->loop_kinds[2] = PRUNER_LOOP_REDUCTION;
  w->loop_roles[0] = w->loop_roles[1] = PRUNER_ROLE_PARALLEL;
  w->loop_roles[2] = PRUNER_ROLE_REDUCED;
  w->num_inputs = 1;
  w->num_outputs = 1;
  w->operands[0].rank = 3;
  for (int d = 0; d < 3; ++d) {
    w->operands[0].shape[d] = w->bounds[d];
    w->operands[0].index_coeff[d][d] = 1;
  }
  w->operands[1].rank = 2;
  w->operands[1].is_output = 1;
  for (int d = 0; d < 2; ++d) {
    w->operands[1].shape[d] = w->bounds[d];
    w->operands[1].index_coeff[d][d] = 1;
  }
  w->strides[0] = w->strides[1] = w->dilations[0] = w->dilations[1] = 1;
  w->body_len = 1;
  w->body[0] = (PrunerBodyOp){PRUNER_BODY_MAX, {1, 0}, 0.0, PRUNER_DTYPE_F32};
  w->body_yield[0] = 2;
  prunerWorkloadComputeKey(w);
  assert_true(prunerWorkloadVerify(w).ok);
}

/* ---- an independent brute force ------------------------------------------------------ */

/* Candidate values per loop, built here from the rules of docs/space.md (not from the
 * space's knobs), then the full cartesian product checked with prunerConfigIsValid. */
typedef struct Brute {
  const PrunerWorkload *w;
  const PrunerTargetDesc *t;
  PrunerSpace space;
  int64_t wg[PRUNER_MAX_LOOPS][256], th[PRUNER_MAX_LOOPS][256];
  int n[PRUNER_MAX_LOOPS];
  uint32_t promote[4];
  int num_promote;
  uint64_t valid, total, missing;
  uint64_t cost_dropped; /* valid but for the compile-cost rule */
  uint64_t igemm;        /* valid implicit-GEMM convs: the space's list, not its raw product */
  uint64_t split_k;      /* listed split-K configs (docs/space.md), likewise */
  PrunerConfig config;
} Brute;

/* The compile-cost rule as measured (docs/space.md), written out independently of the
 * library: te = product of the thread tile, rs = product of the reduction steps. */
static bool bruteCompileCostOk(const Brute *b) {
  int64_t te = 1, rs = 1, threads = 1;
  for (int l = 0; l < b->w->num_loops; ++l) {
    if (b->w->loop_kinds[l] == PRUNER_LOOP_REDUCTION) {
      rs *= b->config.reduction[l];
    } else {
      te *= b->config.thread[l];
      threads *= b->config.workgroup[l] / b->config.thread[l];
    }
  }
  if (b->config.reduction_threads > 1) /* the block's threads split the reduction */
    threads = b->config.reduction_threads;
  return te * rs < 2048 && threads * te < 32768;
}

static void bruteCandidates(Brute *b) {
  const PrunerWorkload *w = b->w;
  int conv = w->kind == PRUNER_OP_CONV_2D_NHWC_HWCF || w->kind == PRUNER_OP_CONV_2D_NCHW_FCHW;
  for (int l = 0; l < w->num_loops; ++l) {
    b->n[l] = 0;
    for (int64_t x = 1; x <= w->bounds[l]; ++x) {
      if (w->bounds[l] % x) continue;
      if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION) {
        int filter = w->loop_roles[l] == PRUNER_ROLE_FILTER_H ||
                     w->loop_roles[l] == PRUNER_ROLE_FILTER_W;
        if (x <= 64 && (!conv || !filter || x == 1)) b->wg[l][b->n[l]++] = x;
        continue;
      }
      if (x > 256) continue;
      for (int64_t y = 1; y <= x && y <= 16; ++y) {
        if (x % y || x / y > 1024) continue;
        b->wg[l][b->n[l]] = x;
        b->th[l][b->n[l]++] = y;
      }
    }
  }
  b->num_promote = 1;
  b->promote[0] = 0;
  /* conv_2d_nhwc_hwcf: promoted configs are implicit GEMMs ([0] or [0, 1]; [1] alone is
   * refused), listed after the raw product (docs/config.md, rule 12). */
  if (w->kind == PRUNER_OP_CONV_2D_NHWC_HWCF) {
    b->promote[1] = 1;
    b->promote[2] = 2;
    b->promote[3] = 3;
    b->num_promote = 4;
  }
  if (w->kind == PRUNER_OP_MATMUL || w->kind == PRUNER_OP_BATCH_MATMUL) {
    b->promote[1] = 1;
    b->promote[2] = 2;
    b->promote[3] = 3;
    b->num_promote = 4;
  }
}

/* The implicit-GEMM list's grid (docs/space.md), written out independently: f's workgroup
 * tile and c's step are 2^k or 3 x 2^k (c's at most 64), thread tiles at most 8 and f's a
 * power of two. (n, oh, kh, kw are fixed by rule 12.) */
static bool bruteSmooth(int64_t v) {
  if (v % 3 == 0)
    v /= 3;
  return v == 1 || v == 2 || v == 4 || v == 8 || v == 16 || v == 32 || v == 64 || v == 128 ||
         v == 256;
}

static bool bruteIgemmGrid(const PrunerWorkload *w, const PrunerConfig *c) {
  int64_t tf = c->thread[3], kw = c->reduction[5], cs = c->reduction[6];
  bool k_step = kw == 1 ? bruteSmooth(cs) && cs <= 64 : cs == w->bounds[6] && kw * cs <= 64;
  return c->thread[2] <= 8 && bruteSmooth(c->workgroup[3]) &&
         (tf == 1 || tf == 2 || tf == 4 || tf == 8) && k_step;
}

/* Split-K (docs/space.md): the current plain config with each power-of-two slice count is
 * listed iff valid, the output has at most 1024 elements per SM, the reduction loop at
 * least 1024, the plain grid has fewer blocks than SMs and the sliced one at most 4 per
 * SM. Written out independently. */
static void bruteSplitK(Brute *b) {
  const PrunerWorkload *w = b->w;
  const PrunerOperand *out = &w->operands[w->num_inputs];
  int64_t outputs = 1, blocks = 1;
  for (int d = 0; d < out->rank; ++d)
    outputs *= out->shape[d];
  for (int l = 0; l < w->num_loops; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_PARALLEL)
      blocks *= w->bounds[l] / b->config.workgroup[l];
  for (int32_t s = 2; s <= 64; s *= 2) {
    b->config.split_k = s;
    bool ok = prunerConfigIsValid(w, b->t, &b->config);
    assert_int_equal(ok, prunerConfigCheck(w, b->t, &b->config).ok);
    bool listed = ok && outputs <= 1024 * b->t->sm_count &&
                  w->bounds[w->num_loops - 1] >= 1024 && blocks < b->t->sm_count &&
                  blocks * s <= 4 * b->t->sm_count;
    assert_int_equal(listed, prunerSpaceContains(b->space, &b->config));
    b->split_k += listed;
  }
  b->config.split_k = 0;
}

static void bruteVisit(Brute *b) {
  /* 8 only when every input is 16-bit or narrower (16-byte loads; docs/config.md rule 1). */
  static const int widths[4] = {1, 2, 4, 8};
  int num_widths = 4;
  for (int i = 0; i < b->w->num_inputs; ++i)
    if (prunerDTypeBytes(b->w->operands[i].dtype) > 2)
      num_widths = 3;
  /* reduction_threads (docs/space.md): for a reduction or contraction whose only
   * reduction loop is the last, 1 and the powers of two from 32 to 1024 that divide that
   * loop's bound. */
  int32_t xthreads[8] = {0};
  int num_x = 1;
  const PrunerWorkload *w = b->w;
  int reductions = 0;
  for (int l = 0; l < w->num_loops; ++l)
    reductions += w->loop_kinds[l] == PRUNER_LOOP_REDUCTION;
  bool kind = w->kind == PRUNER_OP_REDUCTION || w->kind == PRUNER_OP_MATMUL ||
              w->kind == PRUNER_OP_BATCH_MATMUL || w->kind == PRUNER_OP_CONTRACTION;
  if (kind && reductions == 1 &&
      w->loop_kinds[w->num_loops - 1] == PRUNER_LOOP_REDUCTION)
    for (int32_t r = 32; r <= 1024; r *= 2)
      if (w->bounds[w->num_loops - 1] % r == 0)
        xthreads[num_x++] = r;
  for (int x = 0; x < num_x; ++x)
    for (int p = 0; p < b->num_promote; ++p) {
      for (int v = 0; v < num_widths; ++v) {
        b->config.reduction_threads = xthreads[x];
        b->config.promote_operands = b->promote[p];
        b->config.vector_width = widths[v];
        bool valid = prunerConfigIsValid(b->w, b->t, &b->config);
        /* The boolean and the message form agree. */
        assert_int_equal(valid, prunerConfigCheck(b->w, b->t, &b->config).ok);
        if (w->kind == PRUNER_OP_CONV_2D_NHWC_HWCF && b->promote[p]) {
          /* Implicit GEMM: the space lists exactly the valid ones of its grid, whose K
           * steps may also cover whole taps (kw step > 1 with the whole C). */
          for (int64_t kw = 1; kw <= w->bounds[5]; ++kw) {
            if (w->bounds[5] % kw)
              continue;
            b->config.reduction[5] = kw;
            bool ok = prunerConfigIsValid(b->w, b->t, &b->config);
            assert_int_equal(ok, prunerConfigCheck(b->w, b->t, &b->config).ok);
            bool listed = ok && bruteIgemmGrid(w, &b->config);
            assert_int_equal(listed, prunerSpaceContains(b->space, &b->config));
            uint64_t raw;
            assert_int_equal(listed, prunerSpaceEncodeRaw(b->space, &b->config, &raw));
            b->igemm += listed;
          }
          b->config.reduction[5] = 1;
          continue;
        }
        ++b->total;
        /* Valid = valid with the compile-cost limits lifted, and the rule holds. */
        PrunerSpaceOptions lifted = prunerSpaceDefaultOptions();
        lifted.max_unrolled_body = lifted.max_block_elements = 0;
        bool without = prunerConfigIsValidWithOptions(b->w, b->t, &lifted, &b->config);
        assert_int_equal(valid, without && bruteCompileCostOk(b));
        b->cost_dropped += without && !valid;
        /* The space holds every candidate and calls exactly the valid ones valid. */
        uint64_t raw;
        assert_true(prunerSpaceEncodeRaw(b->space, &b->config, &raw));
        assert_int_equal(valid, prunerSpaceContains(b->space, &b->config));
        if (valid)
          ++b->valid;
        if (xthreads[x] == 0 && b->promote[p] == 0)
          bruteSplitK(b);
      }
    }
}

static void bruteLoop(Brute *b, int l) {
  if (l >= PRUNER_MAX_LOOPS || l == b->w->num_loops) {
    bruteVisit(b);
    return;
  }
  for (int i = 0; i < b->n[l]; ++i) {
    if (b->w->loop_kinds[l] == PRUNER_LOOP_REDUCTION) {
      b->config.reduction[l] = b->wg[l][i];
    } else {
      b->config.workgroup[l] = b->wg[l][i];
      b->config.thread[l] = b->th[l][i];
    }
    bruteLoop(b, l + 1);
  }
}

/* Tensor-core configs (mma = 1) over every power-of-two block tile (M from 16, N from 8,
 * up to 256), warp tile (up to 64) and K step (16 to 64), each from global memory and
 * staged (promote_operands = [0, 1]) with 1, 2 or 3 stages: the space lists exactly the valid ones
 * (prunerConfigIsValid), after its FMA configs. Returns how many. */
static uint64_t bruteMma(Brute *b) {
  const PrunerWorkload *w = b->w;
  if (w->kind != PRUNER_OP_MATMUL && w->kind != PRUNER_OP_BATCH_MATMUL)
    return 0;
  int o = w->kind == PRUNER_OP_BATCH_MATMUL; /* loops (b,) m, n, k */
  int m = o, n = o + 1, k = o + 2;
  uint64_t valid = 0;
  for (int64_t bm = 16; bm <= 256; bm *= 2)
    for (int64_t bn = 8; bn <= 256; bn *= 2)
      for (int64_t wm = 16; wm <= 64; wm *= 2)
        for (int64_t wn = 8; wn <= 64; wn *= 2)
          for (int64_t ks = 16; ks <= 64; ks *= 2)
            for (int variant = 0; variant <= PRUNER_MAX_STAGES; ++variant) {
            /* 0: from global memory; 1..3: staged with that many stages. */
            PrunerConfig c;
            memset(&c, 0, sizeof c);
            c.mma = 1;
            c.promote_operands = variant ? 3u : 0u;
            c.stages = variant > 1 ? variant : 0;
            c.vector_width = 1;
            if (o)
              c.workgroup[0] = c.thread[0] = 1;
            c.workgroup[m] = bm;
            c.workgroup[n] = bn;
            c.thread[m] = wm;
            c.thread[n] = wn;
            c.reduction[k] = ks;
            bool ok = prunerConfigIsValid(w, b->t, &c);
            assert_int_equal(ok, prunerConfigCheck(w, b->t, &c).ok);
            assert_int_equal(ok, prunerSpaceContains(b->space, &c));
            valid += ok;
          }
  return valid;
}

/* Count == brute force; the raw size is the cartesian product (plus the mma list); every
 * index round-trips and every enumerated config passes prunerConfigCheck. */
/* Split-K configs the last checkAgainstBruteForce found listed. */
static uint64_t g_split_k;

static uint64_t checkAgainstBruteForce(const PrunerWorkload *w, int round_trip_all) {
  PrunerTargetDesc t = h200();
  Brute *b = calloc(1, sizeof(*b));
  b->w = w;
  b->t = &t;
  PrunerStatus st = prunerSpaceCreate(w, &t, NULL, &b->space);
  assert_true(st.ok);
  bruteCandidates(b);
  bruteLoop(b, 0);
  uint64_t mma = bruteMma(b);
  g_split_k = b->split_k;
  b->total += mma + b->igemm + b->split_k;
  b->valid += mma + b->igemm + b->split_k;
  uint64_t count = prunerSpaceCount(b->space);
  printf("  %-60s raw %8llu valid %7llu (compile-cost rule dropped %llu)\n", w->key,
         (unsigned long long)b->total, (unsigned long long)count,
         (unsigned long long)b->cost_dropped);
  assert_int_equal(prunerSpaceRawSize(b->space), b->total);
  assert_int_equal(count, b->valid);
  assert_true(count > 0);
  /* Next visits exactly count configs, in index order, each valid. */
  uint64_t raw = 0, n = 0;
  PrunerConfig c, d;
  while (prunerSpaceNext(b->space, &raw, &c)) {
    st = prunerConfigCheck(w, &t, &c);
    if (!st.ok) fail_msg("enumerated config invalid: %s", st.message);
    if (round_trip_all || n % 97 == 0 || c.mma || c.promote_operands) {
      assert_true(prunerSpaceGetConfig(b->space, n, &d).ok);
      assert_true(prunerConfigEqual(&c, &d));
      uint64_t index = ~0ULL;
      assert_true(prunerSpaceGetIndex(b->space, &c, &index).ok);
      assert_int_equal(index, n);
      uint64_t r;
      assert_true(prunerSpaceEncodeRaw(b->space, &c, &r));
      assert_int_equal(r, raw - 1);
      prunerSpaceDecodeRaw(b->space, r, &d);
      assert_true(prunerConfigEqual(&c, &d));
    }
    ++n;
  }
  assert_int_equal(n, count);
  assert_false(prunerSpaceGetConfig(b->space, count, &c).ok);
  prunerSpaceDestroy(b->space);
  uint64_t dropped = b->cost_dropped;
  free(b);
  return dropped;
}

static void bruteMatmul(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 64, 48, 24, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  checkAgainstBruteForce(&w, 1);
  /* Large enough that promotion overflows 48 KiB for some tiles. */
  prunerWorkloadMatmul(&w, 512, 256, 128, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_true(checkAgainstBruteForce(&w, 0) > 0); /* the rule bites here */
  prunerWorkloadMatmul(&w, 256, 256, 64, PRUNER_DTYPE_F16, PRUNER_DTYPE_F32);
  checkAgainstBruteForce(&w, 0);
  /* Skinny with a long K: split-K configs listed (docs/space.md). */
  prunerWorkloadMatmul(&w, 2, 64, 2048, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  checkAgainstBruteForce(&w, 0);
  assert_true(g_split_k > 0);
}

/* The tensor-core list: present for f16 -> f32 matmuls on sm_80 and later, absent for
 * f32 and bf16 inputs; the rules' messages name what is wrong. */
static void mmaSpace(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 128, 3072, 768, PRUNER_DTYPE_F16, PRUNER_DTYPE_F32);
  PrunerSpace s;
  assert_true(prunerSpaceCreate(&w, &t, NULL, &s).ok);
  uint64_t raw = 0, mma = 0;
  PrunerConfig c;
  while (prunerSpaceNext(s, &raw, &c))
    mma += c.mma != 0;
  assert_true(mma > 100);
  /* The last config is a tensor-core one, and its index round-trips. */
  uint64_t index = 0;
  assert_true(prunerSpaceGetConfig(s, prunerSpaceCount(s) - 1, &c).ok);
  assert_int_equal(c.mma, 1);
  assert_true(prunerSpaceGetIndex(s, &c, &index).ok);
  assert_int_equal(index, prunerSpaceCount(s) - 1);
  PrunerConfig bad = c;
  bad.thread[1] = 12; /* not a multiple of 8 */
  bad.workgroup[1] = 24;
  PrunerStatus st = prunerConfigCheck(&w, &t, &bad);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "multiples of 16 x 8"));
  prunerSpaceDestroy(s);

  PrunerWorkload bf;
  prunerWorkloadMatmul(&bf, 128, 256, 64, PRUNER_DTYPE_BF16, PRUNER_DTYPE_F32);
  assert_true(prunerSpaceCreate(&bf, &t, NULL, &s).ok);
  raw = 0;
  while (prunerSpaceNext(s, &raw, &c))
    assert_int_equal(c.mma, 0);
  prunerSpaceDestroy(s);
  memset(&c, 0, sizeof c);
  c.workgroup[0] = 64;
  c.workgroup[1] = 64;
  c.thread[0] = 32;
  c.thread[1] = 32;
  c.reduction[2] = 16;
  c.mma = 1;
  c.promote_operands = 0;
  c.vector_width = 1;
  st = prunerConfigCheck(&bf, &t, &c);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "bf16"));
  /* Turing has no m16n8k16 f16 mma. */
  PrunerTargetDesc t4;
  assert_true(prunerTargetLookup("t4", &t4).ok);
  st = prunerConfigCheck(&w, &t4, &c);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "compute capability 8.0"));
}

/* The config is refused and the message says `says`. */
static void expectRefused(const PrunerWorkload *w, const PrunerTargetDesc *t,
                          const PrunerConfig *c, const char *says) {
  PrunerStatus st = prunerConfigCheck(w, t, c);
  assert_false(st.ok);
  if (!strstr(st.message, says))
    fail_msg("expected \"%s\" in: %s", says, st.message);
}

/* A 7-loop config from its three arrays. */
static PrunerConfig config7(const int64_t wg[7], const int64_t red[7], const int64_t th[7],
                            uint32_t promote, int32_t vector_width) {
  PrunerConfig c;
  memset(&c, 0, sizeof c);
  memcpy(c.workgroup, wg, 7 * sizeof *wg);
  memcpy(c.reduction, red, 7 * sizeof *red);
  memcpy(c.thread, th, 7 * sizeof *th);
  c.promote_operands = promote;
  c.vector_width = vector_width;
  return c;
}

/* Implicit-GEMM convs (promote_operands on a conv_2d_nhwc_hwcf, docs/config.md rule 12):
 * listed after the FMA configs; their launch shape and shared memory are the GEMM's; the
 * rules that keep the tiled im2col exact are refused by name. */
static void implicitGemmSpace(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  prunerWorkloadConv2dNhwcHwcf(&w, 1, 58, 58, 64, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
  PrunerSpace s;
  assert_true(prunerSpaceCreate(&w, &t, NULL, &s).ok);
  PrunerConfig c;
  assert_true(prunerSpaceGetConfig(s, prunerSpaceCount(s) - 1, &c).ok);
  assert_true(c.promote_operands & 1u);
  uint64_t index = 0;
  assert_true(prunerSpaceGetIndex(s, &c, &index).ok);
  assert_int_equal(index, prunerSpaceCount(s) - 1);
  prunerSpaceDestroy(s);

  /* ResNet-50 3x3: 28 output columns x 32 filters per block, 4x4 per thread, K step 16. */
  PrunerConfig ok = config7((const int64_t[7]){1, 1, 28, 32, 0, 0, 0},
                            (const int64_t[7]){0, 0, 0, 0, 1, 1, 16},
                            (const int64_t[7]){1, 1, 4, 4, 0, 0, 0}, 3, 4);
  PrunerStatus st = prunerConfigCheck(&w, &t, &ok);
  if (!st.ok)
    fail_msg("%s", st.message);
  PrunerWorkload g;
  PrunerConfig gc;
  assert_true(prunerConfigImplicitGemm(&w, &ok, &g, &gc));
  assert_int_equal(g.bounds[1], 56 * 56);
  assert_int_equal(g.bounds[3], 3 * 3 * 64);
  assert_int_equal(gc.workgroup[1], 28);
  assert_int_equal(gc.reduction[3], 16);
  PrunerLaunchShape ls;
  prunerConfigLaunchShape(&w, &ok, &ls);
  assert_int_equal(ls.grid[0], 64 / 32);
  assert_int_equal(ls.grid[1], 56 * 56 / 28);
  assert_int_equal(ls.threads_per_block, 7 * 8);
  assert_int_equal(ls.smem_bytes, (28 * 16 + 16 * 32) * 4);
  assert_int_equal(prunerConfigSharedBytes(&w, &ok), (28 * 16 + 16 * 32) * 4);
  assert_int_equal(prunerConfigScheduleKind(&w, &ok), PRUNER_SCHEDULE_IMPLICIT_GEMM);
  ok.promote_operands = 0; /* the same tiles as a direct conv: no GEMM */
  assert_false(prunerConfigImplicitGemm(&w, &ok, &g, &gc));
  assert_int_equal(prunerConfigScheduleKind(&w, &ok), PRUNER_SCHEDULE_DIRECT);
  ok.promote_operands = 3;
  /* vector_width 8: 16-byte loads of 16-bit inputs only. */
  PrunerWorkload h;
  prunerWorkloadMatmul(&h, 128, 3072, 768, PRUNER_DTYPE_F16, PRUNER_DTYPE_F32);
  PrunerConfig wide;
  memset(&wide, 0, sizeof wide);
  wide.workgroup[0] = 32;
  wide.workgroup[1] = 128;
  wide.thread[0] = 4;
  wide.thread[1] = 8;
  wide.reduction[2] = 16;
  wide.vector_width = 8;
  st = prunerConfigCheck(&h, &t, &wide);
  if (!st.ok)
    fail_msg("%s", st.message);
  PrunerWorkload single;
  prunerWorkloadMatmul(&single, 128, 3072, 768, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  expectRefused(&single, &t, &wide, "8 when every input is 16-bit or narrower");
  /* pruner-tune --schedules' list. */
  uint32_t mask = 0;
  assert_true(prunerScheduleKindsParse("implicit-gemm,direct", &mask).ok);
  assert_int_equal(mask, (1u << PRUNER_SCHEDULE_IMPLICIT_GEMM) | (1u << PRUNER_SCHEDULE_DIRECT));
  st = prunerScheduleKindsParse("direct,,mma", &mask);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "empty"));
  st = prunerScheduleKindsParse("mma", &mask);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "unknown kind 'mma'"));

  PrunerConfig bad = ok;
  bad.workgroup[1] = 2; /* two output rows per block */
  expectRefused(&w, &t, &bad, "must stay inside one output row");
  bad = ok;
  bad.reduction[5] = 3; /* three taps but only 16 of their 64 channels per K step */
  expectRefused(&w, &t, &bad, "inside one filter row");
  bad.reduction[6] = 64; /* whole taps: K step 192, one filter row (a 2x4 thread tile) */
  bad.thread[2] = 2;
  bad.thread[3] = 4; /* 14 x 8 = 112 threads, 8 x 192 unrolled FMAs each */
  bad.vector_width = 4;
  if (!prunerConfigCheck(&w, &t, &bad).ok)
    fail_msg("%s", prunerConfigCheck(&w, &t, &bad).message);
  bad = ok;
  bad.reduction[4] = 3; /* across filter rows */
  expectRefused(&w, &t, &bad, "inside one filter row");
  bad = ok;
  bad.promote_operands = 2; /* the filter alone */
  expectRefused(&w, &t, &bad, "[0] or [0, 1]");
  bad = ok;
  bad.thread[2] = 1; /* 28 x 1 = 28 threads: below a warp */
  bad.thread[3] = 32;
  expectRefused(&w, &t, &bad, "implicit GEMM of linalg.conv_2d_nhwc_hwcf");
  /* Dilated convs: MLIR's im2col rewrite refuses them. */
  PrunerWorkload dil;
  prunerWorkloadConv2dNhwcHwcf(&dil, 1, 60, 60, 64, 3, 3, 64, 1, 2, PRUNER_DTYPE_F32);
  expectRefused(&dil, &t, &ok, "undilated");
  /* The other convolutions stage nothing. */
  PrunerWorkload nchw;
  prunerWorkloadConv2dNchwFchw(&nchw, 1, 64, 58, 58, 64, 3, 3, 1, 1, PRUNER_DTYPE_F32);
  PrunerConfig n = config7((const int64_t[7]){1, 32, 1, 28, 0, 0, 0},
                           (const int64_t[7]){0, 0, 0, 0, 16, 1, 1},
                           (const int64_t[7]){1, 4, 1, 4, 0, 0, 0}, 1, 1);
  expectRefused(&nchw, &t, &n, "only conv_2d_nhwc_hwcf");
  /* IREE's targets take their own conv configs, not this schedule. */
  PrunerTargetDesc iree;
  assert_true(prunerTargetLookup("iree-cuda:sm_80", &iree).ok);
  expectRefused(&w, &iree, &ok, "project's own GPU targets");
  assert_true(prunerSpaceCreate(&w, &iree, NULL, &s).ok);
  uint64_t raw = 0;
  while (prunerSpaceNext(s, &raw, &c))
    assert_int_equal(c.promote_operands, 0);
  prunerSpaceDestroy(s);
}

static void bruteBatchMatmul(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadBatchMatmul(&w, 6, 32, 16, 12, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  checkAgainstBruteForce(&w, 1);
}

static void bruteConvNhwc(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadConv2dNhwcHwcf(&w, 2, 16, 16, 8, 3, 3, 16, 1, 1, PRUNER_DTYPE_F32);
  checkAgainstBruteForce(&w, 1);
  prunerWorkloadConv2dNhwcHwcf(&w, 1, 29, 29, 6, 3, 3, 8, 2, 1, PRUNER_DTYPE_F16);
  checkAgainstBruteForce(&w, 1);
  /* A stem-like conv (3 input channels): implicit-GEMM K steps of whole taps. */
  prunerWorkloadConv2dNhwcHwcf(&w, 1, 15, 15, 3, 3, 3, 16, 2, 1, PRUNER_DTYPE_F32);
  checkAgainstBruteForce(&w, 1);
}

static void bruteConvNchw(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadConv2dNchwFchw(&w, 1, 4, 18, 18, 8, 3, 3, 1, 1, PRUNER_DTYPE_F32);
  checkAgainstBruteForce(&w, 1);
  prunerWorkloadConv2dNchwFchw(&w, 2, 3, 33, 33, 8, 7, 7, 2, 1, PRUNER_DTYPE_F32);
  checkAgainstBruteForce(&w, 1);
}

static void bruteElementwise(void **state) {
  (void)state;
  PrunerWorkload w;
  elementwise2d(&w, 56, 96);
  checkAgainstBruteForce(&w, 1);
  elementwise2d(&w, 1, 7); /* tiny: fewer than 32 threads possible */
  checkAgainstBruteForce(&w, 1);
}

static void bruteReduction(void **state) {
  (void)state;
  PrunerWorkload w;
  rowReduction(&w, 12, 16, 128);
  checkAgainstBruteForce(&w, 1);
  rowReduction(&w, 2, 8, 4096); /* 16 long rows: split-K listed */
  checkAgainstBruteForce(&w, 0);
  assert_true(g_split_k > 0);
}

/* prunerSpaceSample: distinct valid configs, reproducible from the seed, the filter
 * respected, in both the enumerate-and-shuffle and the by-index regime. */
static bool evenThreadTile(const PrunerConfig *c, void *user) {
  (void)user;
  return c->thread[0] % 2 == 0;
}

static void sampleSpace(PrunerSpace s, size_t n, PrunerConfigFilter keep, size_t expect) {
  PrunerConfig *c = calloc(n, sizeof(*c)), *again = calloc(n, sizeof(*again));
  uint64_t *idx = calloc(n, sizeof(*idx));
  uint64_t rng = 7, rng2 = 7;
  size_t got = prunerSpaceSample(s, n, &rng, keep, NULL, c, idx);
  assert_int_equal(got, expect);
  assert_int_equal(prunerSpaceSample(s, n, &rng2, keep, NULL, again, NULL), got);
  for (size_t i = 0; i < got; ++i) {
    assert_true(prunerConfigEqual(&c[i], &again[i])); /* same seed, same sample */
    assert_true(prunerSpaceContains(s, &c[i]));
    PrunerConfig at;
    assert_true(prunerSpaceGetConfig(s, idx[i], &at).ok);
    assert_true(prunerConfigEqual(&at, &c[i]));
    if (keep) assert_true(keep(&c[i], NULL));
    for (size_t j = 0; j < i; ++j) assert_false(prunerConfigEqual(&c[i], &c[j]));
  }
  free(c);
  free(again);
  free(idx);
}

static void sample(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  elementwise2d(&w, 1, 7); /* 1 valid config */
  PrunerSpace s;
  assert_true(prunerSpaceCreate(&w, &t, NULL, &s).ok);
  sampleSpace(s, 5, NULL, 1);
  prunerSpaceDestroy(s);
  prunerWorkloadMatmul(&w, 64, 48, 24, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_true(prunerSpaceCreate(&w, &t, NULL, &s).ok);
  uint64_t count = prunerSpaceCount(s);
  sampleSpace(s, 50, NULL, 50);                  /* by index */
  sampleSpace(s, 50, evenThreadTile, 50);        /* by index, filtered */
  sampleSpace(s, (size_t)count, NULL, (size_t)count); /* enumerated: all of them */
  uint64_t rng = 1;
  PrunerConfig c;
  assert_int_equal(prunerSpaceSample(s, 0, &rng, NULL, NULL, &c, NULL), 0);
  prunerSpaceDestroy(s);
}

/* Random indices of the ResNet-50 3x3 conv space round-trip. */
static void bigConvRoundTrip(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  prunerWorkloadConv2dNhwcHwcf(&w, 1, 58, 58, 64, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
  PrunerSpace s;
  assert_true(prunerSpaceCreate(&w, &t, NULL, &s).ok);
  uint64_t count = prunerSpaceCount(s);
  assert_true(count > 10000);
  uint64_t seed = 12345;
  for (int i = 0; i < 3000; ++i) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    uint64_t index = (seed >> 17) % count;
    if (i == 0) index = 0;
    if (i == 1) index = count - 1;
    PrunerConfig c;
    assert_true(prunerSpaceGetConfig(s, index, &c).ok);
    assert_true(prunerConfigCheck(&w, &t, &c).ok);
    assert_int_equal(c.reduction[4], 1); /* kh, kw step 1 */
    assert_int_equal(c.reduction[5], 1);
    /* Promoted: an implicit GEMM, one output row per block. */
    assert_true(c.promote_operands == 0 || c.workgroup[1] == 1);
    uint64_t back;
    assert_true(prunerSpaceGetIndex(s, &c, &back).ok);
    assert_int_equal(back, index);
  }
  prunerSpaceDestroy(s);
}

/* Candidates: all divisors (56 -> 1, 2, 4, 7, 8, 14, 28, 56), thread tiles dividing. */
static void knobCandidates(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  prunerWorkloadConv2dNhwcHwcf(&w, 1, 58, 58, 64, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
  PrunerSpace s;
  assert_true(prunerSpaceCreate(&w, &t, NULL, &s).ok);
  assert_int_equal(prunerSpaceNumKnobs(s), 4 + 3 + 2);
  const PrunerKnob *n = prunerSpaceGetKnob(s, 0);
  assert_int_equal(n->kind, PRUNER_KNOB_TILE);
  assert_int_equal(n->num_values, 1); /* bound 1: (1, 1) */
  const PrunerKnob *oh = prunerSpaceGetKnob(s, 1);
  assert_int_equal(oh->loop, 1);
  int64_t seen[8] = {0};
  int distinct = 0;
  for (int i = 0; i < oh->num_values; ++i) {
    assert_int_equal(56 % oh->values[i], 0);
    assert_int_equal(oh->values[i] % oh->thread_values[i], 0);
    assert_true(oh->thread_values[i] <= 16);
    if (!distinct || seen[distinct - 1] != oh->values[i]) seen[distinct++] = oh->values[i];
  }
  const int64_t expect[8] = {1, 2, 4, 7, 8, 14, 28, 56};
  assert_int_equal(distinct, 8);
  assert_memory_equal(seen, expect, sizeof(expect));
  const PrunerKnob *kh = prunerSpaceGetKnob(s, 4);
  assert_int_equal(kh->kind, PRUNER_KNOB_REDUCTION);
  assert_int_equal(kh->num_values, 1);
  const PrunerKnob *c = prunerSpaceGetKnob(s, 6);
  assert_int_equal(c->num_values, 7); /* 1 .. 64 */
  assert_int_equal(prunerSpaceGetKnob(s, 7)->kind, PRUNER_KNOB_PROMOTE);
  assert_int_equal(prunerSpaceGetKnob(s, 7)->num_values, 1);
  assert_int_equal(prunerSpaceGetKnob(s, 8)->kind, PRUNER_KNOB_VECTOR_WIDTH);
  assert_null(prunerSpaceGetKnob(s, 9));
  prunerSpaceDestroy(s);
  prunerWorkloadMatmul(&w, 128, 128, 128, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_true(prunerSpaceCreate(&w, &t, NULL, &s).ok);
  assert_int_equal(prunerSpaceGetKnob(s, 3)->num_values, 4); /* none, {0}, {1}, {0,1} */
  prunerSpaceDestroy(s);
}

static bool crossThreadOnly(const PrunerConfig *c, void *user) {
  (void)user;
  return prunerConfigReductionThreads(c) > 1;
}

static PrunerConfig matmulConfig(int64_t wm, int64_t wn, int64_t k, int64_t tm, int64_t tn,
                                 uint32_t promote, int vw) {
  PrunerConfig c;
  memset(&c, 0, sizeof(c));
  c.workgroup[0] = wm;
  c.workgroup[1] = wn;
  c.reduction[2] = k;
  c.thread[0] = tm;
  c.thread[1] = tn;
  c.promote_operands = promote;
  c.vector_width = vw;
  return c;
}

static void expectError(const PrunerWorkload *w, const PrunerTargetDesc *t, PrunerConfig c,
                        const char *needle) {
  PrunerStatus st = prunerConfigCheck(w, t, &c);
  assert_false(st.ok);
  assert_false(prunerConfigIsValid(w, t, &c));
  if (!strstr(st.message, needle)) fail_msg("expected '%s' in '%s'", needle, st.message);
}

static PrunerConfig rowConfig(int64_t b, int64_t m, int64_t step, int32_t threads) {
  PrunerConfig c;
  memset(&c, 0, sizeof c);
  c.workgroup[0] = c.thread[0] = b;
  c.workgroup[1] = c.thread[1] = m;
  c.reduction[2] = step;
  c.vector_width = 1;
  c.reduction_threads = threads;
  return c;
}

/* One config per kernel (docs/config.md rule 9b): a direct GPU config takes width 1 or
 * the widest that fits its thread tile, split-K the widest, promoted configs any width that
 * fits; iree-cuda the widest up to 4. The space lists exactly those. */
static void vectorWidthOneConfigPerKernel(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 256, 512, 128, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  /* thread tile 4 x 4: widths 1 and 4 direct; 2 repeats 4. */
  PrunerStatus st;
  PrunerConfig direct1 = matmulConfig(32, 64, 8, 4, 4, 0, 1);
  PrunerConfig direct4 = matmulConfig(32, 64, 8, 4, 4, 0, 4);
  assert_true(prunerConfigCheck(&w, &t, &direct1).ok);
  assert_true(prunerConfigCheck(&w, &t, &direct4).ok);
  expectError(&w, &t, matmulConfig(32, 64, 8, 4, 4, 0, 2),
              "vector_width = 2 builds the same kernel as vector_width = 4: the direct "
              "schedule vectorizes the whole thread tile");
  /* thread tile 4 x 2: 2 is the widest. */
  PrunerConfig six = matmulConfig(32, 64, 8, 4, 2, 0, 2); /* thread tile 4 x 2 */
  assert_true(prunerConfigCheck(&w, &t, &six).ok);
  /* Promoted: the copies use the width, every fitting one stays. */
  PrunerConfig promoted = matmulConfig(32, 64, 8, 4, 4, 3u, 2);
  st = prunerConfigCheck(&w, &t, &promoted);
  if (!st.ok)
    fail_msg("%s", st.message);
  /* f16 inputs: 8 is the widest for a thread tile of 8. */
  PrunerWorkload h;
  prunerWorkloadMatmul(&h, 128, 3072, 768, PRUNER_DTYPE_F16, PRUNER_DTYPE_F32);
  assert_true(prunerConfigCheck(&h, &t, &(PrunerConfig){.workgroup = {32, 64}, .thread = {4, 8},
                                                        .reduction = {0, 0, 16},
                                                        .vector_width = 8})
                  .ok);
  expectError(&h, &t,
              (PrunerConfig){.workgroup = {32, 64}, .thread = {4, 8}, .reduction = {0, 0, 16},
                             .vector_width = 4},
              "use 8 (or 1 for scalar code)");
  /* Split-K: the widest only (its partials are vectorized whatever the width). */
  PrunerWorkload gemv;
  prunerWorkloadMatmul(&gemv, 1, 768, 3072, PRUNER_DTYPE_F16, PRUNER_DTYPE_F32);
  PrunerConfig split = {.workgroup = {1, 64}, .thread = {1, 2}, .reduction = {0, 0, 48},
                        .vector_width = 2, .split_k = 32};
  st = prunerConfigCheck(&gemv, &t, &split);
  if (!st.ok)
    fail_msg("%s", st.message);
  split.vector_width = 1;
  expectError(&gemv, &t, split,
              "vector_width = 1 with split_k = 32 builds the same kernel as vector_width = 2");
  /* iree-cuda: no width in its lowering_config, so one config per set of tiles. */
  PrunerTargetDesc iree;
  assert_true(prunerTargetLookup("iree-cuda:h200", &iree).ok);
  assert_true(prunerConfigCheck(&w, &iree, &direct4).ok);
  expectError(&w, &iree, direct1, "vector_width = 1 on iree-cuda: IREE's lowering_config "
                                  "carries no width");
  /* The spaces list exactly what the check accepts (the brute-force tests cover every
   * config; here the three widths of one tile set). */
  PrunerSpace space;
  assert_true(prunerSpaceCreate(&w, &t, NULL, &space).ok);
  assert_true(prunerSpaceContains(space, &direct1));
  assert_true(prunerSpaceContains(space, &direct4));
  PrunerConfig direct2 = matmulConfig(32, 64, 8, 4, 4, 0, 2);
  assert_false(prunerSpaceContains(space, &direct2));
  assert_true(prunerSpaceContains(space, &promoted));
  prunerSpaceDestroy(space);
  assert_true(prunerSpaceCreate(&w, &iree, NULL, &space).ok);
  assert_true(prunerSpaceContains(space, &direct4));
  assert_false(prunerSpaceContains(space, &direct1));
  assert_false(prunerSpaceContains(space, &direct2));
  prunerSpaceDestroy(space);
}

/* The rules of reduction_threads > 1 (docs/config.md), each with its message, and the
 * launch shape: R threads in x, the partials in shared memory. */
static void reductionThreadsRules(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  rowReduction(&w, 12, 128, 128);
  PrunerConfig ok = rowConfig(1, 4, 1, 32);
  PrunerStatus st = prunerConfigCheck(&w, &t, &ok);
  if (!st.ok)
    fail_msg("%s", st.message);
  PrunerLaunchShape ls;
  prunerConfigLaunchShape(&w, &ok, &ls);
  assert_int_equal(ls.block[0], 32);
  assert_int_equal(ls.threads_per_block, 32);
  assert_int_equal(ls.grid[0], 32);
  assert_int_equal(ls.grid[1], 12);
  assert_int_equal(ls.smem_bytes, 4 * 32 * 4);
  assert_int_equal(prunerConfigPartialBytes(&w, &ok), 512);
  expectError(&w, &t, rowConfig(1, 4, 1, 48), "reduction_threads = 48 is not 1 or a power of two");
  expectError(&w, &t, rowConfig(1, 4, 1, 16), "reduction_threads = 16 is not 1");
  expectError(&w, &t, rowConfig(1, 4, 1, 256),
              "reduction_threads = 256 does not divide the bound 128 of reduction loop 2");
  expectError(
      &w, &t, rowConfig(1, 4, 8, 32),
      "reduction [0, 0, 8] does not divide the 4 elements each of the 32 reduction threads");
  PrunerConfig split = rowConfig(1, 4, 1, 32);
  split.thread[1] = 1;
  expectError(&w, &t, split, "needs thread tile [1, 1, 0] equal to workgroup tile [1, 4, 0]");
  PrunerConfig vec = rowConfig(1, 4, 1, 32);
  vec.vector_width = 4;
  expectError(&w, &t, vec, "reduction_threads = 32 needs vector_width = 1");
  expectError(&w, &t, rowConfig(1, 64, 1, 32),
              "reduction_threads = 32 is fewer than workgroup tile [1, 64, 0]'s extent");
  /* Each thread walks every output of the block: the register budget applies to it. */
  expectError(&w, &t, rowConfig(4, 32, 1, 64),
              "thread tile [4, 32, 0] gives 128 elements per thread");
  PrunerWorkload big;
  rowReduction(&big, 1, 64, 4096);
  /* 32 outputs x (1024 threads + the combine's 32 first-level sums) x 4 bytes. */
  expectError(&big, &t, rowConfig(1, 32, 1, 1024),
              "reduction_threads = 1024 keeps 135168 bytes of partials in shared memory; h200 "
              "allows 49152");
  /* The combine's first level (from R = 64): each first-level thread takes the fewest
   * elements of the output's last dim that keep 32 lanes per element within the block's R
   * threads and divide the elements. */
  assert_int_equal(prunerConfigCombineFirstTile(&big, &ok), 0); /* R = 32: one level */
  assert_int_equal(prunerConfigCombineFirstTile(&big, &(PrunerConfig){0}), 0);
  static const struct { int64_t elems, threads, tile; } tiles[] = {
      {1, 64, 1}, {2, 64, 1}, {4, 64, 2}, {16, 64, 8}, {6, 64, 3}, {5, 64, 5},
      {32, 1024, 1}, {32, 128, 8}, {7, 128, 7}, {64, 128, 16},
      /* one level where two would be no shorter: 64 elements on 64 threads (32 x 2 + 32
       * folds against 64), 32 on 64 (16 x 2 + 32 = 64), 63 on 64 (63 x 2 + 32) */
      {64, 64, 0}, {32, 64, 0}, {63, 64, 0}};
  for (size_t i = 0; i < sizeof tiles / sizeof tiles[0]; ++i) {
    PrunerConfig x = rowConfig(1, tiles[i].elems, 1, (int32_t)tiles[i].threads);
    assert_int_equal(prunerConfigCombineFirstTile(&big, &x), tiles[i].tile);
  }
  PrunerConfig two = rowConfig(1, 4, 1, 64);
  assert_int_equal(prunerConfigPartialBytes(&big, &two), 4 * (64 + 32) * 4);
  PrunerConfig fits = rowConfig(1, 8, 4, 256);
  st = prunerConfigCheck(&big, &t, &fits);
  if (!st.ok)
    fail_msg("%s", st.message);
  /* A GEMV (matmul with M = 1): the threads split K, one block per 8 columns. */
  PrunerWorkload mm;
  prunerWorkloadMatmul(&mm, 1, 2304, 768, PRUNER_DTYPE_F16, PRUNER_DTYPE_F32);
  assert_true(prunerWorkloadHasReductionThreads(&mm));
  PrunerConfig c = matmulConfig(1, 8, 4, 1, 8, 0, 1);
  c.reduction_threads = 64;
  st = prunerConfigCheck(&mm, &t, &c);
  if (!st.ok)
    fail_msg("%s", st.message);
  prunerConfigLaunchShape(&mm, &c, &ls);
  assert_int_equal(ls.blocks, 288);
  assert_int_equal(ls.block[0], 64);
  /* A filtered sample of a small space returns every kept config when the draws run dry
   * (the GEMV's cross-thread configs are 8% of its space). */
  PrunerSpace gs;
  st = prunerSpaceCreate(&mm, &t, NULL, &gs);
  assert_true(st.ok);
  uint64_t raw = 0, cross = 0, rng = 5;
  PrunerConfig it;
  while (prunerSpaceNext(gs, &raw, &it))
    cross += prunerConfigReductionThreads(&it) > 1;
  assert_true(cross > 100 && cross < prunerSpaceCount(gs) / 4);
  PrunerConfig *drawn = calloc(400, sizeof *drawn);
  size_t got = prunerSpaceSample(gs, 400, &rng, crossThreadOnly, NULL, drawn, NULL);
  assert_int_equal(got, cross);
  for (size_t i = 0; i < got; ++i)
    assert_true(prunerConfigReductionThreads(&drawn[i]) > 1);
  free(drawn);
  prunerSpaceDestroy(gs);
  c.reduction_threads = 512; /* 768 / 512 is not whole */
  expectError(&mm, &t, c, "reduction_threads = 512 does not divide the bound 768");
  /* All-parallel ops have no reduction for the threads to split. */
  PrunerWorkload add;
  int64_t dims[2] = {64, 128};
  prunerWorkloadElementwiseAdd(&add, dims, 2, PRUNER_DTYPE_F32);
  assert_false(prunerWorkloadHasReductionThreads(&add));
  PrunerConfig e;
  memset(&e, 0, sizeof e);
  e.workgroup[0] = e.thread[0] = 1;
  e.workgroup[1] = e.thread[1] = 32;
  e.vector_width = 1;
  e.reduction_threads = 32;
  expectError(&add, &t, e, "reduction_threads = 32 applies to a reduction or a contraction");
  /* Formats name it only when > 1. */
  char buf[400];
  prunerConfigFormat(&w, &ok, buf, sizeof buf);
  assert_non_null(strstr(buf, ", reduction_threads = 32}"));
  PrunerConfig one = rowConfig(1, 4, 1, 1);
  prunerConfigFormat(&w, &one, buf, sizeof buf);
  assert_null(strstr(buf, "reduction_threads"));
  one.reduction_threads = 0;
  PrunerConfig one1 = rowConfig(1, 4, 1, 1);
  assert_true(prunerConfigEqual(&one, &one1));
  assert_false(prunerConfigEqual(&one, &ok));
}

static void diagnostics(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 512, 256, 1024, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerConfig ok = matmulConfig(64, 64, 16, 4, 4, 3, 4);
  assert_true(prunerConfigCheck(&w, &t, &ok).ok);
  expectError(&w, &t, matmulConfig(64, 64, 16, 3, 4, 0, 1),
              "thread tile [3, 4, 0] does not divide workgroup tile [64, 64, 0]");
  expectError(&w, &t, matmulConfig(256, 256, 16, 4, 4, 0, 1),
              "gives more than 1024 threads per block");
  expectError(&w, &t, matmulConfig(16, 8, 16, 4, 4, 0, 1), "gives 8 threads per block; at least 32");
  /* A: 256 x 64 f32 = 64 KiB alone. */
  expectError(&w, &t, matmulConfig(256, 64, 64, 4, 4, 1, 1),
              "promote_operands [0] needs 65536 bytes of shared memory; h200 allows 49152");
  /* The compile-cost limits (docs/space.md): 8 x 8 elements x 64 steps, and 256 x 256
   * elements per block; both pass once lifted. */
  expectError(&w, &t, matmulConfig(64, 64, 64, 8, 8, 0, 1),
              "thread tile [8, 8, 0] and reduction [0, 0, 64] unroll 64 elements x 64 steps = "
              "4096 body copies per thread; at most 2047");
  expectError(&w, &t, matmulConfig(256, 256, 16, 8, 8, 0, 1),
              "workgroup tile [256, 256, 0] gives 1024 threads x 64 elements = 65536 elements "
              "per block; at most 32767");
  PrunerSpaceOptions lifted = prunerSpaceDefaultOptions();
  lifted.max_unrolled_body = 0;
  lifted.max_block_elements = 0;
  PrunerConfig unrolled = matmulConfig(64, 64, 64, 8, 8, 0, 1);
  PrunerConfig wide = matmulConfig(256, 256, 16, 8, 8, 0, 1);
  assert_true(prunerConfigCheckWithOptions(&w, &t, &lifted, &unrolled).ok);
  assert_true(prunerConfigCheckWithOptions(&w, &t, &lifted, &wide).ok);
  /* At the limit is valid: 2047 is the largest body, 8 x 4 x 64 = 2048 is not. */
  lifted = prunerSpaceDefaultOptions();
  lifted.max_unrolled_body = 2048;
  PrunerConfig edge = matmulConfig(64, 64, 64, 8, 4, 0, 1);
  assert_false(prunerConfigCheck(&w, &t, &edge).ok);
  assert_true(prunerConfigCheckWithOptions(&w, &t, &lifted, &edge).ok);
  expectError(&w, &t, matmulConfig(64, 64, 16, 4, 2, 0, 4),
              "vector_width = 4 does not divide thread tile [4, 2, 0]");
  /* The promoted A tile is 64 x 2: its contiguous extent (k) is 2. */
  expectError(&w, &t, matmulConfig(64, 64, 2, 4, 4, 1, 4),
              "vector_width = 4 does not divide the contiguous extent 2 of promoted operand 0");
  expectError(&w, &t, matmulConfig(64, 64, 16, 4, 4, 0, 3), "vector_width = 3");
  expectError(&w, &t, matmulConfig(48, 64, 16, 4, 4, 0, 1),
              "workgroup tile [48, 64, 0] does not divide the loop bounds [512, 256, 1024]");
  expectError(&w, &t, matmulConfig(64, 64, 48, 4, 4, 0, 1), "reduction [0, 0, 48] does not divide");
  expectError(&w, &t, matmulConfig(64, 64, 0, 4, 4, 0, 1), "reduction [0, 0, 0] is 0");
  expectError(&w, &t, matmulConfig(64, 64, 16, 16, 8, 0, 1), "128 elements per thread; at most 64");
  expectError(&w, &t, matmulConfig(64, 64, 16, 4, 4, 8, 1), "promote_operands [3] names an operand");
  PrunerConfig c = matmulConfig(64, 64, 16, 4, 4, 0, 1);
  c.workgroup[2] = 16;
  expectError(&w, &t, c, "workgroup tile [64, 64, 16] has an entry for reduction loop 2");
  c = matmulConfig(64, 64, 16, 4, 4, 0, 1);
  c.reduction[0] = 4;
  expectError(&w, &t, c, "reduction [4, 0, 16] has an entry for parallel loop 0");
  c = matmulConfig(64, 64, 16, 4, 4, 0, 1);
  c.thread[5] = 1;
  expectError(&w, &t, c, "nonexistent loop 5");
  /* Grid y limit: 1 x 131072 x 2 elementwise with tiles (1, 2): 131072 blocks on y. */
  PrunerWorkload e;
  elementwise2d(&e, 131072, 64);
  PrunerConfig g;
  memset(&g, 0, sizeof(g));
  g.workgroup[0] = 1;
  g.workgroup[1] = 32;
  g.thread[0] = 1;
  g.thread[1] = 1;
  g.vector_width = 1;
  expectError(&e, &t, g, "grid y = 131072 blocks for loop 0");
  /* Block z limit: four parallel loops with threads would need a 4th block dimension. */
  PrunerWorkload bm;
  prunerWorkloadBatchMatmul(&bm, 128, 64, 64, 16, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerConfig z;
  memset(&z, 0, sizeof(z));
  z.workgroup[0] = 128;
  z.workgroup[1] = 4;
  z.workgroup[2] = 4;
  z.reduction[3] = 16;
  z.thread[0] = 1;
  z.thread[1] = 2;
  z.thread[2] = 2;
  z.vector_width = 1;
  expectError(&bm, &t, z, "block z = 128 threads for loop 0 (b); at most 64");
}

/* Innermost tiled parallel loop -> x, then y, then z; loops with one block/thread skip. */
static void launchShape(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadBatchMatmul(&w, 12, 128, 64, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerConfig c;
  memset(&c, 0, sizeof(c));
  c.workgroup[0] = 1;
  c.workgroup[1] = 64;
  c.workgroup[2] = 64;
  c.reduction[3] = 16;
  c.thread[0] = 1;
  c.thread[1] = 4;
  c.thread[2] = 4;
  c.promote_operands = 3;
  c.vector_width = 4;
  PrunerTargetDesc t = h200();
  assert_true(prunerConfigCheck(&w, &t, &c).ok);
  PrunerLaunchShape s;
  prunerConfigLaunchShape(&w, &c, &s);
  /* n has a single block (64 / 64), so x goes to m (2 blocks) and y to b (12). */
  assert_int_equal(s.grid[0], 2);
  assert_int_equal(s.grid_loop[0], 1);
  assert_int_equal(s.grid[1], 12);
  assert_int_equal(s.grid_loop[1], 0);
  assert_int_equal(s.grid[2], 1);
  assert_int_equal(s.grid_loop[2], -1);
  assert_int_equal(s.block[0], 16);
  assert_int_equal(s.block_loop[0], 2);
  assert_int_equal(s.block[1], 16);
  assert_int_equal(s.block[2], 1);
  assert_int_equal(s.block_loop[2], -1);
  assert_int_equal(s.threads_per_block, 256);
  assert_int_equal(s.blocks, 24);
  assert_int_equal(s.smem_bytes, (64 * 16 + 16 * 64) * 4);
}

static void formats(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 512, 256, 1024, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerConfig c = matmulConfig(64, 64, 16, 4, 4, 2, 4);
  char buf[256];
  prunerConfigFormat(&w, &c, buf, sizeof(buf));
  assert_string_equal(buf, "{workgroup = [64, 64, 0], reduction = [0, 0, 16], thread = [4, 4, 0], "
                           "promote_operands = [1], vector_width = 4}");
  c.promote_operands = 0;
  prunerConfigFormat(&w, &c, buf, sizeof(buf));
  assert_non_null(strstr(buf, "promote_operands = [], vector_width = 4}"));
  c.promote_operands = 3;
  prunerConfigFormatShort(&w, &c, buf, sizeof(buf));
  assert_string_equal(buf, "wg64x64 r16 t4x4 p01 v4");
  PrunerConfig d = c;
  assert_true(prunerConfigEqual(&c, &d));
  d.vector_width = 2;
  assert_false(prunerConfigEqual(&c, &d));
}

/* prunerWorkloadCheckSchedulable and the vector_width rule: the one predicate the passes
 * and the tuner share (docs/plugin.md, "What the passes build"). */
static void schedulable(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerSpace s = NULL;
  PrunerStatus st;

  /* A full reduction: out[] += in[i, j]. No parallel loop to map: no space. */
  PrunerWorkload full;
  int64_t dims[2] = {64, 32};
  prunerWorkloadReduceSum(&full, dims, 2, PRUNER_DTYPE_F32);
  assert_true(prunerWorkloadCheckSchedulable(&full, &t).ok);
  full.loop_kinds[0] = PRUNER_LOOP_REDUCTION;
  full.operands[1].rank = 0;
  prunerWorkloadComputeKey(&full);
  assert_true(prunerWorkloadVerify(&full).ok);
  st = prunerWorkloadCheckSchedulable(&full, &t);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "has no parallel loop"));
  st = prunerSpaceCreate(&full, &t, NULL, &s);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "has no parallel loop"));
  PrunerConfig c;
  memset(&c, 0, sizeof c);
  c.reduction[0] = 64;
  c.reduction[1] = 32;
  c.vector_width = 1;
  st = prunerConfigCheck(&full, &t, &c);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "has no parallel loop"));

  /* An identity copy: out[i, j] = in[i, j]; the body yields its input. */
  PrunerWorkload copy;
  prunerWorkloadElementwiseAdd(&copy, dims, 2, PRUNER_DTYPE_F32);
  copy.num_inputs = 1;
  copy.operands[1] = copy.operands[2];
  copy.body_len = 0;
  copy.body_ops = 0;
  copy.body_yield[0] = 0;
  prunerWorkloadComputeKey(&copy);
  assert_true(prunerWorkloadVerify(&copy).ok);
  st = prunerWorkloadCheckSchedulable(&copy, &t);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "only copies its input"));
  /* The same copy transposing its input is real work. */
  copy.operands[0].index_coeff[0][0] = 0;
  copy.operands[0].index_coeff[0][1] = 1;
  copy.operands[0].index_coeff[1][1] = 0;
  copy.operands[0].index_coeff[1][0] = 1;
  copy.operands[0].shape[0] = 32;
  copy.operands[0].shape[1] = 64;
  prunerWorkloadComputeKey(&copy);
  assert_true(prunerWorkloadVerify(&copy).ok);
  assert_true(prunerWorkloadCheckSchedulable(&copy, &t).ok);

  /* A contraction read with a stride (A[2m, k]): not a projected permutation, so only
   * vector_width = 1 is a candidate and valid. Host targets are not concerned. */
  PrunerWorkload strided;
  prunerWorkloadMatmul(&strided, 8, 16, 16, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_true(prunerWorkloadVectorizable(&strided));
  strided.kind = PRUNER_OP_CONTRACTION;
  strided.operands[0].index_coeff[0][0] = 2;
  strided.operands[0].shape[0] = 15;
  prunerWorkloadComputeKey(&strided);
  assert_true(prunerWorkloadVerify(&strided).ok);
  assert_false(prunerWorkloadVectorizable(&strided));
  assert_true(prunerSpaceCreate(&strided, &t, NULL, &s).ok);
  assert_true(prunerSpaceCount(s) > 0);
  PrunerConfig v;
  uint64_t raw = 0;
  bool any = false;
  while (prunerSpaceNext(s, &raw, &v)) {
    assert_int_equal(v.vector_width, 1);
    any = true;
  }
  assert_true(any);
  prunerSpaceDestroy(s);
  PrunerConfig mm = matmulConfig(8, 16, 8, 1, 4, 0, 1);
  assert_true(prunerConfigCheck(&strided, &t, &mm).ok);
  mm.vector_width = 2;
  st = prunerConfigCheck(&strided, &t, &mm);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "not projected permutations"));
}

static void errors(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 64, 64, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerSpace s = NULL;
  PrunerStatus st;
  /* (Host targets get their spaces from space_host.c; test/unit/host covers them.) */
  PrunerWorkload bad = w;
  bad.bounds[0] = 0;
  assert_false(prunerSpaceCreate(&bad, &t, NULL, &s).ok);
  assert_true(prunerSpaceCreate(&w, &t, NULL, &s).ok);
  /* Not a candidate (thread tile 32 > 16), and a candidate that is invalid. */
  PrunerConfig c = matmulConfig(64, 64, 16, 32, 1, 0, 1);
  uint64_t index;
  st = prunerSpaceGetIndex(s, &c, &index);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "not a candidate"));
  c = matmulConfig(64, 64, 16, 8, 16, 0, 1);
  st = prunerSpaceGetIndex(s, &c, &index);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "128 elements per thread"));
  assert_false(prunerSpaceContains(s, &c));
  prunerSpaceDestroy(s);
}

/* Options change the candidates and the limits; the space and the rules agree. */
static void options(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 128, 128, 32, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerSpaceOptions o = prunerSpaceDefaultOptions();
  o.max_workgroup_tile = 32;
  o.max_thread_elements = 16;
  o.min_threads = 64;
  PrunerSpace s;
  assert_true(prunerSpaceCreate(&w, &t, &o, &s).ok);
  uint64_t raw = 0, n = 0;
  PrunerConfig c;
  while (prunerSpaceNext(s, &raw, &c)) {
    assert_true(c.workgroup[0] <= 32 && c.workgroup[1] <= 32);
    assert_true(c.thread[0] * c.thread[1] <= 16);
    assert_true((c.workgroup[0] / c.thread[0]) * (c.workgroup[1] / c.thread[1]) >= 64);
    assert_true(prunerConfigCheckWithOptions(&w, &t, &o, &c).ok);
    ++n;
  }
  assert_int_equal(n, prunerSpaceCount(s));
  assert_true(n > 0);
  assert_int_equal(prunerSpaceGetOptions(s).min_threads, 64);
  prunerSpaceDestroy(s);
}

/* Huge bounds and tiles: the products in the check saturate instead of wrapping. With
 * 2^20 x 2^25 x 2^25 elements per thread, a wrapping product gave 2^70 mod 2^64 = 64 and
 * the config passed the register budget of 64. */
static void hugeValuesNoOverflow(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  int64_t big = (int64_t)1 << 25;
  prunerWorkloadBatchMatmul(&w, big, big, big, 1, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_true(prunerWorkloadVerify(&w).ok);
  PrunerConfig c = {.workgroup = {big, big, big, 0},
                    .reduction = {0, 0, 0, 1},
                    .thread = {big / 32, big, big, 0},
                    .vector_width = 1};
  expectError(&w, &t, c, "elements per thread");
  assert_true(prunerSpaceMinThreads(&w, &t, &(PrunerSpaceOptions){.min_threads = 32}) == 32);
  c.promote_operands = 0x7;
  c.thread[0] = big / 64;
  c.thread[1] = big / 2;
  c.thread[2] = big / 2; /* 128 threads, elements 2^19 * 2^24 * 2^24: saturates */
  expectError(&w, &t, c, "elements per thread");
  assert_true(prunerConfigSharedBytes(&w, &c) == INT64_MAX);
  /* Options that would make the tile scan run for hours are refused up front. */
  prunerWorkloadMatmul(&w, 4096, 4096, 4096, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerSpaceOptions o = prunerSpaceDefaultOptions();
  o.max_workgroup_tile = (int64_t)1 << 40;
  PrunerSpace space = NULL;
  PrunerStatus st = prunerSpaceCreate(&w, &t, &o, &space);
  assert_false(st.ok);
  assert_null(space);
  assert_non_null(strstr(st.message, "max_workgroup_tile"));
}

/* prunerSpaceRestrict: a space restricted to a subset (the study's dataset) counts,
 * indexes, iterates, samples and answers Contains over that subset only, in the same
 * order, on a GPU space with tensor-core configs and on a host space alike. */
/* Keeps about a third of the configs, by a property of their values. */
static bool keepThird(const PrunerConfig *c, void *user) {
  (void)user;
  int64_t v = c->mma * 7 + c->promote_operands + c->vector_width;
  for (int l = 0; l < PRUNER_MAX_LOOPS; ++l)
    v += c->workgroup[l] + 3 * c->thread[l] + 5 * c->reduction[l];
  return v % 3 == 0;
}

static void restrictCheck(const PrunerWorkload *w, const PrunerTargetDesc *t) {
  PrunerSpace space;
  assert_true(prunerSpaceCreate(w, t, NULL, &space).ok);
  uint64_t all = prunerSpaceCount(space), n_kept = 0;
  assert_true(all > 6);
  PrunerConfig *every = calloc((size_t)all, sizeof(PrunerConfig));
  PrunerConfig *kept = calloc((size_t)all, sizeof(PrunerConfig));
  for (uint64_t i = 0; i < all; ++i) {
    assert_true(prunerSpaceGetConfig(space, i, &every[i]).ok);
    if (keepThird(&every[i], NULL))
      kept[n_kept++] = every[i];
  }
  assert_true(n_kept > 0 && n_kept < all);
  assert_true(prunerSpaceRestrict(space, keepThird, NULL).ok);
  assert_int_equal(prunerSpaceCount(space), n_kept);
  uint64_t raw = 0, seen = 0;
  PrunerConfig c;
  while (prunerSpaceNext(space, &raw, &c)) {
    assert_true(seen < n_kept && prunerConfigEqual(&c, &kept[seen]));
    ++seen;
  }
  assert_int_equal(seen, n_kept);
  for (uint64_t i = 0; i < n_kept; i += 1 + n_kept / 64) {
    assert_true(prunerSpaceGetConfig(space, i, &c).ok);
    assert_true(prunerConfigEqual(&c, &kept[i]));
    uint64_t index = 0;
    assert_true(prunerSpaceGetIndex(space, &c, &index).ok);
    assert_int_equal(index, i);
  }
  for (uint64_t i = 0; i < all; i += 1 + all / 256)
    assert_int_equal(prunerSpaceContains(space, &every[i]), keepThird(&every[i], NULL));
  PrunerConfig sample[8];
  uint64_t rng = 7;
  size_t got = prunerSpaceSample(space, 8, &rng, NULL, NULL, sample, NULL);
  assert_true(got > 0);
  for (size_t i = 0; i < got; ++i)
    assert_true(keepThird(&sample[i], NULL));
  free(every);
  free(kept);
  prunerSpaceDestroy(space);
}

/* prunerConfigFirstBatchOrder: the tuner's first batch without its random share. Twelve
 * configs of tile A lead the ranking, then B, A, C, A...; a batch of 8 with share 0.5 keeps
 * the first 4 and fills slots 4-5 with the best B and C, then (no tile left) the next in
 * rank order; share 0 is the identity. */
static void firstBatchOrder(void **state) {
  (void)state;
  enum { N = 20 };
  PrunerWorkload w;
  elementwise2d(&w, 64, 64); /* no filter window: the thread tile alone */
  PrunerConfig ranked[N];
  memset(ranked, 0, sizeof ranked);
  for (int i = 0; i < N; ++i) {
    ranked[i].workgroup[0] = 64 + i; /* all distinct configs */
    ranked[i].thread[0] = i == 12 ? 2 : i == 14 ? 3 : 1; /* B at 12, C at 14, else A */
  }
  size_t order[N];
  prunerConfigFirstBatchOrder(&w, ranked, N, 8, 0.5, order);
  const size_t want[N] = {0, 1, 2, 3, 12, 14, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 16, 17, 18, 19};
  for (int i = 0; i < N; ++i)
    assert_int_equal(order[i], want[i]);
  prunerConfigFirstBatchOrder(&w, ranked, N, 8, 0.0, order);
  for (int i = 0; i < N; ++i)
    assert_int_equal(order[i], i);
  /* A share of 1 spreads from the first slot after the first config. */
  prunerConfigFirstBatchOrder(&w, ranked, N, 8, 1.0, order);
  assert_int_equal(order[0], 0);
  assert_int_equal(order[1], 12);
  assert_int_equal(order[2], 14);
  assert_int_equal(order[3], 1);
}

/* A conv's register step is its thread tile and its taps per step (the kh and kw
 * reduction steps); the channel step is not part of it. */
static void convRegisterStep(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadConv2dNhwcHwcf(&w, 1, 58, 58, 64, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
  int kh = -1, kw = -1, c = -1;
  for (int l = 0; l < w.num_loops; ++l) {
    if (w.loop_roles[l] == PRUNER_ROLE_FILTER_H)
      kh = l;
    if (w.loop_roles[l] == PRUNER_ROLE_FILTER_W)
      kw = l;
    if (w.loop_roles[l] == PRUNER_ROLE_IN_CHANNEL)
      c = l;
  }
  assert_true(kh >= 0 && kw >= 0 && c >= 0);
  PrunerConfig a;
  memset(&a, 0, sizeof a);
  a.thread[2] = 4;
  a.thread[3] = 16;
  a.reduction[kh] = 1;
  a.reduction[kw] = 3;
  a.reduction[c] = 32;
  PrunerConfig b = a;
  b.reduction[c] = 64; /* another channel step: the same step in registers */
  b.workgroup[1] = 8;
  assert_true(prunerConfigSameRegisterStep(&w, &a, &b));
  b.reduction[kw] = 0; /* untiled: the whole window of 3, the same step */
  assert_true(prunerConfigSameRegisterStep(&w, &a, &b));
  b.reduction[kw] = 1; /* one tap per step */
  assert_false(prunerConfigSameRegisterStep(&w, &a, &b));
  b = a;
  b.thread[2] = 2;
  assert_false(prunerConfigSameRegisterStep(&w, &a, &b));
  /* In a first batch of 4 with share 0.5, the one-tap config of the leading tile takes a
   * slot before the ranked three-tap ones. */
  PrunerConfig ranked[6];
  for (int i = 0; i < 6; ++i) {
    ranked[i] = a;
    ranked[i].workgroup[1] = i + 1;
  }
  ranked[4].reduction[kw] = 1;
  size_t order[6];
  prunerConfigFirstBatchOrder(&w, ranked, 6, 4, 0.5, order);
  const size_t want[6] = {0, 1, 4, 2, 3, 5};
  for (int i = 0; i < 6; ++i)
    assert_int_equal(order[i], want[i]);
}

static void restrictToSubset(void **state) {
  (void)state;
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 64, 64, 32, PRUNER_DTYPE_F16, PRUNER_DTYPE_F32);
  PrunerTargetDesc gpu = h200();
  restrictCheck(&w, &gpu);
  PrunerTargetDesc host;
  assert_true(prunerTargetLookup("host", &host).ok);
  prunerWorkloadMatmul(&w, 96, 128, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  restrictCheck(&w, &host);
}

/* The host space's candidate lists are the bound's divisors (Ansor's split factors),
 * found in pairs up to sqrt(bound), at most 2^16 steps: trying every value up to the
 * bound or the option spun for hours on a 2^40 reduction. Past the scan, 2^k and 3 x 2^k
 * still count. The lists equal the brute-force definition on small bounds. */
static bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/* Ascending, each dividing `bound`, within [lo, hi]. */
static void assertDivisorList(const int64_t *v, int n, int64_t bound, int64_t lo, int64_t hi) {
  for (int i = 0; i < n; ++i) {
    assert_true(v[i] >= lo && v[i] <= hi && bound % v[i] == 0);
    assert_true(i == 0 || v[i] > v[i - 1]);
  }
}

static void hostCandidatesHugeBounds(void **state) {
  (void)state;
  PrunerTargetDesc t;
  assert_true(prunerTargetLookup("host", &t).ok);
  PrunerWorkload w;
  int64_t steps[PRUNER_MAX_KNOB_VALUES * 4];
  /* 16x16x2^40: steps 32, 64, ..., 2^40 (36 values). */
  int64_t k = (int64_t)1 << 40;
  prunerWorkloadMatmul(&w, 16, 16, k, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  int n = prunerHostReductionCandidates(&w, 2, steps, PRUNER_MAX_KNOB_VALUES * 4);
  assert_int_equal(n, 36);
  for (int i = 0; i < n; ++i)
    assert_true(steps[i] == (int64_t)32 << i);
  /* 3 x 2^40: every 2^k >= 32 (36) and 3 x 2^k >= 48 (37), the bound last. */
  prunerWorkloadMatmul(&w, 16, 16, 3 * k, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  n = prunerHostReductionCandidates(&w, 2, steps, PRUNER_MAX_KNOB_VALUES * 4);
  assert_int_equal(n, 73);
  assertDivisorList(steps, n, 3 * k, 32, 3 * k);
  assert_true(steps[0] == 32 && steps[1] == 48 && steps[n - 1] == 3 * k);
  /* The largest bound: INT64_MAX = 7^2 x 73 x 127 x 337 x 92737 x 649657 (odd): the
   * divisors the scan finds (49, 73, 127, ... and their cofactors), the bound last. */
  prunerWorkloadMatmul(&w, 16, 16, INT64_MAX, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  n = prunerHostReductionCandidates(&w, 2, steps, PRUNER_MAX_KNOB_VALUES * 4);
  assert_true(n > 3);
  assertDivisorList(steps, n, INT64_MAX, 32, INT64_MAX);
  assert_true(steps[0] == 49 && steps[1] == 73 && steps[n - 1] == INT64_MAX);
  /* A cap is honoured (smallest first). */
  prunerWorkloadMatmul(&w, 16, 16, k, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_int_equal(prunerHostReductionCandidates(&w, 2, steps, 3), 3);
  assert_true(steps[2] == 128);

  /* Task tiles with a 2^40 limit on a 2^40 x 3 bound: its divisors 2^k and 3 x 2^k. */
  int64_t wg[PRUNER_MAX_KNOB_VALUES * 4], th[PRUNER_MAX_KNOB_VALUES * 4];
  PrunerSpaceOptions o = prunerHostSpaceDefaultOptions();
  o.max_workgroup_tile = k;
  prunerWorkloadMatmul(&w, 3 * k, 16, 16, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  n = prunerHostTileCandidates(&w, &t, &o, 0, wg, th, PRUNER_MAX_KNOB_VALUES * 4);
  assert_true(n > 0);
  for (int i = 0; i < n; ++i) {
    assert_true(wg[i] >= 16 && wg[i] <= k && (3 * k) % wg[i] == 0);
    assert_true(isPow2(wg[i]) || (wg[i] % 3 == 0 && isPow2(wg[i] / 3)));
    assert_true(i == 0 || wg[i] >= wg[i - 1]);
  }
  /* The largest limit and bound: ends at once (the old scan tried every value). */
  o.max_workgroup_tile = INT64_MAX;
  prunerWorkloadMatmul(&w, (int64_t)1 << 62, 16, 16, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  n = prunerHostTileCandidates(&w, &t, &o, 0, wg, th, PRUNER_MAX_KNOB_VALUES * 4);
  assert_true(n > 0);
  for (int i = 0; i < n; ++i)
    assert_true(isPow2(wg[i]) && wg[i] >= 16);

  /* Small bounds: the same lists as the definition (every divisor tried). */
  for (int64_t bound = 1; bound <= 600; ++bound) {
    prunerWorkloadMatmul(&w, bound, 16, bound, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
    n = prunerHostReductionCandidates(&w, 2, steps, PRUNER_MAX_KNOB_VALUES * 4);
    int expect = 0;
    int64_t min_step = bound < 32 ? bound : 32;
    for (int64_t v = 1; v <= bound; ++v)
      if (bound % v == 0 && v >= min_step) {
        assert_true(expect < n && steps[expect] == v);
        ++expect;
      }
    assert_int_equal(n, expect);
    o = prunerHostSpaceDefaultOptions();
    n = prunerHostTileCandidates(&w, &t, &o, 0, wg, th, PRUNER_MAX_KNOB_VALUES * 4);
    int64_t prev = 0;
    int tiles = 0;
    int64_t min_tile = bound < 16 ? bound : 16;
    for (int64_t v = 1; v <= bound && v <= o.max_workgroup_tile; ++v)
      if (bound % v == 0 && v >= min_tile)
        ++tiles;
    /* None (below 600: the primes over 512): the loop is split by 2^k and 3 x 2^k. */
    if (tiles == 0)
      for (int64_t v = min_tile; v < bound && v <= o.max_workgroup_tile; ++v)
        if (bound % v != 0 && (isPow2(v) || (v % 3 == 0 && isPow2(v / 3))))
          ++tiles;
    for (int i = 0; i < n; ++i)
      if (wg[i] != prev) {
        prev = wg[i];
        --tiles;
      }
    assert_int_equal(tiles, 0);
  }
}

/* Sizes past int64 or past the target's memory are refused by name, with no overflow on
 * the way (UBSan build: -DPRUNER_SANITIZE=ON). */
static void workloadSizeChecks(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 1024, 1024, 1024, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_true(prunerWorkloadCheckSize(&w, &t).ok);
  /* 2^62 x 2 x 2: 2^64 points and 2^65 bytes per operand. */
  prunerWorkloadMatmul(&w, (int64_t)1 << 62, 2, 2, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerStatus st = prunerWorkloadCheckSize(&w, &t);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "linalg.matmul"));
  assert_non_null(strstr(st.message, "at least 2^63"));
  PrunerSpace space = NULL;
  assert_false(prunerSpaceCreate(&w, &t, NULL, &space).ok);
  assert_null(space);
  /* 2^60 x 2 x 2: 2^62 points fit, but operand 0 has 2^63 bytes. */
  prunerWorkloadMatmul(&w, (int64_t)1 << 60, 2, 2, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  st = prunerWorkloadCheckSize(&w, &t);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "operand 0 has at least 2^63 bytes"));
  /* 16 x 16 x 2^40: representable, but 128 TiB of operands on a 141 GB H200. */
  prunerWorkloadMatmul(&w, 16, 16, (int64_t)1 << 40, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  st = prunerWorkloadCheckSize(&w, &t);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "more than the"));
  assert_false(prunerSpaceCreate(&w, &t, NULL, &space).ok);
  /* A target of unknown memory only gets the 64-bit checks, and the host space of the
   * 2^40 reduction is built at once. */
  PrunerTargetDesc host;
  assert_true(prunerTargetLookup("host", &host).ok);
  host.dram_bytes = 0;
  assert_true(prunerWorkloadCheckSize(&w, &host).ok);
  st = prunerSpaceCreate(&w, &host, NULL, &space);
  assert_true(st.ok);
  const PrunerKnob *red = NULL;
  for (int i = 0; i < prunerSpaceNumKnobs(space); ++i)
    if (prunerSpaceGetKnob(space, i)->kind == PRUNER_KNOB_REDUCTION)
      red = prunerSpaceGetKnob(space, i);
  assert_non_null(red);
  assert_int_equal(red->num_values, 36);
  prunerSpaceDestroy(space);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(bruteMatmul),
      cmocka_unit_test(mmaSpace),
      cmocka_unit_test(implicitGemmSpace),
      cmocka_unit_test(bruteBatchMatmul),
      cmocka_unit_test(bruteConvNhwc),
      cmocka_unit_test(bruteConvNchw),
      cmocka_unit_test(bruteElementwise),
      cmocka_unit_test(bruteReduction),
      cmocka_unit_test(sample),
      cmocka_unit_test(bigConvRoundTrip),
      cmocka_unit_test(knobCandidates),
      cmocka_unit_test(diagnostics),
      cmocka_unit_test(reductionThreadsRules),
      cmocka_unit_test(vectorWidthOneConfigPerKernel),
      cmocka_unit_test(launchShape),
      cmocka_unit_test(formats),
      cmocka_unit_test(errors),
      cmocka_unit_test(options),
      cmocka_unit_test(hugeValuesNoOverflow),
      cmocka_unit_test(hostCandidatesHugeBounds),
      cmocka_unit_test(restrictToSubset),
      cmocka_unit_test(firstBatchOrder),
      cmocka_unit_test(convRegisterStep),
      cmocka_unit_test(workloadSizeChecks),
      cmocka_unit_test(schedulable),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

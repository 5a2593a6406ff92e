/* Implicit-GEMM convolutions (promote_operands on a conv_2d_nhwc_hwcf, GPU targets): the
 * rules on the conv's own loops, the GEMM a config denotes and the space's candidates.
 * The schedule (lib/schedule/schedule.c, "implicit GEMM") converts the conv with
 * transform.structured.convert_conv2d_to_img2col and fuses the im2col op into each
 * block's K loop; docs/config.md (rule 12) and docs/schedule.md give the reasons. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "space_igemm.h"

#define FAIL(...)                                                                                  \
  do {                                                                                             \
    if (status)                                                                                    \
      *status = prunerStatusError(__VA_ARGS__);                                                    \
    return false;                                                                                  \
  } while (0)

/* conv_2d_nhwc_hwcf loops (prunerWorkloadConv2dNhwcHwcf). */
enum { L_N, L_OH, L_OW, L_F, L_KH, L_KW, L_C };
/* The GEMM's loops (prunerWorkloadImplicitGemm). */
enum { G_N, G_M, G_F, G_K };

static bool isPromotableConv(const PrunerWorkload *w) {
  return w->kind == PRUNER_OP_CONV_2D_NHWC_HWCF && w->num_loops == 7;
}

bool prunerIgemmSelected(const PrunerWorkload *w, const PrunerConfig *c) {
  return isPromotableConv(w) && c->promote_operands && !c->mma;
}

bool prunerConfigImplicitGemm(const PrunerWorkload *w, const PrunerConfig *c,
                              PrunerWorkload *gemm, PrunerConfig *gc) {
  if (!prunerIgemmSelected(w, c))
    return false;
  PrunerWorkload g;
  if (!prunerWorkloadImplicitGemm(w, &g))
    return false;
  PrunerConfig out;
  memset(&out, 0, sizeof out);
  out.workgroup[G_N] = c->workgroup[L_N];
  out.thread[G_N] = c->thread[L_N];
  /* oh's tiles are 1 (rule 12), so an M tile is a run of one output row. */
  out.workgroup[G_M] = c->workgroup[L_OH] * c->workgroup[L_OW];
  out.thread[G_M] = c->thread[L_OH] * c->thread[L_OW];
  out.workgroup[G_F] = c->workgroup[L_F];
  out.thread[G_F] = c->thread[L_F];
  out.reduction[G_K] = c->reduction[L_KH] * c->reduction[L_KW] * c->reduction[L_C];
  out.promote_operands = c->promote_operands;
  out.vector_width = c->vector_width;
  out.reduction_threads = c->reduction_threads;
  *gemm = g;
  *gc = out;
  return true;
}

bool prunerIgemmConfigCheck(const PrunerWorkload *w, const PrunerTargetDesc *t,
                            const PrunerConfig *c, PrunerStatus *status) {
  char pr[64];
  prunerConfigFormatPromote(c->promote_operands, pr, sizeof pr);
  if (!isPromotableConv(w))
    FAIL("promote_operands %s on %s: of the convolutions only conv_2d_nhwc_hwcf stages "
         "operands (as an implicit GEMM)",
         pr, w->op_name);
  if (t->kind != PRUNER_TARGET_GPU)
    FAIL("promote_operands %s on %s: the implicit-GEMM convolution is a schedule of the "
         "project's own GPU targets, not of %s",
         pr, w->op_name, t->name);
  if (w->dilations[0] != 1 || w->dilations[1] != 1)
    FAIL("promote_operands %s on %s with dilations [%lld, %lld]: MLIR's "
         "convert_conv2d_to_img2col rewrites undilated convolutions only",
         pr, w->op_name, (long long)w->dilations[0], (long long)w->dilations[1]);
  if (!(c->promote_operands & 1u) || (c->promote_operands & ~3u))
    FAIL("promote_operands %s on %s: an implicit-GEMM convolution stages the input's im2col "
         "tile (operand 0) and optionally the filter's (operand 1): [0] or [0, 1]",
         pr, w->op_name);
  if (prunerConfigReductionThreads(c) > 1)
    FAIL("promote_operands %s on %s with reduction_threads = %d: the implicit GEMM splits no "
         "reduction across threads",
         pr, w->op_name, (int)c->reduction_threads);
  if (c->workgroup[L_N] != 1 || c->workgroup[L_OH] != 1)
    FAIL("implicit GEMM on %s: workgroup tiles of n and oh must be 1, got %lld and %lld: an "
         "M tile (oh * ow) must stay inside one output row, or the tiled im2col reads wrong "
         "input rows (docs/schedule.md, \"Implicit GEMM\")",
         w->op_name, (long long)c->workgroup[L_N], (long long)c->workgroup[L_OH]);
  /* k = (kh * KW + kw) * C + c: within one filter row (fixed kh) the input address is
   * linear in k, so a K step may cover part of one tap (kw step 1) or whole taps of the
   * row (c step C); steps divide, so a step never crosses a row. */
  if (c->reduction[L_KH] != 1 ||
      (c->reduction[L_KW] != 1 && c->reduction[L_C] != w->bounds[L_C]))
    FAIL("implicit GEMM on %s: reduction steps of kh, kw and c are %lld, %lld and %lld; kh's "
         "must be 1, and kw's 1 unless c's is the whole C = %lld: a K step must stay inside "
         "one filter row (kh) as a run of one tap's channels or of whole taps, or the tiled "
         "im2col reads wrong input columns",
         w->op_name, (long long)c->reduction[L_KH], (long long)c->reduction[L_KW],
         (long long)c->reduction[L_C], (long long)w->bounds[L_C]);
  return true;
}

/* The list's candidate grid (docs/space.md, "Implicit-GEMM convolutions"): coarser than
 * the FMA knobs so that the list of a big conv stays small (it is kept in memory whole):
 * ow's workgroup tiles are all its divisors (the row's length decides which divide),
 * f's tiles and c's steps divisors of the form 2^k or 3 x 2^k, thread tiles up to 8. */
#define IGEMM_MAX_THREAD_TILE 8
#define IGEMM_MAX_K_STEP 64

static bool smooth(int64_t v) { /* 2^k or 3 x 2^k */
  if (v % 3 == 0)
    v /= 3;
  return v > 0 && (v & (v - 1)) == 0;
}

/* Divisors of `bound` up to `max`, ascending; only 2^k / 3 x 2^k ones when `smooth_only`. */
static int divisors(int64_t bound, int64_t max, bool smooth_only, int64_t *out, int cap) {
  int n = 0;
  for (int64_t v = 1; v <= bound && v <= max && n < cap; ++v)
    if (bound % v == 0 && (!smooth_only || smooth(v)))
      out[n++] = v;
  return n;
}

long prunerIgemmCandidates(const PrunerWorkload *w, const PrunerTargetDesc *t,
                           const PrunerSpaceOptions *opts, PrunerConfig **out) {
  *out = NULL;
  if (!isPromotableConv(w) || t->kind != PRUNER_TARGET_GPU || w->dilations[0] != 1 ||
      w->dilations[1] != 1)
    return 0;
  enum { CAP = 64 };
  int64_t ow[CAP], f[CAP], cs[CAP];
  int now = divisors(w->bounds[L_OW], opts->max_workgroup_tile, false, ow, CAP);
  int nf = divisors(w->bounds[L_F], opts->max_workgroup_tile, true, f, CAP);
  int ncs = divisors(w->bounds[L_C], IGEMM_MAX_K_STEP, true, cs, CAP);
  /* K steps: (kw step 1, c step) for each c step, then whole taps (kw step, C) while the
   * step stays within IGEMM_MAX_K_STEP (small C: a stem conv's 3 channels give 3 x kw). */
  int64_t kw_steps[CAP], c_steps[CAP];
  int nks = 0;
  for (int k = 0; k < ncs && nks < CAP; ++k) {
    kw_steps[nks] = 1;
    c_steps[nks++] = cs[k];
  }
  /* Bounded by the step, not by KW: a huge filter width must not mean a huge loop. */
  for (int64_t kw = 2; kw <= w->bounds[L_KW] && kw * w->bounds[L_C] <= IGEMM_MAX_K_STEP &&
                       nks < CAP;
       ++kw)
    if (w->bounds[L_KW] % kw == 0) {
      kw_steps[nks] = kw;
      c_steps[nks++] = w->bounds[L_C];
    }
  static const uint32_t promote[] = {1u, 3u};
  static const int32_t widths[] = {1, 2, 4, 8};
  int nw = prunerWorkloadMaxVectorWidth(w) == 8 ? 4 : 3;
  /* Cheap necessary conditions (rules 6 and 7 on the GEMM: threads per block, elements per
   * thread) before the full check, which builds the GEMM per config: a big conv has
   * millions of raw combinations. */
  int64_t min_threads = prunerSpaceMinThreads(w, t, opts);
  PrunerConfig *list = NULL;
  long n = 0, cap = 0;
  for (int a = 0; a < now; ++a)
    for (int b = 0; b < now; ++b) {
      if (ow[b] > IGEMM_MAX_THREAD_TILE || ow[a] % ow[b])
        continue;
      for (int i = 0; i < nf; ++i)
        for (int j = 0; j < nf; ++j) {
          if (f[j] > IGEMM_MAX_THREAD_TILE || (f[j] & (f[j] - 1)) || f[i] % f[j])
            continue;
          int64_t threads = (ow[a] / ow[b]) * (f[i] / f[j]);
          if (threads > t->max_threads_per_block || threads < min_threads ||
              ow[b] * f[j] > opts->max_thread_elements)
            continue;
          for (int k = 0; k < nks; ++k)
            for (int p = 0; p < 2; ++p)
              for (int v = 0; v < nw; ++v) {
                PrunerConfig c;
                memset(&c, 0, sizeof c);
                c.workgroup[L_N] = c.thread[L_N] = 1;
                c.workgroup[L_OH] = c.thread[L_OH] = 1;
                c.workgroup[L_OW] = ow[a];
                c.thread[L_OW] = ow[b];
                c.workgroup[L_F] = f[i];
                c.thread[L_F] = f[j];
                c.reduction[L_KH] = 1;
                c.reduction[L_KW] = kw_steps[k];
                c.reduction[L_C] = c_steps[k];
                c.promote_operands = promote[p];
                c.vector_width = widths[v];
                if (!prunerConfigIsValidWithOptions(w, t, opts, &c))
                  continue;
                if (n == cap) {
                  long grown_cap = cap ? 2 * cap : 256;
                  PrunerConfig *grown = realloc(list, (size_t)grown_cap * sizeof *list);
                  if (!grown) {
                    free(list);
                    return -1;
                  }
                  list = grown;
                  cap = grown_cap;
                }
                list[n++] = c;
              }
        }
    }
  *out = list;
  return n;
}

/* test/lit/cpu-pipeline/Inputs/driver.c: calls the kernels of kernels.mlir compiled by
 * pruner-cpu-pipeline + mlir-translate + llc, and checks them: the dense layer against
 * OpenBLAS cblas_sgemm (+ bias, ReLU), the row max and the three convolutions against plain C.
 *
 * The C entry points are the `_mlir_ciface_<name>` functions of llvm.emit_c_interface:
 * one pointer to a memref descriptor per tensor argument (docs/host.md, "ABI"); the
 * outputs are written into the caller's buffers (the results equal to an argument were
 * dropped by bufferization). Inputs are uniform random floats in [-1, 1]; outputs start
 * as NaN so an element the kernel never writes fails. `--corrupt` changes one output
 * element after each call, to show that the check fails when the numbers differ.
 * Exit status 0 when every check passes, 1 otherwise. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "memref.h"

void _mlir_ciface_dense(Memref2 *x, Memref2 *w, Memref1 *b, Memref2 *out);
void _mlir_ciface_rowmax(Memref2 *x, Memref1 *out);
void _mlir_ciface_conv(Memref4 *in, Memref4 *f, Memref4 *out);
void _mlir_ciface_conv_nchw(Memref4 *in, Memref4 *f, Memref4 *out);
void _mlir_ciface_conv_nchw_1x1(Memref4 *in, Memref4 *f, Memref4 *out);

static float *array(int64_t n, bool random) {
  float *p = malloc((size_t)n * sizeof *p);
  if (!p) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  for (int64_t i = 0; i < n; ++i)
    p[i] = random ? uniform() : NAN;
  return p;
}

/* Row-major descriptors over a plain array. */
static void desc(float *p, int rank, const int64_t *sizes, float **base, int64_t *offset,
                 int64_t *out_sizes, int64_t *strides) {
  base[0] = base[1] = p;
  *offset = 0;
  int64_t s = 1;
  for (int d = rank - 1; d >= 0; --d) {
    out_sizes[d] = sizes[d];
    strides[d] = s;
    s *= sizes[d];
  }
}
#define DESC(m, p, rank, ...)                                                               \
  do {                                                                                      \
    const int64_t sz_[rank] = {__VA_ARGS__};                                                \
    float *b_[2];                                                                           \
    desc(p, rank, sz_, b_, &(m).offset, (m).sizes, (m).strides);                            \
    (m).allocated = b_[0];                                                                  \
    (m).aligned = b_[1];                                                                    \
  } while (0)

static bool corrupt = false;

/* |got - want| <= 1e-4 (1 + |want|) everywhere; NaN never passes. */
static bool check(const char *name, const float *got, const float *want, int64_t n) {
  double worst = 0;
  int64_t bad = -1;
  for (int64_t i = 0; i < n; ++i) {
    double err = fabs((double)got[i] - (double)want[i]);
    if (isnan(got[i]))
      err = INFINITY;
    if (err > worst)
      worst = err;
    if (bad < 0 && !(err <= 1e-4 * (1.0 + fabs((double)want[i]))))
      bad = i;
  }
  if (bad >= 0) {
    fprintf(stderr, "%s: MISMATCH at element %lld: got %g, want %g (max error %g)\n", name,
            (long long)bad, (double)got[bad], (double)want[bad], worst);
    return false;
  }
  printf("%s: ok, %lld elements, max error %.3g\n", name, (long long)n, worst);
  return true;
}

static bool testDense(void) {
  enum { M = 48, N = 128, K = 96 };
  float *x = array(M * K, true), *w = array(K * N, true), *b = array(N, true);
  float *out = array(M * N, false), *want = array(M * N, false);
  Memref2 mx, mw, mo;
  Memref1 mb;
  DESC(mx, x, 2, M, K);
  DESC(mw, w, 2, K, N);
  DESC(mb, b, 1, N);
  DESC(mo, out, 2, M, N);
  _mlir_ciface_dense(&mx, &mw, &mb, &mo);
  if (corrupt)
    out[M * N / 2] += 0.5f;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, x, K, w, N, 0.0f, want, N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float v = want[i * N + j] + b[j];
      want[i * N + j] = v > 0.0f ? v : 0.0f;
    }
  bool ok = check("dense (matmul + bias + relu vs cblas_sgemm)", out, want, M * N);
  free(x), free(w), free(b), free(out), free(want);
  return ok;
}

static bool testRowmax(void) {
  enum { M = 64, N = 256 };
  float *x = array(M * N, true), *out = array(M, false), *want = array(M, false);
  Memref2 mx;
  Memref1 mo;
  DESC(mx, x, 2, M, N);
  DESC(mo, out, 1, M);
  _mlir_ciface_rowmax(&mx, &mo);
  if (corrupt)
    out[M / 2] += 0.5f;
  for (int i = 0; i < M; ++i) {
    float m = -INFINITY;
    for (int j = 0; j < N; ++j)
      m = x[i * N + j] > m ? x[i * N + j] : m;
    want[i] = m;
  }
  bool ok = check("rowmax (reduction vs C)", out, want, M);
  free(x), free(out), free(want);
  return ok;
}

static bool testConv(void) {
  enum { H = 10, W = 10, C = 16, KH = 3, KW = 3, F = 32, OH = H - KH + 1, OW = W - KW + 1 };
  float *in = array(H * W * C, true), *f = array(KH * KW * C * F, true);
  float *out = array(OH * OW * F, false), *want = array(OH * OW * F, false);
  Memref4 mi, mf, mo;
  DESC(mi, in, 4, 1, H, W, C);
  DESC(mf, f, 4, KH, KW, C, F);
  DESC(mo, out, 4, 1, OH, OW, F);
  _mlir_ciface_conv(&mi, &mf, &mo);
  if (corrupt)
    out[7] -= 0.5f;
  for (int oh = 0; oh < OH; ++oh)
    for (int ow = 0; ow < OW; ++ow)
      for (int o = 0; o < F; ++o) {
        double s = 0;
        for (int kh = 0; kh < KH; ++kh)
          for (int kw = 0; kw < KW; ++kw)
            for (int c = 0; c < C; ++c)
              s += (double)in[((oh + kh) * W + ow + kw) * C + c] * f[((kh * KW + kw) * C + c) * F + o];
        want[(oh * OW + ow) * F + o] = (float)s;
      }
  bool ok = check("conv (conv_2d_nhwc_hwcf vs C)", out, want, OH * OW * F);
  free(in), free(f), free(out), free(want);
  return ok;
}

/* NCHW: strides (2, 1), dilations (1, 2), two images (kernels.mlir's @conv_nchw). */
static bool testConvNchw(void) {
  enum { N = 2, C = 5, H = 13, W = 14, F = 32, KH = 3, KW = 3, SH = 2, SW = 1, DH = 1, DW = 2 };
  enum { OH = (H - DH * (KH - 1) - 1) / SH + 1, OW = (W - DW * (KW - 1) - 1) / SW + 1 };
  float *in = array(N * C * H * W, true), *f = array(F * C * KH * KW, true);
  float *out = array(N * F * OH * OW, false), *want = array(N * F * OH * OW, false);
  Memref4 mi, mf, mo;
  DESC(mi, in, 4, N, C, H, W);
  DESC(mf, f, 4, F, C, KH, KW);
  DESC(mo, out, 4, N, F, OH, OW);
  _mlir_ciface_conv_nchw(&mi, &mf, &mo);
  if (corrupt)
    out[11] -= 0.5f;
  for (int n = 0; n < N; ++n)
    for (int o = 0; o < F; ++o)
      for (int oh = 0; oh < OH; ++oh)
        for (int ow = 0; ow < OW; ++ow) {
          double s = 0;
          for (int c = 0; c < C; ++c)
            for (int kh = 0; kh < KH; ++kh)
              for (int kw = 0; kw < KW; ++kw)
                s += (double)in[((n * C + c) * H + oh * SH + kh * DH) * W + ow * SW + kw * DW] *
                     f[((o * C + c) * KH + kh) * KW + kw];
          want[((n * F + o) * OH + oh) * OW + ow] = (float)s;
        }
  bool ok = check("conv_nchw (conv_2d_nchw_fchw vs C)", out, want, N * F * OH * OW);
  free(in), free(f), free(out), free(want);
  return ok;
}

/* A 1x1 NCHW conv of one image (kernels.mlir's @conv_nchw_1x1, tuned as a matmul). */
static bool testConvNchw1x1(void) {
  enum { C = 16, H = 8, W = 8, F = 24 };
  float *in = array(C * H * W, true), *f = array(F * C, true);
  float *out = array(F * H * W, false), *want = array(F * H * W, false);
  Memref4 mi, mf, mo;
  DESC(mi, in, 4, 1, C, H, W);
  DESC(mf, f, 4, F, C, 1, 1);
  DESC(mo, out, 4, 1, F, H, W);
  _mlir_ciface_conv_nchw_1x1(&mi, &mf, &mo);
  if (corrupt)
    out[5] += 0.5f;
  for (int o = 0; o < F; ++o)
    for (int p = 0; p < H * W; ++p) {
      double s = 0;
      for (int c = 0; c < C; ++c)
        s += (double)f[o * C + c] * in[c * H * W + p];
      want[o * H * W + p] = (float)s;
    }
  bool ok = check("conv_nchw_1x1 (conv_2d_nchw_fchw as matmul vs C)", out, want, F * H * W);
  free(in), free(f), free(out), free(want);
  return ok;
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--corrupt") == 0) {
      corrupt = true;
    } else {
      fprintf(stderr, "usage: %s [--corrupt]\n", argv[0]);
      return 2;
    }
  }
  bool ok = testDense();
  ok = testRowmax() && ok;
  ok = testConv() && ok;
  ok = testConvNchw() && ok;
  ok = testConvNchw1x1() && ok;
  return ok ? 0 : 1;
}

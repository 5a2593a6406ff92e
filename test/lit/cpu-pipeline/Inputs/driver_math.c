/* test/lit/cpu-pipeline/Inputs/driver_math.c: calls the kernels of unary-math.mlir,
 * compiled by pruner-cpu-pipeline + mlir-translate + llc, on inputs across the f32 range
 * (edge values: zeros, subnormals, the overflow edges, infinities, NaN; random values;
 * every 509th bit pattern; every f32 in [88, 88.8)) and compares with the C library's
 * double function rounded to f32.
 * Prints each function's largest error in units in the last place (ulp); exits 1 when a
 * function exceeds its bound or gets a NaN, an infinity or a sign of zero wrong. */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "memref.h"

enum { kRows = 64, kCols = 256, kN = kRows * kCols };

#define KERNEL(name) void _mlir_ciface_k_##name(Memref2 *a, Memref2 *c);
KERNEL(erf)
KERNEL(exp)
KERNEL(expm1)
KERNEL(log)
KERNEL(log2)
KERNEL(log1p)
KERNEL(tanh)

typedef struct Function {
  const char *name;
  void (*kernel)(Memref2 *, Memref2 *);
  double (*reference)(double);
  double max_ulp; /* the bound the test holds it to */
  /* log (a tuned vector kernel): MLIR's approximation reads a positive subnormal input
   * as FLT_MIN (docs/host.md, "Math functions"); the test holds it to that. log2 is an
   * untuned kernel here, a scalar loop, so libm's log2f. */
  bool subnormal_input_as_min;
} Function;

/* The spacing of f32 numbers at |x|, and FLT_MIN below FLT_MIN: the approximations
 * flush subnormal results to zero (docs/host.md, "Math functions"), one ulp here. */
static double ulpAt(double x) {
  x = fabs(x);
  if (x < FLT_MIN)
    return FLT_MIN;
  int e;
  frexp(x, &e);
  return ldexp(1.0, e - 24);
}

static void fillInputs(float *a) {
  static const float edges[] = {0.0f, -0.0f, 1e-45f, -1e-45f, 1e-40f, FLT_MIN, -FLT_MIN,
                                1.0f, -1.0f, 0.5f, 88.5f, 88.8f, -87.0f, -104.0f, 200.0f,
                                -200.0f, 1e30f, -1e30f, FLT_MAX, -FLT_MAX, INFINITY,
                                -INFINITY, NAN};
  int n = (int)(sizeof edges / sizeof edges[0]);
  memcpy(a, edges, sizeof edges);
  for (int i = n; i < kN; ++i) {
    /* Half the points in [-10, 10] (where the functions bend), half log-uniform. */
    float u = uniform();
    a[i] = i % 2 ? 10.0f * u : copysignf(powf(10.0f, 30.0f * fabsf(uniform())), u);
  }
}

/* Every 509th f32 bit pattern (both signs, the whole range: about 8.4 M inputs), then
 * every f32 of [88.0, 88.8) (the top of exp's range, where its approximation errs most),
 * in batches of kN. Returns the batch count. */
#ifndef SWEEP_STEP
#define SWEEP_STEP 509 /* 1: every f32, as docs/host.md's bounds were measured */
#endif
static int fillBatch(float *a, int batch) {
  const uint32_t step = SWEEP_STEP;
  uint64_t first = (uint64_t)batch * kN * step;
  int n = 0;
  for (; n < kN && first + (uint64_t)n * step <= 0xffffffffull; ++n) {
    uint32_t bits = (uint32_t)(first + (uint64_t)n * step);
    memcpy(&a[n], &bits, sizeof bits);
  }
  if (n == 0) { /* past the sweep: the dense batches near exp's overflow edge */
    int dense = batch - (int)((0x100000000ull / step + kN - 1) / kN);
    float x = nextafterf(88.0f, 0.0f);
    for (int i = 0; i <= dense * kN; ++i)
      x = nextafterf(x, INFINITY);
    for (; n < kN && x < 88.8f; ++n, x = nextafterf(x, INFINITY))
      a[n] = x;
  }
  for (int i = n; i < kN; ++i)
    a[i] = 1.0f; /* pad */
  return n;
}

/* Runs `fn` on a[0..n) and folds its errors into *worst / *worst_at; false on a wrong
 * NaN, infinity or signed zero (printed). */
static bool checkBatch(const Function *fn, float *a, int n, double *worst, float *worst_at) {
  static float c[kN];
  for (int i = 0; i < kN; ++i)
    c[i] = NAN;
  Memref2 ma = {a, a, 0, {kRows, kCols}, {kCols, 1}};
  Memref2 mc = {c, c, 0, {kRows, kCols}, {kCols, 1}};
  fn->kernel(&ma, &mc);
  bool ok = true;
  for (int i = 0; i < n; ++i) {
    double x = a[i];
    if (fn->subnormal_input_as_min && x > 0 && x < FLT_MIN)
      x = FLT_MIN;
    float want = (float)fn->reference(x), got = c[i];
    bool special = isnan(want) || isinf(want) || want == 0.0f;
    if (special ? !(isnan(want) ? isnan(got) : got == want && signbit(got) == signbit(want))
                : !isfinite(got)) {
      /* a flushed subnormal input may give the value at zero, which is exact there */
      if (!(fabsf(a[i]) < FLT_MIN && got == (float)fn->reference(0.0))) {
        printf("%s(%.9g): got %.9g, want %.9g\n", fn->name, a[i], got, want);
        ok = false;
      }
      continue;
    }
    double ulps = fabs((double)got - (double)want) / ulpAt(want);
    if (ulps > *worst)
      *worst = ulps, *worst_at = a[i];
  }
  return ok;
}

int main(void) {
  static float a[kN];
  /* The bounds are the largest errors over every f32 (SWEEP_STEP=1, 2026-12-06; the
   * approximations are deterministic code, so a change of MLIR's polynomials or of the
   * lowering shows here). */
  const Function fns[] = {
      {"erf", _mlir_ciface_k_erf, erf, 5, false},
      {"exp", _mlir_ciface_k_exp, exp, 6, false},
      {"expm1", _mlir_ciface_k_expm1, expm1, 6, false},
      {"log", _mlir_ciface_k_log, log, 1, true},
      {"log2", _mlir_ciface_k_log2, log2, 1, false},
      {"log1p", _mlir_ciface_k_log1p, log1p, 1, false},
      {"tanh", _mlir_ciface_k_tanh, tanh, 5, false},
  };
  bool ok = true;
  long inputs = 0;
  for (size_t f = 0; f < sizeof fns / sizeof fns[0]; ++f) {
    double worst = 0;
    float worst_at = 0;
    fillInputs(a);
    ok &= checkBatch(&fns[f], a, kN, &worst, &worst_at);
    inputs = kN;
    for (int b = 0;; ++b) {
      int n = fillBatch(a, b);
      if (n == 0)
        break;
      ok &= checkBatch(&fns[f], a, n, &worst, &worst_at);
      inputs += n;
    }
    printf("%s: max %.2f ulp (at %.9g)%s\n", fns[f].name, worst, worst_at,
           worst > fns[f].max_ulp ? " OVER BOUND" : "");
    ok &= worst <= fns[f].max_ulp;
  }
  printf(ok ? "math: ok, %ld inputs per function\n" : "math: FAILED\n", inputs);
  return !ok;
}

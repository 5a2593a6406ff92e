/* test/lit/cpu-pipeline/Inputs/driver_math.c: calls the kernels of unary-math.mlir,
 * compiled by pruner-cpu-pipeline + mlir-translate + llc, on inputs across the f32 range
 * (magnitudes 1e-30 to 1e30, both signs, zeros, subnormals, the overflow edges,
 * infinities, NaN) and compares with the C library's double function rounded to f32.
 * Prints each function's largest error in units in the last place (ulp); exits 1 when a
 * function exceeds its bound or gets a NaN, an infinity or a sign of zero wrong. */
#include <float.h>
#include <math.h>
#include <stdbool.h>
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

int main(void) {
  static float a[kN], c[kN];
  const Function fns[] = {
      {"erf", _mlir_ciface_k_erf, erf, 4, false},
      {"exp", _mlir_ciface_k_exp, exp, 4, false},
      {"expm1", _mlir_ciface_k_expm1, expm1, 4, false},
      {"log", _mlir_ciface_k_log, log, 4, true},
      {"log2", _mlir_ciface_k_log2, log2, 4, false},
      {"log1p", _mlir_ciface_k_log1p, log1p, 4, false},
      {"tanh", _mlir_ciface_k_tanh, tanh, 4, false},
  };
  fillInputs(a);
  int failed = 0;
  for (size_t f = 0; f < sizeof fns / sizeof fns[0]; ++f) {
    for (int i = 0; i < kN; ++i)
      c[i] = NAN;
    Memref2 ma = {a, a, 0, {kRows, kCols}, {kCols, 1}};
    Memref2 mc = {c, c, 0, {kRows, kCols}, {kCols, 1}};
    fns[f].kernel(&ma, &mc);
    double worst = 0;
    int worst_at = 0;
    for (int i = 0; i < kN; ++i) {
      double x = a[i];
      if (fns[f].subnormal_input_as_min && x > 0 && x < FLT_MIN)
        x = FLT_MIN;
      float want = (float)fns[f].reference(x), got = c[i];
      bool special = isnan(want) || isinf(want) || want == 0.0f;
      if (special ? !(isnan(want) ? isnan(got) : got == want && signbit(got) == signbit(want))
                  : !isfinite(got)) {
        /* a flushed subnormal input may give the value at zero, which is exact there */
        if (!(fabsf(a[i]) < FLT_MIN && got == (float)fns[f].reference(0.0))) {
          printf("%s(%.9g): got %.9g, want %.9g\n", fns[f].name, a[i], got, want);
          failed = 1;
        }
        continue;
      }
      double ulps = fabs((double)got - (double)want) / ulpAt(want);
      if (ulps > worst)
        worst = ulps, worst_at = i;
    }
    printf("%s: max %.2f ulp (at %.9g)%s\n", fns[f].name, worst, a[worst_at],
           worst > fns[f].max_ulp ? " OVER BOUND" : "");
    failed |= worst > fns[f].max_ulp;
  }
  printf(failed ? "math: FAILED\n" : "math: ok, %d inputs per function\n", kN);
  return failed;
}

/* test/lit/cpu-pipeline/Inputs/driver_slices.c: calls sl of slice-inputs.mlir (C[16x32] +=
 * A[3:19, 8:48] x B[5:45, 16:48]) and compares with C. Exit status 0 when all agree. */
#include <math.h>
#include <stdio.h>

#include "memref.h"

void _mlir_ciface_sl(Memref2 *a, Memref2 *b, Memref2 *c);

int main(void) {
  static float a[40 * 64], b[64 * 48], c[16 * 32];
  for (int i = 0; i < 40 * 64; ++i)
    a[i] = uniform();
  for (int i = 0; i < 64 * 48; ++i)
    b[i] = uniform();
  for (int i = 0; i < 16 * 32; ++i)
    c[i] = uniform();
  static double want[16 * 32];
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 32; ++j) {
      double s = c[i * 32 + j];
      for (int k = 0; k < 40; ++k)
        s += (double)a[(3 + i) * 64 + 8 + k] * b[(5 + k) * 48 + 16 + j];
      want[i * 32 + j] = s;
    }
  Memref2 ma = {a, a, 0, {40, 64}, {64, 1}}, mb = {b, b, 0, {64, 48}, {48, 1}};
  Memref2 mc = {c, c, 0, {16, 32}, {32, 1}};
  _mlir_ciface_sl(&ma, &mb, &mc);
  for (int i = 0; i < 16 * 32; ++i)
    if (fabs(c[i] - want[i]) > 1e-4 * (1 + fabs(want[i]))) {
      printf("sl: MISMATCH at element %d: %.9g, want %.9g\n", i, c[i], want[i]);
      return 1;
    }
  printf("sl (matmul on slices vs C): ok, %d elements\n", 16 * 32);
  return 0;
}

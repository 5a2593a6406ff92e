/* test/lit/cpu-pipeline/Inputs/driver_split.c: calls mm of split.mlir (C[521x133] +=
 * A[521x40] x B[40x133]) and compares every element with C, the remainders' rows and
 * columns included. `--corrupt` flips one element of the result first (the check can
 * fail). Exit status 0 when all agree. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "memref.h"

enum { M = 521, N = 133, K = 40 };

void _mlir_ciface_mm(Memref2 *a, Memref2 *b, Memref2 *c);

int main(int argc, char **argv) {
  static float a[M * K], b[K * N], c[M * N];
  for (int i = 0; i < M * K; ++i)
    a[i] = uniform();
  for (int i = 0; i < K * N; ++i)
    b[i] = uniform();
  for (int i = 0; i < M * N; ++i)
    c[i] = uniform();
  static double want[M * N];
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = c[i * N + j];
      for (int k = 0; k < K; ++k)
        s += (double)a[i * K + k] * b[k * N + j];
      want[i * N + j] = s;
    }
  Memref2 ma = {a, a, 0, {M, K}, {K, 1}}, mb = {b, b, 0, {K, N}, {N, 1}};
  Memref2 mc = {c, c, 0, {M, N}, {N, 1}};
  _mlir_ciface_mm(&ma, &mb, &mc);
  if (argc > 1 && strcmp(argv[1], "--corrupt") == 0)
    c[(M - 1) * N + N - 1] += 1.0f; /* the last remainder's last element */
  for (int i = 0; i < M * N; ++i)
    if (fabs(c[i] - want[i]) > 1e-4 * (1 + fabs(want[i]))) {
      printf("mm: MISMATCH at row %d, column %d: %.9g, want %.9g\n", i / N, i % N, c[i],
             want[i]);
      return 1;
    }
  printf("mm (split loops vs C): ok, %d elements\n", M * N);
  return 0;
}

/* test/lit/cpu-pipeline/Inputs/driver_named_maps.c: calls matmul_bt, contract_at and
 * contract_bmm of named-maps.mlir, compiled by pruner-cpu-pipeline + mlir-translate + llc,
 * and checks them against plain C (C += A B^T; C += A^T B; C[b] += A[b] B[b]), relative
 * error 1e-5. Exit status 0 when all agree, 1 otherwise. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "memref.h"

void _mlir_ciface_matmul_bt(Memref2 *a, Memref2 *b, Memref2 *c);
void _mlir_ciface_contract_at(Memref2 *a, Memref2 *b, Memref2 *c);
MEMREF(3);
void _mlir_ciface_contract_bmm(Memref3 *a, Memref3 *b, Memref3 *c);

static Memref2 desc(float *p, int64_t rows, int64_t cols) {
  for (int64_t i = 0; i < rows * cols; ++i)
    p[i] = uniform();
  return (Memref2){p, p, 0, {rows, cols}, {cols, 1}};
}

/* C[m][n] += sum_k A(m, k) B(n, k) with A(m, k) = a[m*sam + k*sak], B likewise. */
static int check(const char *name, const float *got, const float *c0, const float *a,
                 const float *b, int M, int N, int K, int sam, int sak, int sbn, int sbk) {
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double want = c0[m * N + n];
      for (int k = 0; k < K; ++k)
        want += (double)a[m * sam + k * sak] * b[n * sbn + k * sbk];
      if (!(fabs(got[m * N + n] - want) <= 1e-5 * (fabs(want) + K))) {
        printf("%s: MISMATCH at (%d, %d): %.9g, want %.9g\n", name, m, n, got[m * N + n], want);
        return 1;
      }
    }
  printf("%s (vs C): ok, %d elements\n", name, M * N);
  return 0;
}

int main(void) {
  static float a1[64 * 48], b1[96 * 48], c1[64 * 96], c1_0[64 * 96];
  Memref2 ma = desc(a1, 64, 48), mb = desc(b1, 96, 48), mc = desc(c1, 64, 96);
  for (int i = 0; i < 64 * 96; ++i)
    c1_0[i] = c1[i];
  _mlir_ciface_matmul_bt(&ma, &mb, &mc);
  int bad = check("matmul_bt", c1, c1_0, a1, b1, 64, 96, 48, 48, 1, 48, 1);

  static float a2[40 * 32], b2[40 * 80], c2[32 * 80], c2_0[32 * 80];
  ma = desc(a2, 40, 32), mb = desc(b2, 40, 80), mc = desc(c2, 32, 80);
  for (int i = 0; i < 32 * 80; ++i)
    c2_0[i] = c2[i];
  _mlir_ciface_contract_at(&ma, &mb, &mc);
  bad |= check("contract_at", c2, c2_0, a2, b2, 32, 80, 40, 1, 32, 1, 80);

  /* Batch b of C = A B: the same check per batch, B(n, k) = b[k*32 + n]. */
  static float a3[3 * 16 * 24], b3[3 * 24 * 32], c3[3 * 16 * 32], c3_0[3 * 16 * 32];
  for (int i = 0; i < 3 * 16 * 24; ++i)
    a3[i] = uniform();
  for (int i = 0; i < 3 * 24 * 32; ++i)
    b3[i] = uniform();
  for (int i = 0; i < 3 * 16 * 32; ++i)
    c3_0[i] = c3[i] = uniform();
  Memref3 m3a = {a3, a3, 0, {3, 16, 24}, {16 * 24, 24, 1}};
  Memref3 m3b = {b3, b3, 0, {3, 24, 32}, {24 * 32, 32, 1}};
  Memref3 m3c = {c3, c3, 0, {3, 16, 32}, {16 * 32, 32, 1}};
  _mlir_ciface_contract_bmm(&m3a, &m3b, &m3c);
  for (int b = 0; b < 3 && !bad; ++b)
    bad |= check("contract_bmm", c3 + b * 512, c3_0 + b * 512, a3 + b * 384, b3 + b * 768, 16,
                 32, 24, 24, 1, 1, 32);
  return bad;
}

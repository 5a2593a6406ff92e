/* test/lit/cpu-pipeline/Inputs/driver_bf16.c: calls round_bf16 of round-bf16.mlir,
 * compiled by pruner-cpu-pipeline + mlir-translate + llc, and checks every element
 * bit for bit against x * 0.1f rounded to bf16 (round to nearest, ties to even) and
 * widened back. Exit status 0 when all agree, 1 otherwise. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "memref.h"

void _mlir_ciface_round_bf16(Memref2 *a, Memref2 *c);

enum { kRows = 32, kCols = 64, kN = kRows * kCols };

/* f32 -> bf16 -> f32 for a finite value: keep the top 16 bits, rounded to even. */
static float roundBf16(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  u += 0x7fffu + ((u >> 16) & 1u);
  u &= 0xffff0000u;
  float r;
  memcpy(&r, &u, sizeof r);
  return r;
}

int main(void) {
  static float a[kN], c[kN];
  for (int i = 0; i < kN; ++i) {
    a[i] = 100.0f * uniform(); /* values with many mantissa bits */
    c[i] = NAN;
  }
  Memref2 ma = {a, a, 0, {kRows, kCols}, {kCols, 1}};
  Memref2 mc = {c, c, 0, {kRows, kCols}, {kCols, 1}};
  _mlir_ciface_round_bf16(&ma, &mc);
  int changed = 0;
  for (int i = 0; i < kN; ++i) {
    float want = roundBf16(a[i] * 0.1f);
    if (memcmp(&c[i], &want, sizeof want) != 0) {
      printf("round_bf16: MISMATCH at element %d: %.9g, want %.9g\n", i, c[i], want);
      return 1;
    }
    changed += want != a[i] * 0.1f;
  }
  printf("round_bf16 (truncf to bf16 vs C): ok, %d elements, %d rounded\n", kN, changed);
  return 0;
}

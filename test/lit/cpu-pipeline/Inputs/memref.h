/* test/lit/cpu-pipeline/Inputs/memref.h: what the C drivers of the cpu-pipeline tests
 * share: the memref descriptors of the kernels' C interface and the inputs' random
 * numbers. */
#ifndef PRUNER_TEST_MEMREF_H
#define PRUNER_TEST_MEMREF_H

#include <stdint.h>

/* A ranked memref descriptor as convert-func-to-llvm lays it out. */
#define MEMREF(rank)                                                                        \
  typedef struct Memref##rank {                                                            \
    float *allocated;                                                                      \
    float *aligned;                                                                        \
    int64_t offset;                                                                        \
    int64_t sizes[rank];                                                                   \
    int64_t strides[rank];                                                                 \
  } Memref##rank
MEMREF(1);
MEMREF(2);
MEMREF(4);

static uint64_t rng = 0x9E3779B97F4A7C15ull;

/* xorshift64*, uniform in [-1, 1]: every driver's inputs, the same for every run. */
static inline float uniform(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return (float)((double)((rng * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

#endif

#include "pruner/random.h"

uint64_t prunerRandomNext(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double prunerRandomTestValue(uint64_t *state, bool float_dtype) {
  int64_t k = (int64_t)(prunerRandomNext(state) % 33) - 16; /* [-16, 16] */
  return float_dtype ? (double)k / 16.0 : (double)(k / 4);
}

double prunerRandomUniform(uint64_t *state) {
  return (double)(prunerRandomNext(state) >> 11) * (1.0 / 9007199254740992.0); /* 2^-53 */
}

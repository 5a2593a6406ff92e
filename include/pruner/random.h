/* pruner/random.h: the one seedable generator of the project.
 *
 * splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators",
 * OOPSLA 2014): the whole state is one 64-bit word the caller owns, so sampling is
 * reproducible from a seed and the library keeps no global state. */
#ifndef PRUNER_RANDOM_H
#define PRUNER_RANDOM_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The next 64 random bits; advances *state. */
uint64_t prunerRandomNext(uint64_t *state);

/* A uniform double in [0, 1) (the top 53 bits). */
double prunerRandomUniform(uint64_t *state);

/* One value of a measurement's random inputs (lib/backend/host's checked runs and pruner-run
 * draw theirs here, so both promise the same exactness): for floats a multiple of 1/16 in
 * [-1, 1], exact in every float dtype; products are multiples of 1/256, so f32 sums of up
 * to 2^16 terms stay exact in any summation order and a mismatch is a real bug. For
 * integer dtypes (float_dtype false) an integer in [-4, 4]. Advances *state. */
double prunerRandomTestValue(uint64_t *state, bool float_dtype);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_RANDOM_H */

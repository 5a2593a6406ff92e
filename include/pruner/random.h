/* pruner/random.h: the one seedable generator of the project.
 *
 * splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators",
 * OOPSLA 2014): the whole state is one 64-bit word the caller owns, so sampling is
 * reproducible from a seed and the library keeps no global state. */
#ifndef PRUNER_RANDOM_H
#define PRUNER_RANDOM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The next 64 random bits; advances *state. */
uint64_t prunerRandomNext(uint64_t *state);

/* A uniform double in [0, 1) (the top 53 bits). */
double prunerRandomUniform(uint64_t *state);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_RANDOM_H */

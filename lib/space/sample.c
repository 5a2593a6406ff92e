/* prunerSpaceSample: uniform sampling of distinct valid configs (pruner/space.h). */
#include <stdlib.h>

#include "pruner/random.h"
#include "pruner/space.h"

/* Attempts per config when sampling by index: with more than 2n configs and few of them
 * dropped, a draw is new with probability > 1/2, so 64 misses in a row mean the filter
 * drops nearly everything. */
#define DRAWS_PER_CONFIG 64
/* Largest space that a filtered sample enumerates when its draws run dry (about 14 MB of
 * configs). */
#define FALLBACK_ENUMERATE_LIMIT 65536

static size_t sampleAll(PrunerSpace space, uint64_t count, size_t n, uint64_t *rng,
                        PrunerConfigFilter keep, void *user, PrunerConfig *configs,
                        uint64_t *indices) {
  PrunerConfig *all = malloc((size_t)count * sizeof(*all) + 1);
  uint64_t *at = malloc((size_t)count * sizeof(*at) + 1);
  if (!all || !at) {
    free(all);
    free(at);
    return 0;
  }
  size_t kept = 0;
  uint64_t raw = 0, index = 0;
  PrunerConfig c;
  for (; kept < count && prunerSpaceNext(space, &raw, &c); ++index)
    if (!keep || keep(&c, user)) {
      all[kept] = c;
      at[kept++] = index;
    }
  /* Fisher-Yates from the end; the first n are a uniform sample. */
  for (size_t i = kept; i > 1; --i) {
    size_t j = (size_t)(prunerRandomNext(rng) % i);
    PrunerConfig tc = all[i - 1];
    all[i - 1] = all[j];
    all[j] = tc;
    uint64_t ti = at[i - 1];
    at[i - 1] = at[j];
    at[j] = ti;
  }
  size_t out = kept < n ? kept : n;
  for (size_t i = 0; i < out; ++i) {
    configs[i] = all[i];
    if (indices)
      indices[i] = at[i];
  }
  free(all);
  free(at);
  return out;
}

/* One pass over the whole space keeping a uniform sample of n of the configs `keep`
 * accepts (reservoir sampling, Vitter's algorithm R), in O(n) memory: for a filter that
 * keeps a small share of a space too big to hold (the 16-byte vector configs of an f16
 * GEMM: a few thousand of 124,000). The sample's order is the enumeration's. */
static size_t sampleReservoir(PrunerSpace space, size_t n, uint64_t *rng,
                              PrunerConfigFilter keep, void *user, PrunerConfig *configs,
                              uint64_t *indices) {
  uint64_t raw = 0, index = 0, seen = 0;
  PrunerConfig c;
  for (; prunerSpaceNext(space, &raw, &c); ++index) {
    if (!keep(&c, user))
      continue;
    uint64_t slot = seen < n ? seen : prunerRandomNext(rng) % (seen + 1);
    ++seen;
    if (slot < n) {
      configs[slot] = c;
      if (indices)
        indices[slot] = index;
    }
  }
  return seen < n ? (size_t)seen : n;
}

size_t prunerSpaceSample(PrunerSpace space, size_t n, uint64_t *rng, PrunerConfigFilter keep,
                         void *user, PrunerConfig *configs, uint64_t *indices) {
  uint64_t count = prunerSpaceCount(space);
  if (n == 0 || count == 0)
    return 0;
  if (count <= 2 * (uint64_t)n)
    return sampleAll(space, count, n, rng, keep, user, configs, indices);
  size_t got = 0;
  while (got < n) {
    bool found = false;
    for (int attempt = 0; attempt < DRAWS_PER_CONFIG && !found; ++attempt) {
      uint64_t index = prunerRandomNext(rng) % count;
      PrunerConfig c;
      if (!prunerSpaceGetConfig(space, index, &c).ok || (keep && !keep(&c, user)))
        continue;
      found = true;
      for (size_t j = 0; j < got && found; ++j)
        found = !prunerConfigEqual(&configs[j], &c);
      if (found) {
        configs[got] = c;
        if (indices)
          indices[got] = index;
      }
    }
    if (!found)
      break;
    ++got;
  }
  /* A filter that keeps a small part of the space (the cross-thread configs of a GEMV:
   * 180 of 2,200) ends the draws early; enumerate it instead, so every kept config stays
   * reachable: whole and shuffled when small, through a reservoir when not. */
  if (got < n && keep && count <= FALLBACK_ENUMERATE_LIMIT)
    return sampleAll(space, count, n, rng, keep, user, configs, indices);
  if (got < n && keep)
    return sampleReservoir(space, n, rng, keep, user, configs, indices);
  return got;
}

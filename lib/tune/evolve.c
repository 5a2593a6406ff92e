/* lib/tune/evolve.c: the candidates of the draft-free baseline (--strategy=model-only,
 * docs/tune.md "Strategies"): as Ansor/TVM's auto_scheduler, a random sample of the
 * whole space plus mutations of the best measured configs, ranked by a model of the
 * configs' own features. Nothing here knows the draft. draft+verifier adds the same
 * mutations to the draft's pool (PrunerTuneOptions.neighbours), so that what the
 * measurements found can lead the search out of the draft's top N. */
#include <stdlib.h>
#include <string.h>

#include "pruner/random.h"
#include "tune_internal.h"

/* Best measured configs first (ok records of the task on the engine's target). */
typedef struct EvolveParent {
  PrunerConfig config;
  double us;
} EvolveParent;

static int compareParents(const void *a, const void *b) {
  const EvolveParent *x = a, *y = b;
  return (x->us > y->us) - (x->us < y->us);
}

typedef struct EvolveFilter {
  TuneEngine *e;
  TuneTask *t;
  const PrunerConfig *taken;
  size_t n_taken;
} EvolveFilter;

static bool evolveKeep(const PrunerConfig *c, void *user) {
  const EvolveFilter *f = user;
  if (prunerRecordsFind(f->e->records, f->t->w.key, f->e->target_key, c))
    return false;
  for (size_t i = 0; i < f->n_taken; ++i)
    if (prunerConfigEqual(&f->taken[i], c))
      return false;
  return true;
}

/* One mutation of `parent`: one knob (a second with probability 1/2) set to another of
 * its candidate values, the rest kept; false when the result is not a valid config of
 * the space. Ansor mutates tile sizes one split factor at a time; a knob here is a loop's
 * (workgroup, register) tile pair, a reduction step or the vector width. */
static bool mutate(PrunerSpace space, const PrunerConfig *parent, uint64_t *rng,
                   PrunerConfig *out) {
  uint64_t raw;
  if (!prunerSpaceEncodeRaw(space, parent, &raw))
    return false;
  int nk = prunerSpaceNumKnobs(space);
  if (nk <= 0 || nk > 64)
    return false;
  int digits[64], radix[64];
  for (int k = nk - 1; k >= 0; --k) { /* knob 0 is the most significant digit */
    radix[k] = prunerSpaceGetKnob(space, k)->num_values;
    digits[k] = radix[k] > 0 ? (int)(raw % (uint64_t)radix[k]) : 0;
    raw = radix[k] > 0 ? raw / (uint64_t)radix[k] : raw;
  }
  int changes = prunerRandomUniform(rng) < 0.5 ? 1 : 2;
  for (int m = 0; m < changes; ++m) {
    int k = (int)(prunerRandomUniform(rng) * nk);
    if (k >= nk)
      k = nk - 1;
    if (radix[k] < 2)
      continue;
    int d = (int)(prunerRandomUniform(rng) * (radix[k] - 1));
    if (d >= radix[k] - 1)
      d = radix[k] - 2;
    digits[k] = d >= digits[k] ? d + 1 : d; /* any value but the current one */
  }
  raw = 0;
  for (int k = 0; k < nk; ++k)
    raw = raw * (uint64_t)radix[k] + (uint64_t)digits[k];
  prunerSpaceDecodeRaw(space, raw, out);
  return prunerSpaceContains(space, out);
}

size_t tuneMutateBest(TuneEngine *e, TuneTask *t, size_t want, PrunerConfig *out) {
  if (want == 0)
    return 0;
  /* The best measured configs are the parents (Ansor seeds its evolution with them). */
  size_t n_parents = 0;
  EvolveParent *parents = NULL;
  size_t nrec = prunerRecordsCount(e->records);
  for (size_t i = 0; i < nrec; ++i) {
    const PrunerRecord *r = prunerRecordsGet(e->records, i);
    if (r->status != PRUNER_RECORD_OK || r->is_baseline || !(r->median_us > 0) ||
        strcmp(r->workload_key, t->w.key) != 0 || strcmp(r->target_key, e->target_key) != 0)
      continue;
    EvolveParent *grown = realloc(parents, (n_parents + 1) * sizeof *parents);
    if (!grown)
      break;
    parents = grown;
    parents[n_parents].config = r->config;
    parents[n_parents].us = r->median_us;
    ++n_parents;
  }
  if (n_parents > 1)
    qsort(parents, n_parents, sizeof *parents, compareParents);
  if (n_parents > TUNE_EVOLVE_PARENTS)
    n_parents = TUNE_EVOLVE_PARENTS;
  size_t n = 0;
  EvolveFilter f = {e, t, out, 0};
  for (size_t tries = 0; n_parents && n < want && tries < want * 16; ++tries) {
    const PrunerConfig *p = &parents[tries % n_parents].config;
    PrunerConfig child;
    f.n_taken = n;
    if (mutate(t->space, p, &e->rng, &child) && evolveKeep(&child, &f))
      out[n++] = child;
  }
  free(parents);
  return n;
}

size_t tuneModelOnlyPool(TuneEngine *e, TuneTask *t, size_t cap, PrunerConfig *out) {
  if (cap == 0)
    return 0;
  /* Half the pool from mutations once there are parents, the rest uniform samples. */
  size_t n = tuneMutateBest(e, t, cap / 2, out);
  EvolveFilter f = {e, t, out, n};
  n += prunerSpaceSample(t->space, cap - n, &e->rng, evolveKeep, &f, out + n, NULL);
  return n;
}

/* Internal layout of the verifier's feature vector (names in features.c). */
#ifndef PRUNER_VERIFIER_INTERNAL_H
#define PRUNER_VERIFIER_INTERNAL_H

#include "pruner/draft.h"
#include "pruner/records.h"
#include "pruner/verifier.h"

enum {
  PRUNER_VF_TILE = 0,                                /* log2 tile per loop role        */
  PRUNER_VF_THREAD = PRUNER_VF_TILE + PRUNER_ROLE_COUNT,
  PRUNER_VF_BOUND = PRUNER_VF_THREAD + PRUNER_ROLE_COUNT,
  PRUNER_VF_PROMOTE = PRUNER_VF_BOUND + PRUNER_ROLE_COUNT, /* 6 operand bits         */
  PRUNER_VF_VECTOR = PRUNER_VF_PROMOTE + 6,
  PRUNER_VF_THREADS,
  PRUNER_VF_BLOCKS,
  PRUNER_VF_PER_THREAD,
  PRUNER_VF_STEP,
  PRUNER_VF_KIND,
  PRUNER_VF_IN_DTYPE,
  PRUNER_VF_IN_BYTES,
  PRUNER_VF_OUT_BYTES,
  PRUNER_VF_FLOPS,
  PRUNER_VF_BYTES,
  PRUNER_VF_INTENSITY,
  PRUNER_VF_REGISTERS,
  PRUNER_VF_SPILLS,
  PRUNER_VF_SHARED,
  PRUNER_VF_DRAFT /* first of prunerDraftNumFeatures() draft features */
};

/* Fills the vector; `symbols` NULL: draft features missing; `resources` NULL or with
 * registers <= 0: ptxas features missing. */
void prunerVerifierFillFeatures(const PrunerWorkload *w, const PrunerConfig *config,
                                const PrunerDraftSymbols *symbols,
                                const PrunerKernelResources *resources, float *out);

/* A record the verifier learns from (ok, not a baseline, with its workload, a finite
 * positive median, of the target) and its position in the log. */
typedef struct VerifierItem {
  const PrunerRecord *record;
  size_t index;
} VerifierItem;

/* The usable records of `target_key`, grouped by workload key (then in log order), in a
 * malloc'ed array the caller frees; training and cross-validation share it. */
PrunerStatus prunerVerifierCollect(PrunerRecords records, const char *target_key,
                                   VerifierItem **out, size_t *count);

#endif /* PRUNER_VERIFIER_INTERNAL_H */

/* Synthetic records with a known ranking, for testing and benchmarking the verifier
 * without a GPU. Not measurements: every line says so in its `error` field and in the
 * device name ("synthetic"). */
#ifndef PRUNER_EVAL_SYNTHETIC_H
#define PRUNER_EVAL_SYNTHETIC_H

#include <stddef.h>
#include <stdint.h>

#include "pruner/records.h"
#include "pruner/status.h"
#include "pruner/target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The synthetic latency law (docs/verifier.md, "Synthetic records"): an ideal time from
 * the FLOPs times a penalty that grows with the distance of each knob from a sweet spot
 * (workgroup tiles 64 on M/N, 16 outputs per thread, reduction step 16, A promoted,
 * vector width 4), times +-2 % deterministic noise. */
double prunerSyntheticLatencyUs(const PrunerWorkload *w, const PrunerConfig *c,
                                uint64_t noise_seed);

/* Appends `per_workload` random valid configs of each of `num_workloads` matmul-like
 * workloads (varied shapes) on `target`, with the synthetic latency, to `records`.
 * Deterministic for a given seed. */
PrunerStatus prunerSyntheticRecords(const PrunerTargetDesc *target, int num_workloads,
                                    int per_workload, uint64_t seed, PrunerRecords records);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_EVAL_SYNTHETIC_H */

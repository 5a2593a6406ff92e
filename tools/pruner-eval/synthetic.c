/* Synthetic records with a known ranking (see synthetic.h). */
#include "synthetic.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pruner/random.h"
#include "pruner/space.h"


static uint64_t hashConfig(const PrunerConfig *c, uint64_t seed) {
  uint64_t h = seed ^ 14695981039346656037ull;
  const unsigned char *p = (const unsigned char *)c;
  for (size_t i = 0; i < sizeof(*c); ++i)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

double prunerSyntheticLatencyUs(const PrunerWorkload *w, const PrunerConfig *c,
                                uint64_t noise_seed) {
  double penalty = 1.0, per_thread = 1.0;
  for (int l = 0; l < w->num_loops; ++l) {
    PrunerLoopRole role = w->loop_roles[l];
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION) {
      penalty += 0.1 * fabs(log2((double)c->reduction[l]) - 4.0);
      continue;
    }
    per_thread *= (double)c->thread[l];
    if (role == PRUNER_ROLE_M || role == PRUNER_ROLE_N)
      penalty += 0.25 * fabs(log2((double)c->workgroup[l]) - 6.0);
  }
  penalty += 0.2 * fabs(log2(per_thread) - 4.0);
  if (!(c->promote_operands & 1u))
    penalty += 0.3;
  if (c->vector_width != 4)
    penalty += 0.15;
  /* An ideal 20 TFLOP/s device: 2e7 flops per microsecond. */
  double ideal_us = prunerWorkloadFlops(w) / 2e7;
  uint64_t state = hashConfig(c, noise_seed);
  double u = (double)(prunerRandomNext(&state) >> 11) / 9007199254740992.0; /* [0, 1) */
  return ideal_us * penalty * (1.0 + 0.04 * (u - 0.5));
}

static void syntheticWorkload(int i, PrunerWorkload *w) {
  /* Eight base shapes, scaled up by powers of two for more workloads. */
  static const int64_t shapes[8][4] = {
      {0, 512, 512, 512},   {0, 1024, 256, 512}, {0, 256, 1024, 1024}, {0, 2048, 2048, 256},
      {8, 256, 256, 128},   {0, 128, 4096, 1024}, {0, 4096, 128, 512}, {4, 512, 512, 256},
  };
  const int64_t *s = shapes[i % 8];
  int64_t scale = (int64_t)1 << ((i / 8) % 3);
  if (s[0])
    prunerWorkloadBatchMatmul(w, s[0], s[1] * scale, s[2], s[3], PRUNER_DTYPE_F32,
                              PRUNER_DTYPE_F32);
  else
    prunerWorkloadMatmul(w, s[1] * scale, s[2], s[3], PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
}

PrunerStatus prunerSyntheticRecords(const PrunerTargetDesc *target, int num_workloads,
                                    int per_workload, uint64_t seed, PrunerRecords records) {
  char target_key[96];
  prunerTargetKey(target, target_key, sizeof(target_key));
  uint64_t state = seed;
  PrunerRecord r;
  for (int i = 0; i < num_workloads; ++i) {
    PrunerWorkload w;
    syntheticWorkload(i, &w);
    PrunerSpace space = NULL;
    PrunerStatus status = prunerSpaceCreate(&w, target, NULL, &space);
    if (!status.ok)
      return status;
    uint64_t count = prunerSpaceCount(space);
    if (count == 0) {
      prunerSpaceDestroy(space);
      return prunerStatusError("synthetic: workload '%s' has no valid config on %s", w.key,
                               target_key);
    }
    for (int k = 0; k < per_workload; ++k) {
      prunerRecordInit(&r);
      r.workload = w;
      r.has_workload = true;
      snprintf(r.workload_key, sizeof(r.workload_key), "%s", w.key);
      snprintf(r.target_key, sizeof(r.target_key), "%s", target_key);
      snprintf(r.device_name, sizeof(r.device_name), "synthetic (not a measurement)");
      status = prunerSpaceGetConfig(space, prunerRandomNext(&state) % count, &r.config);
      if (!status.ok) {
        prunerSpaceDestroy(space);
        return status;
      }
      double us = prunerSyntheticLatencyUs(&w, &r.config, seed);
      r.status = PRUNER_RECORD_OK;
      r.num_samples = 1;
      r.samples_us[0] = us;
      r.median_us = us;
      r.spread_us = 0;
      r.timestamp = (double)time(NULL);
      status = prunerRecordsAppend(records, &r);
      if (!status.ok) {
        prunerSpaceDestroy(space);
        return status;
      }
    }
    prunerSpaceDestroy(space);
  }
  return prunerStatusOk();
}

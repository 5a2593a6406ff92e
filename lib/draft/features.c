/* The draft's symbols as verifier features. Sizes and times are log2(1 + x) so that
 * trees split on ratios; factors in (0, 1] (or small multipliers) are kept raw. */
#include <math.h>

#include "pruner/draft.h"

typedef enum FeatureScale { kRaw = 0, kLog = 1 } FeatureScale;

typedef struct Feature {
  const char *name;
  FeatureScale scale;
} Feature;

static const Feature kFeatures[] = {
    {"log_predicted_us", kLog},   {"log_compute_us", kLog},       {"log_memory_us", kLog},
    {"log_l2_us", kLog},          {"log_shared_us", kLog},        {"bound_compute", kRaw},
    {"bound_memory", kRaw},       {"bound_shared", kRaw},         {"bound_launch", kRaw},
    {"log_flops", kLog},          {"padding_waste", kRaw},        {"log_global_load_bytes", kLog},
    {"log_dram_bytes", kLog},     {"log_shared_load_bytes", kLog},
    {"log_shared_store_bytes", kLog},                               {"log_global_store_bytes", kLog},
    {"reuse", kRaw},              {"log_arithmetic_intensity", kLog}, {"log_blocks", kLog},
    {"log_threads_per_block", kLog}, {"warps_per_block", kRaw},   {"registers", kRaw},
    {"registers_from_ptxas", kRaw}, {"spill_bytes", kRaw},       {"log_smem_per_block", kLog},
    {"blocks_per_sm", kRaw},      {"limiter", kRaw},              {"occupancy", kRaw},
    {"waves", kRaw},              {"waves_fractional", kRaw},     {"sm_utilization", kRaw},
    {"warp_fill", kRaw},          {"register_penalty", kRaw},     {"coalescing", kRaw},
    {"vector_efficiency", kRaw},  {"bank_conflict", kRaw},        {"log_l2_reuse", kLog},
    {"latency_hiding", kRaw},
};

enum { kNumFeatures = sizeof kFeatures / sizeof kFeatures[0] };

int prunerDraftNumFeatures(void) { return kNumFeatures; }

const char *prunerDraftFeatureName(int i) {
  return i >= 0 && i < kNumFeatures ? kFeatures[i].name : NULL;
}

void prunerDraftSymbolsToFeatures(const PrunerDraftSymbols *s, float *out) {
  const double raw[] = {
      s->predicted_us,
      s->compute_us,
      s->memory_us,
      s->l2_us,
      s->shared_us,
      s->bound == PRUNER_DRAFT_BOUND_COMPUTE,
      s->bound == PRUNER_DRAFT_BOUND_MEMORY,
      s->bound == PRUNER_DRAFT_BOUND_SHARED,
      s->bound == PRUNER_DRAFT_BOUND_LAUNCH,
      s->flops,
      s->padding_waste,
      s->global_load_bytes,
      s->dram_bytes,
      s->shared_load_bytes,
      s->shared_store_bytes,
      s->global_store_bytes,
      s->reuse,
      s->arithmetic_intensity,
      (double)s->blocks,
      (double)s->threads_per_block,
      (double)s->warps_per_block,
      s->registers,
      s->registers_from_ptxas,
      s->spill_bytes,
      (double)s->smem_per_block,
      s->blocks_per_sm,
      (double)s->limiter,
      s->occupancy,
      s->waves,
      s->waves_fractional,
      s->sm_utilization,
      s->warp_fill,
      s->register_penalty,
      s->coalescing,
      s->vector_efficiency,
      s->bank_conflict,
      s->l2_reuse,
      s->latency_hiding,
  };
  _Static_assert(sizeof raw / sizeof raw[0] == kNumFeatures, "feature table and values differ");
  for (int i = 0; i < kNumFeatures; ++i)
    out[i] = (float)(kFeatures[i].scale == kLog ? log2(1.0 + fmax(0.0, raw[i])) : raw[i]);
}

const char *prunerDraftBoundName(PrunerDraftBound bound) {
  switch (bound) {
  case PRUNER_DRAFT_BOUND_COMPUTE: return "compute";
  case PRUNER_DRAFT_BOUND_MEMORY: return "memory";
  case PRUNER_DRAFT_BOUND_SHARED: return "shared";
  case PRUNER_DRAFT_BOUND_LAUNCH: return "launch";
  }
  return "?";
}

const char *prunerDraftLimiterName(PrunerDraftLimiter limiter) {
  switch (limiter) {
  case PRUNER_DRAFT_LIMIT_BLOCKS: return "blocks";
  case PRUNER_DRAFT_LIMIT_THREADS: return "threads";
  case PRUNER_DRAFT_LIMIT_REGISTERS: return "registers";
  case PRUNER_DRAFT_LIMIT_SHARED: return "shared";
  }
  return "?";
}

/* The verifier's feature vector (docs/verifier.md lists and explains each entry). */
#include "verifier_internal.h"

#include <math.h>
#include <string.h>

#include "pruner/draft.h"

#define ROLE_NAMES(prefix)                                                                 \
  prefix "_b", prefix "_m", prefix "_n", prefix "_k", prefix "_img", prefix "_oh",         \
      prefix "_ow", prefix "_f", prefix "_kh", prefix "_kw", prefix "_c", prefix "_p",     \
      prefix "_r"

/* Names of the features before the draft's (their count is PRUNER_VF_DRAFT). */
static const char *const kNames[PRUNER_VF_DRAFT] = {
    ROLE_NAMES("log2_tile"),
    ROLE_NAMES("log2_thread_tile"),
    ROLE_NAMES("log2_bound"),
    "promote_0",
    "promote_1",
    "promote_2",
    "promote_3",
    "promote_4",
    "promote_5",
    "log2_vector_width",
    "log2_threads_per_block",
    "log2_blocks",
    "log2_outputs_per_thread",
    "log2_reduction_step",
    "op_kind",
    "input_dtype",
    "input_dtype_bytes",
    "output_dtype_bytes",
    "log2_flops",
    "log2_bytes",
    "arithmetic_intensity",
    "ptxas_registers",
    "ptxas_spill_bytes",
    "ptxas_shared_bytes",
};

int prunerVerifierNumFeatures(void) { return PRUNER_VF_DRAFT + prunerDraftNumFeatures(); }

const char *prunerVerifierFeatureName(int i) {
  if (i < 0 || i >= prunerVerifierNumFeatures())
    return "?";
  if (i < PRUNER_VF_DRAFT)
    return kNames[i];
  return prunerDraftFeatureName(i - PRUNER_VF_DRAFT);
}

static double ceilDiv(int64_t a, int64_t b) { return (double)((a + b - 1) / b); }

void prunerVerifierFillFeatures(const PrunerWorkload *w, const PrunerConfig *c,
                                const PrunerDraftSymbols *symbols,
                                const PrunerKernelResources *resources, float *out) {
  /* Per role: log2 of the product over the loops with that role (repeated roles, as
   * in elementwise ops, multiply); absent roles are missing. */
  double tile[PRUNER_ROLE_COUNT], thread[PRUNER_ROLE_COUNT], bound[PRUNER_ROLE_COUNT];
  bool present[PRUNER_ROLE_COUNT] = {false};
  for (int r = 0; r < PRUNER_ROLE_COUNT; ++r)
    tile[r] = thread[r] = bound[r] = 1.0;
  double threads = 1.0, blocks = 1.0, per_thread = 1.0, step = 1.0;
  for (int l = 0; l < w->num_loops; ++l) {
    int r = (int)w->loop_roles[l];
    if (r < 0 || r >= PRUNER_ROLE_COUNT)
      continue;
    present[r] = true;
    bound[r] *= (double)w->bounds[l];
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION) {
      int64_t s = c->reduction[l] > 0 ? c->reduction[l] : w->bounds[l];
      tile[r] *= (double)s;
      step *= (double)s;
    } else {
      int64_t wg = c->workgroup[l] > 0 ? c->workgroup[l] : w->bounds[l];
      int64_t t = c->thread[l] > 0 ? c->thread[l] : wg;
      tile[r] *= (double)wg;
      thread[r] *= (double)t;
      threads *= (double)wg / (double)t;
      blocks *= ceilDiv(w->bounds[l], wg);
      per_thread *= (double)t;
    }
  }
  for (int r = 0; r < PRUNER_ROLE_COUNT; ++r) {
    out[PRUNER_VF_TILE + r] = present[r] ? (float)log2(tile[r]) : NAN;
    out[PRUNER_VF_THREAD + r] = present[r] ? (float)log2(thread[r]) : NAN;
    out[PRUNER_VF_BOUND + r] = present[r] ? (float)log2(bound[r]) : NAN;
  }
  int operands = w->num_inputs + w->num_outputs;
  for (int i = 0; i < 6; ++i)
    out[PRUNER_VF_PROMOTE + i] = i < operands ? (float)((c->promote_operands >> i) & 1u) : NAN;
  out[PRUNER_VF_VECTOR] = (float)log2(c->vector_width > 0 ? c->vector_width : 1);
  out[PRUNER_VF_THREADS] = (float)log2(threads);
  out[PRUNER_VF_BLOCKS] = (float)log2(blocks);
  out[PRUNER_VF_PER_THREAD] = (float)log2(per_thread);
  out[PRUNER_VF_STEP] = (float)log2(step);
  out[PRUNER_VF_KIND] = (float)w->kind;
  PrunerDType in = w->operands[0].dtype; /* first input (the output if none) */
  PrunerDType outt = w->operands[w->num_inputs + w->num_outputs - 1].dtype;
  out[PRUNER_VF_IN_DTYPE] = (float)in;
  out[PRUNER_VF_IN_BYTES] = (float)prunerDTypeBytes(in);
  out[PRUNER_VF_OUT_BYTES] = (float)prunerDTypeBytes(outt);
  double flops = prunerWorkloadFlops(w), bytes = prunerWorkloadBytes(w);
  out[PRUNER_VF_FLOPS] = (float)log2(1.0 + flops);
  out[PRUNER_VF_BYTES] = (float)log2(1.0 + bytes);
  out[PRUNER_VF_INTENSITY] = bytes > 0 ? (float)(flops / bytes) : NAN;
  bool compiled = resources && resources->registers > 0;
  out[PRUNER_VF_REGISTERS] = compiled ? (float)resources->registers : NAN;
  out[PRUNER_VF_SPILLS] =
      compiled ? (float)(resources->spill_store_bytes + resources->spill_load_bytes) : NAN;
  out[PRUNER_VF_SHARED] = compiled ? (float)resources->shared_bytes : NAN;
  int nd = prunerDraftNumFeatures();
  if (symbols) {
    prunerDraftSymbolsToFeatures(symbols, out + PRUNER_VF_DRAFT);
  } else {
    for (int i = 0; i < nd; ++i)
      out[PRUNER_VF_DRAFT + i] = NAN;
  }
}

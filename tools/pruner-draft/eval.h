/* pruner-draft --eval: how well the draft ranks measured configs (docs/draft.md). */
#ifndef PRUNER_DRAFT_EVAL_H
#define PRUNER_DRAFT_EVAL_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "pruner/draft.h"
#include "pruner/records.h"

/* Quality of the draft on one workload's ok, non-baseline records of one target. */
typedef struct DraftEvalRow {
  char workload_key[PRUNER_WORKLOAD_KEY_SIZE];
  size_t measured;      /* ok records used                                  */
  size_t invalid;       /* ok records whose config the draft finds invalid  */
  double spearman;      /* predicted vs measured latency (NaN if undefined) */
  double best_us;       /* best measured median                             */
  long best_rank;       /* 0-based rank of the measured best in the draft's top-N, -1 if out */
  int recall;           /* 1 if the measured best is in the draft's top-N   */
  /* The measured configs in the draft's predicted order (on a complete space, the
   * draft's own order): the best measured median among the first 16 and 64 over the
   * best (the regret of one and four tuning batches taken in draft order), and the
   * 0-based position of the first config within 2% of the best. */
  double regret16, regret64;
  long first_within_2pct;
} DraftEvalRow;

/* Evaluates every workload of `records` measured on `target` (target key equality);
 * rows[] receives at most max_rows entries; *num_rows the count written. `top` is N
 * (512 by default). Records of other targets are counted in *skipped. When `per_config`
 * is not NULL, one JSON line per ranked record is written to it (config, measured and
 * predicted us, the draft's terms and features). */
PrunerStatus draftEvalRecords(PrunerRecords records, const PrunerTargetDesc *target,
                              size_t top, FILE *per_config, DraftEvalRow *rows,
                              size_t max_rows, size_t *num_rows, size_t *skipped);

/* Adds "symbols": {feature name: value} (prunerDraftSymbolsToFeatures) to `parent`: the
 * verifier's view of one config, in --json and --per-config output alike. */
void draftAddFeaturesJson(cJSON *parent, const PrunerDraftSymbols *s);

#endif

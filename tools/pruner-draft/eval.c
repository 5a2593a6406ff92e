/* pruner-draft --eval: Spearman correlation and recall of the measured best in the top N,
 * per workload, from a records file. */
#include "eval.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool usable(const PrunerRecord *r, const char *target_key) {
  return r->status == PRUNER_RECORD_OK && !r->is_baseline && r->has_workload &&
         r->median_us > 0 && strcmp(r->target_key, target_key) == 0;
}

typedef struct PredMeas {
  double pred, meas;
} PredMeas;

static int comparePred(const void *a, const void *b) {
  const PredMeas *x = a, *y = b;
  if (x->pred != y->pred)
    return x->pred < y->pred ? -1 : 1;
  return (x->meas > y->meas) - (x->meas < y->meas); /* ties: the slower first, no luck */
}

/* The regrets of taking the measured configs in predicted order (DraftEvalRow); NaN and
 * -1 without configs. False only when out of memory. */
static bool orderRegret(const double *pred, const double *meas, size_t m, DraftEvalRow *row) {
  row->regret16 = row->regret64 = NAN;
  row->first_within_2pct = -1;
  if (m == 0)
    return true;
  PredMeas *pm = malloc(m * sizeof *pm);
  if (!pm)
    return false;
  double best = INFINITY;
  for (size_t i = 0; i < m; ++i) {
    pm[i] = (PredMeas){pred[i], meas[i]};
    best = fmin(best, meas[i]);
  }
  qsort(pm, m, sizeof *pm, comparePred);
  double seen = INFINITY;
  for (size_t i = 0; i < m; ++i) {
    seen = fmin(seen, pm[i].meas);
    if (i == 15 || (i < 15 && i + 1 == m))
      row->regret16 = seen / best;
    if (i == 63 || (i < 63 && i + 1 == m))
      row->regret64 = seen / best;
    if (row->first_within_2pct < 0 && pm[i].meas <= 1.02 * best)
      row->first_within_2pct = (long)i;
  }
  free(pm);
  return true;
}

void draftAddFeaturesJson(cJSON *parent, const PrunerDraftSymbols *s) {
  cJSON *f = cJSON_AddObjectToObject(parent, "symbols");
  float feats[128];
  int nf = prunerDraftNumFeatures();
  if (!f || nf > 128)
    return;
  prunerDraftSymbolsToFeatures(s, feats);
  for (int i = 0; i < nf; ++i)
    cJSON_AddNumberToObject(f, prunerDraftFeatureName(i), feats[i]);
}

/* One line of --per-config: the record's config and measured median beside the draft's
 * prediction, its terms (the symbols' names: on a host target shared_us is the L1 term,
 * l2_us the L1's fills from L2, memory_us the last-level cache or DRAM; docs/draft.md)
 * and its features, so that where the draft is wrong can be read per knob
 * (scripts/draft-residuals.py). */
static bool writeConfigLine(FILE *out, const PrunerRecord *r, const PrunerDraftSymbols *s) {
  char buf[512];
  cJSON *o = cJSON_CreateObject();
  if (!o)
    return false;
  cJSON_AddStringToObject(o, "workload_key", r->workload_key);
  prunerConfigFormat(&r->workload, &r->config, buf, sizeof buf);
  cJSON_AddStringToObject(o, "config", buf);
  cJSON_AddNumberToObject(o, "measured_us", r->median_us);
  cJSON_AddNumberToObject(o, "predicted_us", s->predicted_us);
  cJSON_AddStringToObject(o, "bound", prunerDraftBoundName(s->bound));
  cJSON *terms = cJSON_AddObjectToObject(o, "terms");
  cJSON_AddNumberToObject(terms, "compute_us", s->compute_us);
  cJSON_AddNumberToObject(terms, "shared_us", s->shared_us);
  cJSON_AddNumberToObject(terms, "l2_us", s->l2_us);
  cJSON_AddNumberToObject(terms, "memory_us", s->memory_us);
  cJSON_AddNumberToObject(terms, "launch_us", s->launch_us);
  draftAddFeaturesJson(o, s);
  char *line = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  if (!line)
    return false;
  bool ok = fprintf(out, "%s\n", line) >= 0;
  cJSON_free(line);
  return ok;
}

static PrunerStatus evalOne(PrunerRecords records, const PrunerTargetDesc *t,
                            const char *target_key, const PrunerRecord *first, size_t top,
                            FILE *per_config, DraftEvalRow *row) {
  memset(row, 0, sizeof *row);
  snprintf(row->workload_key, sizeof row->workload_key, "%s", first->workload_key);
  PrunerDraft draft;
  PrunerStatus st = prunerDraftCreate(&first->workload, t, &draft);
  if (!st.ok) return st;
  size_t n = prunerRecordsCount(records);
  double *pred = malloc(n * sizeof *pred), *meas = malloc(n * sizeof *meas);
  PrunerDraftCandidate *cand = malloc(top * sizeof *cand);
  if (!pred || !meas || !cand) {
    free(pred), free(meas), free(cand);
    prunerDraftDestroy(draft);
    return prunerStatusError("%s: out of memory", first->workload_key);
  }
  size_t m = 0;
  const PrunerRecord *best = NULL;
  for (size_t i = 0; i < n; ++i) {
    const PrunerRecord *r = prunerRecordsGet(records, i);
    if (!usable(r, target_key) || strcmp(r->workload_key, first->workload_key) != 0) continue;
    PrunerDraftSymbols sym;
    if (!prunerDraftScore(draft, &r->config, NULL, &sym)) {
      ++row->invalid; /* measured, but invalid for the model: not rankable */
      continue;
    }
    double us = sym.predicted_us;
    if (per_config && !writeConfigLine(per_config, r, &sym)) {
      free(pred), free(meas), free(cand);
      prunerDraftDestroy(draft);
      return prunerStatusError("%s: --per-config: cannot write a line", first->workload_key);
    }
    pred[m] = us;
    meas[m] = r->median_us;
    ++m;
    if (!best || r->median_us < best->median_us) best = r;
  }
  row->measured = m;
  row->spearman = prunerDraftSpearman(pred, meas, m);
  if (!orderRegret(pred, meas, m, row)) {
    free(pred), free(meas), free(cand);
    prunerDraftDestroy(draft);
    return prunerStatusError("%s: out of memory", first->workload_key);
  }
  row->best_rank = -1;
  if (best) {
    row->best_us = best->median_us;
    PrunerSpace space;
    st = prunerSpaceCreate(&first->workload, t, NULL, &space);
    if (st.ok) {
      size_t got = prunerDraftTopN(draft, space, top, cand);
      for (size_t i = 0; i < got; ++i)
        if (prunerConfigEqual(&cand[i].config, &best->config)) {
          row->best_rank = (long)i;
          break;
        }
      prunerSpaceDestroy(space);
    }
  }
  row->recall = row->best_rank >= 0;
  free(pred), free(meas), free(cand);
  prunerDraftDestroy(draft);
  return st;
}

PrunerStatus draftEvalRecords(PrunerRecords records, const PrunerTargetDesc *target,
                              size_t top, FILE *per_config, DraftEvalRow *rows,
                              size_t max_rows, size_t *num_rows, size_t *skipped) {
  char target_key[96];
  prunerTargetKey(target, target_key, sizeof target_key);
  size_t n = prunerRecordsCount(records);
  *num_rows = 0;
  *skipped = 0;
  for (size_t i = 0; i < n; ++i) {
    const PrunerRecord *r = prunerRecordsGet(records, i);
    if (!usable(r, target_key)) {
      if (strcmp(r->target_key, target_key) != 0) ++*skipped;
      continue;
    }
    /* First usable record of its workload starts a row. */
    bool seen = false;
    for (size_t j = 0; j < *num_rows && !seen; ++j)
      seen = strcmp(rows[j].workload_key, r->workload_key) == 0;
    if (seen) continue;
    if (*num_rows == max_rows)
      return prunerStatusError("records hold more than %zu workloads", max_rows);
    PrunerStatus st = evalOne(records, target, target_key, r, top, per_config, &rows[*num_rows]);
    if (!st.ok) return st;
    ++*num_rows;
  }
  return prunerStatusOk();
}

/* lib/tune/final.c: the final check of a run on a backend that has one (PrunerBackend.recheck;
 * docs/measurement.md, "Host: the final check").
 *
 * While tuning, each config is measured once, in whatever state the shared machine was
 * in at that moment, and the lowest median of a few samples wins: the luckiest moment,
 * not the fastest kernel (the issue measured the winners 19-40% slower when re-checked).
 * So at the end the best few configs of each workload by their tuning medians are
 * re-measured back to back with the baseline, interleaved one run at a time (the
 * backend's recheck), and the winner is the lowest median there. The table and
 * `pruner.tuning` report that median with its interquartile range; the tuning-time
 * median of the chosen config is kept beside it for comparison. These runs are not
 * appended to the records: every config there keeps its one tuning measurement. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune_internal.h"

/* The `cap` ok records of task `t` with the lowest medians, fastest first; returns how
 * many. One per config (a config resumed and ingested twice counts once). */
static int tuneTopRecords(TuneEngine *e, const TuneTask *t, const PrunerRecord **top, int cap) {
  int n = 0;
  for (size_t i = 0; i < prunerRecordsCount(e->records); ++i) {
    const PrunerRecord *r = prunerRecordsGet(e->records, i);
    if (r->is_baseline || r->status != PRUNER_RECORD_OK || r->median_us <= 0 ||
        strcmp(r->workload_key, t->w.key) != 0 || strcmp(r->target_key, e->target_key) != 0)
      continue;
    bool dup = false;
    for (int j = 0; j < n && !dup; ++j)
      dup = prunerConfigEqual(&top[j]->config, &r->config);
    if (dup)
      continue;
    int pos = n < cap ? n++ : cap;
    if (pos == cap && r->median_us >= top[cap - 1]->median_us)
      continue;
    if (pos == cap)
      pos = cap - 1;
    while (pos > 0 && top[pos - 1]->median_us > r->median_us) {
      top[pos] = top[pos - 1];
      --pos;
    }
    top[pos] = r;
  }
  return n;
}

void tuneFinalCheck(TuneEngine *e) {
  if (e->opts.final_candidates <= 0 || !e->backend->recheck ||
      e->opts.measure != e->backend->device_measure)
    return;
  PrunerStatus st = tuneBackendState(e); /* a resumed run that measured nothing new still
                                            gets its check */
  if (!st.ok) {
    tuneNote(e, -1, "final check skipped: %s", st.message);
    return;
  }
  int cap = e->opts.final_candidates < PRUNER_BACKEND_RECHECK_MAX ? e->opts.final_candidates
                                                                  : PRUNER_BACKEND_RECHECK_MAX;
  const char *base_name = e->backend->baseline_name;
  PrunerBackendRecheck *rem = malloc(sizeof *rem);
  if (!rem)
    return;
  for (size_t i = 0; i < e->num_tasks && !tuneStopRequested(e); ++i) {
    TuneTask *t = &e->tasks[i];
    const PrunerRecord *top[PRUNER_BACKEND_RECHECK_MAX];
    int n = tuneTopRecords(e, t, top, cap);
    if (n == 0)
      continue;
    PrunerConfig configs[PRUNER_BACKEND_RECHECK_MAX];
    for (int j = 0; j < n; ++j)
      configs[j] = top[j]->config;
    bool baseline = prunerRecordsBaseline(e->records, t->w.key, e->target_key) != NULL;
    e->backend->recheck(e->backend_state, &t->w, configs, n, baseline, rem);
    int win = -1;
    for (int j = 0; j < n; ++j)
      if (rem->entries[j].status == PRUNER_RECORD_OK &&
          (win < 0 || rem->entries[j].median_us < rem->entries[win].median_us))
        win = j;
    if (win < 0) {
      tuneNote(e, (int)i, "%s: final check failed (%s); keeping the tuning-time best", t->w.key,
               rem->entries[0].error);
      continue;
    }
    const PrunerBackendRecheckEntry *won = &rem->entries[win];
    t->final_rounds = rem->rounds;
    t->final_candidates = n;
    t->final_config = configs[win];
    t->final_best_us = won->median_us;
    t->final_p25_us = won->p25_us;
    t->final_p75_us = won->p75_us;
    t->final_tuning_us = top[win]->median_us;
    t->final_baseline_us = 0;
    const PrunerBackendRecheckEntry *b = rem->has_baseline ? &rem->entries[n] : NULL;
    if (b && b->status == PRUNER_RECORD_OK) {
      t->final_baseline_us = b->median_us;
      t->final_baseline_p25_us = b->p25_us;
      t->final_baseline_p75_us = b->p75_us;
    }
    char cfg[256];
    prunerConfigFormatShort(&t->w, &t->final_config, cfg, sizeof cfg);
    tuneNote(e, (int)i,
             "%s: final check, %d candidate(s) back to back, %d rounds: chose %s (tuning rank "
             "%d), median %.2f us [IQR %.2f-%.2f], while tuning %.2f us (best then %.2f us)",
             t->w.key, n, rem->rounds, cfg, win + 1, won->median_us, won->p25_us, won->p75_us,
             top[win]->median_us, top[0]->median_us);
    /* Every candidate's median, in tuning order: how far the tuning-time ranking held. */
    char all[512] = "";
    size_t len = 0;
    for (int j = 0; j < n && len < sizeof all; ++j) {
      const PrunerBackendRecheckEntry *c = &rem->entries[j];
      int k = c->status == PRUNER_RECORD_OK
                  ? snprintf(all + len, sizeof all - len, "%s#%d %.2f (tuning %.2f)", j ? ", " : "",
                             j + 1, c->median_us, top[j]->median_us)
                  : snprintf(all + len, sizeof all - len, "%s#%d %s", j ? ", " : "", j + 1,
                             prunerRecordStatusName(c->status));
      len += k > 0 ? (size_t)k : 0;
    }
    tuneNote(e, (int)i, "%s: final check, medians in us by tuning rank: %s", t->w.key, all);
    if (t->final_baseline_us > 0)
      tuneNote(e, (int)i, "%s: final check, %s median %.2f us [IQR %.2f-%.2f]", t->w.key,
               base_name, b->median_us, b->p25_us, b->p75_us);
    if (t->final_baseline_us > 0 && t->final_baseline_us < won->median_us &&
        e->backend->baseline_is_default)
      tuneNote(e, (int)i,
               "%s: %s is faster than every config checked (%.2f vs %.2f us)%s", t->w.key,
               base_name, t->final_baseline_us, won->median_us,
               e->opts.keep_faster_default
                   ? ": the op keeps it, no config is written (--keep-default=never writes "
                     "the winner)"
                   : "; writing the winner anyway (--keep-default=never)");
  }
  free(rem);
}

/* lib/tune/study.c: how many trials each search strategy needs on a complete-space
 * replay file to come within 5% of the best config (docs/tune.md, "Search study"). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune_internal.h"

PrunerTuneStudyOptions prunerTuneStudyDefaultOptions(void) {
  PrunerTuneStudyOptions o;
  memset(&o, 0, sizeof o);
  o.target = "sm_90";
  o.seeds = 5;
  o.within = 0.05;
  o.draft_size = 512;
  o.batch = 16;
  o.epsilon = 0.1;
  return o;
}

/* One simulated tuning run; returns the trials needed (max + 1 if never reached). */
static PrunerStatus tuneStudyRun(const PrunerTuneStudyOptions *so, PrunerRecords replay,
                                 const PrunerWorkload *w, PrunerTuneStrategy strategy,
                                 uint64_t seed, double target_us, int64_t *trials,
                                 uint64_t *space_size) {
  PrunerTuneOptions o = prunerTuneDefaultOptions();
  o.target = so->target;
  o.measure = PRUNER_TUNE_MEASURE_NONE; /* the replay handle is attached below */
  o.strategy = strategy;
  o.seed = seed;
  o.draft_size = so->draft_size;
  o.batch = so->batch;
  o.epsilon = so->epsilon;
  o.stop = so->stop;
  TuneEngine e;
  PrunerStatus st = tuneEngineInit(&e, &o);
  if (st.ok && tuneEngineAddWorkload(&e, w) < 0)
    st = prunerStatusError("out of memory");
  if (st.ok)
    st = tuneEnginePrepare(&e);
  if (st.ok) {
    e.opts.measure = PRUNER_TUNE_MEASURE_REPLAY;
    e.opts.measure_path = so->replay_path;
    e.replay = replay;
    e.owns_replay = false;
    e.target_us = target_us;
    *space_size = e.tasks[0].space_size;
    int64_t max = so->max_trials > 0 ? so->max_trials : (int64_t)e.tasks[0].space_size;
    e.opts.trials = max;
    st = tuneEngineRun(&e);
    *trials = e.tasks[0].reached_at > 0 ? e.tasks[0].reached_at : max + 1;
  }
  tuneEngineDestroy(&e);
  return st;
}

PrunerStatus prunerTuneStudy(const PrunerTuneStudyOptions *so, PrunerTuneStudyRow **rows_out,
                             size_t *num_rows) {
  *rows_out = NULL;
  *num_rows = 0;
  PrunerTargetDesc target;
  PrunerStatus st = prunerTargetLookup(so->target, &target);
  if (!st.ok)
    return st;
  char key[96];
  prunerTargetKey(&target, key, sizeof key);
  FILE *probe = fopen(so->replay_path, "r");
  if (!probe)
    return prunerStatusError("--study %s: %s", so->replay_path, strerror(errno));
  fclose(probe);
  PrunerRecords replay = NULL;
  st = prunerRecordsOpenExisting(so->replay_path, &replay);
  if (!st.ok)
    return st;
  PrunerTuneStudyRow *rows = NULL;
  size_t n = 0;
  /* Workloads of this target that the file describes. */
  for (size_t i = 0; i < prunerRecordsCount(replay); ++i) {
    const PrunerRecord *r = prunerRecordsGet(replay, i);
    if (r->is_baseline || !r->has_workload || strcmp(r->target_key, key) != 0)
      continue;
    bool seen = false;
    for (size_t j = 0; j < n && !seen; ++j)
      seen = strcmp(rows[j].workload_key, r->workload_key) == 0;
    if (seen)
      continue;
    PrunerTuneStudyRow *grown = realloc(rows, (n + 1) * sizeof *rows);
    if (!grown) {
      st = prunerStatusError("out of memory");
      break;
    }
    rows = grown;
    memset(&rows[n], 0, sizeof rows[n]);
    snprintf(rows[n].workload_key, sizeof rows[n].workload_key, "%s", r->workload_key);
    ++n;
  }
  if (st.ok && n == 0)
    st = prunerStatusError("--study %s: no records of target %s with a workload description",
                           so->replay_path, key);
  for (size_t j = 0; st.ok && j < n; ++j) {
    PrunerTuneStudyRow *row = &rows[j];
    const PrunerRecord *best = prunerRecordsBest(replay, row->workload_key, key);
    if (!best) {
      st = prunerStatusError("--study %s: workload %s has no ok record", so->replay_path,
                             row->workload_key);
      break;
    }
    row->best_us = best->median_us;
    const PrunerWorkload *w = NULL;
    for (size_t i = 0; i < prunerRecordsCount(replay); ++i) {
      const PrunerRecord *r = prunerRecordsGet(replay, i);
      if (strcmp(r->workload_key, row->workload_key) == 0 && strcmp(r->target_key, key) == 0 &&
          !r->is_baseline) {
        row->replay_configs += r->status == PRUNER_RECORD_OK;
        if (r->has_workload && !w)
          w = &r->workload;
      }
    }
    for (int s = 0; st.ok && s < PRUNER_TUNE_STRATEGY_COUNT; ++s) {
      double sum = 0;
      for (int seed = 1; st.ok && seed <= so->seeds; ++seed) {
        int64_t trials = 0;
        st = tuneStudyRun(so, replay, w, (PrunerTuneStrategy)s, (uint64_t)seed,
                          row->best_us * (1.0 + so->within), &trials, &row->space_size);
        sum += (double)trials;
        if (trials > row->worst_trials[s])
          row->worst_trials[s] = trials;
        if (so->on_event) {
          char text[256];
          snprintf(text, sizeof text, "study %s: %s seed %d: %lld trials", row->workload_key,
                   prunerTuneStrategyName((PrunerTuneStrategy)s), seed, (long long)trials);
          PrunerTuneEvent ev = {.kind = PRUNER_TUNE_EVENT_NOTE, .task = (int)j, .message = text};
          so->on_event(&ev, so->user);
        }
        if (so->stop && *so->stop)
          st = prunerStatusError("study interrupted");
      }
      row->mean_trials[s] = sum / (so->seeds > 0 ? so->seeds : 1);
    }
  }
  prunerRecordsClose(replay);
  if (!st.ok) {
    free(rows);
    return st;
  }
  *rows_out = rows;
  *num_rows = n;
  return prunerStatusOk();
}

char *prunerTuneStudyFormat(const PrunerTuneStudyRow *rows, size_t num_rows,
                            const PrunerTuneStudyOptions *so) {
  PrunerText b = {0};
  prunerTextAppend(&b,
                "search study: mean trials (over %d seeds) to come within %.0f%% of the best "
                "config; ratio = random / strategy (higher is better)\n",
                so->seeds, so->within * 100);
  prunerTextAppend(&b, "%-44s %8s %9s", "workload", "space", "best_us");
  for (int s = 0; s < PRUNER_TUNE_STRATEGY_COUNT; ++s)
    prunerTextAppend(&b, " %15s", prunerTuneStrategyName((PrunerTuneStrategy)s));
  prunerTextAppend(&b, "\n");
  double log_ratio[PRUNER_TUNE_STRATEGY_COUNT] = {0};
  for (size_t j = 0; j < num_rows; ++j) {
    const PrunerTuneStudyRow *r = &rows[j];
    prunerTextAppend(&b, "%-44.44s %8llu %9.2f", r->workload_key,
                  (unsigned long long)r->space_size, r->best_us);
    double random = r->mean_trials[PRUNER_TUNE_RANDOM];
    for (int s = 0; s < PRUNER_TUNE_STRATEGY_COUNT; ++s) {
      double ratio = random / (r->mean_trials[s] > 0 ? r->mean_trials[s] : 1);
      log_ratio[s] += log(ratio);
      prunerTextAppend(&b, " %7.1f (%4.1fx)", r->mean_trials[s], ratio);
    }
    prunerTextAppend(&b, "\n");
  }
  prunerTextAppend(&b, "%-44s %8s %9s", "geomean speed-up over random search", "", "");
  for (int s = 0; s < PRUNER_TUNE_STRATEGY_COUNT; ++s)
    prunerTextAppend(&b, " %14.2fx", exp(log_ratio[s] / (double)(num_rows ? num_rows : 1)));
  prunerTextAppend(&b, "\n");
  if (b.failed) {
    free(b.data);
    return NULL;
  }
  return b.data;
}

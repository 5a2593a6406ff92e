/* lib/tune/study.c: how many trials each search strategy needs on a complete-space
 * replay file to come within 5% / 2% / the noise of the best config, over seeds
 * (docs/tune.md, "Search study"; docs/quality.md). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "pruner/clock.h"
#include "pruner/file.h"
#include "tune_internal.h"

PrunerTuneStudyOptions prunerTuneStudyDefaultOptions(void) {
  PrunerTuneStudyOptions o;
  memset(&o, 0, sizeof o);
  o.target = "sm_90";
  o.seeds = 5;
  o.first_seed = 1;
  o.within = 0.05;
  o.within_tight = 0.02;
  o.draft_size = 512;
  o.neighbours = PRUNER_TUNE_NEIGHBOURS;
  o.first_batch_tiles = PRUNER_TUNE_FIRST_BATCH_TILES;
  o.batch = 16;
  o.epsilon = 0.1;
  o.prior_momentum = -1;
  o.prior_floor = -1;
  o.prior_floor_unseen = -1;
  return o;
}

const char *prunerTuneStudyMethodName(int method) {
  if (method >= 0 && method < PRUNER_TUNE_STRATEGY_COUNT)
    return prunerTuneStrategyName((PrunerTuneStrategy)method);
  if (method == PRUNER_TUNE_STUDY_FROZEN)
    return "pretrained-frozen";
  if (method == PRUNER_TUNE_STUDY_ADAPTED)
    return "pretrained";
  return NULL;
}

PrunerStatus prunerTuneStudyParseMethods(const char *list, unsigned *mask) {
  *mask = 0;
  const char *p = list;
  while (*p) {
    size_t len = strcspn(p, ",");
    int found = -1;
    for (int m = 0; m < PRUNER_TUNE_STUDY_METHOD_COUNT && found < 0; ++m) {
      const char *name = prunerTuneStudyMethodName(m);
      if (strlen(name) == len && strncmp(p, name, len) == 0)
        found = m;
    }
    if (found < 0) {
      PrunerText b = {0};
      for (int m = 0; m < PRUNER_TUNE_STUDY_METHOD_COUNT; ++m)
        prunerTextAppend(&b, "%s%s", m ? ", " : "", prunerTuneStudyMethodName(m));
      PrunerStatus st = prunerStatusError("unknown study method '%.*s'; accepted: %s", (int)len, p,
                                          b.data ? b.data : "");
      free(b.data);
      return st;
    }
    *mask |= 1u << found;
    p += len;
    if (*p == ',')
      ++p;
  }
  if (*mask == 0)
    return prunerStatusError("no study method named in '%s'", list);
  return prunerStatusOk();
}

/* The study's space is the dataset's: a config the replay file lacks is outside it
 * (prunerSpaceRestrict), so a space that grew a knob after the dataset was measured
 * (the host's packing) is studied as the space that was measured, and no trial is spent
 * on a config the file cannot answer. */
typedef struct StudyReplayFilter {
  PrunerRecords replay;
  const char *workload_key, *target_key;
} StudyReplayFilter;

/* Whether a replay can return record `r`: it is the record prunerRecordsFind gives for its
 * config, and the config is in the workload's space (when there is one to ask). */
typedef struct StudyReach {
  PrunerRecords replay;
  const char *target_key;
  PrunerSpace space;
} StudyReach;

static bool studyReachable(const StudyReach *s, const PrunerRecord *r) {
  return prunerRecordsFind(s->replay, r->workload_key, s->target_key, &r->config) == r &&
         (!s->space || prunerSpaceContains(s->space, &r->config));
}

static bool studyInReplay(const PrunerConfig *c, void *user) {
  const StudyReplayFilter *f = user;
  return prunerRecordsFind(f->replay, f->workload_key, f->target_key, c) != NULL;
}

/* What a seed paid until a goal: the recorded run time (samples) of the configs measured,
 * and the wall-clock tuning time: the tuner's own time (draft, verifier, selection) plus
 * each candidate's recorded cost (measure_s: compile, check, samples), NaN where a record
 * has no cost. */
typedef struct StudyCost {
  double run_s;
  double wall_s;
} StudyCost;

/* The tuner's own clock at each candidate it takes: a replay measures nothing, so the
 * time between candidates is the search itself. */
typedef struct StudyClock {
  double start;
  double *at;
  int64_t n, cap;
  bool failed;
  char warning[PRUNER_STATUS_MESSAGE_SIZE]; /* the engine's last warning (why no space) */
} StudyClock;

static void studyClockTick(const PrunerTuneEvent *ev, void *user) {
  StudyClock *c = user;
  if (ev->kind == PRUNER_TUNE_EVENT_NOTE && ev->message && !strncmp(ev->message, "warning: ", 9))
    snprintf(c->warning, sizeof c->warning, "%s", ev->message + 9);
  if (ev->kind != PRUNER_TUNE_EVENT_CANDIDATE || c->failed)
    return;
  if (c->n == c->cap) {
    int64_t cap = c->cap ? 2 * c->cap : 256;
    double *at = realloc(c->at, (size_t)cap * sizeof *at);
    if (!at) {
      c->failed = true;
      return;
    }
    c->at = at;
    c->cap = cap;
  }
  c->at[c->n++] = prunerNowSeconds() - c->start;
}

/* One line of --study-trace per measurement of the run, in order; false when the file
 * cannot be written. */
static bool studyTrace(FILE *trace, PrunerRecords log, const PrunerWorkload *w, int method,
                       uint64_t seed, double best_us) {
  bool ok = true;
  int64_t trial = 0;
  for (size_t i = 0; ok && i < prunerRecordsCount(log); ++i) {
    const PrunerRecord *r = prunerRecordsGet(log, i);
    if (r->is_baseline || strcmp(r->workload_key, w->key) != 0)
      continue;
    char config[512];
    prunerConfigFormat(w, &r->config, config, sizeof config);
    cJSON *line = cJSON_CreateObject();
    char *text = NULL;
    if (line && cJSON_AddStringToObject(line, "workload", w->key) &&
        cJSON_AddStringToObject(line, "method", prunerTuneStudyMethodName(method)) &&
        cJSON_AddNumberToObject(line, "seed", (double)seed) &&
        cJSON_AddNumberToObject(line, "trial", (double)++trial) &&
        cJSON_AddStringToObject(line, "config", config) &&
        cJSON_AddStringToObject(line, "status", prunerRecordStatusName(r->status)) &&
        (r->status != PRUNER_RECORD_OK ||
         (cJSON_AddNumberToObject(line, "median_us", r->median_us) &&
          cJSON_AddNumberToObject(line, "of_best", r->median_us / best_us))))
      text = cJSON_PrintUnformatted(line);
    ok = text && fprintf(trace, "%s\n", text) > 0;
    cJSON_free(text);
    cJSON_Delete(line);
  }
  return ok;
}

typedef struct StudyFit {
  const PrunerTargetDesc *target;
  const char *key;
} StudyFit;

/* The tuner's check of a record (lib/tune/record_check.c) on the study's target. */
static PrunerStatus studyRecordFits(const PrunerRecord *r, void *user) {
  const StudyFit *f = user;
  if (r->is_baseline || r->status == PRUNER_RECORD_INVALID || !r->has_workload ||
      strcmp(r->target_key, f->key) != 0)
    return prunerStatusOk();
  PrunerStatus fit = prunerConfigCheck(&r->workload, f->target, &r->config);
  if (fit.ok)
    return fit;
  char why[PRUNER_STATUS_MESSAGE_SIZE];
  snprintf(why, sizeof why, "%s", fit.message);
  return prunerStatusError("config does not fit %s on %s: %s", r->workload_key,
                           f->target->name, why);
}

/* One simulated tuning run until the strictest goal: trials[g] for each goal (max + 1
 * if never reached) and cost[g], what it paid until then (the whole run's if never). */
static PrunerStatus tuneStudyRun(const PrunerTuneStudyOptions *so, PrunerRecords replay,
                                 const PrunerTargetDesc *target, const PrunerWorkload *w,
                                 int method, uint64_t seed, const double *goal_us, int64_t *trials,
                                 StudyCost *cost, uint64_t *space_size, FILE *trace,
                                 double best_us) {
  PrunerTuneOptions o = prunerTuneDefaultOptions();
  o.target = so->target;
  o.target_desc = target;
  o.measure = PRUNER_TUNE_MEASURE_NONE; /* the replay handle is attached below */
  o.strategy =
      method < PRUNER_TUNE_STRATEGY_COUNT ? (PrunerTuneStrategy)method : PRUNER_TUNE_DRAFT_VERIFIER;
  if (method == PRUNER_TUNE_STUDY_FROZEN || method == PRUNER_TUNE_STUDY_ADAPTED) {
    o.prior_path = so->prior_path;
    o.prior_floor = so->prior_floor;
    o.prior_floor_unseen = so->prior_floor_unseen;
    o.prior_unseen = so->prior_unseen;
    o.prior_momentum = method == PRUNER_TUNE_STUDY_FROZEN ? 1.0 : so->prior_momentum;
  }
  o.seed = seed;
  o.draft_size = so->draft_size;
  o.neighbours = so->neighbours;
  o.first_batch_tiles = so->first_batch_tiles;
  o.batch = so->batch;
  o.epsilon = so->epsilon;
  o.stop = so->stop;
  StudyClock clock = {.start = prunerNowSeconds()};
  o.on_event = studyClockTick;
  o.user = &clock;
  double strictest = goal_us[0];
  for (int g = 1; g < PRUNER_TUNE_GOAL_COUNT; ++g)
    strictest = fmin(strictest, goal_us[g]);
  TuneEngine e;
  PrunerStatus st = tuneEngineInit(&e, &o);
  if (st.ok && tuneEngineAddWorkload(&e, w, NULL) < 0)
    st = prunerStatusError("out of memory");
  if (st.ok)
    st = tuneEnginePrepare(&e);
  int64_t max = 0;
  StudyReplayFilter filter = {replay, w->key, NULL};
  if (st.ok && e.tasks[0].space) {
    filter.target_key = e.target_key;
    st = prunerSpaceRestrict(e.tasks[0].space, studyInReplay, &filter);
    e.tasks[0].space_size = prunerSpaceCount(e.tasks[0].space);
  }
  /* Nothing to search: every method would "reach" every goal at trial 1. */
  if (st.ok && !e.tasks[0].space)
    st = prunerStatusError("--study %s: %s", so->replay_path,
                           clock.warning[0] ? clock.warning : "the workload has no tuning space");
  else if (st.ok && e.tasks[0].space_size == 0)
    st = prunerStatusError("--study %s: workload %s: none of the file's configs is in its "
                           "space on %s",
                           so->replay_path, w->key, target->name);
  if (st.ok) {
    e.opts.measure = PRUNER_TUNE_MEASURE_REPLAY;
    e.opts.measure_path = so->replay_path;
    e.replay = replay;
    e.owns_replay = false;
    e.target_us = strictest;
    e.keep_searching = true; /* a run that gives up would count as never reaching */
    e.replay_one_pass = so->replay_one_pass;
    e.pass_rng = seed ^ 0x9e3779b97f4a7c15u; /* its own stream: the run's draws unchanged */
    /* The other workloads' records (never this one's: the run measures those). */
    for (size_t i = 0; so->context && st.ok && i < prunerRecordsCount(replay); ++i) {
      const PrunerRecord *r = prunerRecordsGet(replay, i);
      if (r->status == PRUNER_RECORD_OK && !r->is_baseline &&
          strcmp(r->workload_key, w->key) != 0 && strcmp(r->target_key, e.target_key) == 0)
        st = prunerRecordsAppend(e.records, r);
    }
    *space_size = e.tasks[0].space_size;
    /* No run measures a config twice: more trials than the space are never taken. */
    max = so->max_trials > 0 && so->max_trials < (int64_t)e.tasks[0].space_size
              ? so->max_trials
              : (int64_t)e.tasks[0].space_size;
    e.opts.trials = max;
    st = tuneEngineRun(&e);
  }
  if (st.ok && trace && !studyTrace(trace, e.records, w, method, seed, best_us))
    st = prunerStatusError("--study-trace %s: cannot write", so->trace_path);
  for (int g = 0; g < PRUNER_TUNE_GOAL_COUNT; ++g)
    trials[g] = max + 1;
  if (st.ok && clock.failed)
    st = prunerStatusError("out of memory timing the study's run");
  if (st.ok) {
    /* The in-memory log holds this run's measurements in order, one candidate event
     * each (the clock). */
    double run_us = 0, measure_s = 0, own_s = 0;
    int64_t k = 0;
    for (size_t i = 0; i < prunerRecordsCount(e.records); ++i) {
      const PrunerRecord *r = prunerRecordsGet(e.records, i);
      if (r->is_baseline || strcmp(r->workload_key, w->key) != 0)
        continue;
      own_s = k < clock.n ? clock.at[k] : own_s;
      ++k;
      for (int s = 0; s < r->num_samples; ++s)
        run_us += r->samples_us[s];
      measure_s += r->measure_s > 0 ? r->measure_s : NAN;
      /* Goals are on the file's kept times, whatever pass the run was answered with. */
      const PrunerRecord *kept =
          so->replay_one_pass ? prunerRecordsFind(replay, w->key, e.target_key, &r->config) : r;
      double kept_us = kept ? kept->median_us : r->median_us;
      for (int g = 0; g < PRUNER_TUNE_GOAL_COUNT; ++g)
        if (trials[g] > max && r->status == PRUNER_RECORD_OK && kept_us <= goal_us[g]) {
          trials[g] = k;
          cost[g] = (StudyCost){run_us * 1e-6, own_s + measure_s};
        }
    }
    for (int g = 0; g < PRUNER_TUNE_GOAL_COUNT; ++g)
      if (trials[g] > max)
        cost[g] = (StudyCost){run_us * 1e-6, own_s + measure_s};
  }
  free(clock.at);
  tuneEngineDestroy(&e);
  return st;
}

static int compareInt64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}
static int compareDouble(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Quantile q of sorted v[0..n) (linear between order statistics). */
static double quantile(const int64_t *v, int n, double q) {
  if (n <= 0)
    return 0;
  double pos = q * (n - 1);
  int lo = (int)pos;
  int hi = lo + 1 < n ? lo + 1 : lo;
  return (double)v[lo] + (pos - lo) * (double)(v[hi] - v[lo]);
}

/* The median of v[0..n) (sorted here), NaN if any is NaN (a cost some record lacks). */
static double medianOf(double *v, int n) {
  for (int i = 0; i < n; ++i)
    if (isnan(v[i]))
      return NAN;
  qsort(v, (size_t)n, sizeof *v, compareDouble);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void fillStats(int64_t *trials, const StudyCost *cost, int n, PrunerTuneStudyStats *out) {
  memset(out, 0, sizeof *out);
  if (n <= 0)
    return;
  double sum = 0;
  for (int i = 0; i < n; ++i)
    sum += (double)trials[i];
  qsort(trials, (size_t)n, sizeof *trials, compareInt64);
  out->mean = sum / n;
  out->median = quantile(trials, n, 0.5);
  out->p25 = quantile(trials, n, 0.25);
  out->p75 = quantile(trials, n, 0.75);
  out->min = trials[0];
  out->max = trials[n - 1];
  double *v = malloc((size_t)n * sizeof *v);
  if (!v) {
    out->run_s_median = out->wall_s_median = NAN;
    return;
  }
  for (int i = 0; i < n; ++i)
    v[i] = cost[i].run_s;
  out->run_s_median = medianOf(v, n);
  for (int i = 0; i < n; ++i)
    v[i] = cost[i].wall_s;
  out->wall_s_median = medianOf(v, n);
  free(v);
}

/* Relative interquartile range of a record's samples (0 with fewer than 4). */
static double relativeIqr(const PrunerRecord *r) {
  if (r->num_samples < 4 || !(r->median_us > 0))
    return 0;
  double v[PRUNER_MAX_SAMPLES];
  int n = r->num_samples;
  memcpy(v, r->samples_us, (size_t)n * sizeof *v);
  qsort(v, (size_t)n, sizeof *v, compareDouble);
  double lo = v[(n - 1) / 4], hi = v[(3 * (n - 1) + 3) / 4];
  return (hi - lo) / r->median_us;
}

/* A merged record's second fastest pass (>= its kept median), or 0 without two passes. */
static double secondFastestPass(const PrunerRecord *r) {
  if (r->num_passes < 2)
    return 0;
  double v[PRUNER_MAX_PASSES];
  memcpy(v, r->passes_us, (size_t)r->num_passes * sizeof *v);
  qsort(v, (size_t)r->num_passes, sizeof *v, compareDouble);
  return v[1] > r->median_us ? v[1] : r->median_us;
}

/* The workload's noise without passes: the median over its ok configs of their samples'
 * relative IQR, the run-to-run spread within one pass; pass-to-pass spread is larger
 * (data/README.md). */
static double workloadNoise(PrunerRecords replay, const char *workload_key, const char *key) {
  size_t n = 0, cap = prunerRecordsCount(replay);
  double *v = malloc((cap ? cap : 1) * sizeof *v);
  if (!v)
    return 0;
  for (size_t i = 0; i < cap; ++i) {
    const PrunerRecord *r = prunerRecordsGet(replay, i);
    if (r->status == PRUNER_RECORD_OK && !r->is_baseline &&
        strcmp(r->workload_key, workload_key) == 0 && strcmp(r->target_key, key) == 0 &&
        r->num_samples >= 4)
      v[n++] = relativeIqr(r);
  }
  double m = 0;
  if (n > 0) {
    qsort(v, n, sizeof *v, compareDouble);
    m = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  }
  free(v);
  return m;
}

/* The methods a study runs: those asked for, else every strategy but auto (per workload
 * it is one of the strategies before it) and the pretrained ones given a prior. */
static unsigned studyMethods(const PrunerTuneStudyOptions *so) {
  unsigned prior_methods = (1u << PRUNER_TUNE_STUDY_FROZEN) | (1u << PRUNER_TUNE_STUDY_ADAPTED);
  return so->methods ? so->methods
                     : ((1u << PRUNER_TUNE_AUTO) - 1) | (so->prior_path ? prior_methods : 0);
}

PrunerStatus prunerTuneStudy(const PrunerTuneStudyOptions *so, PrunerTuneStudyRow **rows_out,
                             size_t *num_rows) {
  *rows_out = NULL;
  *num_rows = 0;
  if (so->seeds < 1)
    return prunerStatusError("--seeds must be at least 1 (got %d)", so->seeds);
  if (so->first_seed < 1 || so->first_seed > INT_MAX - so->seeds)
    return prunerStatusError("--study-first-seed must be at least 1 and leave room for "
                             "--seeds=%d (got %d)",
                             so->seeds, so->first_seed);
  if (!(so->within > 0 && so->within_tight > 0 && so->within_tight <= so->within))
    return prunerStatusError("the study's goals must satisfy 0 < --within-tight <= --within "
                             "(got %g and %g): the second goal is the tighter one",
                             so->within_tight, so->within);
  unsigned prior_methods = (1u << PRUNER_TUNE_STUDY_FROZEN) | (1u << PRUNER_TUNE_STUDY_ADAPTED);
  unsigned methods = studyMethods(so);
  if ((methods & prior_methods) && !so->prior_path)
    return prunerStatusError("the study methods pretrained and pretrained-frozen need "
                             "--pretrained=MODEL");
  if (so->prior_path) {
    FILE *model = fopen(so->prior_path, "r");
    if (!model)
      return prunerStatusError("--pretrained %s: %s", so->prior_path, strerror(errno));
    fclose(model);
  }
  if (access(so->replay_path, R_OK) != 0) /* not opened: a FIFO would block */
    return prunerStatusError("--study %s: %s", so->replay_path, strerror(errno));
  /* The trace is opened for writing: over the dataset or the prior it would replace it. */
  const char *inputs[][2] = {{"--study", so->replay_path}, {"--pretrained", so->prior_path}};
  for (size_t i = 0; so->trace_path && i < 2; ++i)
    if (inputs[i][1] && prunerSameFile(so->trace_path, inputs[i][1]))
      return prunerStatusError("--study-trace and %s name the same file (%s): writing the "
                               "trace would replace it; give --study-trace another file",
                               inputs[i][0], so->trace_path);
  PrunerRecords replay = NULL;
  PrunerStatus st = prunerRecordsCreateReadOnly(so->replay_path, &replay);
  if (!st.ok)
    return st;
  /* A module or an empty file is not a dataset: refused with the reason. */
  st = prunerRecordsRequireRecords(replay);
  if (!st.ok) {
    prunerRecordsDestroy(replay);
    return prunerStatusError("--study %s", st.message);
  }
  /* Lines the reader skipped (corrupt, invalid values) are said, as the other tools do. */
  char load_note[PRUNER_STATUS_MESSAGE_SIZE] = "";
  if (prunerRecordsSkippedLines(replay) > 0)
    snprintf(load_note, sizeof load_note, "%s", prunerRecordsWarnings(replay));
  PrunerTargetDesc target;
  char key[96], note[512] = "";
  if (so->dataset_target) {
    st = prunerRecordsDatasetTarget(replay, so->dataset_target, &target, note, sizeof note);
    if (!st.ok)
      st = prunerStatusError("--study %s: %s", so->replay_path, st.message);
  } else {
    st = prunerTargetLookup(so->target, &target);
  }
  if (!st.ok) {
    prunerRecordsDestroy(replay);
    return st;
  }
  prunerTargetKey(&target, key, sizeof key);
  /* The draft describes the kernels the dataset timed, this machine's records too. */
  target.codegen_version = prunerRecordsKernelVersion(replay, key);
  /* Records whose config does not fit their workload cannot have been measured as
   * written: left out with a warning, as a tuning run leaves them out (record_check.c). */
  StudyFit fit = {&target, key};
  size_t misfit = prunerRecordsFilter(replay, studyRecordFits, &fit);
  char misfit_note[PRUNER_STATUS_MESSAGE_SIZE] = "", left_out[PRUNER_STATUS_MESSAGE_SIZE];
  if (misfit)
    snprintf(misfit_note, sizeof misfit_note, "%s", prunerRecordsWarnings(replay));
  snprintf(left_out, sizeof left_out, "%s%s%s", load_note, load_note[0] && misfit ? "\n" : "",
           misfit_note);
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
    snprintf(rows[n].target_key, sizeof rows[n].target_key, "%s", key);
    snprintf(rows[n].target_note, sizeof rows[n].target_note, "%s", note);
    snprintf(rows[n].records_note, sizeof rows[n].records_note, "%s", left_out);
    ++n;
  }
  if (st.ok && n == 0) {
    const char *other = prunerRecordsBusiestTarget(replay);
    if (misfit)
      st = prunerStatusError("--study %s: no record of target %s whose config fits its "
                             "workload (%zu left out: %s)",
                             so->replay_path, key, misfit, misfit_note);
    else if (other && !so->dataset_target)
      st = prunerStatusError("--study %s: no records of target %s with a workload "
                             "description (the file's records are of %s: "
                             "--dataset-target=records studies them here)",
                             so->replay_path, key, other);
    else
      st = prunerStatusError("--study %s: no records of target %s with a workload description",
                             so->replay_path, key);
  }
  FILE *trace = NULL;
  if (st.ok && so->trace_path && !(trace = fopen(so->trace_path, "w")))
    st = prunerStatusError("--study-trace %s: %s", so->trace_path, strerror(errno));
  int64_t *trials =
      st.ok ? malloc((size_t)so->seeds * PRUNER_TUNE_GOAL_COUNT * sizeof *trials) : NULL;
  StudyCost *cost =
      st.ok ? malloc((size_t)so->seeds * PRUNER_TUNE_GOAL_COUNT * sizeof *cost) : NULL;
  if (st.ok && (!trials || !cost))
    st = prunerStatusError("out of memory");
  bool stopped = false;
  size_t studied = 0; /* rows with at least one method's seeds (all n unless stopped) */
  for (size_t j = 0; st.ok && j < n && !stopped; ++j) {
    PrunerTuneStudyRow *row = &rows[j];
    const PrunerWorkload *w = NULL;
    for (size_t i = 0; i < prunerRecordsCount(replay) && !w; ++i) {
      const PrunerRecord *r = prunerRecordsGet(replay, i);
      if (r->has_workload && strcmp(r->workload_key, row->workload_key) == 0 &&
          strcmp(r->target_key, key) == 0 && !r->is_baseline)
        w = &r->workload;
    }
    /* The best and the goals are those of the records a replay can return: the one record
     * prunerRecordsFind gives per config (not an earlier duplicate), of a config in the
     * space. Another record could be a best no method ever reaches. */
    PrunerSpace space = NULL;
    const PrunerBackend *backend = prunerBackendForTarget(&target);
    if (w && backend)
      backend->spaceCreate(w, &target, &space); /* none: tuneStudyRun says why */
    StudyReach reach = {replay, key, space};
    const PrunerRecord *best = NULL;
    size_t unreachable = 0;
    for (size_t i = 0; i < prunerRecordsCount(replay); ++i) {
      const PrunerRecord *r = prunerRecordsGet(replay, i);
      if (r->is_baseline || r->status != PRUNER_RECORD_OK || strcmp(r->target_key, key) != 0 ||
          strcmp(r->workload_key, row->workload_key) != 0)
        continue;
      if (!studyReachable(&reach, r))
        ++unreachable;
      else if (!best || r->median_us < best->median_us)
        best = r;
    }
    if (!best) {
      prunerSpaceDestroy(space);
      st = prunerStatusError("--study %s: workload %s has no ok record%s", so->replay_path,
                             row->workload_key,
                             unreachable ? " that a replay returns (duplicates or configs "
                                           "outside the space only)"
                                         : "");
      break;
    }
    if (unreachable > 0)
      snprintf(row->reach_note, sizeof row->reach_note,
               "%s: %zu ok record(s) a replay never returns (an earlier record of a config "
               "measured again, or a config outside the space) are left out of the best and "
               "the goals",
               row->workload_key, unreachable);
    row->best_us = best->median_us;
    row->goal_us[PRUNER_TUNE_GOAL_WITHIN] = row->best_us * (1.0 + so->within);
    row->goal_us[PRUNER_TUNE_GOAL_TIGHT] = row->best_us * (1.0 + so->within_tight);
    double second = secondFastestPass(best);
    row->noise_from_passes = second > 0;
    row->goal_us[PRUNER_TUNE_GOAL_NOISE] =
        second > 0 ? second
                   : row->best_us * (1.0 + workloadNoise(replay, row->workload_key, key));
    for (size_t i = 0; i < prunerRecordsCount(replay); ++i) {
      const PrunerRecord *r = prunerRecordsGet(replay, i);
      if (strcmp(r->workload_key, row->workload_key) == 0 && strcmp(r->target_key, key) == 0 &&
          !r->is_baseline) {
        bool ok = r->status == PRUNER_RECORD_OK && studyReachable(&reach, r);
        row->replay_configs += ok;
        for (int g = 0; g < PRUNER_TUNE_GOAL_COUNT; ++g)
          row->goal_configs[g] += ok && r->median_us <= row->goal_us[g];
      }
    }
    prunerSpaceDestroy(space);
    for (int s = 0; st.ok && s < PRUNER_TUNE_STUDY_METHOD_COUNT; ++s) {
      if (!(methods & (1u << s)))
        continue;
      int done = 0; /* seeds run to their end (an interrupted one is not counted) */
      for (int i = 0; st.ok && i < so->seeds && !stopped; ++i) {
        int seed = so->first_seed + i;
        int64_t t[PRUNER_TUNE_GOAL_COUNT];
        StudyCost c[PRUNER_TUNE_GOAL_COUNT] = {{0}};
        st = tuneStudyRun(so, replay, &target, w, s, (uint64_t)seed, row->goal_us, t, c,
                          &row->space_size, trace, row->best_us);
        for (int g = 0; g < PRUNER_TUNE_GOAL_COUNT; ++g) {
          trials[g * so->seeds + i] = t[g];
          cost[g * so->seeds + i] = c[g];
        }
        if (so->on_event) {
          char text[256];
          snprintf(text, sizeof text, "study %s: %s seed %d: %lld / %lld / %lld trials",
                   row->workload_key, prunerTuneStudyMethodName(s), seed, (long long)t[0],
                   (long long)t[1], (long long)t[2]);
          PrunerTuneEvent ev = {.kind = PRUNER_TUNE_EVENT_NOTE, .task = (int)j, .message = text};
          so->on_event(&ev, so->user);
        }
        /* Ctrl-C: the seed in progress stopped early and its counts mean nothing; the
         * seeds before it are the partial table (the caller says it was interrupted). */
        stopped = so->stop && *so->stop;
        done += st.ok && !stopped;
      }
      if (!st.ok || done == 0)
        break;
      row->ran[s] = true;
      row->seeds_run[s] = done;
      for (int g = 0; g < PRUNER_TUNE_GOAL_COUNT; ++g)
        fillStats(trials + g * so->seeds, cost + g * so->seeds, done, &row->stats[g][s]);
      row->mean_trials[s] = row->stats[0][s].mean;
      row->worst_trials[s] = row->stats[0][s].max;
    }
    for (int s = 0; s < PRUNER_TUNE_STUDY_METHOD_COUNT; ++s)
      studied = row->ran[s] ? j + 1 : studied;
  }
  free(trials);
  free(cost);
  prunerRecordsDestroy(replay);
  if (trace && fclose(trace) != 0 && st.ok)
    st = prunerStatusError("--study-trace %s: %s", so->trace_path, strerror(errno));
  if (!st.ok) {
    free(rows);
    return st;
  }
  if (stopped && studied == 0) {
    free(rows);
    return prunerStatusError("study interrupted before its first seed ended");
  }
  *rows_out = rows;
  *num_rows = stopped ? studied : n;
  return prunerStatusOk();
}

char *prunerTuneStudyFormat(const PrunerTuneStudyRow *rows, size_t num_rows,
                            const PrunerTuneStudyOptions *so) {
  PrunerText b = {0};
  char tiles[32] = "the backend's";
  if (so->first_batch_tiles >= 0)
    snprintf(tiles, sizeof tiles, "%g", so->first_batch_tiles);
  char seed_range[48] = ""; /* said only when not the default 1..N */
  if (so->first_seed != 1)
    snprintf(seed_range, sizeof seed_range, ", %d-%d", so->first_seed,
             so->first_seed + so->seeds - 1);
  if (num_rows > 0 && rows[0].target_note[0])
    prunerTextAppend(&b, "%s\n", rows[0].target_note);
  if (num_rows > 0 && rows[0].records_note[0])
    prunerTextAppend(&b, "warning: records left out: %s\n", rows[0].records_note);
  for (size_t i = 0; i < num_rows; ++i)
    if (rows[i].reach_note[0])
      prunerTextAppend(&b, "warning: %s\n", rows[i].reach_note);
  /* Without passes one-pass answers are the kept times: say so rather than print a table
   * that looks like a noisy study and is not. */
  for (size_t i = 0; so->replay_one_pass && i < num_rows; ++i)
    if (!rows[i].noise_from_passes)
      prunerTextAppend(&b,
                       "warning: %s: its best config carries no recorded passes; "
                       "--study-one-pass answers a config without them with its kept time\n",
                       rows[i].workload_key);
  prunerTextAppend(&b,
                   "search study: trials (over %d seeds%s) to come within %.3g%% / %.3g%% / "
                   "the noise of the best config; batch %d, epsilon %.2f, draft size %d, "
                   "neighbours %d, first-batch tiles %s\n",
                   so->seeds, seed_range, so->within * 100, so->within_tight * 100, so->batch,
                   so->epsilon, so->draft_size, so->neighbours, tiles);
  if (so->prior_path)
    prunerTextAppend(&b, "verifier prior (pretrained methods): %s\n", so->prior_path);
  if (so->replay_one_pass)
    prunerTextAppend(&b, "each measurement answers with one of the config's recorded passes, "
                         "drawn per seed; the goals are on the kept times\n");
  if (so->context)
    prunerTextAppend(&b, "each run's log starts with the file's other workloads' records "
                         "(--study-context)\n");
  /* One workload: nothing to preload, so the runs are a plain study's; said, not silent. */
  if (so->context && num_rows == 1)
    prunerTextAppend(&b, "warning: --study-context: the file holds one workload of the "
                         "target, so no run starts with other records; give it several "
                         "workloads of one machine\n");
  prunerTextAppend(&b, "ratio = random / method on the medians, vs_dv = draft+verifier / "
                       "method (higher is better); noise: "
                       "the best config's second fastest pass when the records carry their "
                       "passes (passes_us), else the median relative IQR of the workload's "
                       "configs' samples (within a pass); run_s: recorded run "
                       "time of the configs measured until the goal (median); wall_s: "
                       "wall-clock tuning time until the goal (median): the tuner's own time "
                       "plus each measured config's recorded cost (compile, check, samples; "
                       "'-' when the records hold no cost)\n");
  const char *goal_name[PRUNER_TUNE_GOAL_COUNT] = {"within", "within", "noise"};
  double goal_pct[PRUNER_TUNE_GOAL_COUNT] = {so->within * 100, so->within_tight * 100, 0};
  double log_ratio[PRUNER_TUNE_GOAL_COUNT][PRUNER_TUNE_STUDY_METHOD_COUNT] = {{0}};
  double log_vs_dv[PRUNER_TUNE_GOAL_COUNT][PRUNER_TUNE_STUDY_METHOD_COUNT] = {{0}};
  bool ran[PRUNER_TUNE_STUDY_METHOD_COUNT] = {false};
  for (int s = 0; s < PRUNER_TUNE_STUDY_METHOD_COUNT; ++s)
    ran[s] = num_rows > 0 && (studyMethods(so) & (1u << s));
  bool has_random = ran[PRUNER_TUNE_RANDOM], has_dv = ran[PRUNER_TUNE_DRAFT_VERIFIER];
  /* A study stopped part way (prunerTuneStudy): rows and methods over the seeds that
   * ended; geometric means need every method on every row, so they are left out. */
  bool complete = true;
  for (size_t j = 0; j < num_rows; ++j)
    for (int s = 0; s < PRUNER_TUNE_STUDY_METHOD_COUNT; ++s)
      complete = complete && (!ran[s] || (rows[j].ran[s] && rows[j].seeds_run[s] == so->seeds));
  if (!complete)
    prunerTextAppend(&b, "interrupted: the table holds the seeds that had ended; no geometric "
                         "means\n");
  for (size_t j = 0; j < num_rows; ++j) {
    const PrunerTuneStudyRow *r = &rows[j];
    prunerTextAppend(&b, "workload %s: space %llu, best %.2f us\n", r->workload_key,
                     (unsigned long long)r->space_size, r->best_us);
    for (int s = 0; s < PRUNER_TUNE_STUDY_METHOD_COUNT; ++s)
      if (ran[s] && r->ran[s] && r->seeds_run[s] < so->seeds)
        prunerTextAppend(&b, "  interrupted: %s over %d of %d seeds\n",
                         prunerTuneStudyMethodName(s), r->seeds_run[s], so->seeds);
    bool row_random = has_random && r->ran[PRUNER_TUNE_RANDOM];
    bool row_dv = has_dv && r->ran[PRUNER_TUNE_DRAFT_VERIFIER];
    for (int g = 0; g < PRUNER_TUNE_GOAL_COUNT; ++g) {
      if (g == PRUNER_TUNE_GOAL_NOISE)
        prunerTextAppend(&b, "  goal noise (+%.1f%%, %lld configs, %s):\n",
                         100.0 * (r->goal_us[g] / r->best_us - 1.0), (long long)r->goal_configs[g],
                         r->noise_from_passes ? "the best's second fastest pass"
                                              : "within-pass IQR");
      else
        prunerTextAppend(&b, "  goal %s %.3g%% (%lld configs):\n", goal_name[g], goal_pct[g],
                         (long long)r->goal_configs[g]);
      prunerTextAppend(&b, "    %-17s %8s %15s %8s %11s %7s %6s %8s %8s\n", "method", "median",
                       "IQR", "mean", "min-max", "ratio", "vs_dv", "run_s", "wall_s");
      double random = r->stats[g][PRUNER_TUNE_RANDOM].median;
      double dv = r->stats[g][PRUNER_TUNE_DRAFT_VERIFIER].median;
      for (int s = 0; s < PRUNER_TUNE_STUDY_METHOD_COUNT; ++s) {
        if (!ran[s])
          continue;
        if (!r->ran[s]) {
          prunerTextAppend(&b, "    %-17s not run (interrupted)\n", prunerTuneStudyMethodName(s));
          continue;
        }
        const PrunerTuneStudyStats *x = &r->stats[g][s];
        double m = x->median > 0 ? x->median : 1;
        char iqr[32], range[32], ratio[16] = "-", vs_dv[16] = "-";
        snprintf(iqr, sizeof iqr, "%.1f-%.1f", x->p25, x->p75);
        snprintf(range, sizeof range, "%lld-%lld", (long long)x->min, (long long)x->max);
        if (row_random) {
          log_ratio[g][s] += log(random / m);
          snprintf(ratio, sizeof ratio, "%.1fx", random / m);
        }
        if (row_dv) {
          log_vs_dv[g][s] += log(dv / m);
          snprintf(vs_dv, sizeof vs_dv, "%.2fx", dv / m);
        }
        char wall[24] = "-";
        if (!isnan(x->wall_s_median))
          snprintf(wall, sizeof wall, "%.2f", x->wall_s_median);
        prunerTextAppend(&b, "    %-17s %8.1f %15s %8.1f %11s %7s %6s %8.3f %8s\n",
                         prunerTuneStudyMethodName(s), x->median, iqr, x->mean, range, ratio, vs_dv,
                         x->run_s_median, wall);
      }
    }
  }
  double rows_n = (double)(num_rows ? num_rows : 1);
  for (int k = 0; k < 2; ++k) {
    if ((k == 0 && !has_random) || (k == 1 && !has_dv) || !complete)
      continue;
    for (int g = 0; g < PRUNER_TUNE_GOAL_COUNT; ++g) {
      const char *over = k == 0 ? "random search" : "draft+verifier";
      if (g == PRUNER_TUNE_GOAL_NOISE)
        prunerTextAppend(&b, "geomean speed-up over %s, goal noise:", over);
      else
        prunerTextAppend(&b, "geomean speed-up over %s, goal %.3g%%:", over, goal_pct[g]);
      for (int s = 0; s < PRUNER_TUNE_STUDY_METHOD_COUNT; ++s)
        if (ran[s])
          prunerTextAppend(&b, " %s %.2fx", prunerTuneStudyMethodName(s),
                           exp((k == 0 ? log_ratio : log_vs_dv)[g][s] / rows_n));
      prunerTextAppend(&b, "\n");
    }
  }
  if (b.failed) {
    free(b.data);
    return NULL;
  }
  return b.data;
}

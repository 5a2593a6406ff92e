/* lib/tune/engine.c: the draft -> verifier -> measure -> retrain loop over workloads.
 *
 * Decisions (docs/tune.md): the trial budget counts every record of a workload on the
 * target, resumed ones included, so rerunning an interrupted command completes it rather
 * than doubling it; a config that has a record is never chosen again; workloads get one
 * round each in turn, then the gradient scheduler picks the next one. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pruner/clock.h"
#include "pruner/farm.h"
#include "pruner/random.h"
#include "tune_internal.h"

/* Ansor's task scheduler constants (Zheng et al., OSDI'20, Sec. 6; TVM's
 * auto_scheduler/task_scheduler.py defaults): alpha weighs the backward gradient
 * against the forward estimate, beta bounds the optimism of the similar-task term. */
#define TUNE_GRAD_ALPHA 0.2
#define TUNE_GRAD_BETA 2.0

/* ---------------------------------------------------------------------------------- */
/* Small helpers                                                                       */

static void tuneEmit(TuneEngine *e, const PrunerTuneEvent *ev) {
  if (e->opts.on_event)
    e->opts.on_event(ev, e->opts.user);
}

void tuneNote(TuneEngine *e, int task, const char *fmt, ...) {
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  PrunerTuneEvent ev = {.kind = PRUNER_TUNE_EVENT_NOTE, .task = task, .message = text};
  tuneEmit(e, &ev);
}

void tuneNoteRecordWarnings(TuneEngine *e, PrunerRecords records) {
  const char *text = prunerRecordsWarnings(records);
  while (text && *text) { /* one note per line: each gets the tool's prefix */
    size_t n = strcspn(text, "\n");
    tuneNote(e, -1, "warning: %.*s", (int)n, text);
    text += n + (text[n] == '\n');
  }
}

bool tuneStopRequested(const TuneEngine *e) {
  return e->opts.stop && *e->opts.stop;
}

static int64_t tuneTotalTrials(const TuneEngine *e) {
  int64_t total = 0;
  for (size_t i = 0; i < e->num_tasks; ++i)
    total += e->tasks[i].trials;
  return total;
}

/* Readable, without opening it: opening a FIFO blocks until a writer comes (the records
 * reader then refuses anything but a regular file). errno says why not. */
static bool tuneFileExists(const char *path) { return access(path, R_OK) == 0; }

/* ---------------------------------------------------------------------------------- */
/* Set-up                                                                              */

/* Each target has its own device, measured by its backend. MEASURE_GPU, the default,
 * means "the target's device" for every target; the modes a backend does not support
 * are refused by it, naming the ones that work. */
static PrunerStatus tuneResolveMeasure(TuneEngine *e) {
  const PrunerBackend *b = e->backend;
  PrunerTuneMeasure m = e->opts.measure;
  if (m == PRUNER_TUNE_MEASURE_GPU)
    e->opts.measure = m = b->device_measure;
  bool on_device = m == PRUNER_TUNE_MEASURE_GPU || m == PRUNER_TUNE_MEASURE_HOST;
  if ((m == PRUNER_TUNE_MEASURE_BUNDLE && !b->exportOpen) || (on_device && m != b->device_measure))
    return b->refuseMeasure(&e->target, prunerTuneMeasureName(m));
  switch (m) {
  case PRUNER_TUNE_MEASURE_BUNDLE:
    b->describeMeasure(&e->target, e->measure_path, e->measure_text, sizeof e->measure_text);
    break;
  case PRUNER_TUNE_MEASURE_REPLAY:
    snprintf(e->measure_text, sizeof e->measure_text,
             "replay:%s (latencies copied from recorded measurements; nothing runs here)",
             e->measure_path);
    break;
  case PRUNER_TUNE_MEASURE_NONE:
    snprintf(e->measure_text, sizeof e->measure_text,
             "none (the draft and verifier models choose; nothing is measured)");
    break;
  default:
    b->describeMeasure(&e->target, NULL, e->measure_text, sizeof e->measure_text);
    break;
  }
  return prunerStatusOk();
}

PrunerStatus tuneEngineInit(TuneEngine *e, const PrunerTuneOptions *opts) {
  return tuneEngineInitWithBackend(e, opts, NULL);
}

PrunerStatus tuneEngineInitWithBackend(TuneEngine *e, const PrunerTuneOptions *opts,
                                       const PrunerBackend *backend) {
  memset(e, 0, sizeof *e);
  e->opts = *opts;
  const char **strings[] = {&e->opts.target,       &e->opts.prior_path,  &e->opts.prior_dir,
                            &e->opts.records_path, &e->opts.ingest_path, &e->opts.runner_path};
  _Static_assert(sizeof strings / sizeof *strings == sizeof e->owned_strings /
                                                         sizeof *e->owned_strings,
                 "one owned copy per option string");
  for (size_t i = 0; i < sizeof strings / sizeof *strings; ++i) {
    if (!*strings[i])
      continue;
    e->owned_strings[i] = strdup(*strings[i]);
    if (!e->owned_strings[i])
      return prunerStatusError("out of memory");
    *strings[i] = e->owned_strings[i];
  }
  e->rng = opts->seed ? opts->seed : 1;
  e->start_time = prunerNowSeconds();
  snprintf(e->measure_path, sizeof e->measure_path, "%s",
           opts->measure_path ? opts->measure_path : "");
  e->opts.measure_path = e->measure_path;
  if (e->opts.draft_size < 1 || e->opts.batch < 1)
    return prunerStatusError("--draft-size and --batch must be at least 1 (got %d, %d)",
                             e->opts.draft_size, e->opts.batch);
  if (!(e->opts.first_batch_tiles <= 1.0)) /* NaN fails too; < 0: the backend's */
    return prunerStatusError("--first-batch-tiles must be in [0, 1] (got %g)",
                             e->opts.first_batch_tiles);
  if (e->opts.neighbours < 0 || e->opts.neighbours > PRUNER_TUNE_NEIGHBOURS_MAX)
    return prunerStatusError("--neighbours must be in [0, %d] (got %d)",
                             PRUNER_TUNE_NEIGHBOURS_MAX, e->opts.neighbours);
  if (!(e->opts.epsilon >= 0.0 && e->opts.epsilon <= 1.0)) /* NaN fails too */
    return prunerStatusError("--epsilon must be in [0, 1] (got %g)", e->opts.epsilon);
  if (!(e->opts.time_limit_s >= 0.0 && e->opts.time_limit_s <= 1e9))
    return prunerStatusError("--time must be in [0, 1e9] seconds (got %g)", e->opts.time_limit_s);
  const char *target = opts->target ? opts->target : "sm_90";
  PrunerStatus st = prunerStatusOk();
  if (opts->target_desc) {
    /* The study's dataset target: the description is given; its kind picks the backend. */
    e->target = *opts->target_desc;
    if (!backend)
      backend = prunerBackendForTarget(&e->target);
    if (!backend)
      st = prunerStatusError("no backend for target %s", e->target.name);
  } else {
    st = backend ? backend->describeTarget(target, &e->target)
                 : prunerBackendLookup(target, &backend, &e->target);
  }
  if (!st.ok)
    return st;
  e->backend = backend;
  prunerTargetKey(&e->target, e->target_key, sizeof e->target_key);
  prunerFarmExpectTarget(e->opts.farm, e->target_key, backend->codegen_version);
  st = tuneResolveMeasure(e);
  if (!st.ok)
    return st;
  if (!e->opts.keep_faster_default && !backend->baseline_is_default)
    return prunerStatusError("--keep-default=never: %s's baseline (%s) is not a build of the "
                             "op by the compiler, so there is no default to keep or to pass "
                             "over; the flag is for IREE targets",
                             e->target.name, backend->baseline_name);

  if (opts->records_path) {
    st = prunerRecordsCreate(opts->records_path, &e->records);
    if (!st.ok)
      return st;
    if (prunerRecordsSkippedLines(e->records) > 0)
      tuneNoteRecordWarnings(e, e->records);
    size_t foreign = 0;
    for (size_t i = 0; i < prunerRecordsCount(e->records); ++i)
      if (strcmp(prunerRecordsGet(e->records, i)->target_key, e->target_key) != 0)
        ++foreign;
    if (foreign > 0)
      tuneNote(e, -1,
               "warning: %s: ignoring %zu record(s) of other targets (tuning for %s); they "
               "are never taken as measurements of this one",
               opts->records_path, foreign, e->target_key);
  } else {
    e->records = prunerRecordsCreateInMemory();
    if (!e->records)
      return prunerStatusError("out of memory creating the in-memory records");
  }

  if (opts->measure == PRUNER_TUNE_MEASURE_REPLAY) {
    if (!opts->measure_path)
      return prunerStatusError("--measure=replay needs a file: --measure=replay:FILE");
    if (!tuneFileExists(opts->measure_path))
      return prunerStatusError("replay file %s: %s", opts->measure_path, strerror(errno));
    st = prunerRecordsCreateReadOnly(opts->measure_path, &e->replay);
    if (!st.ok)
      return st;
    e->owns_replay = true;
    /* With no record of this target every trial of the budget would be "invalid: not in
     * replay file": refused before the search spends it. */
    size_t ours = 0;
    for (size_t i = 0; i < prunerRecordsCount(e->replay); ++i)
      ours += strcmp(prunerRecordsGet(e->replay, i)->target_key, e->target_key) == 0;
    PrunerStatus some = prunerRecordsRequireRecords(e->replay);
    if (!some.ok)
      return prunerStatusError("replay file %s", some.message);
    if (ours == 0) {
      const char *other = prunerRecordsBusiestTarget(e->replay);
      return prunerStatusError("replay file %s holds no record of target %s (its records "
                               "are of %s): pick the file's target with --target",
                               opts->measure_path, e->target_key, other ? other : "none");
    }
    if (prunerRecordsSkippedLines(e->replay) > 0)
      tuneNoteRecordWarnings(e, e->replay);
  }

  PrunerVerifierOptions vopts = prunerVerifierDefaultOptions();
  vopts.seed = (unsigned)e->rng;
  vopts.draft_free = e->opts.strategy == PRUNER_TUNE_MODEL_ONLY;
  if (e->opts.prior_momentum >= 0)
    vopts.prior_momentum = e->opts.prior_momentum;
  if (e->opts.prior_floor >= 0)
    vopts.prior_floor = e->opts.prior_floor;
  if (e->opts.prior_floor_unseen >= 0)
    vopts.prior_floor_unseen = e->opts.prior_floor_unseen;
  vopts.prior_unseen = e->opts.prior_unseen;
  st = prunerVerifierCreate(&e->target, &vopts, &e->verifier);
  if (!st.ok)
    return st;
  return prunerStatusOk();
}

int tuneEngineAddWorkload(TuneEngine *e, const PrunerWorkload *w, const char *where) {
  for (size_t i = 0; i < e->num_tasks; ++i)
    if (strcmp(e->tasks[i].w.key, w->key) == 0) {
      e->tasks[i].occurrences++;
      return (int)i;
    }
  TuneTask *tasks = realloc(e->tasks, (e->num_tasks + 1) * sizeof *tasks);
  if (!tasks)
    return -1;
  e->tasks = tasks;
  TuneTask *t = &e->tasks[e->num_tasks];
  memset(t, 0, sizeof *t);
  t->w = *w;
  t->occurrences = 1;
  snprintf(t->where, sizeof t->where, "%s%s", where && *where ? where : "",
           where && *where ? ": " : "");
  return (int)e->num_tasks++;
}

PrunerTuneStrategy prunerTuneStrategyFor(PrunerTuneStrategy strategy, const PrunerWorkload *w,
                                         const PrunerBackend *backend) {
  if (strategy != PRUNER_TUNE_AUTO)
    return strategy;
  return backend && backend->autoStrategy ? backend->autoStrategy(w) : PRUNER_TUNE_DRAFT_VERIFIER;
}

/* Whether the strategy ranks with the learned model (trained after every round). */
static bool tuneUsesVerifier(const TuneEngine *e) {
  PrunerTuneStrategy s = e->opts.strategy;
  return s == PRUNER_TUNE_DRAFT_VERIFIER || s == PRUNER_TUNE_VERIFIER_ONLY ||
         s == PRUNER_TUNE_MODEL_ONLY || s == PRUNER_TUNE_AUTO;
}

/* Trials and best of a task from the records (resume, ingest, after each round). */
static void tuneRefreshFromRecords(TuneEngine *e, TuneTask *t) {
  int64_t trials = 0;
  for (size_t i = 0; i < prunerRecordsCount(e->records); ++i) {
    const PrunerRecord *r = prunerRecordsGet(e->records, i);
    if (!r->is_baseline && strcmp(r->workload_key, t->w.key) == 0 &&
        strcmp(r->target_key, e->target_key) == 0)
      ++trials;
  }
  t->trials = trials;
  const PrunerRecord *best = prunerRecordsBest(e->records, t->w.key, e->target_key);
  if (best) {
    t->has_best = true;
    t->best = best->config;
    t->best_us = best->median_us;
  }
}

/* Names the prior and what it knows (its source, which of the tasks it was trained on). */
static void tuneNotePrior(TuneEngine *e, const char *path, const char *family) {
  if (e->num_tasks == 0)
    return; /* nothing to tune: a line about the prior would only read "0 of the 0" */
  PrunerVerifierOptions d = prunerVerifierDefaultOptions();
  size_t known = 0;
  for (size_t i = 0; i < e->num_tasks; ++i)
    known += prunerVerifierPriorKnows(e->verifier, e->tasks[i].w.key);
  const char *source = prunerVerifierPriorSource(e->verifier);
  char shipped[256] = "";
  if (family)
    snprintf(shipped, sizeof shipped,
             "the shipped model of %s, used as this log has no record of %s "
             "(--pretrained=none tunes without it); ",
             family, e->target_key);
  /* A prior whose file (or --prior-unseen) keeps it off unseen shapes says so. */
  char skipped[160] = "";
  if (prunerVerifierPriorSkipsUnseen(e->verifier) && known < e->num_tasks)
    snprintf(skipped, sizeof skipped,
             "not applied to the other %zu, shapes it has not seen (docs/transfer.md); ",
             e->num_tasks - known);
  tuneNote(e, -1,
           "verifier prior: %s (%strained on %zu workload(s) of %s, %zu of the %zu here; "
           "%smomentum %g, floor %g, unseen %g)",
           path, shipped, prunerVerifierPriorWorkloads(e->verifier),
           source[0] ? source : "an unnamed target", known, e->num_tasks, skipped,
           e->opts.prior_momentum >= 0 ? e->opts.prior_momentum : d.prior_momentum,
           e->opts.prior_floor >= 0 ? e->opts.prior_floor : d.prior_floor,
           e->opts.prior_floor_unseen >= 0 ? e->opts.prior_floor_unseen : d.prior_floor_unseen);
}

/* The prior's weights (--prior-momentum/-floor/-floor-unseen) set, but no prior used:
 * said, not silently ignored. */
static void tuneNotePriorUnused(TuneEngine *e, const char *why) {
  if (e->opts.prior_momentum >= 0 || e->opts.prior_floor >= 0 || e->opts.prior_floor_unseen >= 0)
    tuneNote(e, -1, "warning: --prior-momentum/--prior-floor/--prior-floor-unseen do nothing "
                    "here: no verifier prior is used (%s)", why);
}

/* Attaches the verifier's prior: the one asked for, or the shipped model of the
 * target's family when the log has nothing of this target (docs/transfer.md). */
static PrunerStatus tuneAttachPrior(TuneEngine *e) {
  PrunerTuneStrategy s = e->opts.strategy;
  bool uses_prior = s == PRUNER_TUNE_DRAFT_VERIFIER || s == PRUNER_TUNE_VERIFIER_ONLY ||
                    s == PRUNER_TUNE_AUTO;
  if (e->opts.prior_path) {
    if (!uses_prior)
      return prunerStatusError("--pretrained needs --strategy=draft+verifier, verifier-only or "
                               "auto, the strategies that rank with the verifier a prior was "
                               "trained as (got %s)",
                               prunerTuneStrategyName(s));
    PrunerStatus st = prunerVerifierSetPriorFile(e->verifier, e->opts.prior_path);
    if (!st.ok)
      return prunerStatusError("--pretrained=%s: %s", e->opts.prior_path, st.message);
    /* Features mean other things on another kind of target (a GPU's draft symbols are
     * not a CPU's): such a model is no prior here, only a wrong one. */
    const char *source = prunerVerifierPriorSource(e->verifier);
    if (source[0] && prunerTargetKeyKind(source) != prunerTargetKeyKind(e->target_key))
      return prunerStatusError("--pretrained=%s: trained on %s, another kind of target than "
                               "%s tuned here; a prior transfers between machines of one kind "
                               "(docs/transfer.md)",
                               e->opts.prior_path, source, e->target_key);
    tuneNotePrior(e, e->opts.prior_path, NULL);
    return st;
  }
  if (!uses_prior) {
    tuneNotePriorUnused(e, "the strategy does not rank with the verifier");
    return prunerStatusOk();
  }
  if (!e->opts.prior_dir) {
    tuneNotePriorUnused(e, "--pretrained=none, or no shipped models beside the tool");
    return prunerStatusOk();
  }
  for (size_t i = 0; i < prunerRecordsCount(e->records); ++i) {
    const PrunerRecord *r = prunerRecordsGet(e->records, i);
    if (!r->is_baseline && r->status == PRUNER_RECORD_OK &&
        strcmp(r->target_key, e->target_key) == 0) {
      tuneNotePriorUnused(e, "the records hold this target's own measurements, which the "
                             "verifier learns from instead of the shipped prior");
      return prunerStatusOk(); /* the target's own records teach the verifier */
    }
  }
  char family[64], path[1200];
  prunerTargetFamily(&e->target, family, sizeof family);
  snprintf(path, sizeof path, "%s/%s.json", e->opts.prior_dir, family);
  if (!family[0] || !tuneFileExists(path)) {
    tuneNotePriorUnused(e, "no shipped model for this target's family");
    return prunerStatusOk(); /* no shipped model for this family */
  }
  PrunerStatus st = prunerVerifierSetPriorFile(e->verifier, path);
  if (st.ok)
    tuneNotePrior(e, path, family);
  else
    tuneNote(e, -1, "warning: shipped verifier prior not used: %s", st.message);
  return prunerStatusOk();
}

/* --schedules: keep the configs whose schedule kind is in the mask. */
typedef struct KindFilter {
  const PrunerWorkload *w;
  uint32_t mask;
} KindFilter;

static bool keepScheduleKind(const PrunerConfig *c, void *user) {
  const KindFilter *f = user;
  return (f->mask >> prunerConfigScheduleKind(f->w, c)) & 1u;
}

/* "implicit-gemm, tensor-core" for a mask. */
static void formatKinds(uint32_t mask, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = '\0';
  for (int k = 0; k < PRUNER_SCHEDULE_KIND_COUNT && len < size; ++k)
    if ((mask >> k) & 1u)
      len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
                              prunerScheduleKindName((PrunerScheduleKind)k));
}

PrunerStatus tuneEnginePrepare(TuneEngine *e) {
  for (size_t i = 0; i < e->num_tasks; ++i) {
    TuneTask *t = &e->tasks[i];
    t->strategy = prunerTuneStrategyFor(e->opts.strategy, &t->w, e->backend);
    PrunerStatus st = e->backend->spaceCreate(&t->w, &e->target, &t->space);
    if (!st.ok) {
      tuneNote(e, (int)i, "warning: %s%s %s: no tuning space: %s", t->where, t->w.op_name, t->w.key,
               st.message);
      snprintf(t->no_space, sizeof t->no_space, "%s", st.message);
      t->done = true;
      continue;
    }
    uint32_t kinds = e->opts.schedule_kinds;
    if (kinds) {
      KindFilter f = {&t->w, kinds};
      PrunerStatus restricted = prunerSpaceRestrict(t->space, keepScheduleKind, &f);
      if (!restricted.ok)
        return restricted;
    }
    t->space_size = prunerSpaceCount(t->space);
    if (kinds && t->space_size == 0) {
      char names[160];
      formatKinds(kinds, names, sizeof names);
      tuneNote(e, (int)i, "warning: %s%s %s: no config of the schedule kinds asked for (%s) on %s; "
               "not tuned",
               t->where, t->w.op_name, t->w.key, names, e->target.name);
      t->done = true;
      continue;
    }
    /* The draft-free baseline has no draft at all (t->draft stays NULL). */
    if (e->opts.strategy != PRUNER_TUNE_MODEL_ONLY) {
      st = e->backend->draftCreate(&t->w, &e->target, &t->draft);
      if (!st.ok)
        return st;
    }
    if (t->space_size == 0) {
      char why[PRUNER_STATUS_MESSAGE_SIZE];
      prunerSpaceExplainEmpty(t->space, why, sizeof why);
      snprintf(t->no_space, sizeof t->no_space, "no valid config on %.40s (%.400s)",
               e->target.name, why);
      tuneNote(e, (int)i, "warning: %s%s %s: %s", t->where, t->w.op_name, t->w.key, t->no_space);
      t->done = true;
    }
    if (!t->done && e->opts.measure == e->backend->device_measure && e->backend->measurable &&
        !e->backend->measurable(&t->w, t->unmeasurable, sizeof t->unmeasurable)) {
      tuneNote(e, (int)i,
               "warning: %s%s %s: not measured: %s; no trials are spent on it, and it gets the "
               "models' choice, marked unmeasured",
               t->where, t->w.op_name, t->w.key, t->unmeasurable);
      t->done = true;
    }
    tuneRefreshFromRecords(e, t);
    if (t->trials > 0)
      tuneNote(e, (int)i, "resuming %s: %lld record(s) of this workload on %s", t->w.key,
               (long long)t->trials, e->target_key);
  }
  if (e->opts.strategy == PRUNER_TUNE_AUTO) {
    int vo = 0, dv = 0;
    for (size_t i = 0; i < e->num_tasks; ++i) {
      const TuneTask *t = &e->tasks[i];
      if (t->done)
        continue;
      if (t->strategy == PRUNER_TUNE_VERIFIER_ONLY)
        ++vo;
      else
        ++dv;
    }
    /* Said where auto leaves the draft's pool; silent where it is draft+verifier. */
    if (vo > 0)
      tuneNote(e, -1,
               "strategy auto: verifier-only for %d op(s), draft+verifier for %d, as the "
               "%s backend chooses per op (docs/tune.md; --strategy=draft+verifier: all of them)",
               vo, dv, e->backend->name);
  }
  PrunerStatus prior = tuneAttachPrior(e);
  if (!prior.ok)
    return prior;
  /* The verifier learns from what the log already holds (resume, ingest). */
  if (tuneUsesVerifier(e)) {
    PrunerStatus st = prunerVerifierTrain(e->verifier, e->records, e->target_key);
    if (!st.ok)
      tuneNote(e, -1, "warning: verifier training failed: %s", st.message);
  }
  return prunerStatusOk();
}

void tuneEngineDestroy(TuneEngine *e) {
  for (size_t i = 0; i < e->num_tasks; ++i) {
    TuneTask *t = &e->tasks[i];
    if (t->draft)
      prunerDraftDestroy(t->draft);
    if (t->space)
      prunerSpaceDestroy(t->space);
    free(t->pool);
  }
  free(e->tasks);
  if (e->backend && e->backend_state)
    e->backend->destroy(e->backend_state);
  if (e->verifier)
    prunerVerifierDestroy(e->verifier);
  /* A records file this run created and never wrote a line to is not left behind (a run
   * that failed to start, or was stopped before its first measurement). */
  prunerRecordsDiscardIfNew(e->records);
  if (e->records)
    prunerRecordsDestroy(e->records);
  if (e->replay && e->owns_replay)
    prunerRecordsDestroy(e->replay);
  for (size_t i = 0; i < sizeof e->owned_strings / sizeof *e->owned_strings; ++i)
    free(e->owned_strings[i]);
  memset(e, 0, sizeof *e);
}

/* ---------------------------------------------------------------------------------- */
/* Choosing candidates                                                                 */

typedef struct TuneCandidate {
  PrunerConfig config;
  double draft_us;
  double score; /* higher is better */
} TuneCandidate;

static bool tuneMeasured(TuneEngine *e, TuneTask *t, const PrunerConfig *c) {
  return prunerRecordsFind(e->records, t->w.key, e->target_key, c) != NULL;
}

static bool tuneInList(const TuneCandidate *list, size_t n, const PrunerConfig *c) {
  for (size_t i = 0; i < n; ++i)
    if (prunerConfigEqual(&list[i].config, c))
      return true;
  return false;
}

/* Whether one of list[0..n) steps like `c` in registers (prunerConfigSameRegisterStep). */
static bool tuneStepInList(const PrunerWorkload *w, const TuneCandidate *list, size_t n,
                           const PrunerConfig *c) {
  for (size_t i = 0; i < n; ++i)
    if (prunerConfigSameRegisterStep(w, &list[i].config, c))
      return true;
  return false;
}

/* What a sample may hold: configs not measured yet and not in `taken`. */
typedef struct TuneSampleFilter {
  TuneEngine *e;
  TuneTask *t;
  const TuneCandidate *taken;
  size_t n_taken;
} TuneSampleFilter;

static bool tuneUnmeasuredFilter(const PrunerConfig *c, void *user) {
  const TuneSampleFilter *f = user;
  return !tuneMeasured(f->e, f->t, c) && !tuneInList(f->taken, f->n_taken, c);
}

/* Up to n uniformly random unmeasured configs not in `taken` (prunerSpaceSample). */
static size_t tuneRandomConfigs(TuneEngine *e, TuneTask *t, const TuneCandidate *taken,
                                size_t n_taken, size_t n, PrunerConfig *out) {
  TuneSampleFilter f = {e, t, taken, n_taken};
  return prunerSpaceSample(t->space, n, &e->rng, tuneUnmeasuredFilter, &f, out, NULL);
}

/* Grows the draft pool until it holds at least `want` unmeasured configs or covers the
 * space. */
static bool tuneEnsurePool(TuneEngine *e, TuneTask *t, size_t want) {
  for (;;) {
    size_t unmeasured = 0;
    for (size_t i = 0; i < t->pool_len; ++i)
      if (!tuneMeasured(e, t, &t->pool[i].config))
        ++unmeasured;
    if (t->pool && (unmeasured >= want || t->pool_len >= t->space_size))
      return true;
    size_t request = t->pool_request ? t->pool_request * 2 : (size_t)e->opts.draft_size;
    if (request > t->space_size)
      request = (size_t)t->space_size;
    PrunerDraftCandidate *pool = realloc(t->pool, request * sizeof *pool);
    if (!pool)
      return false;
    t->pool = pool;
    t->pool_request = request;
    t->pool_len = prunerDraftTopN(t->draft, t->space, request, t->pool);
    if (t->pool_len < request) /* fewer valid configs than the space count promised */
      t->space_size = t->pool_len;
  }
}

static int tuneCompareScore(const void *a, const void *b) {
  const TuneCandidate *x = a, *y = b;
  return (x->score < y->score) - (x->score > y->score);
}

/* The ranked list of unmeasured candidates for one round (malloc'ed). */
static TuneCandidate *tuneRankedCandidates(TuneEngine *e, TuneTask *t, size_t want,
                                           size_t *n_out) {
  PrunerTuneStrategy s = t->strategy;
  size_t cap = (size_t)e->opts.draft_size;
  TuneCandidate *list = NULL;
  size_t n = 0;
  if (s == PRUNER_TUNE_DRAFT_VERIFIER || s == PRUNER_TUNE_DRAFT_ONLY) {
    if (!tuneEnsurePool(e, t, want))
      return NULL;
    /* draft+verifier: mutations of the best measured configs beside the pool, so that
     * the verifier can follow the measurements out of the draft's top N. */
    size_t extra = s == PRUNER_TUNE_DRAFT_VERIFIER ? (size_t)e->opts.neighbours : 0;
    list = malloc((t->pool_len + extra + 1) * sizeof *list);
    if (!list)
      return NULL;
    for (size_t i = 0; i < t->pool_len; ++i) {
      if (tuneMeasured(e, t, &t->pool[i].config))
        continue;
      list[n].config = t->pool[i].config;
      list[n].draft_us = t->pool[i].predicted_us;
      list[n].score = -t->pool[i].predicted_us;
      ++n;
    }
    PrunerConfig *children = extra ? malloc(extra * sizeof *children) : NULL;
    size_t n_children = children ? tuneMutateBest(e, t, extra, children) : 0;
    for (size_t i = 0; i < n_children; ++i) {
      bool in_pool = false;
      for (size_t j = 0; j < t->pool_len && !in_pool; ++j)
        in_pool = prunerConfigEqual(&t->pool[j].config, &children[i]);
      if (in_pool)
        continue;
      list[n].config = children[i];
      list[n].draft_us = prunerDraftPredictUs(t->draft, &children[i]);
      list[n].score = -list[n].draft_us;
      ++n;
    }
    free(children);
  } else {
    /* A random sample of the space (all of it when small); model-only adds mutations of
     * its best measured configs (evolve.c). */
    list = malloc(cap * sizeof *list);
    PrunerConfig *sample = malloc(cap * sizeof *sample);
    if (list && sample)
      n = s == PRUNER_TUNE_MODEL_ONLY ? tuneModelOnlyPool(e, t, cap, sample)
                                      : tuneRandomConfigs(e, t, NULL, 0, cap, sample);
    for (size_t i = 0; i < n; ++i)
      list[i].config = sample[i];
    free(sample);
    if (!list)
      return NULL;
    for (size_t i = 0; i < n; ++i) {
      list[i].draft_us = t->draft ? prunerDraftPredictUs(t->draft, &list[i].config) : 0.0;
      list[i].score = 0.0;
    }
  }
  if (n > 0 && tuneUsesVerifier(e)) {
    PrunerConfig *configs = malloc(n * sizeof *configs);
    float *scores = malloc(n * sizeof *scores);
    if (configs && scores) {
      for (size_t i = 0; i < n; ++i)
        configs[i] = list[i].config;
      PrunerStatus st = prunerVerifierPredict(e->verifier, &t->w, configs, NULL, n, scores);
      if (st.ok) {
        for (size_t i = 0; i < n; ++i)
          list[i].score = scores[i];
        qsort(list, n, sizeof *list, tuneCompareScore);
      } else {
        tuneNote(e, -1, "warning: verifier: %s (keeping the draft's order)", st.message);
      }
    }
    free(configs);
    free(scores);
  }
  *n_out = n;
  return list;
}

/* Picks up to k candidates: the best of the ranked list, each slot replaced with
 * probability epsilon by a random unmeasured config of the whole space (Pruner measures
 * 9 best + 1 random per round: epsilon = 0.1). */
static size_t tunePick(TuneEngine *e, TuneTask *t, size_t k, TuneCandidate *out) {
  size_t n_ranked = 0;
  TuneCandidate *ranked = tuneRankedCandidates(e, t, k, &n_ranked);
  if (!ranked)
    return 0;
  size_t next = 0, n = 0;
  bool random_strategy = e->opts.strategy == PRUNER_TUNE_RANDOM;
  /* draft+verifier's first batch: from slot `tiles_from` on, the best-ranked config of a
   * register step (thread tile; a conv's taps too) the batch lacks. The draft's top is
   * often one tile in many workgroup and k variants; when the draft misjudges that tile,
   * a batch of it teaches the verifier nothing about the others (docs/tune.md,
   * "Strategies"). */
  size_t tiles_from = k;
  double share = e->opts.first_batch_tiles < 0 ? e->backend->first_batch_tiles
                                               : e->opts.first_batch_tiles;
  if (t->strategy == PRUNER_TUNE_DRAFT_VERIFIER && t->trials == 0)
    tiles_from = (size_t)e->opts.batch - (size_t)lround(share * (double)e->opts.batch);
  while (n < k) {
    bool explore = !random_strategy && prunerRandomUniform(&e->rng) < e->opts.epsilon;
    if (explore && tuneRandomConfigs(e, t, out, n, 1, &out[n].config) == 1) {
      out[n].draft_us = t->draft ? prunerDraftPredictUs(t->draft, &out[n].config) : 0.0;
      out[n].score = 0.0;
      ++n;
      continue;
    }
    while (next < n_ranked && tuneInList(out, n, &ranked[next].config))
      ++next;
    if (next >= n_ranked)
      break;
    if (n >= tiles_from) {
      /* The best-ranked new tile moves up to `next`; none left: the next in order. */
      size_t j = next;
      while (j < n_ranked && (tuneInList(out, n, &ranked[j].config) ||
                              tuneStepInList(&t->w, out, n, &ranked[j].config)))
        ++j;
      if (j < n_ranked) {
        TuneCandidate c = ranked[j];
        memmove(&ranked[next + 1], &ranked[next], (j - next) * sizeof *ranked);
        ranked[next] = c;
      }
    }
    out[n++] = ranked[next++];
  }
  free(ranked);
  return n;
}

/* ---------------------------------------------------------------------------------- */
/* Measuring                                                                           */

static void tuneFillRecord(TuneEngine *e, TuneTask *t, const TuneCandidate *c,
                           PrunerRecord *r) {
  snprintf(r->workload_key, sizeof r->workload_key, "%s", t->w.key);
  r->workload = t->w;
  r->has_workload = true;
  snprintf(r->target_key, sizeof r->target_key, "%s", e->target_key);
  r->config = c->config;
  r->draft_score_us = c->draft_us > 0 ? c->draft_us : 0.0;
  r->verifier_score = c->score;
  r->timestamp = (double)time(NULL);
}

/* The time a study judges `r` by: the replay file's kept time where the run was answered
 * with one of the config's passes (replay_one_pass), else what was measured. */
static double tuneReplayKeptUs(TuneEngine *e, const TuneTask *t, const PrunerRecord *r) {
  if (!e->replay_one_pass)
    return r->median_us;
  const PrunerRecord *kept = prunerRecordsFind(e->replay, t->w.key, e->target_key, &r->config);
  return kept ? kept->median_us : r->median_us;
}

static PrunerStatus tuneAppend(TuneEngine *e, TuneTask *t, const TuneCandidate *c,
                               const PrunerRecord *r, int64_t *round_trials) {
  PrunerStatus st = prunerRecordsAppend(e->records, r);
  if (!st.ok)
    return st;
  t->trials++;
  t->new_trials++;
  (*round_trials)++;
  if (e->target_us > 0 && t->reached_at == 0 && r->status == PRUNER_RECORD_OK &&
      tuneReplayKeptUs(e, t, r) <= e->target_us)
    t->reached_at = t->trials;
  PrunerTuneEvent ev = {.kind = PRUNER_TUNE_EVENT_CANDIDATE,
                        .task = (int)(t - e->tasks),
                        .round = t->rounds,
                        .task_trials = t->trials,
                        .total_trials = tuneTotalTrials(e),
                        .budget = e->opts.trials,
                        .best_us = t->has_best ? t->best_us : 0.0,
                        .config = &c->config,
                        .status = r->status,
                        .measured_us = r->median_us,
                        .draft_us = c->draft_us,
                        .verifier_score = c->score,
                        .message = r->error[0] ? r->error : NULL};
  tuneEmit(e, &ev);
  return prunerStatusOk();
}

static PrunerStatus tuneMeasureReplay(TuneEngine *e, TuneTask *t, const TuneCandidate *cs,
                                      size_t n, int64_t *round_trials) {
  for (size_t i = 0; i < n; ++i) {
    const PrunerRecord *src =
        prunerRecordsFind(e->replay, t->w.key, e->target_key, &cs[i].config);
    PrunerRecord r;
    if (src) {
      r = *src;
      /* One pass of the config, as a tuning run would have timed it then; the kept
       * pass's samples and spread scaled to it, so that the record stays whole (its
       * median among its samples) and the study's run time is that pass's. */
      if (e->replay_one_pass && r.status == PRUNER_RECORD_OK && r.num_passes >= 2 &&
          r.median_us > 0) {
        int k = (int)(prunerRandomUniform(&e->pass_rng) * r.num_passes);
        double pass_us = r.passes_us[k < r.num_passes ? k : r.num_passes - 1];
        double scale = pass_us / r.median_us;
        for (int s = 0; s < r.num_samples; ++s)
          r.samples_us[s] *= scale;
        if (isfinite(r.spread_us))
          r.spread_us *= scale;
        r.median_us = pass_us;
      }
    } else {
      /* Kernel Tuner's replay convention: a config the file lacks is invalid here. */
      prunerRecordInit(&r);
      r.status = PRUNER_RECORD_INVALID;
      snprintf(r.error, sizeof r.error, "not in replay file %s", e->opts.measure_path);
    }
    tuneFillRecord(e, t, &cs[i], &r);
    PrunerStatus st = tuneAppend(e, t, &cs[i], &r, round_trials);
    if (!st.ok)
      return st;
    if (tuneStopRequested(e))
      break;
  }
  return prunerStatusOk();
}

/* What a backend reports to, for one batch of task `t` (or, with t NULL, the session). */
typedef struct TuneSinkContext {
  TuneEngine *e;
  TuneTask *t;
  const TuneCandidate *cs;
  int64_t *round_trials;
} TuneSinkContext;

static PrunerStatus tuneSinkCandidate(void *user, size_t i, PrunerRecord *r) {
  TuneSinkContext *c = user;
  tuneFillRecord(c->e, c->t, &c->cs[i], r);
  /* The backend built it with this build's generator: a compile error or a missing
   * result it reports itself is versioned too, so that a later generator retries it. */
  if (r->codegen_version == 0)
    r->codegen_version = tuneCodegenVersionOf(c->e, &c->t->w);
  return tuneAppend(c->e, c->t, &c->cs[i], r, c->round_trials);
}

static bool tuneSinkHasBaseline(void *user) {
  TuneSinkContext *c = user;
  return prunerRecordsBaseline(c->e->records, c->t->w.key, c->e->target_key) != NULL;
}

static PrunerStatus tuneSinkBaseline(void *user, const PrunerRecord *r) {
  TuneSinkContext *c = user;
  return prunerRecordsAppend(c->e->records, r);
}

static const char *tuneSinkTargetKey(void *user) {
  return ((TuneSinkContext *)user)->e->target_key;
}

static void tuneSinkAdoptTargetKey(void *user, const char *key) {
  TuneEngine *e = ((TuneSinkContext *)user)->e;
  snprintf(e->target_key, sizeof e->target_key, "%s", key);
}

/* The runner's input seed: fresh per bundle, below 2^53 (manifests are JSON numbers). */
static uint64_t tuneSinkNextSeed(void *user) {
  TuneEngine *e = ((TuneSinkContext *)user)->e;
  return prunerRandomNext(&e->rng) & ((1ull << 53) - 1);
}

static bool tuneSinkStopRequested(void *user) {
  return tuneStopRequested(((TuneSinkContext *)user)->e);
}

static void tuneSinkNote(void *user, bool session, const char *message) {
  TuneSinkContext *c = user;
  tuneNote(c->e, session || !c->t ? -1 : (int)(c->t - c->e->tasks), "%s", message);
}

/* The task ends here, unmeasured, as one PrunerBackend.measurable refuses (prepare). */
static void tuneSinkUnmeasurable(void *user, const char *why) {
  TuneSinkContext *c = user;
  TuneTask *t = c->t;
  if (!t || t->unmeasurable[0])
    return; /* said once (each rank of a farm may say it) */
  snprintf(t->unmeasurable, sizeof t->unmeasurable, "%s", why);
  for (size_t n = strlen(t->unmeasurable); n > 0 && isspace((unsigned char)t->unmeasurable[n - 1]);)
    t->unmeasurable[--n] = '\0'; /* a tool's last line may end in blanks */
  t->done = true;
  tuneNote(c->e, (int)(t - c->e->tasks),
           "warning: %s%s %s: not measured: %s; no more trials are spent on it, and it gets "
           "%s",
           t->where, t->w.op_name, t->w.key, t->unmeasurable,
           t->has_best ? "its best measured config" : "the models' choice, marked unmeasured");
}

static PrunerBackendSink tuneSink(TuneSinkContext *c) {
  PrunerBackendSink s = {.user = c,
                         .candidate = tuneSinkCandidate,
                         .hasBaseline = tuneSinkHasBaseline,
                         .baseline = tuneSinkBaseline,
                         .targetKey = tuneSinkTargetKey,
                         .adoptTargetKey = tuneSinkAdoptTargetKey,
                         .nextSeed = tuneSinkNextSeed,
                         .stopRequested = tuneSinkStopRequested,
                         .note = tuneSinkNote,
                         .unmeasurable = tuneSinkUnmeasurable};
  return s;
}

/* The backend's state, started on first use (the host's measuring child, say). */
PrunerStatus tuneBackendState(TuneEngine *e) {
  if (e->backend_state)
    return prunerStatusOk();
  PrunerBackendOptions bo = {.compile_jobs = e->opts.compile_jobs,
                             .runner_path = e->opts.runner_path,
                             .candidate_timeout_s = e->opts.candidate_timeout_s,
                             .stop = e->opts.stop,
                             .target = e->opts.target};
  return e->backend->create(&e->target, &bo, &e->backend_state);
}

/* A batch of `t` as the backend takes it; the arrays are malloc'ed (tuneBatchFree). */
static bool tuneBatch(TuneTask *t, const TuneCandidate *cs, size_t n, PrunerBackendBatch *b) {
  PrunerConfig *configs = malloc((n ? n : 1) * sizeof *configs);
  double *draft = malloc((n ? n : 1) * sizeof *draft);
  double *scores = malloc((n ? n : 1) * sizeof *scores);
  if (!configs || !draft || !scores) {
    free(configs);
    free(draft);
    free(scores);
    return false;
  }
  for (size_t i = 0; i < n; ++i) {
    configs[i] = cs[i].config;
    draft[i] = cs[i].draft_us;
    scores[i] = cs[i].score;
  }
  *b = (PrunerBackendBatch){
      .workload = &t->w, .configs = configs, .draft_us = draft, .verifier_scores = scores, .n = n};
  return true;
}

static void tuneBatchFree(PrunerBackendBatch *b) {
  free((void *)b->configs);
  free((void *)b->draft_us);
  free((void *)b->verifier_scores);
}

/* The target's device: the backend builds, measures (in isolation) and reports. */
static PrunerStatus tuneMeasureDevice(TuneEngine *e, TuneTask *t, const TuneCandidate *cs, size_t n,
                                      int64_t *round_trials) {
  PrunerStatus st = tuneBackendState(e);
  if (!st.ok)
    return st;
  PrunerBackendBatch batch;
  if (!tuneBatch(t, cs, n, &batch))
    return prunerStatusError("out of memory");
  TuneSinkContext ctx = {e, t, cs, round_trials};
  PrunerBackendSink sink = tuneSink(&ctx);
  /* With a farm the batch is split among the ranks; records come back in order. */
  st = e->opts.farm ? prunerFarmMeasure(e->opts.farm, e->backend, e->backend_state, &batch, &sink)
                    : e->backend->measure(e->backend_state, &batch, &sink);
  tuneBatchFree(&batch);
  return st;
}


/* ---------------------------------------------------------------------------------- */
/* Scheduling                                                                          */

/* Ansor's gradient of the weighted objective sum_i w_i * best_i with respect to the
 * trials given to task i (negative = worth tuning). */
static double tuneGradient(TuneEngine *e, const TuneTask *t) {
  double w = (double)t->occurrences;
  double g = t->best_us;
  double trials = (double)(t->trials > 0 ? t->trials : 1);
  double backward = 0.0;
  if (t->last_round_trials > 0 && t->prev_best_us > 0)
    backward = (g - t->prev_best_us) / (double)t->last_round_trials;
  double forward = -g / trials;
  /* Similar tasks (same op kind and body: Ansor's tasks of one tag): a task could reach
   * beta x their best FLOP rate. The body counts: a GELU's erf is one "FLOP" of libm's
   * dozens, so beside a bias add's rate it looked far from its best forever and took
   * every round while it stayed flat (a review's BERT layer, 2026-12-06). */
  double best_rate = 0.0;
  for (size_t i = 0; i < e->num_tasks; ++i) {
    const TuneTask *o = &e->tasks[i];
    if (o->w.kind == t->w.kind && o->w.body_hash == t->w.body_hash && o->has_best &&
        o->best_us > 0) {
      double rate = prunerWorkloadFlops(&o->w) / o->best_us;
      if (rate > best_rate)
        best_rate = rate;
    }
  }
  if (best_rate > 0) {
    double similar = TUNE_GRAD_BETA * prunerWorkloadFlops(&t->w) / best_rate - g;
    if (similar < forward)
      forward = similar;
  }
  return w * (TUNE_GRAD_ALPHA * backward + (1.0 - TUNE_GRAD_ALPHA) * forward);
}

/* A task without any valid measurement has no gradient; docs/tune.md gives it at most
 * this many rounds, after which the budget goes to the tasks that can be measured (an
 * f16 op on the host, which can never be measured, used to take every other round). */
#define TUNE_UNMEASURED_ROUNDS 3

static bool tuneTaskGaveUp(const TuneEngine *e, const TuneTask *t) {
  return !e->keep_searching && !t->has_best && t->rounds >= TUNE_UNMEASURED_ROUNDS;
}

TuneTask *tuneEngineNextTask(TuneEngine *e) {
  TuneTask *pick = NULL;
  /* Round-robin until every task has had a round (and for tasks without a valid
   * measurement yet, which have no gradient). */
  for (size_t i = 0; i < e->num_tasks; ++i) {
    TuneTask *t = &e->tasks[i];
    if (t->done || tuneTaskGaveUp(e, t))
      continue;
    if (!pick || t->rounds < pick->rounds)
      pick = t;
  }
  int warmup = e->opts.warmup_rounds > 1 ? e->opts.warmup_rounds : 1;
  if (!pick || !e->opts.gradient_scheduler || pick->rounds < warmup)
    return pick;
  double best_grad = 0.0;
  TuneTask *grad_pick = NULL;
  for (size_t i = 0; i < e->num_tasks; ++i) {
    TuneTask *t = &e->tasks[i];
    if (t->done || tuneTaskGaveUp(e, t))
      continue;
    if (!t->has_best)
      return t; /* unknown gradient: try a few rounds first */
    double g = tuneGradient(e, t);
    if (!grad_pick || g < best_grad) {
      grad_pick = t;
      best_grad = g;
    }
  }
  return grad_pick ? grad_pick : pick;
}

/* Candidates for the next round of `t` with `left` trials of budget left. Warm-up rounds
 * (a task's first) share the budget left among the tasks still waiting for theirs, so that
 * a budget smaller than tasks x batch still measures every task (Ansor's scheduler also
 * gives every task a round before following gradients): max(1, min(K, left / waiting)).
 * Later rounds take K, capped at the budget left. */
int64_t tuneEngineRoundSize(const TuneEngine *e, const TuneTask *t, int64_t left) {
  int64_t k = e->opts.batch < left ? e->opts.batch : left;
  if (t->rounds > 0)
    return k;
  int64_t waiting = 0;
  for (size_t i = 0; i < e->num_tasks; ++i)
    waiting += !e->tasks[i].done && e->tasks[i].rounds == 0;
  if (waiting > 1 && left / waiting < k)
    k = left / waiting;
  return k > 1 ? k : 1;
}

/* ---------------------------------------------------------------------------------- */
/* The loop                                                                            */

static PrunerStatus tuneRound(TuneEngine *e, TuneTask *t, int64_t k) {
  double start = prunerNowSeconds();
  TuneCandidate *cs = malloc((size_t)k * sizeof *cs);
  if (!cs)
    return prunerStatusError("out of memory");
  size_t n = tunePick(e, t, (size_t)k, cs);
  t->prev_best_us = t->has_best ? t->best_us : 0.0;
  int64_t round_trials = 0;
  PrunerStatus st = prunerStatusOk();
  if (n == 0) {
    t->done = true; /* every config measured, or none could be drawn */
  } else if (e->opts.measure == PRUNER_TUNE_MEASURE_REPLAY) {
    st = tuneMeasureReplay(e, t, cs, n, &round_trials);
  } else {
    st = tuneMeasureDevice(e, t, cs, n, &round_trials);
  }
  free(cs);
  t->rounds++;
  t->last_round_trials = round_trials;
  double before = t->has_best ? t->best_us : INFINITY;
  tuneRefreshFromRecords(e, t);
  /* An improvement is a new best at least 0.1% faster (noise floor of the medians). */
  if (t->has_best && t->best_us < before * 0.999)
    t->rounds_without_improvement = 0;
  else
    t->rounds_without_improvement++;
  bool early_stop =
      e->opts.early_stop > 0 && t->rounds_without_improvement >= e->opts.early_stop;
  if (early_stop)
    t->done = true;
  if ((uint64_t)t->trials >= t->space_size)
    t->done = true;
  if (e->target_us > 0 && t->reached_at > 0)
    t->done = true;
  t->seconds += prunerNowSeconds() - start;
  if (st.ok && round_trials > 0 && !tuneStopRequested(e) && tuneUsesVerifier(e)) {
    PrunerStatus vs = prunerVerifierTrain(e->verifier, e->records, e->target_key);
    if (!vs.ok)
      tuneNote(e, -1, "warning: verifier training failed: %s", vs.message);
  }
  PrunerTuneEvent ev = {.kind = PRUNER_TUNE_EVENT_ROUND,
                        .task = (int)(t - e->tasks),
                        .round = t->rounds,
                        .task_trials = t->trials,
                        .total_trials = tuneTotalTrials(e),
                        .budget = e->opts.trials,
                        .best_us = t->has_best ? t->best_us : 0.0};
  tuneEmit(e, &ev);
  if (early_stop)
    tuneNote(e, (int)(t - e->tasks), "%s: early stop after %d rounds without improvement",
             t->w.key, e->opts.early_stop);
  return st;
}

/* --measure=none: the models' first choice, labelled as unmeasured. */
static void tuneRankOnly(TuneEngine *e) {
  e->opts.epsilon = 0.0; /* the models' choice, no exploration */
  for (size_t i = 0; i < e->num_tasks; ++i) {
    TuneTask *t = &e->tasks[i];
    if (t->done || t->has_best)
      continue; /* a measured best (resumed or ingested) stays */
    TuneCandidate c;
    if (tunePick(e, t, 1, &c) == 1) {
      t->best = c.config;
      t->best_us = c.draft_us;
    }
  }
}

/* The workloads the device cannot measure get the models' choice, as with --measure=none;
 * picked after tuning, so that the verifier has learnt from the rest and the others'
 * random draws are those of a run without them. */
static void tuneRankUnmeasurable(TuneEngine *e) {
  double epsilon = e->opts.epsilon;
  e->opts.epsilon = 0.0;
  for (size_t i = 0; i < e->num_tasks; ++i) {
    TuneTask *t = &e->tasks[i];
    TuneCandidate c;
    if (t->unmeasurable[0] && !t->has_best && tunePick(e, t, 1, &c) == 1) {
      t->best = c.config;
      t->best_us = c.draft_us;
    }
  }
  e->opts.epsilon = epsilon;
}

/* --measure=bundle: candidates built here for another machine (the backend's export),
 * the budget shared among the tasks; nothing is measured. */
static PrunerStatus tuneExportOnly(TuneEngine *e) {
  PrunerStatus st = tuneBackendState(e);
  if (!st.ok)
    return st;
  TuneSinkContext session = {e, NULL, NULL, NULL};
  PrunerBackendSink session_sink = tuneSink(&session);
  st = e->backend->exportOpen(e->backend_state, e->opts.measure_path, &session_sink);
  if (!st.ok)
    return st;
  int64_t left = e->opts.trials - tuneTotalTrials(e);
  size_t open_tasks = 0, picked = 0;
  for (size_t i = 0; i < e->num_tasks; ++i)
    open_tasks += !e->tasks[i].done;
  for (size_t i = 0; i < e->num_tasks && st.ok && left > 0 && !tuneStopRequested(e); ++i) {
    TuneTask *t = &e->tasks[i];
    if (t->done)
      continue;
    int64_t k = left / (int64_t)(open_tasks ? open_tasks : 1);
    if (k > e->opts.batch)
      k = e->opts.batch;
    if (k < 1)
      k = 1;
    TuneCandidate *cs = malloc((size_t)k * sizeof *cs);
    if (!cs) {
      st = prunerStatusError("out of memory");
      break;
    }
    size_t n = tunePick(e, t, (size_t)k, cs);
    picked += n;
    double start = prunerNowSeconds();
    PrunerBackendBatch batch;
    if (tuneBatch(t, cs, n, &batch)) {
      TuneSinkContext ctx = {e, t, cs, NULL};
      PrunerBackendSink sink = tuneSink(&ctx);
      st = e->opts.farm
               ? prunerFarmExportAdd(e->opts.farm, e->backend, e->backend_state, &batch, &sink)
               : e->backend->exportAdd(e->backend_state, &batch, &sink);
      tuneBatchFree(&batch);
    } else {
      st = prunerStatusError("out of memory");
    }
    t->seconds += prunerNowSeconds() - start;
    t->rounds++;
    free(cs);
  }
  /* An empty bundle says why: a GPU host would measure nothing. */
  if (st.ok && picked == 0 && !tuneStopRequested(e)) {
    if (left <= 0)
      tuneNote(e, -1,
               "warning: no candidate to build: the records hold %lld trial(s) of these "
               "workloads, and the budget is %lld (--trials)",
               (long long)tuneTotalTrials(e), (long long)e->opts.trials);
    else
      tuneNote(e, -1,
               "warning: no candidate to build: no workload has a config left to measure "
               "(no valid config, not measurable, or every config measured: the warnings above "
               "say which)");
  }
  PrunerStatus closed = e->backend->exportClose(e->backend_state, st.ok, &session_sink);
  if (st.ok)
    st = closed;
  if (st.ok)
    tuneNote(e, -1,
             "nothing was measured in this run: only workloads with measurements in "
             "the records get pruner.config in the output");
  return st;
}

PrunerStatus tuneEngineRun(TuneEngine *e) {
  e->interrupted = false;
  e->stopped_on_error = false;
  e->time_up = false;
  e->start_time = prunerNowSeconds(); /* --time counts tuning, not start-up */
  if (e->opts.measure == PRUNER_TUNE_MEASURE_NONE) {
    tuneRankOnly(e);
    return prunerStatusOk();
  }
  if (e->opts.measure == PRUNER_TUNE_MEASURE_BUNDLE) {
    PrunerStatus st = tuneExportOnly(e);
    e->interrupted = tuneStopRequested(e);
    return st;
  }
  for (;;) {
    if (tuneStopRequested(e)) {
      e->interrupted = true;
      break;
    }
    int64_t left = e->opts.trials - tuneTotalTrials(e);
    if (left <= 0)
      break;
    if (e->opts.time_limit_s > 0 && prunerNowSeconds() - e->start_time >= e->opts.time_limit_s) {
      tuneNote(e, -1, "time limit of %g s reached", e->opts.time_limit_s);
      e->time_up = true;
      break;
    }
    TuneTask *t = tuneEngineNextTask(e);
    if (!t)
      break;
    PrunerStatus st = tuneRound(e, t, tuneEngineRoundSize(e, t, left));
    if (!st.ok) {
      e->stopped_on_error = true; /* the tasks not reached say so, not "no budget left" */
      return st;
    }
  }
  tuneRankUnmeasurable(e);
  if (!tuneStopRequested(e))
    tuneFinalCheck(e);
  if (tuneStopRequested(e))
    e->interrupted = true;
  return prunerStatusOk();
}

/* The baseline's name as its records spell it; a baseline record without a name is the
 * backend's own baseline, named the way the backends name their records ("cuBLAS" ->
 * "cublas"). */
static void baselineName(const PrunerRecord *base, const PrunerBackend *backend, char *out,
                         size_t size) {
  const char *name = base->baseline_name[0] ? base->baseline_name : backend->baseline_name;
  size_t i = 0;
  for (; name && name[i] && i + 1 < size; ++i)
    out[i] = base->baseline_name[0] ? name[i] : (char)tolower((unsigned char)name[i]);
  out[i] = '\0';
}

void tuneEngineTaskInfo(TuneEngine *e, size_t i, PrunerTuneTaskInfo *out) {
  const TuneTask *t = &e->tasks[i];
  memset(out, 0, sizeof *out);
  out->workload = &t->w;
  out->occurrences = t->occurrences;
  out->space_size = t->space_size;
  out->rounds = t->rounds;
  out->trials = t->trials;
  out->new_trials = t->new_trials;
  out->seconds = t->seconds;
  const PrunerRecord *best = prunerRecordsBest(e->records, t->w.key, e->target_key);
  if (best) {
    out->has_best = true;
    out->measured = true;
    out->best = best->config;
    out->best_us = best->median_us;
  } else if ((e->opts.measure == PRUNER_TUNE_MEASURE_NONE || t->unmeasurable[0]) &&
             t->best_us > 0) {
    out->has_best = true;
    out->best = t->best;
    out->best_us = t->best_us;
  }
  const PrunerRecord *base = prunerRecordsBaseline(e->records, t->w.key, e->target_key);
  if (!base && e->replay)
    base = prunerRecordsBaseline(e->replay, t->w.key, e->target_key);
  if (base && base->status == PRUNER_RECORD_OK) {
    out->baseline_us = base->median_us;
    baselineName(base, e->backend, out->baseline_name, sizeof out->baseline_name);
  }
  /* The final check's winner and medians replace the tuning-time ones (final.c). */
  if (out->has_best && out->measured && t->final_rounds > 0) {
    out->final_checked = true;
    out->best = t->final_config;
    out->best_us = t->final_best_us;
    out->best_p25_us = t->final_p25_us;
    out->best_p75_us = t->final_p75_us;
    out->tuning_best_us = t->final_tuning_us;
    out->final_candidates = t->final_candidates;
    out->final_rounds = t->final_rounds;
    if (t->final_baseline_us > 0) {
      out->baseline_us = t->final_baseline_us;
      out->baseline_p25_us = t->final_baseline_p25_us;
      out->baseline_p75_us = t->final_baseline_p75_us;
    }
  }
  /* A default measured faster stays (docs/tune.md, "Keeping the compiler's default"). */
  out->default_kept = e->backend->baseline_is_default && e->opts.keep_faster_default &&
                      out->has_best && out->measured && out->baseline_us > 0 &&
                      out->baseline_us < out->best_us;
}

size_t tuneEngineDraftTop(TuneEngine *e, size_t i, size_t n, PrunerConfig *out,
                          double *predicted_us) {
  TuneTask *t = &e->tasks[i];
  if (!t->draft || !t->space || n == 0)
    return 0;
  PrunerDraftCandidate *cands = malloc(n * sizeof *cands);
  if (!cands)
    return 0;
  size_t got = prunerDraftTopN(t->draft, t->space, n, cands);
  for (size_t j = 0; j < got; ++j) {
    out[j] = cands[j].config;
    predicted_us[j] = cands[j].predicted_us;
  }
  free(cands);
  return got;
}

PrunerStatus tuneIngest(TuneEngine *e, const char *path) {
  if (!tuneFileExists(path))
    return prunerStatusError("--ingest %s: %s", path, strerror(errno));
  PrunerRecords in = NULL;
  PrunerStatus st = prunerRecordsCreateReadOnly(path, &in);
  if (!st.ok)
    return st;
  /* A bundle's manifest or the module given for its results.jsonl: nothing to ingest. */
  st = prunerRecordsRequireRecords(in);
  if (!st.ok) {
    st = prunerStatusError("--ingest %s; a bundle's results are its results.jsonl", st.message);
    prunerRecordsDestroy(in);
    return st;
  }
  if (prunerRecordsSkippedLines(in) > 0)
    tuneNoteRecordWarnings(e, in);
  tuneFilterRecords(e, in);
  size_t added = 0, foreign = 0, ours = 0, known = 0;
  for (size_t i = 0; i < prunerRecordsCount(in) && st.ok; ++i) {
    const PrunerRecord *r = prunerRecordsGet(in, i);
    if (strcmp(r->target_key, e->target_key) != 0) {
      ++foreign;
      continue;
    }
    for (size_t k = 0; k < e->num_tasks; ++k)
      if (strcmp(e->tasks[k].w.key, r->workload_key) == 0) {
        ++ours;
        break;
      }
    bool have = r->is_baseline
                    ? prunerRecordsBaseline(e->records, r->workload_key, e->target_key) != NULL
                    : prunerRecordsFind(e->records, r->workload_key, e->target_key,
                                        &r->config) != NULL;
    if (have) {
      ++known;
      continue;
    }
    st = prunerRecordsAppend(e->records, r);
    added += st.ok;
  }
  if (foreign > 0)
    tuneNote(e, -1, "warning: %s: ignoring %zu record(s) of other targets (tuning for %s)",
             path, foreign, e->target_key);
  if (foreign < prunerRecordsCount(in) && ours == 0 && e->num_tasks > 0)
    tuneNote(e, -1, "warning: %s: none of its records is of a workload of this module "
                    "(results of another module?): they are kept in the log but tune nothing "
                    "here", path);
  prunerRecordsDestroy(in);
  if (known > 0) /* said, since the count below would otherwise not add up */
    tuneNote(e, -1,
             "ingested %zu record(s) from %s; %zu more the log already held (the same "
             "config, or a second baseline) were left out",
             added, path, known);
  else
    tuneNote(e, -1, "ingested %zu record(s) from %s", added, path);
  return st;
}

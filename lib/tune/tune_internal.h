/* lib/tune/tune_internal.h: the search engine shared by the MLIR session (session.c)
 * and the replay study (study.c). The engine (engine.c) knows workloads, records and the
 * backend interface (pruner/backend.h), never a particular backend, and never touches
 * MLIR; the session and the tuning spec (spec.c, tuneSpecText below) do. */
#ifndef PRUNER_TUNE_INTERNAL_H
#define PRUNER_TUNE_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pruner/backend.h"
#include "pruner/draft.h"
#include "pruner/records.h"
#include "pruner/space.h"
#include "pruner/target.h"
#include "pruner/text.h"
#include "pruner/tune.h"
#include "pruner/verifier.h"
#include "pruner/workload.h"

typedef struct TuneTask {
  PrunerWorkload w;
  int occurrences;
  /* The session's strategy for this op, auto resolved (prunerTuneStrategyFor). */
  PrunerTuneStrategy strategy;
  PrunerSpace space;
  PrunerDraft draft;
  uint64_t space_size;
  char no_space[PRUNER_STATUS_MESSAGE_SIZE]; /* why the backend has no space ("": it has) */
  /* Why the backend's device cannot measure it (PrunerBackend.measurable; "": it can):
   * no trials, the models' choice at the end of the run (tuneRankUnmeasurable). */
  char unmeasurable[200];
  /* Where its first op is ("loc(\"m.mlir\":12:8)"; "" in a study), for the warnings. */
  char where[160];
  /* Draft survivors, fastest first; grows (doubling) when the unmeasured part runs low. */
  PrunerDraftCandidate *pool;
  size_t pool_len;
  size_t pool_request;
  int rounds;
  int rounds_without_improvement;
  int64_t trials;     /* records of this workload on the target (incl. resumed)     */
  int64_t new_trials; /* measured by this engine                                    */
  bool has_best;
  PrunerConfig best;
  double best_us;
  /* For the gradient scheduler: best before the last round and that round's trials. */
  double prev_best_us;
  int64_t last_round_trials;
  double seconds;
  bool done;
  /* Study: trial count when the target latency was first reached (0: not yet). */
  int64_t reached_at;
  /* The final check of a backend that has one (final.c, PrunerBackend.recheck): the best
   * few configs re-measured back to back with the baseline; the winner has the lowest
   * median there. final_rounds 0: not done. */
  int final_rounds;
  int final_candidates;
  PrunerConfig final_config;
  double final_best_us, final_p25_us, final_p75_us; /* the winner's median and IQR      */
  double final_tuning_us;                           /* its median while tuning          */
  double final_baseline_us, final_baseline_p25_us, final_baseline_p75_us; /* 0: none   */
} TuneTask;

typedef struct TuneEngine {
  PrunerTuneOptions opts;
  PrunerTargetDesc target;
  char target_key[96];
  TuneTask *tasks;
  size_t num_tasks;
  PrunerRecords records;
  PrunerRecords replay;
  bool owns_replay;
  PrunerVerifier verifier;
  uint64_t rng;
  bool interrupted;
  bool stopped_on_error; /* the run ended on an error (a records file that took no line) */
  bool time_up; /* the run stopped at --time */
  double start_time;
  char measure_path[1024]; /* copy: the caller's string need not outlive Init */
  /* Copies of opts' other strings (target, prior_path, prior_dir, records_path,
   * ingest_path, runner_path), which opts points at: the backend reads some of them
   * during Run, after the caller's may be gone. Freed by tuneEngineDestroy. */
  char *owned_strings[6];
  char measure_text[1280]; /* what measures, in words (prunerTuneSessionMeasureDescription) */
  double target_us; /* study: stop a task once a measurement is <= this (0: off) */
  /* Study: never give a task up for lack of a valid measurement (tuneTaskGaveUp): with
   * one task that would end the run and count as never reaching the goals. */
  bool keep_searching;
  /* Study (PrunerTuneStudyOptions.replay_one_pass): a replayed config answers with one of
   * its recorded passes, drawn with pass_rng; reaching target_us is judged on the file's
   * kept time. */
  bool replay_one_pass;
  uint64_t pass_rng;
  const PrunerBackend *backend;     /* the target's (pruner/backend.h)                  */
  PrunerBackendState backend_state; /* started on first use (backend->create)           */
} TuneEngine;

/* Sets up target, records (opts->records_path or in memory), replay, verifier. The
 * backend is the table's for opts->target (prunerBackendLookup). */
PrunerStatus tuneEngineInit(TuneEngine *e, const PrunerTuneOptions *opts);
/* The same with a given backend (not NULL: its describeTarget names opts->target), for
 * tests that drive the real engine through a backend of their own. */
PrunerStatus tuneEngineInitWithBackend(TuneEngine *e, const PrunerTuneOptions *opts,
                                       const PrunerBackend *backend);
/* Adds one occurrence of `w`; returns the task index or -1 on allocation failure. */
int tuneEngineAddWorkload(TuneEngine *e, const PrunerWorkload *w, const char *where);
/* Builds spaces and drafts, reads resumed state. Tasks whose space cannot be built are
 * reported with a NOTE and marked done. */
PrunerStatus tuneEnginePrepare(TuneEngine *e);
PrunerStatus tuneEngineRun(TuneEngine *e);
/* The task that gets the next round (round-robin first, then the gradient scheduler);
 * NULL when every task is done. */
TuneTask *tuneEngineNextTask(TuneEngine *e);
/* Candidates for the next round of `t` when `left` trials of the budget remain: K, or in
 * a task's first round its share of what is left among the tasks still waiting for a
 * first round (at least 1), so that every task is measured. */
int64_t tuneEngineRoundSize(const TuneEngine *e, const TuneTask *t, int64_t left);
void tuneEngineTaskInfo(TuneEngine *e, size_t i, PrunerTuneTaskInfo *out);
size_t tuneEngineDraftTop(TuneEngine *e, size_t i, size_t n, PrunerConfig *out,
                          double *predicted_us);
void tuneEngineDestroy(TuneEngine *e);
/* Appends the records of `path` measured on the engine's target that the log lacks;
 * other targets' records are counted and reported, never used. */
PrunerStatus tuneIngest(TuneEngine *e, const char *path);
/* Drops from `records` (in memory) the records of the engine's target whose config does
 * not fit its workload (record_check.c), with a warning naming each file:line and
 * reason; call once the tasks are known. Returns how many were dropped. */
size_t tuneFilterRecords(TuneEngine *e, PrunerRecords records);
/* The code-generator version of the backend's kernel of `w` (PrunerBackend.codegenVersionOf,
 * else codegen_version): what its records must carry. */
int tuneCodegenVersionOf(const TuneEngine *e, const PrunerWorkload *w);
/* A consumer that was fused into a tuned contraction instead of being a task
 * (session.c): `config` is its own config when it still gets a kernel of its own (the
 * contraction's winner promotes), NULL when it shares the contraction's kernel. */
typedef struct TuneSpecConsumer {
  const PrunerWorkload *w;
  const PrunerConfig *config;
} TuneSpecConsumer;
/* The tuning spec for the tasks with a best config and the consumers with a config of
 * their own (spec.c); malloc'ed. The one MLIR type of this header: engine.c, evolve.c,
 * final.c and study.c include it without calling MLIR. */
#include <mlir-c/IR.h>
char *tuneSpecText(TuneEngine *e, MlirContext ctx, const TuneSpecConsumer *consumers,
                   size_t num_consumers);
bool tuneStopRequested(const TuneEngine *e);
/* --strategy=model-only (evolve.c): up to `cap` unmeasured configs of `t`'s space, half
 * of them mutations of its TUNE_EVOLVE_PARENTS best measured configs (none before the
 * first measurement), the rest uniformly random. Never runs the draft. */
#define TUNE_EVOLVE_PARENTS 8
size_t tuneModelOnlyPool(TuneEngine *e, TuneTask *t, size_t cap, PrunerConfig *out);
/* Up to `want` distinct unmeasured mutations of `t`'s TUNE_EVOLVE_PARENTS best measured
 * configs (one or two knobs changed; none before the first ok measurement). */
size_t tuneMutateBest(TuneEngine *e, TuneTask *t, size_t want, PrunerConfig *out);
/* The backend's state, started on first use (backend->create). */
PrunerStatus tuneBackendState(TuneEngine *e);
/* On a backend with a final check, measuring on its device: re-measures the best few
 * configs of each task back to back with the baseline and makes the fastest median the
 * winner (final.c, docs/measurement.md). */
void tuneFinalCheck(TuneEngine *e);
/* The whole-module check (module_check.c, PrunerBackend.checkModule): the `n` functions
 * `fs` of the module at `module_path` built with and without the spec at `spec_path`,
 * one line each appended to `report`. Fails when a build with the spec does not build,
 * run or agree (every function is still checked). */
PrunerStatus tuneCheckModule(TuneEngine *e, const char *module_path, const char *spec_path,
                             const PrunerFunctionSignature *fs, size_t n, PrunerText *report);
void tuneNote(TuneEngine *e, int task, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* prunerRecordsWarnings of `records` as one warning note per line. */
void tuneNoteRecordWarnings(TuneEngine *e, PrunerRecords records);

#endif /* PRUNER_TUNE_INTERNAL_H */

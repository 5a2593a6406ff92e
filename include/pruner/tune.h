/* pruner/tune.h: the end-to-end tuning driver behind `pruner-tune`.
 *
 * A session reads an MLIR module (a file, or an MlirModule the caller holds), finds its
 * tunable linalg ops and groups identical workloads by key (each is tuned once and
 * weighted by how often it occurs). It spreads a trial budget over the workloads
 * (round-robin first, then a gradient scheduler in the manner of Ansor's task scheduler,
 * docs/tune.md). Each round of one workload: the draft keeps the top N configs of the
 * space, the verifier ranks them, K are picked with
 * epsilon-greedy exploration (never a config already in the records), compiled and
 * measured by the chosen backend, appended to the records, and the verifier retrains.
 * The winners are written back as `pruner.config` (+ `pruner.tuning`) attributes and as a
 * transform-dialect tuning spec (docs/tuning-spec.md).
 *
 * The library never prints: progress, per-candidate lines and warnings are reported
 * through an event callback, and the summary table is returned as a string. Interruption
 * is cooperative: the caller's signal handler sets `*stop`, the session abandons the
 * current step (a host measurement in progress is killed within a fraction of a second
 * and not recorded; records are flushed per measurement) and Run returns with
 * prunerTuneSessionInterrupted() true; the best-so-far outputs can still be written. */
#ifndef PRUNER_TUNE_H
#define PRUNER_TUNE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pruner/records.h"
#include "pruner/space.h"
#include "pruner/status.h"
#include "pruner/target.h"
#include "pruner/verifier.h"
#include "pruner/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where latencies come from. */
typedef enum PrunerTuneMeasure {
  PRUNER_TUNE_MEASURE_GPU = 0, /* compile, run pruner-run on the local GPU              */
  PRUNER_TUNE_MEASURE_BUNDLE,  /* compile, write a bundle for another machine, stop      */
  PRUNER_TUNE_MEASURE_REPLAY,  /* latencies from a records file covering the space      */
  PRUNER_TUNE_MEASURE_NONE,    /* models only: nothing is measured, results say so      */
  PRUNER_TUNE_MEASURE_HOST,    /* --target=host: JIT-compiled and timed on this CPU,
                                  OpenBLAS baseline (pruner/backend/host.h). MEASURE_GPU with a
                                  host target means this: the target's own device.     */
} PrunerTuneMeasure;

/* How candidates are chosen (the study compares them; tuning uses AUTO by default). */
typedef enum PrunerTuneStrategy {
  PRUNER_TUNE_DRAFT_VERIFIER = 0, /* draft top N, verifier ranks, epsilon-greedy       */
  PRUNER_TUNE_DRAFT_ONLY,         /* draft top N in draft order, epsilon-greedy        */
  PRUNER_TUNE_VERIFIER_ONLY,      /* random N of the space, verifier ranks (the
                                     verifier as tuned: draft features, draft blend and
                                     the draft's order before 8 records; not draft-free) */
  PRUNER_TUNE_MODEL_ONLY,         /* draft-free baseline (Ansor/TVM): random N of the space
                                     plus mutations of the best measured, ranked by a model
                                     of the configs' own features trained online;
                                     epsilon-greedy; the draft is never run             */
  PRUNER_TUNE_RANDOM,             /* uniformly random unmeasured configs               */
  PRUNER_TUNE_AUTO,               /* per op, by the backend (prunerTuneStrategyFor): on
                                     host targets verifier-only for matmuls,
                                     draft+verifier everywhere else (docs/tune.md)     */
  PRUNER_TUNE_STRATEGY_COUNT
} PrunerTuneStrategy;

const char *prunerTuneStrategyName(PrunerTuneStrategy strategy);
struct PrunerBackend;
/* The strategy `strategy` uses for workload `w` on `backend`'s targets: itself, except
 * AUTO, which is the backend's choice per op (PrunerBackend.autoStrategy, chosen on that
 * backend's datasets; draft+verifier where it has none). The host backend's rule, chosen
 * leave-one-dataset-out on the 22 host datasets (docs/quality.md, "The runs' fixed
 * cost"): matmuls verifier-only (the verifier over random samples of the space), every
 * other op draft+verifier. */
PrunerTuneStrategy prunerTuneStrategyFor(PrunerTuneStrategy strategy, const PrunerWorkload *w,
                                         const struct PrunerBackend *backend);
const char *prunerTuneMeasureName(PrunerTuneMeasure measure);

typedef enum PrunerTuneEventKind {
  PRUNER_TUNE_EVENT_ROUND = 0,  /* a round of one workload finished                    */
  PRUNER_TUNE_EVENT_CANDIDATE,  /* one candidate was measured (or failed)              */
  PRUNER_TUNE_EVENT_NOTE,       /* a warning or remark for the user (`message`)        */
} PrunerTuneEventKind;

typedef struct PrunerTuneEvent {
  PrunerTuneEventKind kind;
  int task;              /* workload index, -1 for session-wide notes           */
  int round;             /* rounds of this workload so far                      */
  int64_t task_trials;   /* measurements of this workload (incl. resumed ones)  */
  int64_t total_trials;  /* measurements of all workloads                       */
  int64_t budget;        /* the trial budget                                    */
  double best_us;        /* best measured latency of the workload, 0 if none    */
  /* CANDIDATE only (config and message, like the event, valid during the callback only): */
  const PrunerConfig *config;
  PrunerRecordStatus status;
  double measured_us;
  double draft_us;
  double verifier_score;
  const char *message;   /* NOTE: the text; CANDIDATE: the error, if any        */
} PrunerTuneEvent;

typedef void (*PrunerTuneEventFn)(const PrunerTuneEvent *event, void *user);

/* PrunerTuneOptions.neighbours: default (chosen on the wide attention dataset and the
 * twelve small host sets, docs/quality.md) and the largest accepted. */
#define PRUNER_TUNE_NEIGHBOURS 256
#define PRUNER_TUNE_NEIGHBOURS_MAX 65536
/* PrunerTuneOptions.first_batch_tiles: default, the backend's share
 * (PrunerBackend.first_batch_tiles: 0.5 on the host, 0 elsewhere). */
#define PRUNER_TUNE_FIRST_BATCH_TILES -1.0
#define PRUNER_TUNE_FINAL_MAX 8 /* final_candidates at most (host: one child request) */

/* The strings are copied by prunerTuneSessionCreate / CreateForModule: they need not
 * outlive the call. `stop`, `farm` and `user` must live as long as the session. */
typedef struct PrunerTuneOptions {
  const char *target;        /* prunerTargetLookup name; default "sm_90"              */
  int64_t trials;            /* budget over all workloads, counting resumed records;
                                default 200                                            */
  int draft_size;            /* N: draft survivors per round; default 512             */
  int neighbours;            /* draft+verifier: mutations of the task's best measured
                                configs ranked beside the draft's N each round, so the
                                search can leave the draft's top (docs/tune.md); 0:
                                the draft's N only. Default PRUNER_TUNE_NEIGHBOURS    */
  double first_batch_tiles;  /* draft+verifier: this share of a task's first batch (no
                                record of it yet), its last slots, each take the
                                best-ranked config (the draft's order, or a prior's
                                blend) of a register step (thread tile; a conv's
                                taps too) not yet in the batch, so that the
                                verifier's first records compare steps
                                (docs/tune.md); 0: the ranking's order. In [0, 1], or
                                < 0: the backend's (PRUNER_TUNE_FIRST_BATCH_TILES)    */
  int batch;                 /* K: candidates measured per round; default 16          */
  double epsilon;            /* share of K drawn at random; default 0.1               */
  double time_limit_s;       /* stop after this many seconds; 0: no limit             */
  int early_stop;            /* a workload stops after R rounds without improvement;
                                0: never                                               */
  bool gradient_scheduler;   /* after the first round-robin pass; default true        */
  int warmup_rounds;         /* round-robin rounds every task gets before the gradient
                                scheduler takes over; default 1 (Ansor's); <1 means 1 */
  PrunerTuneStrategy strategy;
  /* Transfer (Pruner's MoA; docs/transfer.md): a verifier model trained on another
   * machine's records (pruner-eval --train) attached as the verifier's frozen prior.
   * prior_path NULL: none, unless prior_dir holds the shipped model of the target's
   * family (prunerTargetFamily + ".json") and the log has no record of the target:
   * then that one, named in a NOTE. Only draft+verifier and verifier-only use a prior
   * (model-only is draft-free; the prior's features include the draft's).            */
  const char *prior_path;
  const char *prior_dir;
  double prior_momentum; /* < 0: the verifier's default (pruner/verifier.h); 1: frozen */
  double prior_floor;    /* < 0: the verifier's default (a workload the prior knows)   */
  double prior_floor_unseen; /* < 0: the verifier's default (one it was not trained on) */
  PrunerPriorUnseen prior_unseen; /* default: as the prior's file says (pruner/verifier.h) */
  /* The target description to use instead of looking `target` up (the study's dataset
   * target, prunerTargetFromKey); NULL: look `target` up. Copied at init.            */
  const PrunerTargetDesc *target_desc;
  /* Schedule kinds the search may pick (bit k = PrunerScheduleKind k, pruner/space.h);
   * 0: all. Each workload's space is restricted to them (prunerSpaceRestrict); a workload
   * with none of them is skipped with a warning. */
  uint32_t schedule_kinds;
  /* Before tuning, rewrite each 1x1 stride-1 conv_2d_nhwc_hwcf as the linalg.matmul it is
   * (prunerIrConv1x1ToMatmul, pruner/ir.h), so it is tuned, written and compiled as a
   * GEMM: tensor-core tiles of any M (docs/tune.md). prunerTuneSessionCreate only: a
   * caller's module (CreateForModule) is the caller's to rewrite first. Default false. */
  bool conv1x1_as_matmul;
  PrunerTuneMeasure measure;
  const char *measure_path;  /* bundle: folder; replay: records file                   */
  const char *records_path;  /* the tuning log (append + resume); NULL: in memory     */
  const char *ingest_path;   /* runner results to read in before tuning; may be NULL  */
  const char *runner_path;   /* pruner-run for MEASURE_GPU; NULL: next to the tool    */
  int compile_jobs;          /* parallel compile workers; 0: number of cores          */
  int final_candidates;      /* host: configs per workload re-measured back to back at
                                the end, the fastest median wins; default 4; 0: off    */
  /* On a backend whose baseline is the compiler's default (baseline_is_default): leave
   * an op unconfigured when the default measured faster than its best config (the final
   * check's medians when there was one). Default true; false writes the winner anyway
   * (--keep-default=never, docs/tune.md). */
  bool keep_faster_default;
  uint64_t seed;             /* epsilon-greedy and sampling; default 1                */
  /* Watchdog per candidate (host: JIT + runs; GPU: compile and pruner-run); 0: the
   * backend's default (60 s; 10 s for pruner-run). */
  double candidate_timeout_s;
  const volatile sig_atomic_t *stop; /* set by the caller's signal handler; may be NULL */
  /* MPI ranks that build and measure candidates for this process, rank 0
   * (pruner/farm.h); NULL: everything runs here. Not owned. */
  struct PrunerFarmImpl *farm;
  /* The caller already checked the input with prunerIrCheckParseIsolated, so the session
   * does not again: pruner-tune under mpirun checks before MPI starts, since a child
   * forked from an MPI process (its progress and heartbeat threads) can hang. */
  bool input_parse_checked;
  PrunerTuneEventFn on_event;
  void *user;
} PrunerTuneOptions;

PrunerTuneOptions prunerTuneDefaultOptions(void);

/* What the session knows about one distinct workload. */
typedef struct PrunerTuneTaskInfo {
  const PrunerWorkload *workload; /* the session's: valid until prunerTuneSessionDestroy */
  int occurrences;           /* ops in the module with this workload                  */
  uint64_t space_size;       /* valid configs                                         */
  int rounds;
  int64_t trials;            /* measurements of this workload on this target          */
  int64_t new_trials;        /* of those, made in this session                        */
  bool has_best;
  bool measured;             /* best_us is a measurement (false: a model prediction)  */
  PrunerConfig best;
  double best_us;            /* measured median, or draft prediction when !measured   */
  double baseline_us;        /* cuBLAS (from the records), 0 if unknown               */
  char baseline_name[32];
  double seconds;            /* wall time spent on this workload                      */
  /* Host runs: the final check (docs/measurement.md). When final_checked, `best` is its
   * winner, best_us / baseline_us are medians of the back-to-back rounds and these their
   * interquartile ranges; tuning_best_us is the winner's median while tuning. */
  bool final_checked;
  int final_candidates, final_rounds;
  double best_p25_us, best_p75_us;
  double baseline_p25_us, baseline_p75_us;
  double tuning_best_us;
  /* The compiler's default (the baseline, PrunerBackend.baseline_is_default) measured
   * faster than `best`: the op is written without a config, so the compiler keeps its
   * own choice; `best` and best_us still describe the fastest config found. */
  bool default_kept;
} PrunerTuneTaskInfo;

typedef struct PrunerTuneSessionImpl *PrunerTuneSession;

/* mlir-c/IR.h's MlirModule, declared here so that the headers built on this one
 * (pruner/backend.h) need no MLIR include path; callers of CreateForModule include
 * mlir-c/IR.h themselves. */
struct MlirModule;

/* Parses `input_path` (MLIR) into a context of its own and prepares the tasks as
 * prunerTuneSessionCreateForModule does. The parse runs first in a child process, so a
 * parser crash is an error status, not the caller's death. A malformed module fails with
 * the parser's diagnostic (file:line:col). Destroy with prunerTuneSessionDestroy, which
 * destroys that module and context. */
PrunerStatus prunerTuneSessionCreate(const char *input_path, const PrunerTuneOptions *opts,
                                     PrunerTuneSession *out);
/* (Both Create functions take NULL `opts` as prunerTuneDefaultOptions().) */

/* Prepares the tasks of a module the caller holds (a compiler embedding the tuner,
 * docs/embedding.md): target lookup, spaces, draft, verifier, records (opened and loaded;
 * records of other targets are counted and reported as a warning), replay file. The
 * tunable ops are linalg ops on tensors with static shapes (what else is found gets a NOTE
 * remark and is left alone, docs/embedding.md "What pruner-tune reads"). A module without
 * tunable ops is not an error: it has zero tasks and a NOTE explains why.
 *
 * Ownership: the module and its context stay the caller's. The session borrows them
 * (it keeps handles to the module's tunable ops): both must outlive the session, and
 * those ops must not be erased or replaced until the session is destroyed. Nothing in
 * the module changes until prunerTuneSessionAnnotateModule or WriteOutput; Run does not
 * touch the module or its context. The context needs the dialects the module uses (it
 * parsed it) and the builtin dialect; the session attaches no diagnostic handler to it. */
PrunerStatus prunerTuneSessionCreateForModule(struct MlirModule module,
                                              const PrunerTuneOptions *opts,
                                              PrunerTuneSession *out);
void prunerTuneSessionDestroy(PrunerTuneSession session);

/* Tunes until the budget, the time limit, early stopping or *stop. Fails only for
 * session-wide problems (no GPU for MEASURE_GPU, an unwritable records file). */
PrunerStatus prunerTuneSessionRun(PrunerTuneSession session);

/* What measures in this session, in words, e.g. "host (JIT-compiled and timed on this
 * CPU: AMD EPYC, 2 cores, avx512; baseline OpenBLAS)" or "gpu (compiled here, timed by
 * pruner-run on the local GPU; baseline cuBLAS)". Owned by the session. */
const char *prunerTuneSessionMeasureDescription(PrunerTuneSession session);

/* True when the last Run ended because *stop was set. */
bool prunerTuneSessionInterrupted(PrunerTuneSession session);

size_t prunerTuneSessionNumTasks(PrunerTuneSession session);
/* Task i (< prunerTuneSessionNumTasks; past the end *out is zeroed: no workload). */
void prunerTuneSessionGetTask(PrunerTuneSession session, size_t i, PrunerTuneTaskInfo *out);

/* Writes the winners into the session's module (the caller's one for a session made by
 * CreateForModule): `pruner.config` and `pruner.tuning` on every op of every task that
 * has a best config (replacing those of an earlier tuning), and on each fused consumer
 * `pruner.fused` or a config of its own (docs/tune.md, "Write-back"). Ops of tasks
 * without a best config are left as they are. The module can then be applied in memory
 * with prunerApplyConfig (pruner/apply.h). Fails only when an attribute cannot be built. */
PrunerStatus prunerTuneSessionAnnotateModule(PrunerTuneSession session);

/* prunerTuneSessionAnnotateModule, then the module printed to `path` (atomically). With
 * no tunable op, a session made from a file copies the input file unchanged. */
PrunerStatus prunerTuneSessionWriteOutput(PrunerTuneSession session, const char *path);

/* Writes the transform-dialect tuning spec (docs/tuning-spec.md). */
PrunerStatus prunerTuneSessionWriteSpec(PrunerTuneSession session, const char *path);

/* Both of the above in one step, all or nothing (prunerWriteFilesAtomic): the module to
 * `output` and the spec to `spec` (either may be NULL); when one cannot be written,
 * neither file changes. */
PrunerStatus prunerTuneSessionWriteOutputs(PrunerTuneSession session, const char *output,
                                           const char *spec);

/* The spec as text (malloc'ed, caller frees); NULL on allocation failure. */
char *prunerTuneSessionSpecText(PrunerTuneSession session);

/* True when the session's backend checks a whole module after tuning (IREE's CPU target,
 * measuring on its device) and at least one op got a config: what
 * prunerTuneSessionCheckModule would do something for. */
bool prunerTuneSessionCanCheckModule(PrunerTuneSession session);

/* The whole-module check (PrunerBackend.checkModule; docs/iree.md, "The module check"):
 * each public function of the input that takes and returns static tensors (at most 8),
 * built by the backend's compiler from the session's module less the compiler's own config
 * attribute (IREE's compilation_info: annotated or left by an earlier tuning, it would
 * make the build without the spec a tuned one), with the spec at `spec_path`
 * (NULL: the session's spec, through a temporary file) and without it; both run on the
 * same random inputs, the results compared, then timed back to back. *report (malloc'ed,
 * caller frees; may be NULL on failure) has one line per function and a line for the
 * functions left out. Fails when a build with the spec does not build, run or agree with
 * the one without it, or when the check cannot run at all. */
PrunerStatus prunerTuneSessionCheckModule(PrunerTuneSession session, const char *spec_path,
                                          char **report);

/* The final table (op, shape, best µs, GFLOP/s, cuBLAS µs, speedup, trials, time) as
 * text (malloc'ed, caller frees). */
char *prunerTuneSessionSummary(PrunerTuneSession session);

/* The draft's `n` best configs of task i (fastest first) into `out` (n entries) with
 * their predicted µs in `predicted_us`; returns how many were written. */
size_t prunerTuneSessionDraftTop(PrunerTuneSession session, size_t i, size_t n,
                                 PrunerConfig *out, double *predicted_us);

/* ---------------------------------------------------------------------------------- */
/* Search-quality study on a complete-space replay file.                              */

typedef struct PrunerTuneStudyOptions {
  const char *replay_path;  /* records covering whole spaces                          */
  const char *target;       /* only records of this target's key are used            */
  /* Study records measured on another machine: a records key (prunerTargetFromKey:
   * that machine's description where the key says it, this one's elsewhere) or
   * "records" (the file's own key, the one with most records). Replaces `target`; the
   * table's first line says what was assumed. NULL: off.                              */
  const char *dataset_target;
  int seeds;                /* repetitions per strategy; default 5                    */
  /* The first seed: seeds first_seed .. first_seed + seeds - 1 (default 1). Another
   * range repeats a study on fresh seeds, to confirm a choice made on the first.      */
  int first_seed;
  double within;            /* "good enough": best * (1 + within); default 0.05       */
  double within_tight;      /* the second goal; default 0.02                          */
  int64_t max_trials;       /* per run; 0: the workload's space size                  */
  int draft_size;
  int neighbours;           /* as PrunerTuneOptions.neighbours (draft+verifier only)   */
  double first_batch_tiles; /* as PrunerTuneOptions.first_batch_tiles                  */
  int batch;
  double epsilon;
  /* Transfer study (docs/transfer.md): a verifier model of another machine's records.
   * When set, the methods PRUNER_TUNE_STUDY_FROZEN and _ADAPTED run with it as the
   * verifier's prior (momentum 1, and prior_momentum); < 0: the verifier's defaults. */
  const char *prior_path;
  double prior_momentum;
  double prior_floor;
  double prior_floor_unseen;
  PrunerPriorUnseen prior_unseen;
  /* Methods to run: bit m for method m (1u << PRUNER_TUNE_RANDOM, ...); 0: every
   * strategy, and both prior methods when prior_path is set. */
  unsigned methods;
  /* When set, every run's measurements in order are written to this file (created or
   * truncated), one JSON object per line: workload, method, seed, trial (1-based),
   * config, status, median_us and of_best (median over the workload's best), so that a
   * method's trial count can be traced to the configs it measured (docs/tune.md,
   * "Search study"). NULL: none. */
  const char *trace_path;
  /* When set, each replayed measurement answers with one of the config's recorded passes
   * (passes_us), drawn per seed, instead of its kept time (median_us), so that a run
   * learns from the pass-to-pass noise a tuning run on that machine sees; the goals and
   * the best stay on the kept times. A record of fewer than two passes answers with its
   * kept time. Default false (docs/tune.md, "Search study"). */
  bool replay_one_pass;
  /* When set, each run's log starts with every ok record of the file's other workloads
   * of the target, as a tuner's records file holds the ops it tuned before: its verifier
   * trains on them from the first round (the held-out situation of
   * scripts/verifier-heldout.sh, in the search). Default false: the log starts empty. */
  bool context;
  const volatile sig_atomic_t *stop;
  PrunerTuneEventFn on_event; /* NOTEs (per-run results) */
  void *user;
} PrunerTuneStudyOptions;

PrunerTuneStudyOptions prunerTuneStudyDefaultOptions(void);

/* The study's methods: the strategies (PrunerTuneStrategy), then draft+verifier with
 * the study's prior: frozen (the prior alone, never adapted) and adapted (momentum). */
enum {
  PRUNER_TUNE_STUDY_FROZEN = PRUNER_TUNE_STRATEGY_COUNT,
  PRUNER_TUNE_STUDY_ADAPTED,
  PRUNER_TUNE_STUDY_METHOD_COUNT
};
/* "draft+verifier", ..., "pretrained-frozen", "pretrained"; NULL out of range. */
const char *prunerTuneStudyMethodName(int method);
/* Parses a comma-separated list of method names into a PrunerTuneStudyOptions.methods
 * mask; fails naming the unknown name and listing the accepted ones. */
PrunerStatus prunerTuneStudyParseMethods(const char *list, unsigned *mask);

/* The study's goals: within `within`, within `within_tight`, and within noise. Noise is
 * pass-to-pass when the best record carries its passes (`passes_us`, a dataset merged
 * from several passes): a config ties the best when it is no slower than the best's
 * second fastest pass, i.e. inside what a second pass of the best measured. Otherwise it
 * is the median relative IQR of the workload's configs' samples (spread within a pass). */
enum {
  PRUNER_TUNE_GOAL_WITHIN = 0,
  PRUNER_TUNE_GOAL_TIGHT,
  PRUNER_TUNE_GOAL_NOISE,
  PRUNER_TUNE_GOAL_COUNT
};

/* Over the seeds of one strategy and goal: trials to reach the goal (max_trials + 1 for
 * a run that never did), the recorded run time of the configs measured until then (sum
 * of their samples_us), and the wall-clock tuning time until then: the tuner's own time
 * plus the measured configs' recorded measure_s (compile, check, samples); NaN when a
 * record has no cost (records measured before costs were recorded). Medians. */
typedef struct PrunerTuneStudyStats {
  double mean, median, p25, p75;
  int64_t min, max;
  double run_s_median;
  double wall_s_median;
} PrunerTuneStudyStats;

/* Per workload of the replay file and strategy: trials each seed needed to come within
 * `within` of the file's best ok latency (max_trials + 1 when it never did). */
typedef struct PrunerTuneStudyRow {
  char workload_key[PRUNER_WORKLOAD_KEY_SIZE];
  char target_key[96];   /* the records' key that was studied                      */
  char target_note[512]; /* what a dataset target assumed ("" without one)         */
  char records_note[512]; /* the file's records left out, config not fitting ("")    */
  /* ok records of this workload a replay never returns (a config's earlier duplicate, a
   * config outside the space), left out of the best and the goals ("": none). */
  char reach_note[256];
  uint64_t space_size;
  int64_t replay_configs;   /* ok records of the workload in the file                 */
  double best_us;
  double goal_us[PRUNER_TUNE_GOAL_COUNT];
  bool noise_from_passes; /* the noise goal is the best's second fastest pass          */
  int64_t goal_configs[PRUNER_TUNE_GOAL_COUNT]; /* ok configs of the file within it  */
  bool ran[PRUNER_TUNE_STUDY_METHOD_COUNT];     /* the methods that ran (opts.methods)    */
  /* Seeds each method ran to their end: opts.seeds, fewer when the study was stopped
   * (opts.stop) part way; the stats are over these. */
  int seeds_run[PRUNER_TUNE_STUDY_METHOD_COUNT];
  PrunerTuneStudyStats stats[PRUNER_TUNE_GOAL_COUNT][PRUNER_TUNE_STUDY_METHOD_COUNT];
  double mean_trials[PRUNER_TUNE_STUDY_METHOD_COUNT];   /* goal `within` (stats[0].mean) */
  int64_t worst_trials[PRUNER_TUNE_STUDY_METHOD_COUNT]; /* goal `within` (stats[0].max)  */
} PrunerTuneStudyRow;

/* Runs the study; *rows (malloc'ed, caller frees) gets one row per workload. Stopped
 * part way (opts.stop), it returns the rows and methods whose seeds had ended, each over
 * the seeds it finished (PrunerTuneStudyRow.seeds_run), and an error only when no seed
 * had ended. */
PrunerStatus prunerTuneStudy(const PrunerTuneStudyOptions *opts, PrunerTuneStudyRow **rows,
                             size_t *num_rows);

/* The study table with ratios against random search (malloc'ed, caller frees). */
char *prunerTuneStudyFormat(const PrunerTuneStudyRow *rows, size_t num_rows,
                            const PrunerTuneStudyOptions *opts);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_TUNE_H */

/* pruner/backend.h: what a target backend supplies to the tuner.
 *
 * The search (lib/tune) is the same for every target; what differs per target lives in
 * one folder, lib/backend/<name>, behind this interface (docs/architecture.md, "How to add
 * a backend"). A backend is a table of function pointers over an opaque state, like the
 * MLIR C API's handles: it describes its target, builds the tuning space and the draft of
 * a workload on it, builds candidates (compiled in the worker pool), measures a batch of
 * them in isolation together with the workload's baseline, and may export candidates for
 * another machine and re-measure a winner against the baseline at the end. The winner is
 * emitted by the tuner the same way for every backend (pruner.config on the op, the tuning
 * spec); a backend says whether its kernels may absorb a fused consumer.
 *
 * The backends the tuner knows sit in one table, one line per backend (backends.c):
 * prunerBackendLookup picks the one whose target a name describes. A backend reports
 * through a PrunerBackendSink that the tuner owns: measurements go back as records
 * (status, samples, median, error), and the tuner fills in the workload, target, config
 * and scores, appends them to the tuning log and emits its events. */
#ifndef PRUNER_BACKEND_H
#define PRUNER_BACKEND_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pruner/draft.h"
#include "pruner/records.h"
#include "pruner/space.h"
#include "pruner/status.h"
#include "pruner/target.h"
#include "pruner/tune.h"
#include "pruner/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A backend's per-session state (a measuring child, a compile pool's settings, an open
 * export). Created on first use by PrunerBackend.create, destroyed by .destroy. */
typedef struct PrunerBackendStateImpl *PrunerBackendState;

typedef struct PrunerBackendOptions {
  int compile_jobs;        /* parallel compile workers; 0: the backend's default       */
  const char *runner_path; /* the measuring program, where the backend runs one; NULL:
                              its default                                              */
  double candidate_timeout_s; /* watchdog per candidate (build and run); 0: the
                                 backend's default                                     */
  const volatile sig_atomic_t *stop; /* the caller's Ctrl-C flag: once set, a candidate
                                        in progress is cut short and kept as no record;
                                        may be NULL                                   */
  const char *target; /* the target's name as the user gave it ("host:avx2"); may be NULL */
} PrunerBackendOptions;

/* Candidates of one workload, measured or exported together. Arrays of n entries; the
 * caller owns them. */
typedef struct PrunerBackendBatch {
  const PrunerWorkload *workload;
  const PrunerConfig *configs;
  const double *draft_us;        /* the draft's prediction per config (0: none)      */
  const double *verifier_scores; /* the verifier's score per config (0: none)        */
  size_t n;
} PrunerBackendBatch;

/* The tuner's side of a batch. Every callback gets `user`. */
typedef struct PrunerBackendSink {
  void *user;
  /* The measurement of candidate `index` (status, error, samples, median, spread, ...):
   * the tuner fills the bookkeeping fields, appends it and reports it. A failed status
   * (the log cannot be written) ends the batch: return it. */
  PrunerStatus (*candidate)(void *user, size_t index, PrunerRecord *record);
  /* True when the log already holds a baseline of the batch's workload on the target:
   * a backend need not measure it again. */
  bool (*hasBaseline)(void *user);
  /* The workload's baseline (is_baseline set), appended as it is. */
  PrunerStatus (*baseline)(void *user, const PrunerRecord *record);
  /* The key the tuner files records under (prunerTargetKey of the target). */
  const char *(*targetKey)(void *user);
  /* The device measured under another key of the same architecture (another table
   * entry): from now on the tuner files records under `key`. */
  void (*adoptTargetKey)(void *user, const char *key);
  /* A fresh seed for the candidates' inputs, below 2^53, from the tuner's generator. */
  uint64_t (*nextSeed)(void *user);
  /* True once the user asked to stop (SIGINT): finish the current candidate and return. */
  bool (*stopRequested)(void *user);
  /* A line for the user. `session`: about the whole session, not the batch's workload. */
  void (*note)(void *user, bool session, const char *message);
  /* Nothing of the batch's workload can be measured here (`why`, one line: what every
   * candidate depends on failed, such as the compiler's own build of the op that the
   * outputs are checked against). Not a verdict on the candidates: the backend reports
   * none of the batch, and the tuner keeps no record of it, spends no more trials on the
   * workload and gives it the models' choice marked unmeasured, as for a workload that
   * PrunerBackend.measurable refuses. */
  void (*unmeasurable)(void *user, const char *why);
} PrunerBackendSink;

/* sink->note with printf formatting (at most 1 KiB of text), for the backends. */
void prunerBackendNote(const PrunerBackendSink *sink, bool session, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The final check (PrunerBackend.recheck): configs re-measured back to back with the
 * baseline. entries: the configs in order, then the baseline when has_baseline. */
#define PRUNER_BACKEND_RECHECK_MAX 8
typedef struct PrunerBackendRecheckEntry {
  PrunerRecordStatus status; /* OK, or why it was not timed                        */
  char error[200];
  double median_us, p25_us, p75_us;
} PrunerBackendRecheckEntry;
typedef struct PrunerBackendRecheck {
  int rounds; /* interleaved rounds (one run of each kernel per round)              */
  bool has_baseline;
  PrunerBackendRecheckEntry entries[PRUNER_BACKEND_RECHECK_MAX + 1];
} PrunerBackendRecheck;

/* The whole-module check (PrunerBackend.checkModule): one function of the user's module
 * built with the tuning spec and with the compiler's own configs, both run on the same
 * random inputs, the results compared, and both timed back to back. */
typedef struct PrunerBackendModuleCheck {
  PrunerBackendRecheckEntry tuned, baseline; /* status, error; median and IQR in us    */
  int rounds;
  int spec_configs, applied; /* configs in the spec; of those, the compiler applied     */
  double compile_seconds;    /* both builds                                             */
  bool builds_shared; /* the builds of an earlier function of the module were run      */
} PrunerBackendModuleCheck;

typedef struct PrunerBackend {
  const char *name;      /* "gpu", "host", "iree"                                   */
  PrunerTargetKind kind; /* the targets it serves                                   */
  /* The --measure mode that means "on this target's device" (the default). */
  PrunerTuneMeasure device_measure;
  const char *baseline_name; /* what the winner is compared with: "cuBLAS", "OpenBLAS"  */
  /* The baseline is the compiler's own build of the op with no config (IREE's default),
   * so leaving the op unconfigured is a result the tuner can write: a winner measured
   * slower than the baseline is not written (PrunerTuneTaskInfo.default_kept). False for
   * a library baseline (cuBLAS, OpenBLAS), which no compiler output can fall back to. */
  bool baseline_is_default;
  /* The version of the kernels it builds from a config (>= 1), stamped on its records;
   * the tuner never reuses a record of another version (docs/records.md). Raised with
   * any change that alters an existing config's kernel. */
  int codegen_version;
  /* Optional (NULL: codegen_version for every workload): the version of the kernel it
   * builds for `w`, when a change altered only some workloads' kernels (host:
   * prunerHostCodegenVersionOf); at most codegen_version. */
  int (*codegenVersionOf)(const PrunerWorkload *w);
  bool fuses_consumers;      /* a contraction's kernel may absorb its elementwise user  */
  /* The schedule maps an op's loops to one top-level scf.forall and cannot nest it in
   * another: ops already inside an scf.forall are not tuned (prunerIrCheckGpuPlacement,
   * the check pruner-apply-config makes on that path). */
  bool top_level_forall;
  /* Optional (NULL: every winner does): why a winner `config` of `w` cannot absorb its
   * consumer ("tensor cores (mma)", "split-K", ...), NULL when it can. */
  const char *(*consumerRefusal)(const PrunerWorkload *w, const PrunerConfig *config);
  /* measure takes one sink->nextSeed per batch (the GPU's bundle seed): a farm draws it
   * once on rank 0 and hands it to every rank, so that the tuner's generator advances as
   * in a plain run (pruner/farm.h). */
  bool measure_draws_seed;
  /* Optional (NULL: draft+verifier for every op): the strategy --strategy=auto (the
   * default) tunes `w` with on this backend's targets, never AUTO itself; a rule chosen
   * on the backend's own datasets (docs/tune.md, "auto"). */
  PrunerTuneStrategy (*autoStrategy)(const PrunerWorkload *w);
  /* PrunerTuneOptions.first_batch_tiles when the options leave it to the backend (< 0):
   * a share chosen on the backend's own datasets; 0 (unset): the draft's order. */
  double first_batch_tiles;
  /* Optional (NULL: yes): whether this machine can measure for target `t` (a GPU with
   * its driver, IREE's tools); `t` may be NULL. A farm rank that cannot only compiles. */
  bool (*canMeasure)(const PrunerTargetDesc *t);
  /* Optional (NULL: every workload it has a space for): false, with the reason in `why`
   * (`size` bytes), when the backend's device cannot measure `w` (the host times f32
   * only). The tuner then spends no trials on it and writes the models' choice marked
   * unmeasured, as with --measure=none (docs/tune.md). */
  bool (*measurable)(const PrunerWorkload *w, char *why, size_t size);

  /* The target description of `name` (a table entry, an architecture, the machine). */
  PrunerStatus (*describeTarget)(const char *name, PrunerTargetDesc *out);
  /* Refusal of a --measure mode the backend does not support (`mode` is its name),
   * naming the modes that do work for target `t`. */
  PrunerStatus (*refuseMeasure)(const PrunerTargetDesc *t, const char *mode);
  /* What measures, in words, for the session's first line: the device, or with
   * `export_path` the export there. */
  void (*describeMeasure)(const PrunerTargetDesc *t, const char *export_path, char *buf,
                          size_t size);

  /* The space rules (knobs and validity) and the draft of `w` on `t`. */
  PrunerStatus (*spaceCreate)(const PrunerWorkload *w, const PrunerTargetDesc *t, PrunerSpace *out);
  PrunerStatus (*draftCreate)(const PrunerWorkload *w, const PrunerTargetDesc *t, PrunerDraft *out);

  PrunerStatus (*create)(const PrunerTargetDesc *t, const PrunerBackendOptions *opts,
                         PrunerBackendState *out);
  void (*destroy)(PrunerBackendState state); /* NULL state: no-op */

  /* Builds and measures the batch in isolation (a crash or hang marks one candidate),
   * reporting each candidate through sink->candidate and, unless sink->hasBaseline, the
   * workload's baseline through sink->baseline. Fails only for what ends the session
   * (no device, the log cannot be written). */
  PrunerStatus (*measure)(PrunerBackendState state, const PrunerBackendBatch *batch,
                          const PrunerBackendSink *sink);

  /* Optional (NULL: --measure=bundle is refused): candidates built here for another
   * machine. Open starts the export at `path`, Add builds a batch into it (failures are
   * left out, not reported), Close writes it when `commit` and always releases it. */
  PrunerStatus (*exportOpen)(PrunerBackendState state, const char *path,
                             const PrunerBackendSink *sink);
  PrunerStatus (*exportAdd)(PrunerBackendState state, const PrunerBackendBatch *batch,
                            const PrunerBackendSink *sink);
  PrunerStatus (*exportClose)(PrunerBackendState state, bool commit, const PrunerBackendSink *sink);
  /* Optional (NULL: a farm builds exports on rank 0 alone): exportAdd in two halves, so
   * that another process of the same build can compile. exportBuild compiles the batch
   * into *blob (malloc'ed, caller frees; *size bytes) without an open export;
   * exportAddBuilt adds such a blob of the same batch to the open export, in order. */
  PrunerStatus (*exportBuild)(PrunerBackendState state, const PrunerBackendBatch *batch,
                              const PrunerBackendSink *sink, void **blob, size_t *size);
  PrunerStatus (*exportAddBuilt)(PrunerBackendState state, const PrunerBackendBatch *batch,
                                 const void *blob, size_t size, const PrunerBackendSink *sink);
  /* Optional (NULL: a measuring rank builds what it measures): what measure does for a
   * batch that exportBuild built in another process of the same build (a farm's
   * compile-only rank), without building it again; a candidate that failed to build is
   * reported with its compile error, one whose build was interrupted not at all. */
  PrunerStatus (*measureBuilt)(PrunerBackendState state, const PrunerBackendBatch *batch,
                               const void *blob, size_t size, const PrunerBackendSink *sink);

  /* Optional: re-measures `n` (<= PRUNER_BACKEND_RECHECK_MAX) configs of `w` back to
   * back, interleaved, with the baseline when `baseline` and the workload has one, so that
   * the load of a shared machine hits them all alike (docs/measurement.md, "Host: the
   * final check"). Never fails as a whole: a failing kernel gets its status. */
  void (*recheck)(PrunerBackendState state, const PrunerWorkload *w, const PrunerConfig *configs,
                  int n, bool baseline, PrunerBackendRecheck *out);

  /* Optional (NULL: none): function `f` of the module at `module_path` (the tuner's
   * input, as the user compiles it) built with the spec at `spec_path` and with the
   * compiler's own configs, run on the same random inputs (results compared with a
   * tolerance for `reduction_points` accumulated terms) and timed back to back
   * (docs/iree.md, "The module check"). Fails, with nothing measured, when the build
   * without the spec does not compile or run; a failing tuned build has its status. */
  PrunerStatus (*checkModule)(PrunerBackendState state, const char *module_path,
                              const char *spec_path, const PrunerFunctionSignature *f,
                              int64_t reduction_points, PrunerBackendModuleCheck *out);

  /* Optional (NULL: the project's spec, docs/tuning-spec.md): the tuning spec of the
   * winners in the format of the compiler the backend drives (IREE's, docs/iree.md), one
   * config per workload; workloads its matchers cannot tell apart from an earlier one
   * are left out and counted in *skipped. malloc'ed text (caller frees); NULL on failure. */
  char *(*specText)(const PrunerTargetDesc *t, const PrunerWorkload *const *workloads,
                    const PrunerConfig *configs, size_t n, size_t *skipped);

  /* Optional (NULL: none): the attribute the backend's compiler reads a config from on the
   * op itself, which the tuned module (pruner-tune -o) carries beside pruner.config (IREE's
   * "compilation_info", docs/iree.md): its name in *name (static storage) and its text,
   * malloc'ed (caller frees); NULL when `config` cannot be stated so. */
  char *(*opAttribute)(const PrunerTargetDesc *t, const PrunerWorkload *w,
                       const PrunerConfig *config, const char **name);
} PrunerBackend;

/* The table (lib/backend/backends.c): static entries, never freed. */
size_t prunerBackendCount(void);
const PrunerBackend *prunerBackendGet(size_t i);

/* The backend that serves target `name` and its description: the first one in the table
 * whose describeTarget accepts the name. An unknown name fails with the list of names
 * that work. */
PrunerStatus prunerBackendLookup(const char *name, const PrunerBackend **backend,
                                 PrunerTargetDesc *target);

/* The backend of a described target (its kind); NULL if this build has none. */
const PrunerBackend *prunerBackendForTarget(const PrunerTargetDesc *target);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_BACKEND_H */

/* pruner/backend/iree.h: the IREE backend (lib/backend/iree): tuning through IREE's own
 * compiler and runtime (docs/iree.md).
 *
 * Target `iree-cpu`: IREE's llvm-cpu backend on this machine. A config is written as
 * IREE's CPU lowering config and applied through a tuning spec
 * (--iree-codegen-tuning-spec-path); a candidate is the module compiled by iree-compile
 * with a one-config spec, run by iree-run-module and checked against the build with IREE's
 * own (default) config on the same inputs, and timed by iree-benchmark-module. Every tool
 * runs as a separate process under a wall-clock limit, so a compiler crash or hang marks
 * one candidate. The baseline is IREE's default config of the same module.
 *
 * What a PrunerConfig means for iree-cpu (docs/iree.md, "Space"):
 *   workgroup    -> distribution and cache_parallel (parallel loops; 0 on reductions)
 *   thread       -> vector_common_parallel          (parallel loops; 0 on reductions)
 *   reduction    -> vector_reduction                (reduction loops; 0 on parallel ones)
 *   vector_width the SIMD lanes of the output type (1 where no vector fits)
 *   promote_operands always 0.
 * The translation is the pipeline IREE picks for the op: ConvTileAndDecomposeExpert for
 * 2-D convolutions, DoubleTilingExpert otherwise.
 *
 * The rules half (target, space, validity, IREE attribute text, the tuning spec) is
 * pruner/backend/iree_rules.h, MLIR-free and IREE-free, which lib/target and lib/space use;
 * this header is the measuring half, which needs the IREE tools (prunerIreeToolsDir). */
#ifndef PRUNER_BACKEND_IREE_H
#define PRUNER_BACKEND_IREE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pruner/backend.h"
#include "pruner/backend/iree_rules.h"
#include "pruner/records.h"
#include "pruner/space.h"
#include "pruner/status.h"
#include "pruner/target.h"
#include "pruner/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- tools and measurement (iree.c) ------------------------------------------------- */

/* The folder holding iree-compile, iree-run-module and iree-benchmark-module: the
 * PRUNER_IREE_DIR environment variable (the folder or its parent with bin/), else the one
 * found at configure time (scripts/setup.sh's venv or -DPRUNER_IREE_DIR); "" when none
 * (the tools are then looked up in PATH). Thread-local storage, valid until this thread's
 * next call. */
const char *prunerIreeToolsDir(void);

/* Checks that iree-compile runs and returns its version line in buf. */
PrunerStatus prunerIreeCheckTools(char *version, size_t size);

/* The first CUDA device IREE's runtime lists (iree-run-module --list_devices=cuda), its
 * URI ("cuda://GPU-...") in `device` (may be NULL). Fails, saying what the runtime said and
 * what to do instead, when there is none (no driver library, no GPU). */
PrunerStatus prunerIreeCudaDevice(char *device, size_t size);

typedef struct PrunerIreeOptions {
  int threads;            /* worker threads of the runtime (local-task); default 1     */
  double timeout_seconds; /* per tool run (compile, run, benchmark); default 120       */
  int repetitions;        /* iree-benchmark-module repetitions; default 5              */
  uint64_t seed;          /* inputs; default 1                                          */
  const char *work_dir;   /* where modules and files go; NULL: a fresh folder in TMPDIR,
                             removed by prunerIreeDestroy                              */
} PrunerIreeOptions;

PrunerIreeOptions prunerIreeDefaultOptions(void);

typedef struct PrunerIreeImpl *PrunerIree;

PrunerStatus prunerIreeCreate(const PrunerTargetDesc *t, const PrunerIreeOptions *opts,
                              PrunerIree *out);
void prunerIreeDestroy(PrunerIree iree); /* NULL: no-op */

/* A target of the GPU table (kind PRUNER_TARGET_GPU, e.g. sm_80) makes a compile-only
 * PrunerIree for IREE's CUDA backend (docs/iree.md, "CUDA"): candidates are compiled and
 * their configs checked in the configured IR; nothing runs (no GPU is needed), so a
 * measured record has status OK and no samples. An iree-cuda target (kind
 * PRUNER_TARGET_IREE_CUDA) needs a CUDA device (prunerIreeCudaDevice, else Create fails):
 * candidates are compiled for prunerIreeCudaArch, run, checked and timed on it.
 *
 * Measures `config` of `w` (NULL: IREE's default config, the baseline): the module of `w`
 * (prunerSchedulePayload) compiled with a one-config spec, run on the workload's inputs
 * and compared with the default build's outputs, then timed. Never fails as a whole: a
 * rejected, crashing, hanging or wrong candidate gets the matching record status and
 * message. compile_seconds (may be NULL) receives iree-compile's wall time. */
void prunerIreeMeasure(PrunerIree iree, const PrunerWorkload *w, const PrunerConfig *config,
                       PrunerRecord *out, double *compile_seconds);

/* IREE's default build of `w`, compiled and run once (kept per workload): the baseline,
 * and the reference every candidate's outputs are compared with. Its failure (the
 * message names the workload and the tool's last lines) means no candidate of `w` can be
 * measured or checked: prunerIreeMeasure would mark each one with it. */
PrunerStatus prunerIreePrepare(PrunerIree iree, const PrunerWorkload *w);

/* prunerIreeMeasure of n configs with one compile for all (iree-cpu, n > 1): a module of
 * n functions, each holding the op with its config as compilation_info (the way IREE
 * takes a config besides a spec; a spec cannot tell copies of one op apart), compiled
 * once; every config must show in the configured IR; each function is then run, compared
 * with the default build and timed on its own. If that module does not compile, or a
 * config does not show, the configs are measured one by one (prunerIreeMeasure), so one
 * bad config only marks itself. out and compile_seconds (may be NULL; the shared compile
 * time divided evenly) have n entries. docs/iree.md, "Tuning cost". */
void prunerIreeMeasureBatch(PrunerIree iree, const PrunerWorkload *w, const PrunerConfig *configs,
                            int n, PrunerRecord *out, double *compile_seconds);

/* The module of `w` (prunerSchedulePayload) with `config` as its op's compilation_info
 * attribute (GPU compilation info for a GPU-table `t`, the CPU one for iree-cpu): what
 * IREE's CUDA pipeline takes, since IREE 3.13 does not load tuning specs there
 * (docs/iree.md, "CUDA"). Fails for configs `t`'s rules refuse. *text malloc'ed. */
PrunerStatus prunerIreeAnnotatedModuleText(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                           const PrunerConfig *config, char **text);

/* The final check: `n` configs of `w` (each built and checked once, as by
 * prunerIreeMeasure) and, with `baseline`, IREE's default build, timed back to back in
 * `rounds` interleaved rounds (one iree-benchmark-module run of each per round), so that
 * the load of a shared machine hits them alike. out[i] (n entries, then the baseline):
 * status, error, and the median and quartiles of the per-round medians (µs). */
typedef struct PrunerIreeRemeasured {
  PrunerRecordStatus status;
  char error[200];
  double median_us, p25_us, p75_us;
} PrunerIreeRemeasured;
void prunerIreeRemeasure(PrunerIree iree, const PrunerWorkload *w, const PrunerConfig *configs,
                         int n, bool baseline, int rounds, PrunerIreeRemeasured *out);

/* A whole module as IREE users have it (several dispatches), tuned against IREE's
 * default: `module` (a file of linalg on tensors) built once with IREE's default configs
 * and once with the tuning spec `spec` (a file, e.g. pruner-tune --spec), both run on the
 * same random arguments (`args`, num_args of them) and their results (`results`) compared
 * (relative tolerance 8 eps x reduction_points, as for one workload), then `function`
 * timed back to back, one iree-benchmark-module run of each build per round, `rounds`
 * rounds. Fails (nothing measured) when the default build does not compile or run; a
 * tuned build that does not compile, run or agree has that status in out->tuned. The
 * prepared workload of `iree` is forgotten (its files are reused). */
typedef struct PrunerIreeTensor {
  PrunerDType dtype;
  int rank;
  int64_t shape[PRUNER_MAX_RANK];
} PrunerIreeTensor;
typedef struct PrunerIreeModuleResult {
  PrunerIreeRemeasured tuned, baseline; /* with the spec; IREE's default configs          */
  double compile_seconds[2];            /* iree-compile wall time: tuned, default         */
  /* The two builds were those of an earlier call with the same module and spec (another
   * function of the module): nothing was compiled, compile_seconds are 0. */
  bool builds_shared;
  int spec_configs;                     /* lowering_configs in the spec                   */
  int applied;                          /* of those, how many the configured IR shows     */
} PrunerIreeModuleResult;
PrunerStatus prunerIreeModuleRemeasure(PrunerIree iree, const char *module, const char *function,
                                       const PrunerIreeTensor *args, int num_args,
                                       const PrunerIreeTensor *results, int num_results,
                                       int64_t reduction_points, const char *spec, int rounds,
                                       PrunerIreeModuleResult *out);

/* What compiling candidates costs (docs/iree.md, "Tuning cost"): the `n` configs of `w`
 * built to .vmfb files (then deleted), either one iree-compile pair per config (its
 * one-config spec, as prunerIreeMeasure builds a candidate; the config on the op for
 * CUDA) or, with `one_module`, one pair for all: a module of n functions main_0.. each
 * holding the op with its config as compilation_info (a spec cannot tell copies of one op
 * apart). *seconds: the summed wall time of the iree-compile calls; *applied: how many of
 * the configs the configured IR shows. */
PrunerStatus prunerIreeCompileCost(PrunerIree iree, const PrunerWorkload *w,
                                   const PrunerConfig *configs, int n, bool one_module,
                                   double *seconds, int *applied);

/* iree-compile --compile-to=executable-configurations of `w`'s module with a one-config
 * spec (NULL: none): the configured IR as text, malloc'ed (caller frees). Fails with
 * iree-compile's message. */
PrunerStatus prunerIreeConfigsText(PrunerIree iree, const PrunerWorkload *w,
                                   const PrunerConfig *config, char **text);

/* The backends' table entries (pruner/backend.h; static storage): iree-cpu, and
 * iree-cuda:<gpu> (IREE's CUDA backend on the machine's GPU). */
const PrunerBackend *prunerIreeBackend(void);
const PrunerBackend *prunerIreeCudaBackend(void);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_BACKEND_IREE_H */

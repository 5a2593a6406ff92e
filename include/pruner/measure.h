/* pruner/measure.h: bundles of compiled candidates, and running them in isolation.
 *
 * A bundle is a folder holding `manifest.json` and one cubin file per candidate: every-
 * thing a GPU host needs to launch, check and time the candidates without MLIR (format in
 * docs/bundle.md). The tuner fills a bundle from compile results (prunerBundleCreate,
 * prunerBundleAddCandidate, prunerBundleWrite); tools/pruner-run reads it
 * (prunerBundleRead) and appends one record per candidate to a records file
 * (pruner/records.h). prunerMeasureRunBundle runs pruner-run as a child process for a
 * tuner on a machine with a GPU.
 *
 * Isolation: a kernel that faults poisons its CUDA context and a kernel that hangs never
 * returns, so candidates run in a child worker process under a watchdog: PrunerWorker
 * (pruner/worker.h, in lib/support, shared with lib/backend/gpu and lib/backend/host). MLIR-free
 * (cJSON, POSIX). */
#ifndef PRUNER_MEASURE_H
#define PRUNER_MEASURE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pruner/kernel.h"
#include "pruner/space.h"
#include "pruner/status.h"
#include "pruner/target.h"
#include "pruner/worker.h"
#include "pruner/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PRUNER_BUNDLE_VERSION 1
#define PRUNER_BUNDLE_MANIFEST "manifest.json"

/* ------------------------------------------------------------------------------------ */
/* Bundle                                                                               */

/* What the output buffers hold when a candidate's correctness launch starts. Kernels that
 * fuse the accumulator's fill overwrite the output and are checked against a NaN poison
 * (unwritten elements show up); kernels that accumulate into it need the fill's zeros;
 * generics whose body reads the output need its initial values (seeded random). */
typedef enum PrunerOutputInit {
  PRUNER_OUTPUT_POISON = 0, /* NaN (all bits set) before the check launch  */
  PRUNER_OUTPUT_ZERO,       /* zeros: the payload's linalg.fill of zero    */
  PRUNER_OUTPUT_RANDOM,     /* seeded random initial values                */
} PrunerOutputInit;

/* The default for a workload: ZERO for contractions and convolutions, RANDOM for generics
 * whose body reads an output value, POISON otherwise. */
PrunerOutputInit prunerOutputInitDefault(const PrunerWorkload *w);
const char *prunerOutputInitName(PrunerOutputInit init); /* "poison", "zero", "random" */

/* One candidate of a bundle: how to launch it and where it came from. */
typedef struct PrunerBundleCandidate {
  int id;                                      /* unique within the bundle, 0-based   */
  int workload;                                /* index into the bundle's workloads   */
  char workload_key[PRUNER_WORKLOAD_KEY_SIZE];
  PrunerConfig config;
  char cubin_file[64];                         /* relative to the bundle folder       */
  PrunerKernelLaunch launch;                   /* the compile result's, as it was     */
  PrunerKernelExtras extras;                   /* kernels after it, workspaces (split-K) */
  double draft_score_us;                       /* 0 if none */
  double verifier_score;                       /* 0 if none */
  PrunerOutputInit output_init;                /* prunerOutputInitDefault unless set */
  double compile_s; /* its compile (MLIR + ptxas) in seconds; 0 if unknown (older bundles) */
} PrunerBundleCandidate;

/* The strings, workloads and candidates the getters below return live in the bundle
 * until prunerBundleDestroy; the workload and candidate pointers only until the next
 * prunerBundleAddCandidate too (it may move the arrays). */
typedef struct PrunerBundleImpl *PrunerBundle;

/* Starts a bundle in folder `dir` (created if absent; an existing manifest in it is
 * replaced on prunerBundleWrite, old cubin files are overwritten as ids are reused) for
 * `target`, whose inputs the runner draws from `seed`. */
PrunerStatus prunerBundleCreate(const char *dir, const PrunerTargetDesc *target,
                                uint64_t seed, PrunerBundle *out);

/* Adds one compiled candidate: copies the workload (once per key), writes the cubin
 * file at once and records the launch description (output_init from
 * prunerOutputInitDefault; prunerBundleSetOutputInit changes it). `result` must be ok and
 * hold a binary. `id` (may be NULL) receives the candidate's id. */
PrunerStatus prunerBundleAddCandidate(PrunerBundle bundle, const PrunerWorkload *w,
                                      const PrunerConfig *config,
                                      const PrunerCompileResult *result,
                                      double draft_score_us, double verifier_score, int *id);

PrunerStatus prunerBundleSetOutputInit(PrunerBundle bundle, int id, PrunerOutputInit init);

/* Writes manifest.json (to a temporary file, then renamed, so a reader never sees a
 * half-written manifest). May be called again after more candidates were added. */
PrunerStatus prunerBundleWrite(PrunerBundle bundle);

/* Reads and validates `dir`/manifest.json: format version, every required field, every
 * workload (prunerWorkloadVerify), every candidate's workload reference and cubin file
 * (present and non-empty). The message names the file, the candidate and the field. */
PrunerStatus prunerBundleRead(const char *dir, PrunerBundle *out);

void prunerBundleDestroy(PrunerBundle bundle);

const char *prunerBundleDir(PrunerBundle bundle);
uint64_t prunerBundleSeed(PrunerBundle bundle);
/* The target the candidates were compiled for: table name, arch ("sm_90") and the key
 * (prunerTargetKey) the tuner will look records up under. */
const char *prunerBundleTargetName(PrunerBundle bundle);
const char *prunerBundleTargetArch(PrunerBundle bundle);
const char *prunerBundleTargetKey(PrunerBundle bundle);
/* The version of the code generator that built its cubins (PRUNER_GPU_CODEGEN_VERSION of
 * the build that created it; the manifest's target "codegen"), which the runner stamps on
 * its records; 0 for a manifest written before the field existed. */
int prunerBundleCodegenVersion(PrunerBundle bundle);

size_t prunerBundleNumWorkloads(PrunerBundle bundle);
const PrunerWorkload *prunerBundleGetWorkload(PrunerBundle bundle, size_t i);
size_t prunerBundleNumCandidates(PrunerBundle bundle);
const PrunerBundleCandidate *prunerBundleGetCandidate(PrunerBundle bundle, size_t i);

/* Reads candidate i's cubin into a malloc'ed buffer (caller frees). */
PrunerStatus prunerBundleLoadBinary(PrunerBundle bundle, size_t i, unsigned char **data,
                                    size_t *size);

/* ------------------------------------------------------------------------------------ */
/* Running a bundle (pruner-run as a child process)                                     */

/* pruner-run's exit codes. */
#define PRUNER_RUN_EXIT_OK 0
#define PRUNER_RUN_EXIT_ERROR 1     /* bad arguments, bad bundle, records not writable */
#define PRUNER_RUN_EXIT_NO_DEVICE 3 /* "no CUDA device: <reason>"                     */

typedef struct PrunerRunOptions {
  double timeout_seconds; /* per candidate; default 10                                */
  int samples;            /* minimum timed samples per candidate; default 10          */
  uint64_t seed;          /* 0: the bundle's seed                                     */
  bool only_baseline;     /* measure cuBLAS only                                      */
  /* The caller's Ctrl-C flag (NULL: none): once set, pruner-run is killed and the call
   * fails with prunerProcessInterrupted(status) true; what it recorded so far stays. */
  const volatile sig_atomic_t *stop;
} PrunerRunOptions;

PrunerRunOptions prunerRunDefaultOptions(void);

/* Runs `runner` (path to pruner-run; NULL: "pruner-run" on PATH) on `bundle_dir`,
 * appending to `records_path`, and waits. Its output goes to the caller's stderr. A
 * missing GPU is an error whose message contains "no CUDA device". */
PrunerStatus prunerMeasureRunBundle(const char *runner, const char *bundle_dir,
                                    const char *records_path, const PrunerRunOptions *opts);

/* One output element against its reference: the rule the host's, the GPU runner's and
 * IREE's result checks share. Where either value is a NaN or an infinity (log of a
 * negative input, an overflowing exp) they agree only as two NaNs or equal infinities,
 * whatever `tol` is; otherwise when |got - want| <= tol. *err (may be NULL) gets 0 for
 * agreeing special values, INFINITY for disagreeing ones, else |got - want|. */
bool prunerMeasureAgrees(double got, double want, double tol, double *err);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_MEASURE_H */

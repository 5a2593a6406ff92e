/* pruner/backend/host.h: the host CPU backend (lib/backend/host): a tuning target measured
 * for real on any machine.
 *
 * The same tuning loop that measures GPU kernels measures CPU kernels here: a config is
 * applied by a host transform schedule (task tile -> scf.forall run by OpenMP, cache tile
 * of the reduction loops, register tile, vectorize, hoisted accumulator, outer-product
 * FMAs), lowered to LLVM, JIT-compiled by MLIR's ExecutionEngine, executed on random
 * inputs, checked against a reference (OpenBLAS sgemm for contractions, a plain C
 * interpreter of the workload otherwise) and timed (warm-up, samples, median). Every
 * candidate runs in a forked child under a timeout (pruner/measure.h's PrunerWorker), so a
 * JIT or kernel that hangs or crashes marks that candidate and nothing else. OpenBLAS,
 * measured the same way, is the baseline (docs/host.md).
 *
 * The MLIR-free part (the machine, the space rules, the draft) is in
 * pruner/backend/host_rules.h, which lib/target, lib/space and lib/draft use. */
#ifndef PRUNER_BACKEND_HOST_H
#define PRUNER_BACKEND_HOST_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pruner/backend.h"
#include "pruner/backend/host_rules.h"
#include "pruner/records.h"
#include "pruner/space.h"
#include "pruner/status.h"
#include "pruner/target.h"
#include "pruner/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- schedule and measurement (schedule_host.c, jit.c, host.c; MLIR) ------------------ */

/* The host transform schedule for `config` (a module holding @__transform_main that
 * acts on the bufferized payload of prunerHostPayload; 2-D convs on the tensor payload,
 * an NCHW conv on the channels-last kernel its module is rewritten into first,
 * pruner/backend/host_ir.h); malloc'ed, caller frees. With `config` NULL: the untiled
 * lowering (no transform at all, an empty sequence). */
PrunerStatus prunerHostScheduleBuild(const PrunerWorkload *w, const PrunerConfig *config,
                                     const PrunerTargetDesc *t, char **text);

/* The module of `w` under `config` (NULL: untiled) as text, for tests and debugging:
 * stage 0 bufferized payload, 1 after the schedule, 2 lowered to LLVM. malloc'ed. */
PrunerStatus prunerHostLowerText(const PrunerWorkload *w, const PrunerConfig *config,
                                 const PrunerTargetDesc *t, int stage, char **text);

/* JIT-compiles `w` under `config` (NULL: untiled) for `t` in this process, as a
 * measurement would, and writes the machine code the JIT made to the object file `path`
 * (for tests and inspection: `llvm-objdump -d`). */
PrunerStatus prunerHostWriteObject(const PrunerWorkload *w, const PrunerConfig *config,
                                   const PrunerTargetDesc *t, int opt_level, const char *path);

/* The pass pipeline applied after the schedule ("builtin.module(...)"): OpenMP
 * conversion of the task loop, then the LLVM lowering (docs/host.md, H1). */
const char *prunerHostLoweringPipeline(void);

/* The measuring worker's default address-space limit (PrunerHostOptions). */
#define PRUNER_HOST_MEMORY_LIMIT_MB 8000

typedef struct PrunerHostOptions {
  const char *target;      /* target name, "host" or "host:<isa>"; NULL: "host"          */
  int threads;             /* OpenMP threads for kernels and OpenBLAS; 0 = all cores   */
  int opt_level;           /* ExecutionEngine LLVM IR opt level 0..3 for vectorized
                              configs; default 0                                     */
  int scalar_opt_level;    /* the same for configs that are not vectorized
                              (vector_width 1, untiled); default 2 (docs/host.md)   */
  int min_samples;         /* default 5                                               */
  int max_samples;         /* default 15 (<= PRUNER_MAX_SAMPLES)                      */
  double min_sample_seconds; /* keep sampling until this much time; default 0.2 s     */
  int warmup;              /* runs before timing; default 1                           */
  double timeout_seconds;  /* per candidate (JIT + runs); default 60                   */
  int64_t memory_limit_mb; /* child address space; default PRUNER_HOST_MEMORY_LIMIT_MB;
                              0: none                                                  */
  uint64_t seed;           /* inputs; default 1                                        */
  bool check;              /* compare with the reference; default true                 */
  const char *openblas_coretype; /* OPENBLAS_CORETYPE for the child; NULL: SkylakeX on
                                    AVX-512 machines unless the variable is set; "": none */
  const volatile sig_atomic_t *stop; /* the caller's Ctrl-C flag; once set, a measurement
                                        in progress is cut short (the child is killed)
                                        and reported as interrupted; may be NULL        */
} PrunerHostOptions;

PrunerHostOptions prunerHostDefaultOptions(void);

/* One measurement: a record without workload/target/config bookkeeping filled in
 * (status, error, samples, median, spread, max_abs_error, is_baseline/baseline_name).
 * compile_seconds is the JIT time of the candidate. */
typedef struct PrunerHostResult {
  PrunerRecord record;
  double compile_seconds;
  char baseline_core[32];    /* OpenBLAS core name, baseline only */
  int baseline_copy_threads; /* threads its im2col copy ran on (an ok conv baseline; else 0) */
  bool interrupted;          /* cut short by options.stop: not a measurement, keep no record */
} PrunerHostResult;

typedef struct PrunerHostImpl *PrunerHost;

/* A measuring host: a forked worker child (started on first use) that JIT-compiles,
 * checks and times candidates. The child sets OPENBLAS_CORETYPE before it loads OpenBLAS
 * (dlopen), so the caller's process is unaffected. Destroy with prunerHostDestroy. */
PrunerStatus prunerHostCreate(const PrunerHostOptions *opts, PrunerHost *out);
void prunerHostDestroy(PrunerHost host);
const PrunerTargetDesc *prunerHostGetTarget(PrunerHost host);

/* Sets, in this process's environment, the variables under which the thread pools the
 * host measures with sleep when idle, after spinning about a millisecond
 * (docs/measurement.md, "Host: thread pools"): OMP_WAIT_POLICY=PASSIVE, KMP_BLOCKTIME=1
 * (LLVM's libomp: the kernels), GOMP_SPINCOUNT=100000 (GNU libgomp: oneDNN, BLIS),
 * OPENBLAS_THREAD_TIMEOUT=20 (OpenBLAS). A variable already set, a user's, is kept. The
 * libraries read them when they start, so it is called before they load: the measuring
 * child calls it first thing; a tool that links one of them calls it and restarts
 * itself (pruner-bench, which links libgomp through XGBoost). */
void prunerHostSetThreadPoolEnvironment(void);

/* Measures `config` of `w` (NULL config: the untiled lowering). Never fails as a whole:
 * a rejected, crashing, hanging or wrong candidate gets the matching record status. */
void prunerHostMeasure(PrunerHost host, const PrunerWorkload *w, const PrunerConfig *config,
                       PrunerHostResult *out);

/* Measures the OpenBLAS baseline of `w` (prunerHostBlasBaselineMethod); the record is a
 * baseline ("openblas"). Workloads without one get status INVALID. */
void prunerHostMeasureBaseline(PrunerHost host, const PrunerWorkload *w, PrunerHostResult *out);

/* True if `w` maps onto sgemm calls: an f32 matmul, a batch_matmul (one call per batch) or
 * an NHWC / NCHW 2-D convolution (im2col, then one sgemm over all images for NHWC, one per
 * image for NCHW), every GEMM size within cblas' int. */
bool prunerHostHasBlasBaseline(const PrunerWorkload *w);

/* How the baseline computes `w`, for messages: "sgemm", "sgemm per batch", "im2col +
 * sgemm", "sgemm on the input (1x1 conv)"; NULL without one. A static string. */
const char *prunerHostBlasBaselineMethod(const PrunerWorkload *w);

/* Whether the host can measure `w` (f32 operands only: the JIT'ed kernels' inputs and
 * reference are f32; operand data within the default worker memory limit); false with the
 * reason in `why` (`size` bytes). */
bool prunerHostMeasurable(const PrunerWorkload *w, char *why, size_t size);

/* ---- the final check: candidates re-measured back to back (docs/measurement.md) ----- */

/* Configs per call (the baseline comes on top). Rounds: at least MIN_ROUNDS and
 * SECONDS; then until every IQR is within REL_IQR of its median, or MAX_SECONDS, or
 * PRUNER_MAX_SAMPLES rounds. */
#define PRUNER_HOST_REMEASURE_MAX 8
#define PRUNER_HOST_REMEASURE_MIN_ROUNDS 15
#define PRUNER_HOST_REMEASURE_SECONDS 1.0
#define PRUNER_HOST_REMEASURE_REL_IQR 0.05
#define PRUNER_HOST_REMEASURE_MAX_SECONDS 10.0

/* One kernel's samples in the interleaved rounds. */
typedef struct PrunerHostRemeasureEntry {
  PrunerRecordStatus status; /* OK, or why it was not timed (compile/check failure)   */
  char error[200];
  int num_samples; /* one per round                                                 */
  double samples_us[PRUNER_MAX_SAMPLES];
  double median_us, p25_us, p75_us, min_us, max_us;
} PrunerHostRemeasureEntry;

typedef struct PrunerHostRemeasure {
  int num_entries; /* the configs in order, then OpenBLAS, BLIS, oneDNN, each when asked */
  int rounds;
  bool has_baseline;
  char baseline_core[32];
  bool has_blis;       /* the last entry is BLIS (prunerHostRemeasureBaselines)       */
  char blis_core[32];  /* BLIS's kernel set for this CPU (bli_arch_string), "" if none */
  bool has_onednn;     /* the last entry is oneDNN's convolution                       */
  char onednn_impl[64]; /* its version and implementation ("2.6.3 brg:avx512_core")     */
  PrunerHostRemeasureEntry entries[PRUNER_HOST_REMEASURE_MAX + 3];
} PrunerHostRemeasure;

/* Re-measures `n` (<= PRUNER_HOST_REMEASURE_MAX) configs of `w`, and OpenBLAS when
 * `baseline` and the workload has one, back to back in one child: each kernel is
 * JIT-compiled and checked once, warmed up, then timed in rounds of one run each, the
 * order rotating every round, until at least PRUNER_HOST_REMEASURE_MIN_ROUNDS rounds and
 * PRUNER_HOST_REMEASURE_SECONDS have passed and every interquartile range is within
 * PRUNER_HOST_REMEASURE_REL_IQR of its median, or PRUNER_MAX_SAMPLES rounds, or
 * PRUNER_HOST_REMEASURE_MAX_SECONDS (or half the timeout) have passed. Load on
 * a shared machine then hits every candidate alike, and the medians compare kernels, not
 * moments. Never fails as a whole: a failing kernel gets its status in its entry. */
void prunerHostRemeasure(PrunerHost host, const PrunerWorkload *w, const PrunerConfig *configs,
                         int n, bool baseline, PrunerHostRemeasure *out);

/* True if `w` is a conv kind the oneDNN entry covers (its dtypes are checked when it runs). */
bool prunerHostHasOnednnBaseline(const PrunerWorkload *w);

/* prunerHostRemeasure with a second baseline: when `blis`, BLIS sgemm (Debian's
 * libblis.so.4) is timed as one more entry after OpenBLAS, in the same rounds. BLIS is
 * dlopen'ed by the child with RTLD_LOCAL | RTLD_DEEPBIND and called through its own
 * cblas_sgemm handle, so its CBLAS symbols and OpenBLAS' never resolve to each other.
 * Without libblis.so.4 the BLIS entry has status LAUNCH_ERROR saying why; the others are
 * unaffected (docs/host.md). A workload without an sgemm form (prunerHostHasBlasBaseline)
 * gets neither baseline entry. When `onednn` and `w` is an f32 NHWC or NCHW 2-D conv or
 * NHWC depthwise conv (prunerHostHasOnednnBaseline), oneDNN's direct convolution (Debian's
 * libdnnl.so.2, dlopen'ed the same way; grouped for a depthwise conv) is the last
 * entry: the conv library a framework calls on a CPU (docs/host.md, "oneDNN: a conv
 * library baseline"); without it the entry says why. */
void prunerHostRemeasureBaselines(PrunerHost host, const PrunerWorkload *w,
                                  const PrunerConfig *configs, int n, bool openblas, bool blis,
                                  bool onednn, PrunerHostRemeasure *out);

/* Fills the target/workload fields of a record from a result ("host:<name>" key). */
void prunerHostFillRecord(PrunerHost host, const PrunerWorkload *w, const PrunerConfig *config,
                          PrunerRecord *record);

/* The backend's table entry (pruner/backend.h; static storage, never freed). */
const PrunerBackend *prunerHostBackend(void);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_BACKEND_HOST_H */

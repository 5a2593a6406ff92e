/* pruner/host.h: the host CPU as a tuning target, measured for real on any machine.
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
 * What a PrunerConfig means on the host (docs/host.md, "Space"):
 *   workgroup    per-task tile of the parallel loops; tasks are spread over the cores;
 *   reduction    cache tile (step) of the reduction loops;
 *   thread       register tile of the parallel loops (the innermost a multiple of the
 *                SIMD width when vectorized; other loops are peeled when it does not
 *                divide the task tile);
 *   vector_width 1 (scalar) or the SIMD lanes of the element type (vectorized);
 *   promote_operands always 0.
 *
 * How the host fills a PrunerTargetDesc (prunerTargetLookup("host")):
 *   sm_count = cores the process may run on, boost_clock_mhz = core clock,
 *   peak_fp32_gflops = cores x FMA pipes x 2 x f32 lanes x clock, dram_gbps = estimate,
 *   smem_per_sm = L1d per core, l2_bytes = L2 per core, smem_per_block = last-level cache,
 *   warp_size = f32 SIMD lanes, regs_per_sm = SIMD registers, l1_line_bytes = cache line,
 *   max_threads_per_block = max_threads_per_sm = max_blocks_per_sm = 1. */
#ifndef PRUNER_HOST_H
#define PRUNER_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pruner/records.h"
#include "pruner/space.h"
#include "pruner/status.h"
#include "pruner/target.h"
#include "pruner/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the machine (lib/target/host.c, MLIR-free) ------------------------------------- */

typedef struct PrunerHostInfo {
  char model[64];        /* /proc/cpuinfo "model name"                         */
  char isa[16];          /* "avx512", "avx2", "sse"                            */
  int cores;             /* CPUs in the process's affinity mask                */
  int f32_lanes;         /* SIMD lanes of f32: 16, 8 or 4                      */
  int vector_registers;  /* 32 (AVX-512) or 16                                 */
  int fma_pipes;         /* full-width FMA issues per cycle (docs/host.md)     */
  double clock_mhz;      /* cpufreq max, else /proc/cpuinfo "cpu MHz"          */
  char clock_source[32]; /* "cpufreq", "cpuinfo" or "default"                  */
  int64_t l1d_bytes, l2_bytes, l3_bytes; /* per core, per core, total        */
  int line_bytes;
  double peak_fp32_gflops;
  double dram_gbps;
  int64_t memory_bytes;
} PrunerHostInfo;

/* Reads the machine (no side effects, no timing runs). */
void prunerHostDescribe(PrunerHostInfo *out);
/* The target description of this machine (kind PRUNER_TARGET_HOST, arch "host"). */
void prunerHostTargetDesc(const PrunerHostInfo *info, PrunerTargetDesc *out);

/* ---- space rules (lib/space/space_host.c, MLIR-free) -------------------------------- */

/* Default limits of host spaces (docs/host.md): tasks tiles up to 512 per loop, register
 * tiles up to 16 elements per loop (64 on the vectorized loop). */
PrunerSpaceOptions prunerHostSpaceDefaultOptions(void);

/* The host's validity rules (docs/host.md): entries in the right loops, task tiles
 * dividing the bounds, reduction steps dividing the bounds, register tiles no larger than
 * the task tiles and dividing them on the vectorized loop, vector width 1 or the lanes,
 * the register tile's vector accumulators within the SIMD registers. NULL opts: defaults. */
PrunerStatus prunerHostConfigCheck(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                   const PrunerSpaceOptions *opts, const PrunerConfig *config);

bool prunerHostConfigIsValid(const PrunerWorkload *w, const PrunerTargetDesc *t,
                             const PrunerSpaceOptions *opts, const PrunerConfig *config);

/* Every knob of the host space in space.c's order (parallel loops' tile pairs, reduction
 * steps, promote_operands = {0}, vector_width); at most `cap` knobs. */
PrunerStatus prunerHostSpaceKnobs(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                  const PrunerSpaceOptions *opts, PrunerKnob *knobs, int cap,
                                  int *num_knobs);

/* Candidate values of the host knobs (space.c builds its mixed-radix index from them).
 * Task tile candidates of loop l with their register tiles (pairs), at most `cap`. */
int prunerHostTileCandidates(const PrunerWorkload *w, const PrunerTargetDesc *t,
                             const PrunerSpaceOptions *opts, int loop, int64_t *workgroup,
                             int64_t *thread, int cap);
/* Reduction steps of loop l, at most `cap`. */
int prunerHostReductionCandidates(const PrunerWorkload *w, int loop, int64_t *steps, int cap);
/* Vector widths: {1, lanes}. */
int prunerHostVectorCandidates(const PrunerWorkload *w, const PrunerTargetDesc *t,
                               int64_t *widths, int cap);
/* The loop that is vectorized: the output's contiguous loop (-1: none, scalar only). */
int prunerHostVectorLoop(const PrunerWorkload *w);

/* ---- schedule and measurement (lib/host, MLIR) -------------------------------------- */

/* The host transform schedule for `config` (a module holding @__transform_main that
 * acts on the bufferized payload of prunerHostPayload); malloc'ed, caller frees. With
 * `config` NULL: the untiled lowering (no transform at all, an empty sequence). */
PrunerStatus prunerHostScheduleBuild(const PrunerWorkload *w, const PrunerConfig *config,
                                     const PrunerTargetDesc *t, char **text);

/* The module of `w` under `config` (NULL: untiled) as text, for tests and debugging:
 * stage 0 bufferized payload, 1 after the schedule, 2 lowered to LLVM. malloc'ed. */
PrunerStatus prunerHostLowerText(const PrunerWorkload *w, const PrunerConfig *config,
                                 const PrunerTargetDesc *t, int stage, char **text);

/* The pass pipeline applied after the schedule ("builtin.module(...)"): OpenMP
 * conversion of the task loop, then the LLVM lowering of HOST-FACTS.md. */
const char *prunerHostLoweringPipeline(void);

typedef struct PrunerHostOptions {
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
  int64_t memory_limit_mb; /* child address space; default 8000; 0: none               */
  uint64_t seed;           /* inputs; default 1                                        */
  bool check;              /* compare with the reference; default true                 */
  const char *openblas_coretype; /* OPENBLAS_CORETYPE for the child; NULL: SkylakeX on
                                    AVX-512 machines unless the variable is set; "": none */
} PrunerHostOptions;

PrunerHostOptions prunerHostDefaultOptions(void);

/* One measurement: a record without workload/target/config bookkeeping filled in
 * (status, error, samples, median, spread, max_abs_error, is_baseline/baseline_name).
 * compile_seconds is the JIT time of the candidate. */
typedef struct PrunerHostResult {
  PrunerRecord record;
  double compile_seconds;
  char baseline_core[32]; /* OpenBLAS core name, baseline only */
} PrunerHostResult;

typedef struct PrunerHostImpl *PrunerHost;

/* A measuring host: a forked worker child (started on first use) that JIT-compiles,
 * checks and times candidates. The child sets OPENBLAS_CORETYPE before it loads OpenBLAS
 * (dlopen), so the caller's process is unaffected. Destroy with prunerHostDestroy. */
PrunerStatus prunerHostCreate(const PrunerHostOptions *opts, PrunerHost *out);
void prunerHostDestroy(PrunerHost host);
const PrunerTargetDesc *prunerHostGetTarget(PrunerHost host);

/* Measures `config` of `w` (NULL config: the untiled lowering). Never fails as a whole:
 * a rejected, crashing, hanging or wrong candidate gets the matching record status. */
void prunerHostMeasure(PrunerHost host, const PrunerWorkload *w, const PrunerConfig *config,
                       PrunerHostResult *out);

/* Measures OpenBLAS sgemm (batched: one call per batch) for a matmul-like f32 workload;
 * the record is a baseline ("openblas"). Other workloads get status INVALID. */
void prunerHostMeasureBaseline(PrunerHost host, const PrunerWorkload *w, PrunerHostResult *out);

/* True if `w` maps onto sgemm calls (plain or batched f32 matmul). */
bool prunerHostHasBlasBaseline(const PrunerWorkload *w);

/* Fills the target/workload fields of a record from a result ("host:<name>" key). */
void prunerHostFillRecord(PrunerHost host, const PrunerWorkload *w, const PrunerConfig *config,
                          PrunerRecord *record);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_HOST_H */

/* pruner/draft.h: the draft model, a hardware-aware symbolic latency estimate.
 *
 * The draft predicts the latency of one config of one workload on one GPU target from
 * hardware symbols alone (no compiling, no running): work (FLOPs, traffic per memory
 * level, padding waste), parallelism (grid, threads, registers, shared memory,
 * occupancy by CUDA's occupancy rules, wave quantization) and efficiency (warp fill,
 * register spills, coalescing and vector width, shared-memory bank conflicts, L2 reuse
 * across the blocks of a wave). It is cheap enough to scan spaces of millions of
 * configs and keeps the best N (default 512) for the verifier. The formulas and every
 * constant, with sources, are in docs/draft.md.
 *
 * A PrunerDraft holds everything that depends only on (workload, target), precomputed
 * once; scoring a config touches no heap. It copies the workload and target, so the
 * caller's copies may go away. The handle is read-only after creation, so several
 * threads may score with one draft (each with its own output struct). */
#ifndef PRUNER_DRAFT_H
#define PRUNER_DRAFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pruner/kernel.h"
#include "pruner/space.h"
#include "pruner/status.h"
#include "pruner/target.h"
#include "pruner/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Candidates a draft round keeps by default (Pruner, ASPLOS'25: draft size 512). */
#define PRUNER_DRAFT_DEFAULT_TOP 512
/* Spaces larger than this should be scanned by range or by sample (docs/draft.md). */
#define PRUNER_DRAFT_HUGE_SPACE 50000000ull

typedef enum PrunerDraftBound {
  PRUNER_DRAFT_BOUND_COMPUTE = 0, /* FMA pipe time dominates                 */
  PRUNER_DRAFT_BOUND_MEMORY,      /* DRAM / L2 time dominates                */
  PRUNER_DRAFT_BOUND_SHARED,      /* shared-memory (or L1) traffic dominates */
  PRUNER_DRAFT_BOUND_LAUNCH,      /* so small that launch overhead dominates */
} PrunerDraftBound;

/* What caps the number of resident blocks per SM (CUDA occupancy calculator). */
typedef enum PrunerDraftLimiter {
  PRUNER_DRAFT_LIMIT_BLOCKS = 0, /* max blocks per SM   */
  PRUNER_DRAFT_LIMIT_THREADS,    /* max threads per SM  */
  PRUNER_DRAFT_LIMIT_REGISTERS,  /* registers per SM    */
  PRUNER_DRAFT_LIMIT_SHARED,     /* shared memory per SM */
} PrunerDraftLimiter;

/* Every symbol the model computes for one config. Plain data: copy it freely. Byte
 * counts are for one kernel execution. */
typedef struct PrunerDraftSymbols {
  /* Result. */
  double predicted_us;   /* modelled latency                                    */
  double compute_us;     /* FMA time with penalties                             */
  double memory_us;      /* DRAM time (bytes after L2 reuse / bandwidth)         */
  double l2_us;          /* L2 -> SM time (global loads before L2 reuse)         */
  double shared_us;      /* shared-memory load/store time with bank conflicts    */
  double launch_us;      /* fixed launch overhead                               */
  PrunerDraftBound bound;

  /* Work. */
  double flops;              /* useful FLOPs of the workload                      */
  double executed_flops;     /* FLOPs including padding (ceil-div tiles)          */
  double padding_waste;      /* executed / useful - 1                             */
  double global_load_bytes;  /* global -> shared (promoted) or -> registers      */
  double dram_bytes;         /* DRAM traffic after L2 reuse within a wave         */
  double shared_load_bytes;  /* shared -> registers (per-thread fragments)        */
  double shared_store_bytes; /* global -> shared staging stores                   */
  double global_store_bytes; /* output writes                                     */
  double reuse;              /* flops per byte loaded by a thread (Pruner)        */
  double arithmetic_intensity; /* flops / dram_bytes                              */

  /* Parallelism. */
  int64_t blocks;            /* grid size                                         */
  int64_t threads_per_block;
  int64_t warps_per_block;
  int registers;             /* per thread (estimate or ptxas)                    */
  bool registers_from_ptxas;
  int spill_bytes;           /* ptxas spills (0 when estimated)                   */
  int64_t smem_per_block;    /* bytes of promoted tiles (or ptxas static smem)    */
  int blocks_per_sm;         /* resident blocks per SM                            */
  PrunerDraftLimiter limiter;
  double occupancy;          /* resident warps / max warps per SM                 */
  double waves;              /* ceil(blocks / (SMs x blocks_per_sm))             */
  double waves_fractional;   /* blocks / (SMs x blocks_per_sm)                   */
  double sm_utilization;     /* fraction of SM slots busy, averaged over waves    */

  /* Efficiency (factors in (0, 1], 1 = ideal, unless noted). */
  double warp_fill;          /* threads / (32 x ceil(threads / 32))               */
  double register_penalty;   /* >= 1: time multiplier from register pressure/spill */
  double coalescing;         /* useful bytes / 32-byte sectors fetched, global loads */
  double vector_efficiency;  /* load instructions saved by vector width           */
  double bank_conflict;      /* >= 1: shared access replay factor                 */
  double l2_reuse;           /* global_load_bytes / dram_bytes (>= 1)             */
  double latency_hiding;     /* fraction of memory latency hidden by resident warps */
} PrunerDraftSymbols;

/* One survivor of a scan: the config, its predicted latency and its dense index in the
 * space (prunerSpaceGetConfig(space, index) gives the config back). */
typedef struct PrunerDraftCandidate {
  PrunerConfig config;
  double predicted_us;
  uint64_t index;
} PrunerDraftCandidate;

typedef struct PrunerDraftImpl *PrunerDraft;

/* Precomputes the per-workload parts of the model. Fails, naming the workload key and
 * the field, for a target that is not a GPU or a target/workload with zero or missing
 * fields the model divides by. Destroy with prunerDraftDestroy. */
PrunerStatus prunerDraftCreate(const PrunerWorkload *w, const PrunerTargetDesc *t,
                               PrunerDraft *out);
void prunerDraftDestroy(PrunerDraft draft);

/* A backend's own draft terms (pruner/backend.h): the symbols of `config`, which passed
 * prunerConfigIsValid (`out` is zeroed first; at least out->predicted_us must be set).
 * False: the config cannot be scored. */
typedef bool (*PrunerDraftTermsFn)(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                   const PrunerConfig *config, PrunerDraftSymbols *out, void *user);

/* A draft that scores with `terms` instead of the built-in GPU or host model; scans,
 * top-N and features work as for prunerDraftCreate. `user` must outlive the draft.
 * Destroy with prunerDraftDestroy. */
PrunerStatus prunerDraftCreateWithTerms(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                        PrunerDraftTermsFn terms, void *user, PrunerDraft *out);

const PrunerWorkload *prunerDraftGetWorkload(PrunerDraft draft);
const PrunerTargetDesc *prunerDraftGetTarget(PrunerDraft draft);

/* Scores one config. Returns false (and leaves `out` unspecified) if the config is
 * hard-invalid (prunerConfigIsValid) or, with `resources`, if ptxas' figures make it
 * unlaunchable (registers x threads over the per-block limit, smem over the limit).
 * `resources` may be NULL: registers and shared memory are then estimated. `out` may be
 * NULL when only validity is wanted; on success out->predicted_us is the latency. */
bool prunerDraftScore(PrunerDraft draft, const PrunerConfig *config,
                      const PrunerKernelResources *resources, PrunerDraftSymbols *out);

/* prunerDraftScore of n configs (no resources) sharing one memo of the warp access
 * analysis, several times faster per config than n single calls. valid[i] says whether
 * out[i] holds config i's symbols. Returns the number of valid configs. Allocates one
 * 64 KiB memo per call (none if that fails; the scores are the same). */
size_t prunerDraftScoreBatch(PrunerDraft draft, const PrunerConfig *configs, size_t n,
                             PrunerDraftSymbols *out, bool *valid);

/* Convenience: the predicted latency in µs, or a negative value for invalid configs. */
double prunerDraftPredictUs(PrunerDraft draft, const PrunerConfig *config);

/* The draft's register estimate for `config` (registers per thread, capped where ptxas
 * would spill, as prunerDraftScore uses it without ptxas' figures); -1 when the config
 * cannot be scored. */
int prunerDraftEstimateRegisters(PrunerDraft draft, const PrunerConfig *config);

/* The estimate against ptxas over n compiled candidates (docs/draft.md, "Registers"). */
typedef struct PrunerRegisterStudy {
  size_t n;            /* candidates with both an estimate and a ptxas count */
  double mean_abs;     /* mean |estimate - ptxas| in registers */
  double median_abs;
  double max_abs;
  double mean_signed;  /* mean (estimate - ptxas): > 0 over-estimates */
  double mean_ratio;   /* mean estimate / ptxas */
  double min_ratio, max_ratio;
  double within_25pct; /* fraction with |estimate - ptxas| <= 25% of ptxas */
} PrunerRegisterStudy;

/* Compares prunerDraftEstimateRegisters of configs[i] with resources[i].registers
 * (candidates whose count is 0, i.e. not compiled, are skipped). `estimates` may be
 * NULL, else receives each config's estimate (-1: not scored). Fails only when out of
 * memory. */
PrunerStatus prunerDraftRegisterStudy(PrunerDraft draft, const PrunerConfig *configs,
                                      const PrunerKernelResources *resources, size_t n,
                                      int *estimates, PrunerRegisterStudy *out);

/* Features for the verifier: prunerDraftNumFeatures() floats, named by
 * prunerDraftFeatureName(i) ("log_predicted_us", "occupancy", ...). Sizes and times
 * are log2(1 + x) so that trees split on ratios; factors are raw. */
int prunerDraftNumFeatures(void);
const char *prunerDraftFeatureName(int i);
void prunerDraftSymbolsToFeatures(const PrunerDraftSymbols *symbols, float *out);

const char *prunerDraftBoundName(PrunerDraftBound bound);     /* "compute", "memory" ... */
const char *prunerDraftLimiterName(PrunerDraftLimiter limiter); /* "threads", "registers" */

/* Scans the whole space (prunerSpaceNext, in index order) and writes the `n` configs with
 * the lowest predicted latency into `out` (caller-allocated, n entries), fastest first;
 * ties keep the lower index first. Returns how many were written (min(n, valid count)).
 * Uses a bounded max-heap inside `out`: no allocation per config, memory independent of
 * the space size. The space must belong to the draft's workload and target. */
size_t prunerDraftTopN(PrunerDraft draft, PrunerSpace space, size_t n,
                       PrunerDraftCandidate *out);

/* A partial scan for huge spaces (docs/draft.md): with sample == 0, every valid config
 * with dense index in [begin, end) (end == 0 or past the count: to the end); with
 * sample > 0, `sample` configs drawn uniformly (with replacement, deduplicated in the
 * result) from [begin, end) by a splitmix64 generator seeded with `seed`. */
typedef struct PrunerDraftScanOptions {
  uint64_t begin;
  uint64_t end;
  uint64_t sample;
  uint64_t seed;
} PrunerDraftScanOptions;

/* Like prunerDraftTopN over the part of the space `opts` selects; `scored` (may be NULL)
 * receives the number of configs scored. */
size_t prunerDraftTopNScan(PrunerDraft draft, PrunerSpace space,
                           const PrunerDraftScanOptions *opts, size_t n,
                           PrunerDraftCandidate *out, uint64_t *scored);

/* Spearman rank correlation of two samples of length n (average ranks for ties), the
 * draft's quality metric against measurements; NaN if n < 2, a sample is constant or
 * memory runs out (it allocates O(n) scratch). */
double prunerDraftSpearman(const double *a, const double *b, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_DRAFT_H */

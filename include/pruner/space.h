/* pruner/space.h: the tuning space of one workload on one target, and its configs.
 *
 * A config (PrunerConfig) is one choice of every knob: the tile of each parallel loop
 * per thread block (`workgroup`), the step of each reduction loop (`reduction`), the tile
 * of each parallel loop per thread (`thread`), the operands staged through shared memory
 * (`promote_operands`) and the width of vector loads and stores (`vector_width`). Arrays
 * have one entry per loop of the workload; key names and meanings follow IREE's
 * lowering_config and are documented in docs/config.md.
 *
 * A space (PrunerSpace) lists candidate values per knob and the rules a config must
 * satisfy on the target (threads per block, shared memory, divisibility, vector width).
 * It is never materialized: the knobs form a mixed-radix "raw" index, and valid configs
 * get dense indices 0 .. count-1 through a chunked prefix count built on first use
 * (8 bytes per PRUNER_SPACE_CHUNK raw configs). Iteration (prunerSpaceNext) visits valid
 * configs in index order without any allocation. */
#ifndef PRUNER_SPACE_H
#define PRUNER_SPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pruner/status.h"
#include "pruner/target.h"
#include "pruner/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PRUNER_MAX_KNOB_VALUES 64
#define PRUNER_SPACE_CHUNK 4096

typedef struct PrunerConfig {
  int64_t workgroup[PRUNER_MAX_LOOPS]; /* parallel loops: tile >= 1; reduction loops: 0 */
  int64_t reduction[PRUNER_MAX_LOOPS]; /* reduction loops: step >= 1; parallel loops: 0 */
  int64_t thread[PRUNER_MAX_LOOPS];    /* parallel loops: tile >= 1; reduction loops: 0 */
  uint32_t promote_operands;           /* bit i set: operand i staged in shared memory  */
  int32_t vector_width;                /* elements per vector load/store: 1, 2 or 4     */
  /* Threads cooperating on each output along the reduction loop, partials combined in
   * shared memory (docs/config.md). 0 and 1 both mean one thread per output; readers
   * store 0 (the space's decoding, old records). */
  int32_t reduction_threads;
  /* iree-cpu only: the cache tile (IREE's cache_parallel) of each parallel loop, inside its
   * workgroup tile and around its thread tile; 0 means the workgroup tile, which every
   * other target uses (docs/iree.md, "Space"). */
  int64_t cache[PRUNER_MAX_LOOPS];
  /* Tensor cores (docs/config.md, "mma"): 0 none (FMA), PRUNER_MMA_M16N8K16 = the warp-level
   * mma.sync m16n8k16 with f16 inputs and f32 accumulation. With it, `thread` holds each
   * WARP's tile (M a multiple of 16, N of 8) instead of a thread's. */
  int32_t mma;
  /* Staged tensor cores only (mma with promote_operands = [0, 1]; docs/config.md): shared
   * buffers per operand, the depth of the cp.async pipeline. 0 and 1 both mean one buffer;
   * 2 and 3 pipeline the copies of the next steps behind the current step's mma
   * (docs/schedule.md). Fragments are read with ldmatrix at any depth. */
  int32_t stages;
  /* Split-K over blocks (docs/config.md, "split_k"): the reduction loop cut into split_k
   * slices on as many blocks, each writing its partial result to a device workspace, and
   * a second kernel adding the slices into the output. 0 and 1 both mean no split. */
  int32_t split_k;
} PrunerConfig;

#define PRUNER_MMA_M16N8K16 1
/* Largest pipeline depth a staged tensor-core config takes. */
#define PRUNER_MAX_STAGES 3

/* Largest split_k: slices of the reduction loop over blocks. */
#define PRUNER_MAX_SPLIT_K 64

/* split_k as used: 1 when the field is 0 (configs without the knob). */
static inline int32_t prunerConfigSplitK(const PrunerConfig *c) {
  return c->split_k > 1 ? c->split_k : 1;
}
/* Bytes of the device workspace a split-K config's kernels share (0 without split-K):
 * split_k partial results of the whole output, in the output's element type. */
int64_t prunerConfigWorkspaceBytes(const PrunerWorkload *w, const PrunerConfig *c);

/* stages as used: 1 when the field is 0 (configs without the knob). */
static inline int32_t prunerConfigStages(const PrunerConfig *c) {
  return c->stages > 1 ? c->stages : 1;
}

/* Whether `c` is a pipelined staged tensor-core config (mma with both operands staged and
 * more than one stage): the one kind whose tiles get padded rows (below). */
static inline bool prunerConfigIsPipelinedMma(const PrunerConfig *c) {
  return c->mma && c->promote_operands && prunerConfigStages(c) > 1;
}

/* Elements per row of a pipelined staged tensor-core tile in shared memory, for a tile row
 * of `row_elems` elements of `elem_bytes` each: the row plus 16 bytes when its length in
 * 16-byte units is even, so that the 8 rows of 16 bytes an ldmatrix reads fall in 8
 * distinct groups of 4 banks (32 banks of 4 bytes) instead of sharing them (docs/schedule.md,
 * "Padded rows"). prunerSchedulePadStagedRows pads the buffers so, and the config's
 * shared memory counts it. */
static inline int64_t prunerStagedRowElems(int64_t row_elems, int64_t elem_bytes) {
  int64_t bytes = row_elems * elem_bytes;
  if (elem_bytes <= 0 || 16 % elem_bytes != 0 || bytes % 16 != 0 || (bytes / 16) % 2 != 0)
    return row_elems;
  return row_elems + 16 / elem_bytes;
}

/* reduction_threads as used: 1 when the field is 0 (configs written before the knob). */
static inline int32_t prunerConfigReductionThreads(const PrunerConfig *c) {
  return c->reduction_threads > 1 ? c->reduction_threads : 1;
}
/* Shared-memory bytes of a cross-thread reduction's partials (0 when reduction_threads is
 * 1): reduction_threads partials per output element of the block, and the combine's first
 * level (PRUNER_COMBINE_LANES per element) when it has one. */
int64_t prunerConfigPartialBytes(const PrunerWorkload *w, const PrunerConfig *c);
/* Lanes of the cross-thread combine's first level: a warp. */
#define PRUNER_COMBINE_LANES 32
/* The cross-thread combine's first level (docs/schedule.md, "Cross-thread reductions"):
 * with reduction_threads R >= 2 x PRUNER_COMBINE_LANES the block first folds each output
 * element's R partials into PRUNER_COMBINE_LANES (lane s of a warp folds partials s,
 * s + 32, ...: 32 consecutive partials per warp load), every thread taking this many
 * consecutive elements of the output's last dim, before one thread per element folds
 * those 32. 0: the combine is one level (R <= 32, no cross-thread reduction, or two levels
 * would fold no fewer partials in a row: tile x R / 32 + 32 >= R). */
int64_t prunerConfigCombineFirstTile(const PrunerWorkload *w, const PrunerConfig *c);
/* Whether reduction_threads > 1 can apply to `w` at all: a reduction or a contraction
 * (matmul, batch_matmul, contraction: GEMV and other skinny shapes) with one output and
 * exactly one reduction loop, the innermost. */
bool prunerWorkloadHasReductionThreads(const PrunerWorkload *w);

/* Whether any loop of `c` has a cache tile of its own (iree-cpu). */
static inline bool prunerConfigHasCache(const PrunerConfig *c) {
  for (int l = 0; l < PRUNER_MAX_LOOPS; ++l)
    if (c->cache[l])
      return true;
  return false;
}
/* The two innermost parallel loops of `w` (inner, outer; -1 where there are fewer), whose
 * cache tiles PRUNER_KNOB_CACHE_SPLIT sets. */
void prunerConfigCacheLoops(const PrunerWorkload *w, int *inner, int *outer);
/* PRUNER_KNOB_CACHE_SPLIT's value of `c` (1 + 256 for the workgroup tiles; -1 when a cache
 * tile is not its workgroup tile divided by a whole number), and the cache tiles of `c`
 * from such a value (the workgroup tiles must be set). */
int64_t prunerConfigCacheSplit(const PrunerWorkload *w, const PrunerConfig *c);
void prunerConfigSetCacheSplit(const PrunerWorkload *w, int64_t value, PrunerConfig *c);

/* Whether a config runs on tensor cores (mma != 0). */
static inline bool prunerConfigUsesMma(const PrunerConfig *c) { return c->mma != 0; }

/* Values derived from a config that every consumer needs. */
typedef struct PrunerLaunchShape {
  int64_t grid[3];   /* x, y, z */
  int64_t block[3];  /* x, y, z */
  int64_t threads_per_block;
  int64_t blocks;
  int64_t smem_bytes; /* shared memory for promoted operand tiles */
  /* Loop that each grid / block dimension walks (-1 when that dimension is 1). The
   * innermost tiled parallel loop maps to x; see docs/config.md. */
  int grid_loop[3];
  int block_loop[3];
} PrunerLaunchShape;

typedef enum PrunerKnobKind {
  PRUNER_KNOB_TILE = 0,       /* a (workgroup, thread) tile pair of one parallel loop */
  PRUNER_KNOB_REDUCTION,      /* step of one reduction loop                           */
  PRUNER_KNOB_PROMOTE,        /* promote_operands bit mask                            */
  PRUNER_KNOB_VECTOR_WIDTH,
  /* reduction_threads (reductions and contractions with one reduction loop) */
  PRUNER_KNOB_REDUCTION_THREADS,
  /* iree-cpu: the cache tile of the two innermost parallel loops as splits of their
   * workgroup tiles, value = split of the innermost + 256 x split of the next one (split
   * 1: the workgroup tile, cache 0). A split that does not divide its tile decodes to a
   * cache tile larger than the workgroup tile, which the rules refuse. */
  PRUNER_KNOB_CACHE_SPLIT,
} PrunerKnobKind;

/* One knob of a space: for TILE knobs the candidates are pairs (workgroup, thread);
 * otherwise `values` holds the candidates and `thread_values` is unused. */
typedef struct PrunerKnob {
  PrunerKnobKind kind;
  int loop; /* loop index for TILE and REDUCTION knobs, -1 otherwise */
  int num_values;
  int64_t values[PRUNER_MAX_KNOB_VALUES * 4];
  int64_t thread_values[PRUNER_MAX_KNOB_VALUES * 4];
} PrunerKnob;

typedef struct PrunerSpaceOptions {
  int64_t max_workgroup_tile;  /* per loop; default 256                  */
  int64_t max_thread_tile;     /* per loop; default 16                   */
  int64_t max_thread_elements; /* product of thread tiles; default 64    */
  int64_t min_threads;         /* per block; default 32 (a full warp)    */
  /* Compile-cost limits (docs/space.md: measured ptxas spills and compile times); 0
   * lifts a limit. GPU targets only. */
  int64_t max_unrolled_body;   /* thread elements x reduction steps; default 2047 */
  int64_t max_block_elements;  /* threads x thread elements (the product of the
                                  workgroup tiles); default 32767             */
} PrunerSpaceOptions;

typedef struct PrunerSpaceImpl *PrunerSpace;

/* Default options (see docs/space.md). */
PrunerSpaceOptions prunerSpaceDefaultOptions(void);

/* Whether `w`'s sizes can be run on `t` at all: the element and byte count of every
 * operand and the number of iteration points fit int64_t (checked products), and the
 * operands together fit the target's memory (t->dram_bytes: the GPU's memory, the host's
 * physical RAM; not checked when 0). A failure names the op, the operand and the size;
 * tools skip such ops with a remark instead of tuning them (docs/hardening.md, "Sizes").
 * prunerSpaceCreate checks it too. */
PrunerStatus prunerWorkloadCheckSize(const PrunerWorkload *w, const PrunerTargetDesc *t);

/* Builds the space of `w` on `t`. `opts` may be NULL for the defaults. The space copies
 * the workload and target; destroy it with prunerSpaceDestroy. Fails for workloads that
 * prunerWorkloadCheckSize refuses. */
PrunerStatus prunerSpaceCreate(const PrunerWorkload *w, const PrunerTargetDesc *t,
                               const PrunerSpaceOptions *opts, PrunerSpace *out);
void prunerSpaceDestroy(PrunerSpace space);

const PrunerWorkload *prunerSpaceGetWorkload(PrunerSpace space);
const PrunerTargetDesc *prunerSpaceGetTarget(PrunerSpace space);

/* The options the space was built with (defaults filled in). */
PrunerSpaceOptions prunerSpaceGetOptions(PrunerSpace space);

int prunerSpaceNumKnobs(PrunerSpace space);
/* The knob lives in the space (valid until prunerSpaceDestroy). */
const PrunerKnob *prunerSpaceGetKnob(PrunerSpace space, int i);

/* Product of the knobs' candidate counts: the raw (unfiltered) size. */
uint64_t prunerSpaceRawSize(PrunerSpace space);
/* Why a space with no valid config has none, into `buf` (NUL-terminated): the validity
 * message (prunerConfigCheck) that the most of up to 256 candidates, spread evenly over
 * the raw space, fail with, and how many: "N of M sampled candidates: MESSAGE". Returns
 * snprintf's length. */
size_t prunerSpaceExplainEmpty(PrunerSpace space, char *buf, size_t size);
/* Decodes a raw index into a config (which may be invalid). */
void prunerSpaceDecodeRaw(PrunerSpace space, uint64_t raw, PrunerConfig *out);
/* Encodes a config into its raw index; false if some value is not a candidate. */
bool prunerSpaceEncodeRaw(PrunerSpace space, const PrunerConfig *config, uint64_t *raw);

/* Number of valid configs (builds the chunk index on first call). */
uint64_t prunerSpaceCount(PrunerSpace space);
/* Dense index <-> config among valid configs. */
PrunerStatus prunerSpaceGetConfig(PrunerSpace space, uint64_t index, PrunerConfig *out);
PrunerStatus prunerSpaceGetIndex(PrunerSpace space, const PrunerConfig *config,
                                 uint64_t *index);

/* Iteration over valid configs in index order: start with raw = 0; each call fills
 * `config` and advances `*raw`, returning false when the space is exhausted. */
bool prunerSpaceNext(PrunerSpace space, uint64_t *raw, PrunerConfig *config);

/* True if `config` is one of the space's candidates and valid. */
bool prunerSpaceContains(PrunerSpace space, const PrunerConfig *config);

/* Hard validity of any config (candidate or hand-written) for `w` on `t`: array entries
 * in range and in the right loops, thread tiles dividing workgroup tiles, workgroup tiles
 * dividing the bounds, threads per block within [1, max], at most three mapped grid and
 * block dimensions, shared memory within the per-block limit, vector width dividing the
 * contiguous thread tile, and the compile-cost limits (unrolled body per thread, elements
 * per block). The message names the key and value at fault. */
PrunerStatus prunerConfigCheck(const PrunerWorkload *w, const PrunerTargetDesc *t,
                               const PrunerConfig *config);

/* Whether the target's schedule can build any config of `w` at all (prunerConfigCheck
 * applies the same rules first, so the passes and the tuner agree): on GPU targets the op
 * needs a parallel loop to map to threads (a full reduction to a rank-0 result has none),
 * and an identity copy (folded away by canonicalization) has nothing to schedule. The
 * space of such a workload is not created; pruner-tune leaves the op untuned with a
 * remark. Host targets: always ok here (lib/backend/host checks its own configs). */
PrunerStatus prunerWorkloadCheckSchedulable(const PrunerWorkload *w, const PrunerTargetDesc *t);

/* Whether each output's accumulator is combined as MLIR's reduction vectorizer and its
 * split_reduction need: used once, by one add, mul, max or min whose result the body
 * yields for that output. False, for example, for a logsumexp written in one op (acc =
 * log(exp(acc) + exp(x))) or acc = sqrt(x^2 + acc^2): such reductions take only scalar
 * (vector_width = 1), single-thread, unsplit configs on GPU targets (every other one was a
 * compile error). True for ops without a reduction loop. */
bool prunerWorkloadCombinerIsReduction(const PrunerWorkload *w);

/* True when MLIR's linalg vectorizer can vectorize the op's tiles: a named convolution
 * (decomposed to 1-D first) or projected-permutation indexing maps; otherwise only
 * vector_width = 1 is valid on GPU targets. */
bool prunerWorkloadVectorizable(const PrunerWorkload *w);

/* The widest vector_width a GPU config of `w` may take: 16 bytes of its widest input
 * element (a GPU's widest load, ld.global.v4.b32): 8 when every input is 16-bit or
 * narrower (f16, bf16: ld.global.v4.b32 carries 8 halves), else 4. */
int32_t prunerWorkloadMaxVectorWidth(const PrunerWorkload *w);

/* Fast boolean form of prunerConfigCheck for scans (no message). */
bool prunerConfigIsValid(const PrunerWorkload *w, const PrunerTargetDesc *t,
                         const PrunerConfig *config);

/* The same rules with the limits of `opts` (max_thread_elements, min_threads,
 * max_unrolled_body, max_block_elements) instead of
 * the defaults; NULL means the defaults. A space applies its own options this way, so
 * every config it enumerates passes prunerConfigCheckWithOptions with them. */
PrunerStatus prunerConfigCheckWithOptions(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                          const PrunerSpaceOptions *opts,
                                          const PrunerConfig *config);
bool prunerConfigIsValidWithOptions(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                    const PrunerSpaceOptions *opts, const PrunerConfig *config);

/* Fewest threads per block the rules accept: opts->min_threads, or fewer when the
 * product of the workload's parallel bounds (capped by the target) is smaller. */
int64_t prunerSpaceMinThreads(const PrunerWorkload *w, const PrunerTargetDesc *t,
                              const PrunerSpaceOptions *opts);

/* Extent of one block's tile of operand `operand` along its dimension `dim`:
 * sum_l coeff * (tile_l - 1) + 1, with workgroup tiles for parallel loops and reduction
 * steps for reduction loops. */
int64_t prunerConfigOperandFootprint(const PrunerWorkload *w, const PrunerConfig *config,
                                     int operand, int dim);

/* Cooperative copy of promoted operand `operand`'s block tile (the schedules' staging):
 * `threads` spread over the tile's dims from the innermost (contiguous) one outwards, each
 * thread moving `vector` contiguous elements (or a multiple) so that the copy vectorizes;
 * tiles divide exactly, so the vectorizer sees static shapes. tile[d] = 0 and dim[d] = -1
 * where a dim is not split; dim[d] is the linear thread dim (#gpu.thread<linear_dim_i>)
 * otherwise. Returns how many threads the copy uses (the forall's iteration count; fewer
 * than `threads` means the mapping predicates the copy). */
int64_t prunerConfigCopySpread(const PrunerWorkload *w, const PrunerConfig *c, int64_t threads,
                               int operand, int64_t vector, int64_t *tile, int *dim);
/* Bytes of shared memory the promoted operands' tiles take (sum of footprints x dtype). */
int64_t prunerConfigSharedBytes(const PrunerWorkload *w, const PrunerConfig *config);

/* The implicit GEMM a config denotes: true for a conv_2d_nhwc_hwcf config with promoted
 * operands (docs/config.md, rule 12), with the GEMM (prunerWorkloadImplicitGemm) in
 * *gemm and the config carried over to its loops (n, m = oh * ow, f, k) in
 * *gemm_config: workgroup and thread tiles of m are those of ow (oh's are 1), the K step
 * is c's (kh's and kw's are 1). False for any other config (outputs untouched). The
 * schedule and the draft work on the GEMM; grid_loop and block_loop of such a config's
 * launch shape index the GEMM's loops. */
bool prunerConfigImplicitGemm(const PrunerWorkload *w, const PrunerConfig *config,
                              PrunerWorkload *gemm, PrunerConfig *gemm_config);

/* Which schedule a config selects (docs/config.md): tensor cores (mma; staged when its
 * operands are promoted), a cross-thread
 * reduction (reduction_threads > 1), split-K over blocks (split_k > 1), an implicit-GEMM
 * conv (rule 12), staged operands
 * (promote_operands otherwise: GPU shared memory, host packing), or none of these
 * (direct). The names are those of pruner-tune --schedules. */
typedef enum PrunerScheduleKind {
  PRUNER_SCHEDULE_DIRECT = 0,
  PRUNER_SCHEDULE_PROMOTED,
  PRUNER_SCHEDULE_CROSS_THREAD,
  PRUNER_SCHEDULE_TENSOR_CORE,
  PRUNER_SCHEDULE_IMPLICIT_GEMM,
  PRUNER_SCHEDULE_TENSOR_CORE_STAGED,
  PRUNER_SCHEDULE_SPLIT_K, /* split_k > 1: partial and combining kernels */
  PRUNER_SCHEDULE_KIND_COUNT
} PrunerScheduleKind;

PrunerScheduleKind prunerConfigScheduleKind(const PrunerWorkload *w, const PrunerConfig *config);
/* "direct", "promoted", "cross-thread", "tensor-core", "implicit-gemm",
 * "tensor-core-staged". */
const char *prunerScheduleKindName(PrunerScheduleKind kind);
/* Parses one of those names; false if unknown. */
bool prunerScheduleKindParse(const char *name, PrunerScheduleKind *out);
/* Parses a comma-separated list of them into a mask (bit k = kind k); an unknown or empty
 * entry is an error naming it and the accepted names. */
PrunerStatus prunerScheduleKindsParse(const char *list, uint32_t *mask);

/* Grid, block and shared memory implied by a config (assumes it is valid). */
void prunerConfigLaunchShape(const PrunerWorkload *w, const PrunerConfig *config,
                             PrunerLaunchShape *out);

/* Writes the config in the attribute syntax of docs/config.md:
 * {workgroup = [64, 64, 0], reduction = [0, 0, 16], thread = [4, 4, 0],
 *  promote_operands = [0, 1], vector_width = 4}. Returns the length written. */
int prunerConfigFormat(const PrunerWorkload *w, const PrunerConfig *config, char *buf,
                       size_t size);

/* promote_operands as the operand list its attribute spells ("[0, 1]", "[]") into buf;
 * returns buf. */
const char *prunerConfigFormatPromote(uint32_t mask, char *buf, size_t size);
/* Compact form for tables and logs: "wg64x64 r16 t4x4 p01 v4". */
int prunerConfigFormatShort(const PrunerWorkload *w, const PrunerConfig *config, char *buf,
                            size_t size);

bool prunerConfigEqual(const PrunerConfig *a, const PrunerConfig *b);
/* Whether a and b of workload w step alike in registers: the same thread tile (the
 * register tile on the host) and, for a conv, the same filter-window steps (kh, kw: the
 * taps one innermost step unrolls). The unit the tuner's first batch spreads over
 * (docs/tune.md, "Strategies"). */
bool prunerConfigSameRegisterStep(const PrunerWorkload *w, const PrunerConfig *a,
                                  const PrunerConfig *b);
/* The tuner's first batch over `n` configs of w in rank order (best first), without its
 * random share: writes to order[0..n) a permutation of 0..n-1 in which the first `batch`
 * slots are the ranked ones, except that from slot batch - round(batch x share) on each
 * takes the best-ranked config of a register step (prunerConfigSameRegisterStep) the
 * earlier slots lack (none left: the next in rank order); the rest follow in rank order.
 * share in [0, 1]; 0 is the identity. */
void prunerConfigFirstBatchOrder(const PrunerWorkload *w, const PrunerConfig *ranked, size_t n,
                                 size_t batch, double share, size_t *order);

/* Keeps (true) or drops a config while sampling. */
typedef bool (*PrunerConfigFilter)(const PrunerConfig *config, void *user);

/* Up to `n` distinct valid configs of `space` drawn uniformly at random with the caller's
 * generator state *rng (pruner/random.h; advanced), skipping those `keep` (may be NULL)
 * drops. A space of at most 2n configs is enumerated and shuffled (Fisher-Yates), so all
 * kept configs are reachable; a larger one is sampled by dense index with up to 64 draws
 * per config; when the draws of a filtered sample run dry, the space is enumerated and
 * filtered instead (whole and shuffled up to 65,536 configs, through a reservoir of n
 * above), so a filtered sample returns min(n, kept configs). Fills
 * configs[i] and, if not NULL, indices[i] (dense indices) in draw order; returns how many
 * (0 also when out of memory). The one sampler of the project (lib/tune's random and
 * epsilon-greedy exploration, pruner-compile --random). */
size_t prunerSpaceSample(PrunerSpace space, size_t n, uint64_t *rng, PrunerConfigFilter keep,
                         void *user, PrunerConfig *configs, uint64_t *indices);

/* Restricts `space` to the configs `keep` accepts: the others are no longer in it
 * (count, dense indices, iteration, sampling and the draft's scans follow). The search
 * study uses it to take a dataset's configs as the space (docs/tune.md, "Search study").
 * `keep` is called once per valid config, during this call only (the kept configs are
 * listed; a restricted space answers from the list); restricting again narrows it.
 * Fails only when the list cannot be allocated: the space is then unchanged. */
PrunerStatus prunerSpaceRestrict(PrunerSpace space, PrunerConfigFilter keep, void *user);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_SPACE_H */

/* The draft model: symbols of one config and the latency they predict. The formulas,
 * constants and their sources are in docs/draft.md; the comments here name them. */
#include <math.h>
#include <string.h>

#include "pruner/backend/host_rules.h"
#include "pruner/backend/iree_rules.h"
#include "draft_internal.h"
#include "pruner/checked.h"

#include <stdlib.h>

/* ---- Constants (docs/draft.md, "Constants") ---------------------------------------- */

/* CUDA occupancy rules, cuda_occupancy.h (CUDA 13): 4 sub-partitions per SM (cc >= 7),
 * shared memory allocated in 128-byte units on cc >= 8 (256 before). */
enum { kSubPartitions = 4 };
/* The register estimate (docs/draft.md, "Registers"), fitted to ptxas' counts on the
 * register study's configs (scripts/register-study.sh): addressing, loop and index
 * registers; accumulators stay in registers only in the vectorized schedules (vector_width
 * > 1 or a promotion: the accumulator is hoisted out of the K loop; the scalar loop nest
 * reloads it from memory each step); ptxas keeps a share of one unrolled reduction step's
 * fragment loads in flight, up to a window; blocks of one warp get more (ptxas' budget is
 * 255 there and it schedules more loads early). */
static const double kBaseRegisters = 20.0;
static const double kScalarBaseRegisters = 24.0;
/* All-parallel ops (elementwise) have no loop-carried state or K loop: ptxas used 14-18
 * registers for their scalar configs. */
static const double kScalarNoReductionRegisters = 16.0;
static const double kLoadsInFlight = 0.15, kScalarLoadsInFlight = 0.05;
static const double kLoadWindow = 128.0;
static const double kOneWarpFactor = 1.2;
/* Cross-thread schedules: ptxas used 28-32 registers for every GEMV config with R >= 64
 * and 57-64 with R = 32, whatever the tiles (register study, 27 configs), the occupancy
 * budget. Fitted when the partials were loop-carried in shared memory; in registers now,
 * GEMVs with 8-16 columns per thread use 40-72 (docs/draft.md, "Registers"). */
static const double kCrossThreadRegisters = 31.0, kCrossThreadOneWarpRegisters = 58.0;
/* ...and at least 16 + 1.25 per partial a thread carries in registers (its outputs): GEMVs
 * with 16-64 columns per thread held 40-96 (chosen leave-one-workload-out over four
 * cross-thread studies; docs/draft.md, "Registers"). */
static const double kCrossThreadPartialBase = 16.0, kCrossThreadPerPartial = 1.25;
/* Dependent FP32 FMA latency, 4 cycles on Volta through Hopper (Jia et al., "Dissecting
 * the NVIDIA Volta GPU Architecture via Microbenchmarking", 2018; Luo et al., "Benchmarking
 * and Dissecting the Nvidia Hopper GPU Architecture", IPDPS 2024). */
static const double kFmaLatencyCycles = 4.0;
/* Global memory (DRAM) load latency, ~480-600 cycles on A100/H100 (Luo et al. 2024);
 * taken as 550 ns-equivalent cycles at the boost clock below. */
static const double kDramLatencyCycles = 550.0;
/* Fraction of the datasheet DRAM bandwidth a streaming kernel reaches (~90% in
 * nvbandwidth/STREAM-style copies on A100 and H100; estimate). */
static const double kDramEfficiency = 0.90;
/* L2 -> SM read bandwidth: 5120 B/clk on A100 for 108 SMs (NVIDIA A100 Tensor Core GPU
 * Architecture whitepaper, 2020) = 47.4 B/clk/SM, applied per SM to every target. */
static const double kL2BytesPerClockPerSm = 5120.0 / 108.0;
/* Shared memory / L1 delivers 32 banks x 4 bytes per clock per SM (CUDA C Programming
 * Guide, "Shared Memory" of compute capabilities 5.x-9.x). */
static const double kSharedBytesPerClock = 128.0;
/* Kernel launch overhead seen by event timing of back-to-back launches, ~2-4 µs
 * (CUDA C++ Best Practices Guide, "Kernel launch overhead"; Triton's do_bench); 3 µs. */
static const double kLaunchUs = 3.0;
/* Per-iteration loop and address instructions of a thread's inner loop (estimate, read
 * off the PTX of our matmul schedules: an add, a compare-branch and an address add). */
static const double kLoopOverheadInstr = 3.0;
/* Per reduction step of a block: loop bounds, tile address recomputation and, with
 * promotion, two barriers (estimate, same PTX reading). */
static const double kStepOverheadInstr = 12.0;
/* Implicit GEMM's im2col fill, per element of the A tile: a scalar global load, a shared
 * store and its share of the index arithmetic (read off the PTX of the ResNet-50 3x3 conv
 * with tiles 28 x 64, K step 16: 14 index instructions and 4 load/store pairs for a
 * thread's 4 elements, test/lit/gpu-pipeline/implicit-gemm.mlir). */
static const double kIm2colInstrPerElem = 5.5;
/* Time multiplier per spilled register fraction: local memory goes through L1 and L2 (a
 * spill costs a store and a reload per use; estimate). */
static const double kSpillPenalty = 4.0;
/* Overlap between pipes is imperfect even with many warps: a tenth of the shorter of two
 * overlapping times stays exposed (estimate; it also orders configs that one bottleneck
 * alone would tie). */
static const double kOverlapResidual = 0.1;

/* Cross-thread combine: a block barrier, and the shared-memory load latency before the
 * first partial arrives (cycles; docs/draft.md, "Cross-thread reductions"). */
static const double kBarrierCycles = 40.0;
static const double kSharedLatencyCycles = 30.0;

/* ---- Small helpers ------------------------------------------------------------------- */

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t roundUp(int64_t a, int64_t b) { return ceilDiv(a, b) * b; }
static double dmin(double a, double b) { return a < b ? a : b; }
static double dmax(double a, double b) { return a > b ? a : b; }

/* Unified L1 + shared memory per SM: shared capacity + 28 KiB on cc 8.x/9.x (256 KiB on
 * H100, 192 KiB on A100, 128 KiB on sm_86/89) and 96 KiB on Turing (CUDA C Programming
 * Guide, "Compute Capabilities", unified data cache sizes). */
static double unifiedL1Bytes(const PrunerTargetDesc *t) {
  if (t->compute_capability < 80) return 96.0 * 1024.0;
  return (double)t->smem_per_sm + 28.0 * 1024.0;
}

static int accRegistersPerElem(PrunerDType dtype) {
  return prunerDTypeBytes(dtype) > 4 ? 2 : 1;
}

/* ---- Creation ------------------------------------------------------------------------- */

static PrunerStatus checkTarget(const PrunerWorkload *w, const PrunerTargetDesc *t) {
  if (t->kind == PRUNER_TARGET_HOST || t->kind == PRUNER_TARGET_IREE_CPU)
    return prunerHostDraftCheckTarget(w, t);
  /* iree-cuda: IREE's kernels on the same GPU; the GPU terms carry over (docs/iree.md). */
  if (t->kind != PRUNER_TARGET_GPU && t->kind != PRUNER_TARGET_IREE_CUDA)
    return prunerStatusError("draft for %s: target '%s' is not a GPU (the draft models GPUs only)",
                             w->key, t->name);
  struct {
    const char *name;
    double value;
  } fields[] = {
      {"sm_count", t->sm_count},
      {"boost_clock_mhz", t->boost_clock_mhz},
      {"peak_fp32_gflops", t->peak_fp32_gflops},
      {"dram_gbps", t->dram_gbps},
      {"l2_bytes", (double)t->l2_bytes},
      {"smem_per_sm", t->smem_per_sm},
      {"regs_per_sm", t->regs_per_sm},
      {"regs_per_block", t->regs_per_block},
      {"reg_alloc_unit", t->reg_alloc_unit},
      {"max_threads_per_sm", t->max_threads_per_sm},
      {"max_blocks_per_sm", t->max_blocks_per_sm},
      {"warp_size", t->warp_size},
  };
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i)
    if (!(fields[i].value > 0))
      return prunerStatusError("draft for %s: target '%s' has %s = %g (must be > 0)", w->key,
                               t->name, fields[i].name, fields[i].value);
  return prunerStatusOk();
}

static void initOperand(const PrunerWorkload *w, int i, DraftOperand *o) {
  const PrunerOperand *src = &w->operands[i];
  memset(o, 0, sizeof *o);
  o->bytes = prunerDTypeBytes(src->dtype);
  o->is_output = src->is_output;
  o->rank = src->rank;
  double elems = 1.0;
  double pitch[PRUNER_MAX_RANK];
  double p = 1.0;
  for (int d = src->rank - 1; d >= 0; --d) {
    pitch[d] = p;
    p *= (double)src->shape[d];
  }
  for (int d = 0; d < src->rank; ++d) {
    o->shape[d] = src->shape[d];
    elems *= (double)src->shape[d];
    for (int l = 0; l < w->num_loops; ++l) {
      int64_t c = src->index_coeff[d][l];
      if (c == 0) continue;
      o->terms[o->num_terms++] = (DraftTerm){d, l, c < 0 ? -c : c};
      o->global_step_bytes[l] += (double)c * pitch[d] * o->bytes;
    }
  }
  o->total_bytes = elems * o->bytes;
  o->contiguous_loop = prunerWorkloadContiguousLoop(w, i);
}

PrunerStatus prunerDraftCreate(const PrunerWorkload *w, const PrunerTargetDesc *t,
                               PrunerDraft *out) {
  *out = NULL;
  PrunerStatus st = prunerWorkloadVerify(w);
  if (!st.ok) return st;
  st = checkTarget(w, t);
  if (!st.ok) return st;
  struct PrunerDraftImpl *d = calloc(1, sizeof *d);
  if (!d) return prunerStatusError("draft for %s: out of memory", w->key);
  d->w = *w;
  d->t = *t;
  d->num_operands = w->num_inputs + w->num_outputs;
  for (int i = 0; i < d->num_operands; ++i) {
    initOperand(w, i, &d->ops[i]);
    if (!w->operands[i].is_output) d->input_bytes += d->ops[i].total_bytes;
  }
  d->points = 1.0;
  for (int l = 0; l < w->num_loops; ++l) d->points *= (double)w->bounds[l];
  d->flops = prunerWorkloadFlops(w);
  /* Contractions: one FMA per point (2 flops); generics: one instruction per body op. */
  double flops_per_point = d->points > 0 ? d->flops / d->points : 0.0;
  bool mac = w->kind <= PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC;
  d->instr_per_point = mac ? flops_per_point / 2.0 : dmax(1.0, flops_per_point);
  d->acc_regs_per_elem = accRegistersPerElem(w->operands[w->num_inputs].dtype);
  d->clock_hz = t->boost_clock_mhz * 1e6;
  d->lanes_per_sm = t->peak_fp32_gflops * 1e9 / (2.0 * d->clock_hz * t->sm_count);
  d->fma_issue_cycles = dmax(1.0, t->warp_size / (d->lanes_per_sm / kSubPartitions));
  d->l2_bytes_per_s = kL2BytesPerClockPerSm * t->sm_count * d->clock_hz;
  d->l1_bytes_per_sm = unifiedL1Bytes(t);
  d->smem_granularity = t->compute_capability >= 80 ? 128 : 256;
  d->reg_cap_per_thread = t->max_regs_per_thread > 0 ? t->max_regs_per_thread : 255;
  PrunerWorkload gemm;
  if (t->kind == PRUNER_TARGET_GPU && prunerWorkloadImplicitGemm(w, &gemm)) {
    st = prunerDraftCreate(&gemm, t, &d->igemm);
    if (!st.ok) {
      free(d);
      return st;
    }
    /* The im2col tensor is a view of the input repeated kh x kw times: its tiles come
     * from the input's bytes, which is what DRAM serves. */
    struct PrunerDraftImpl *g = d->igemm;
    g->input_bytes += d->ops[0].total_bytes - g->ops[0].total_bytes;
    g->ops[0].total_bytes = d->ops[0].total_bytes;
    g->im2col_instr_per_elem = kIm2colInstrPerElem;
  }
  *out = d;
  return prunerStatusOk();
}

PrunerStatus prunerDraftCreateWithTerms(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                        PrunerDraftTermsFn terms, void *user, PrunerDraft *out) {
  *out = NULL;
  if (!terms)
    return prunerStatusError("draft for %s: no terms function", w->key);
  PrunerStatus st = prunerWorkloadVerify(w);
  if (!st.ok)
    return st;
  struct PrunerDraftImpl *d = calloc(1, sizeof *d);
  if (!d)
    return prunerStatusError("draft for %s: out of memory", w->key);
  d->w = *w;
  d->t = *t;
  d->terms = terms;
  d->terms_user = user;
  *out = d;
  return prunerStatusOk();
}

void prunerDraftDestroy(PrunerDraft draft) {
  if (!draft)
    return;
  free(draft->igemm);
  free(draft);
}

const PrunerWorkload *prunerDraftGetWorkload(PrunerDraft draft) { return &draft->w; }
const PrunerTargetDesc *prunerDraftGetTarget(PrunerDraft draft) { return &draft->t; }

/* ---- Per-config geometry ---------------------------------------------------------------- */

/* Tile sizes of one "box" of the iteration space: one entry per loop. */
typedef struct Box {
  int64_t s[PRUNER_MAX_LOOPS];
} Box;

/* Elements of operand `o` touched by a box: per dim 1 + sum |coeff| (s - 1), capped at
 * the dim's size (a padded edge tile reads no more than exists). */
static double footprint(const DraftOperand *o, const Box *b) {
  int64_t ext[PRUNER_MAX_RANK];
  for (int d = 0; d < o->rank; ++d) ext[d] = 1;
  for (int i = 0; i < o->num_terms; ++i)
    ext[o->terms[i].dim] += o->terms[i].coeff * (b->s[o->terms[i].loop] - 1);
  double e = 1.0;
  for (int d = 0; d < o->rank; ++d) e *= (double)(ext[d] < o->shape[d] ? ext[d] : o->shape[d]);
  return e;
}

/* Byte step of each loop inside a shared-memory copy of the tile `b` (row-major over the
 * tile's own extents), the layout `promote` gives. */
static void tileStepBytes(const DraftOperand *o, const Box *b, double *step) {
  int64_t ext[PRUNER_MAX_RANK];
  double pitch[PRUNER_MAX_RANK];
  for (int d = 0; d < o->rank; ++d) ext[d] = 1;
  for (int i = 0; i < o->num_terms; ++i)
    ext[o->terms[i].dim] += o->terms[i].coeff * (b->s[o->terms[i].loop] - 1);
  double p = 1.0;
  for (int d = o->rank - 1; d >= 0; --d) {
    pitch[d] = p;
    p *= (double)(ext[d] < o->shape[d] ? ext[d] : o->shape[d]);
  }
  for (int l = 0; l < PRUNER_MAX_LOOPS; ++l) step[l] = 0.0;
  for (int i = 0; i < o->num_terms; ++i)
    step[o->terms[i].loop] += (double)o->terms[i].coeff * pitch[o->terms[i].dim] * o->bytes;
}

/* How the 32 lanes of a warp spread over the thread grid: lane = x + bx * y. */
typedef struct WarpShape {
  int loop_x, loop_y;   /* loops walked by thread x and y, -1 if none */
  int64_t bx, by;       /* lanes along x and y within one warp */
} WarpShape;

/* Number of distinct values in v[0..n) (n <= 64), small insertion set. */
static int countDistinct(const int64_t *v, int n) {
  int64_t seen[64];
  int k = 0;
  for (int i = 0; i < n; ++i) {
    int j = 0;
    while (j < k && seen[j] != v[i]) ++j;
    if (j == k) seen[k++] = v[i];
  }
  return k;
}

/* A lane's byte offset as an integer: converting a double past int64 is undefined
 * behaviour (huge strides), and sector arithmetic adds to it, so it is capped at 2^62. */
static int64_t byteOffset(double v) {
  int64_t off = prunerDoubleToInt64Sat(v);
  return off > ((int64_t)1 << 62) ? (int64_t)1 << 62 : off;
}

/* Lane byte offsets of one warp-wide load; each lane reads `width` bytes. */
static int laneOffsets(const WarpShape *ws, double sx, double sy, int64_t *off) {
  int n = 0;
  for (int64_t y = 0; y < ws->by; ++y)
    for (int64_t x = 0; x < ws->bx; ++x)
      off[n++] = byteOffset(x * sx + y * sy);
  return n;
}

/* 32-byte sectors a warp-wide load touches and the useful bytes it brings. Lanes of one
 * row (fixed y) have non-decreasing offsets, so a row is counted in one pass; rows that
 * coincide (sy = 0) or lie in disjoint sectors are combined without a set. */
static void warpSectors(const WarpShape *ws, double sx, double sy, int width, double *sectors,
                        double *useful) {
  int64_t row_sectors = 0, last = -1;
  for (int64_t x = 0; x < ws->bx; ++x) {
    int64_t off = byteOffset(x * sx);
    int64_t first = off / 32, end = (off + width - 1) / 32;
    if (first <= last) first = last + 1;
    if (end >= first) row_sectors += end - first + 1;
    if (end > last) last = end;
  }
  double row_distinct = (sx != 0 ? (double)ws->bx : 1.0) * width;
  double row_span = (ws->bx - 1) * sx + width;
  if (sy == 0 || ws->by == 1) {
    *sectors = (double)row_sectors;
    *useful = row_distinct;
  } else if (sy >= row_span + 32) {
    *sectors = (double)(row_sectors * ws->by);
    *useful = row_distinct * ws->by;
  } else {
    int64_t off[32] = {0}, sec[64];
    int n = laneOffsets(ws, sx, sy, off);
    int distinct = countDistinct(off, n);
    int m = 0;
    for (int i = 0; i < n && m < 63; ++i) {
      int64_t a = off[i] / 32, b = (off[i] + width - 1) / 32;
      for (int64_t q = a; q <= b && m < 64; ++q) sec[m++] = q;
    }
    *sectors = countDistinct(sec, m);
    *useful = (double)distinct * width;
  }
}

/* Shared-memory replay factor (n-way bank conflict) of one warp-wide load: accesses are
 * served in phases of 128 bytes (a quarter warp for 16-byte loads); within a phase a bank
 * serving k distinct 4-byte words takes k cycles; equal words are broadcast. */
static double bankConflict(const WarpShape *ws, double sx, double sy, int width) {
  int64_t off[32];
  int n = laneOffsets(ws, sx, sy, off);
  int words = width >= 4 ? width / 4 : 1;
  int phase = 32 / words;
  if (phase < 1) phase = 1;
  double worst = 1.0, phases = 0.0;
  for (int p0 = 0; p0 < n; p0 += phase) {
    int64_t bank_words[32][8];
    int count[32] = {0};
    int degree = 1;
    for (int i = p0; i < n && i < p0 + phase; ++i) {
      for (int k = 0; k < words; ++k) {
        int64_t word = off[i] / 4 + k;
        int b = (int)(word & 31);
        int j = 0;
        while (j < count[b] && j < 8 && bank_words[b][j] != word) ++j;
        if (j == count[b]) {
          if (count[b] < 8) bank_words[b][count[b]] = word;
          ++count[b];
          if (count[b] > degree) degree = count[b];
        }
      }
    }
    phases += 1.0;
    worst = dmax(worst, (double)degree);
  }
  (void)phases;
  return worst;
}

/* ---- Memoized warp analysis (DraftWarpCache, draft_internal.h) ------------------------ */

static DraftWarpEntry *warpEntry(DraftWarpCache *cache, int kind, const WarpShape *ws,
                                 double sx, double sy, int width, bool *hit) {
  /* Word-wise mix with splitmix64's finalizer (Steele, Lea, Flood, OOPSLA 2014): the
   * doubles differ in their high bits, which a plain multiply never carries down. */
  uint64_t bits_x, bits_y;
  memcpy(&bits_x, &sx, sizeof sx);
  memcpy(&bits_y, &sy, sizeof sy);
  uint64_t h = (uint64_t)ws->bx | (uint64_t)ws->by << 16 | (uint64_t)kind << 32 |
               (uint64_t)width << 40;
  h ^= bits_x ^ (bits_y >> 32 | bits_y << 32);
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  h ^= h >> 31;
  DraftWarpEntry *e = &cache->entries[h % DRAFT_WARP_CACHE_SIZE];
  *hit = e->valid && e->kind == kind && e->width == width && e->bx == ws->bx &&
         e->by == ws->by && e->sx == sx && e->sy == sy;
  if (!*hit) {
    e->valid = true;
    e->kind = kind;
    e->width = width;
    e->bx = ws->bx;
    e->by = ws->by;
    e->sx = sx;
    e->sy = sy;
  }
  return e;
}

static void cachedSectors(DraftWarpCache *cache, const WarpShape *ws, double sx, double sy,
                          int width, double *sectors, double *useful) {
  if (!cache) {
    warpSectors(ws, sx, sy, width, sectors, useful);
    return;
  }
  bool hit;
  DraftWarpEntry *e = warpEntry(cache, 0, ws, sx, sy, width, &hit);
  if (!hit) warpSectors(ws, sx, sy, width, &e->a, &e->b);
  *sectors = e->a;
  *useful = e->b;
}

static double cachedBank(DraftWarpCache *cache, const WarpShape *ws, double sx, double sy,
                         int width) {
  if (!cache) return bankConflict(ws, sx, sy, width);
  bool hit;
  DraftWarpEntry *e = warpEntry(cache, 1, ws, sx, sy, width, &hit);
  if (!hit) e->a = bankConflict(ws, sx, sy, width);
  return e->a;
}

/* ---- Scoring ---------------------------------------------------------------------------- */

typedef struct Occupancy {
  int blocks_per_sm;
  PrunerDraftLimiter limiter;
} Occupancy;

/* Resident blocks per SM by cuda_occupancy.h's rules (cudaOccMaxBlocksPerSM*Limit). */
static Occupancy occupancy(const struct PrunerDraftImpl *d, int64_t threads, int regs,
                           int64_t smem) {
  const PrunerTargetDesc *t = &d->t;
  int64_t warps = ceilDiv(threads, t->warp_size);
  Occupancy o = {t->max_blocks_per_sm, PRUNER_DRAFT_LIMIT_BLOCKS};
  int64_t by_threads = (t->max_threads_per_sm / t->warp_size) / warps;
  if (by_threads < o.blocks_per_sm) o = (Occupancy){(int)by_threads, PRUNER_DRAFT_LIMIT_THREADS};
  int64_t regs_per_warp = roundUp((int64_t)regs * t->warp_size, t->reg_alloc_unit);
  int64_t by_regs = 0;
  if (regs_per_warp * roundUp(warps, kSubPartitions) <= t->regs_per_block &&
      regs <= d->reg_cap_per_thread + 1) {
    int64_t warps_per_partition = (t->regs_per_sm / kSubPartitions) / regs_per_warp;
    by_regs = warps_per_partition * kSubPartitions / warps;
  }
  if (by_regs < o.blocks_per_sm) o = (Occupancy){(int)by_regs, PRUNER_DRAFT_LIMIT_REGISTERS};
  int64_t smem_alloc = roundUp(smem + t->smem_reserved_per_block, d->smem_granularity);
  int64_t by_smem = smem_alloc > 0 ? t->smem_per_sm / smem_alloc : o.blocks_per_sm;
  if (smem + t->smem_reserved_per_block > t->smem_per_sm) by_smem = 0;
  if (by_smem < o.blocks_per_sm) o = (Occupancy){(int)by_smem, PRUNER_DRAFT_LIMIT_SHARED};
  return o;
}

int draftBlocksPerSm(const struct PrunerDraftImpl *d, int64_t threads, int regs, int64_t smem,
                     PrunerDraftLimiter *limiter) {
  Occupancy o = occupancy(d, threads, regs, smem);
  *limiter = o.limiter;
  return o.blocks_per_sm;
}

/* The warp's lanes over the block that prunerConfigLaunchShape describes (the mapping the
 * schedule emits, docs/config.md): lanes fill thread x (block_loop[0]) first, then y. */
static void warpShape(const PrunerLaunchShape *ls, int64_t warp_size, WarpShape *ws) {
  ws->loop_x = ls->block_loop[0];
  ws->loop_y = ls->block_loop[1];
  ws->bx = ls->block[0] < warp_size ? ls->block[0] : warp_size;
  int64_t rest = warp_size / ws->bx;
  ws->by = ls->block[1] < rest ? ls->block[1] : rest;
}

/* Per-operand results of the traffic analysis. */
typedef struct OperandTraffic {
  double l2_bytes;       /* L2 -> SM bytes (sector granular) */
  double dram_bytes;
  double smem_cycles;    /* shared / L1 wavefront cycles, whole kernel */
  double smem_store_bytes;
  double smem_load_bytes;
  double coalescing;
  double bank;
  double loads_per_iter; /* load instructions per thread per reduction point */
  double frag_elems;     /* fragment elements per thread per reduction point */
  double inflight_bytes; /* per block, issued before the block waits */
} OperandTraffic;

/* ---- The GPU draft's terms (docs/draft.md, one function per paragraph) ------------------ */

/* Work and launch shape of one config (docs/draft.md, "Work" and the boxes of the
 * notation): tiles per loop, the block-step / thread-step / thread-iteration boxes, and the
 * grid and block as prunerConfigLaunchShape launches them (docs/config.md), so coalescing
 * and bank conflicts describe the emitted kernel. */
typedef struct DraftGeometry {
  int64_t ntiles[PRUNER_MAX_LOOPS];
  Box block_step, thread_step, thread_iter, block_out;
  double steps;           /* reduction steps of a block */
  double padded_points;   /* iteration points including ceil-div padding */
  double acc_elems;       /* accumulators per thread (product of the thread tile) */
  double red_points_step; /* reduction points of one step */
  PrunerLaunchShape ls;
  double blocks, threads;
  int64_t ithreads, warps;
  WarpShape ws;
  /* Per loop, the elements between neighbouring lanes' accesses: the thread tile, or for
   * a cross-thread reduction the slice each thread reduces (loop x is then the reduction). */
  int64_t lane_tile[PRUNER_MAX_LOOPS];
  int64_t xthreads; /* reduction_threads (1: one thread per output) */
  int64_t split_k;  /* split_k (1: the reduction loop on one block) */
} DraftGeometry;

static void draftGeometry(const struct PrunerDraftImpl *d, const PrunerConfig *config,
                          DraftGeometry *g) {
  const PrunerWorkload *w = &d->w;
  g->steps = 1.0;
  g->padded_points = 1.0;
  g->acc_elems = 1.0;
  g->red_points_step = 1.0;
  for (int l = 0; l < w->num_loops; ++l) {
    bool par = w->loop_kinds[l] == PRUNER_LOOP_PARALLEL;
    int64_t tile = par ? config->workgroup[l] : config->reduction[l];
    g->ntiles[l] = ceilDiv(w->bounds[l], tile);
    g->padded_points *= (double)(g->ntiles[l] * tile);
    g->block_step.s[l] = tile;
    g->thread_step.s[l] = par ? config->thread[l] : tile;
    g->thread_iter.s[l] = par ? config->thread[l] : 1;
    g->block_out.s[l] = par ? tile : 1;
    if (par) {
      g->acc_elems *= (double)config->thread[l];
    } else {
      g->steps *= (double)g->ntiles[l];
      g->red_points_step *= (double)tile;
    }
  }
  prunerConfigLaunchShape(w, config, &g->ls);
  g->blocks = (double)g->ls.blocks;
  g->threads = (double)g->ls.threads_per_block;
  g->ithreads = g->ls.threads_per_block;
  g->warps = ceilDiv(g->ithreads, d->t.warp_size);
  warpShape(&g->ls, d->t.warp_size, &g->ws);
  for (int l = 0; l < w->num_loops; ++l)
    g->lane_tile[l] = config->thread[l];
  g->split_k = prunerConfigSplitK(config);
  /* Split-K: the launch shape's grid holds the slices; each block walks K / split_k. */
  g->steps /= (double)g->split_k;
  g->xthreads = prunerConfigReductionThreads(config);
  if (g->xthreads > 1) {
    /* The x threads split the (last) reduction loop interleaved (thread r takes elements
     * r, r + R, ...; docs/schedule.md): a block step covers xthreads thread steps, and
     * neighbouring lanes are one element apart. */
    int red = w->num_loops - 1;
    g->block_step.s[red] = config->reduction[red] * g->xthreads;
    g->steps /= (double)g->xthreads;
    g->lane_tile[red] = 1;
    g->ws.loop_x = red;
  }
}

/* Shared memory of promoted tiles, registers and spills (docs/draft.md, "Parallelism"). */
typedef struct DraftResources {
  /* Per-input footprints of a block step (bytes) and of a thread's fragment (elements). */
  double fp_block[PRUNER_MAX_OPERANDS], frag_elems[PRUNER_MAX_OPERANDS];
  int regs, spill_bytes;
  int64_t smem_used;
} DraftResources;

static bool hasReductionLoop(const PrunerWorkload *w) {
  for (int l = 0; l < w->num_loops; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION)
      return true;
  return false;
}

/* Registers per thread before the block-size cap (docs/draft.md, "Registers"):
 * `frag_regs` is one reduction iteration's operand fragments, an unrolled reduction step
 * holds red_points_step of them. */
static double estimateRegisters(const struct PrunerDraftImpl *d, const PrunerConfig *config,
                                const DraftGeometry *g, double frag_regs) {
  if (g->xthreads > 1)
    return dmax(g->ithreads <= d->t.warp_size ? kCrossThreadOneWarpRegisters : kCrossThreadRegisters,
                kCrossThreadPartialBase + kCrossThreadPerPartial * g->acc_elems);
  double step_loads = dmin(frag_regs * g->red_points_step, kLoadWindow);
  /* Split-K kernels are vectorized whatever vector_width says (docs/schedule.md); staged
   * (promoted) ones only with vector_width > 1, like direct ones: with 1 their compute is
   * scalar loops and the accumulator is not carried in registers (ptxas: about 32
   * registers whatever the thread tile; docs/draft.md, "Registers"). */
  bool vectorized = config->vector_width > 1 || prunerConfigSplitK(config) > 1;
  double regs =
      vectorized
          ? kBaseRegisters + g->acc_elems * d->acc_regs_per_elem + kLoadsInFlight * step_loads
          : (hasReductionLoop(&d->w) ? kScalarBaseRegisters : kScalarNoReductionRegisters) +
                kScalarLoadsInFlight * step_loads;
  if (g->ithreads <= d->t.warp_size)
    regs *= kOneWarpFactor;
  /* ptxas unrolls a reduction loop while its registers still let the SM keep as many of
   * the kernel's blocks as the block and thread limits allow: blocks of one warp go up to
   * 64 registers on a 64K-register SM with 32 resident blocks, larger ones to 32
   * (docs/draft.md, "Registers": the occupancy budget). Not with staged operands, whose
   * barriers end each unrolled step (their counts stay below it). */
  if (hasReductionLoop(&d->w) && config->promote_operands == 0) {
    double resident_warps = dmin((double)d->t.max_blocks_per_sm * (double)g->warps,
                                 (double)d->t.max_threads_per_sm / d->t.warp_size);
    if (resident_warps > 0)
      regs = dmax(regs, (double)d->t.regs_per_sm / (resident_warps * d->t.warp_size));
  }
  return regs;
}

/* The estimate (estimateRegisters).
 * With ptxas' figures (`resources`) those decide instead, and false means ptxas' kernel
 * exceeds the per-block register or shared-memory limit (cannot launch). */
static bool draftResources(const struct PrunerDraftImpl *d, const PrunerConfig *config,
                           const DraftGeometry *g, const PrunerKernelResources *resources,
                           DraftResources *r) {
  const PrunerWorkload *w = &d->w;
  const PrunerTargetDesc *t = &d->t;
  double smem = 0.0, frag_regs = 0.0;
  for (int i = 0; i < w->num_inputs; ++i) {
    const DraftOperand *o = &d->ops[i];
    r->fp_block[i] = footprint(o, &g->block_step) * o->bytes;
    r->frag_elems[i] = footprint(o, &g->thread_iter);
    if (config->promote_operands & (1u << i))
      smem += r->fp_block[i];
    frag_regs += r->frag_elems[i] * (o->bytes > 4 ? 2 : 1);
  }
  /* Saturating conversions: a config from a file may tile far past any register file. */
  int regs_est = prunerDoubleToIntSat(estimateRegisters(d, config, g, frag_regs));
  r->regs = regs_est;
  r->spill_bytes = 0;
  /* A cross-thread reduction's partials live in shared memory too. */
  smem += (double)prunerConfigPartialBytes(w, config);
  r->smem_used = prunerDoubleToInt64Sat(smem);
  if (resources) {
    r->regs = resources->registers;
    r->spill_bytes = resources->spill_store_bytes + resources->spill_load_bytes;
    if (resources->shared_bytes > r->smem_used)
      r->smem_used = resources->shared_bytes;
    /* ptxas' figures decide launchability: the per-block register and smem limits. */
    if ((int64_t)roundUp((int64_t)r->regs * t->warp_size, t->reg_alloc_unit) *
                roundUp(g->warps, kSubPartitions) >
            t->regs_per_block ||
        r->smem_used > t->smem_per_block)
      return false;
  } else {
    /* ptxas fits a kernel with a known block size into the per-block register file
     * (nvvm.reqntid), spilling the rest: cap = 65536 / (warps rounded to partitions x 32),
     * in allocation units. */
    int64_t per_thread = t->regs_per_block / (roundUp(g->warps, kSubPartitions) * t->warp_size);
    per_thread = (per_thread * t->warp_size / t->reg_alloc_unit) * t->reg_alloc_unit / t->warp_size;
    if (per_thread > d->reg_cap_per_thread)
      per_thread = d->reg_cap_per_thread;
    if (r->regs > per_thread) {
      r->spill_bytes = (r->regs - (int)per_thread) * 4;
      r->regs = (int)per_thread;
    }
  }
  return true;
}

/* Occupancy and waves (docs/draft.md, "Parallelism"), and the sub-grid one wave covers
 * (blockIdx.x fastest, then y, then z) for the L2-reuse term. */
typedef struct DraftWaves {
  Occupancy occ;
  double slots;       /* SMs x resident blocks per SM */
  double wave_blocks; /* blocks of one wave */
  double waves, waves_frac;
  Box wave_total, wave_step; /* a wave's tile over the whole reduction / over one step */
} DraftWaves;

/* False when not even one block fits an SM. */
static bool draftWaves(const struct PrunerDraftImpl *d, const PrunerConfig *config,
                       const DraftGeometry *g, const DraftResources *r, DraftWaves *v) {
  const PrunerWorkload *w = &d->w;
  const PrunerTargetDesc *t = &d->t;
  v->occ = occupancy(d, g->ithreads, r->regs, r->smem_used);
  if (v->occ.blocks_per_sm < 1)
    return false; /* cannot launch at all */
  v->slots = (double)t->sm_count * v->occ.blocks_per_sm;
  v->wave_blocks = dmin(g->blocks, v->slots);
  v->waves = ceil(g->blocks / v->slots);
  v->waves_frac = g->blocks / v->slots;

  v->wave_total = g->block_step;
  v->wave_step = g->block_step;
  double covered = 1.0;
  int slice_loop = -1;
  double slices = 1.0; /* split-K slices in one wave */
  for (int i = 0; i < 3; ++i) {
    int l = g->ls.grid_loop[i];
    if (l < 0)
      continue;
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION) { /* split-K's slices */
      slices = dmin((double)g->split_k, ceil(v->wave_blocks / covered));
      covered *= slices;
      slice_loop = l;
      continue;
    }
    double c = dmin((double)g->ntiles[l], ceil(v->wave_blocks / covered));
    covered *= c;
    v->wave_total.s[l] = v->wave_step.s[l] = (int64_t)c * config->workgroup[l];
  }
  for (int l = 0; l < w->num_loops; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION)
      v->wave_total.s[l] = g->ntiles[l] * config->reduction[l];
  if (slice_loop >= 0) { /* a wave's slices read their own K ranges side by side */
    v->wave_step.s[slice_loop] = (int64_t)slices * config->reduction[slice_loop];
    v->wave_total.s[slice_loop] =
        (int64_t)(slices * (double)(w->bounds[slice_loop] / g->split_k));
  }
  return true;
}

/* Working sets the traffic terms share: per input the thread-step footprint and the
 * wave's unique footprint (whole reduction, one step), their sums, and how much of the
 * unpromoted block working set the free L1 holds. */
typedef struct DraftWorkingSets {
  double fp_thread[PRUNER_MAX_OPERANDS];
  double unique_total[PRUNER_MAX_OPERANDS], unique_step[PRUNER_MAX_OPERANDS];
  double ws_total, ws_step;
  double l1_fit; /* fraction of the resident blocks' unpromoted working set in free L1 */
} DraftWorkingSets;

static void draftWorkingSets(const struct PrunerDraftImpl *d, const PrunerConfig *config,
                             const DraftGeometry *g, const DraftResources *r, const DraftWaves *v,
                             DraftWorkingSets *s) {
  const PrunerWorkload *w = &d->w;
  double unpromoted_block_ws = 0.0;
  s->ws_total = 0.0;
  s->ws_step = 0.0;
  for (int i = 0; i < w->num_inputs; ++i) {
    const DraftOperand *o = &d->ops[i];
    s->fp_thread[i] = footprint(o, &g->thread_step) * o->bytes;
    s->unique_total[i] = footprint(o, &v->wave_total) * o->bytes;
    s->unique_step[i] = footprint(o, &v->wave_step) * o->bytes;
    s->ws_total += s->unique_total[i];
    s->ws_step += s->unique_step[i];
    if (!(config->promote_operands & (1u << i)))
      unpromoted_block_ws += r->fp_block[i];
  }
  double l1_free = d->l1_bytes_per_sm -
                   v->occ.blocks_per_sm * (double)roundUp(r->smem_used, d->smem_granularity);
  s->l1_fit = unpromoted_block_ws > 0
                  ? dmax(0.0, dmin(1.0, l1_free / (v->occ.blocks_per_sm * unpromoted_block_ws)))
                  : 1.0;
}

/* Vector loads run along the operand's contiguous loop when its per-thread extent holds
 * whole vectors (docs/draft.md, "Efficiency"). */
static int vectorWidth(const DraftOperand *o, const PrunerConfig *config, const DraftGeometry *g) {
  int cl = o->contiguous_loop;
  if (cl >= 0 && config->vector_width > 1 && g->thread_step.s[cl] % config->vector_width == 0)
    return config->vector_width;
  return 1;
}

/* Tile rows are fetched in whole 32-byte sectors: row bytes / sector-rounded row bytes. */
static double rowEfficiency(const DraftOperand *o, const PrunerTargetDesc *t,
                            const DraftGeometry *g) {
  double row = 1.0;
  int cl = o->contiguous_loop;
  if (cl >= 0)
    row = (double)(g->block_step.s[cl] < o->shape[o->rank - 1] ? g->block_step.s[cl]
                                                               : o->shape[o->rank - 1]);
  double row_bytes = row * o->bytes;
  return row_bytes / (ceil(row_bytes / t->dram_sector_bytes) * t->dram_sector_bytes);
}

/* Promoted operand (docs/draft.md, "Traffic" and "bank conflicts"): the block copies its
 * tile global -> shared with coalesced rows, threads read their fragments from shared
 * memory through the warp's lane layout over the tile, replayed per bank conflict. */
static void promotedTraffic(const DraftOperand *o, const PrunerConfig *config,
                            const DraftGeometry *g, DraftWarpCache *cache, int width,
                            double warp_instrs, double block_bytes, double thread_bytes,
                            double row_eff, double fp_block, OperandTraffic *tr) {
  const WarpShape *ws = &g->ws;
  double step[PRUNER_MAX_LOOPS];
  tileStepBytes(o, &g->block_step, step);
  double ssx = ws->loop_x >= 0 ? step[ws->loop_x] * config->thread[ws->loop_x] : 0;
  double ssy = ws->loop_y >= 0 ? step[ws->loop_y] * config->thread[ws->loop_y] : 0;
  double sectors, useful;
  tr->bank = cachedBank(cache, ws, ssx, ssy, width);
  cachedSectors(cache, ws, ssx, ssy, width, &sectors, &useful);
  /* A warp load moves its distinct bytes in 128-byte wavefronts, replayed per conflict. */
  double wavefronts = dmax(1.0, ceil(useful / kSharedBytesPerClock)) * tr->bank;
  /* The cooperative copy: coalesced rows, one 4-byte store per element and thread. */
  double copy_cycles = block_bytes / kSharedBytesPerClock * 2.0;
  tr->smem_cycles = warp_instrs * wavefronts + copy_cycles;
  tr->smem_store_bytes = block_bytes;
  tr->smem_load_bytes = thread_bytes;
  tr->l2_bytes = block_bytes / row_eff;
  tr->coalescing = row_eff;
  tr->inflight_bytes = fp_block;
}

/* Unpromoted operand (docs/draft.md, "Traffic" and "coalescing"): every thread loads its
 * own fragment from global memory; the warp's sectors give the coalescing, and reuse
 * between the threads of a block survives in L1 as far as it fits (l1_fit). */
static void unpromotedTraffic(const DraftOperand *o, const PrunerTargetDesc *t,
                              const DraftGeometry *g, DraftWarpCache *cache, int width,
                              double warp_instrs, double block_bytes, double thread_bytes,
                              double row_eff, double l1_fit, double fp_thread, OperandTraffic *tr) {
  const WarpShape *ws = &g->ws;
  /* Warp-level access pattern: lanes step by the thread tile of the x / y loop. */
  double gsx = ws->loop_x >= 0 ? o->global_step_bytes[ws->loop_x] * g->lane_tile[ws->loop_x] : 0;
  double gsy = ws->loop_y >= 0 ? o->global_step_bytes[ws->loop_y] * g->lane_tile[ws->loop_y] : 0;
  double sectors, useful;
  cachedSectors(cache, ws, gsx, gsy, width, &sectors, &useful);
  tr->bank = 1.0;
  tr->coalescing = useful / (sectors * t->dram_sector_bytes);
  /* L1 serves a warp's sectors four per 128-byte wavefront. */
  tr->smem_cycles = warp_instrs * dmax(1.0, ceil(sectors / 4.0));
  tr->smem_store_bytes = 0.0;
  tr->smem_load_bytes = 0.0;
  double base = block_bytes / row_eff;
  tr->l2_bytes = base + dmax(0.0, thread_bytes / tr->coalescing - base) * (1.0 - l1_fit);
  tr->inflight_bytes = g->threads * fp_thread;
}

/* DRAM bytes of input `i` with L2 reuse (docs/draft.md, "DRAM with L2 reuse"): blocks of
 * one wave share tiles through L2; whole inputs that fit L2 together are read once; never
 * below the operand's size nor above its L2-level traffic. */
static double dramTraffic(const struct PrunerDraftImpl *d, const DraftGeometry *g,
                          const DraftWaves *v, const DraftWorkingSets *s, int i, double l2_bytes,
                          double row_eff) {
  const DraftOperand *o = &d->ops[i];
  double l2 = (double)d->t.l2_bytes;
  double l2_wave = l2_bytes / dmax(1.0, v->waves_frac);
  double per_step = g->steps * s->unique_step[i] / row_eff;
  double dram_wave;
  if (s->ws_total <= l2)
    dram_wave = s->unique_total[i] / row_eff;
  else if (s->ws_step <= l2)
    dram_wave = per_step; /* blocks share a step's tiles; halos re-read per step */
  else
    dram_wave = per_step + (l2_wave - per_step) * (1.0 - l2 / s->ws_step);
  double dram = dmin(l2_bytes, dram_wave * dmax(1.0, v->waves_frac));
  if (d->input_bytes <= l2)
    dram = dmin(dram, o->total_bytes / row_eff);
  return dmax(dram, o->total_bytes);
}

/* The traffic of input `i` at every level: L2 -> SM, DRAM, shared / L1 cycles. */
static void operandTraffic(const struct PrunerDraftImpl *d, const PrunerConfig *config,
                           const DraftGeometry *g, const DraftResources *r, const DraftWaves *v,
                           const DraftWorkingSets *s, int i, DraftWarpCache *cache,
                           OperandTraffic *tr) {
  const DraftOperand *o = &d->ops[i];
  int vw = vectorWidth(o, config, g);
  int width = vw * o->bytes;
  double frag = r->frag_elems[i];
  double loads = frag / vw;
  double warp_instrs = g->blocks * g->warps * g->steps * g->red_points_step * loads;
  double block_bytes = g->blocks * g->steps * r->fp_block[i];
  double thread_bytes = g->blocks * g->threads * g->steps * s->fp_thread[i];
  double row_eff = rowEfficiency(o, &d->t, g);
  if (config->promote_operands & (1u << i))
    promotedTraffic(o, config, g, cache, width, warp_instrs, block_bytes, thread_bytes, row_eff,
                    r->fp_block[i], tr);
  else
    unpromotedTraffic(o, &d->t, g, cache, width, warp_instrs, block_bytes, thread_bytes, row_eff,
                      s->l1_fit, s->fp_thread[i], tr);
  tr->dram_bytes = dramTraffic(d, g, v, s, i, tr->l2_bytes, row_eff);
  tr->loads_per_iter = loads;
  tr->frag_elems = frag;
}

/* Traffic summed over the operands, with the efficiencies the symbols report. */
typedef struct DraftTraffic {
  double total_l2, total_dram, total_smem_cycles, smem_load, smem_store;
  double loads_per_iter, inflight, coal_num, coal_den, bank_worst;
  double frag_bytes_total, frag_elems_total;
  double store_bytes; /* output stores, included in total_l2 and total_dram */
} DraftTraffic;

static void draftTraffic(const struct PrunerDraftImpl *d, const PrunerConfig *config,
                         const DraftGeometry *g, const DraftResources *r, const DraftWaves *v,
                         DraftWarpCache *cache, DraftTraffic *x) {
  const PrunerWorkload *w = &d->w;
  DraftWorkingSets s;
  draftWorkingSets(d, config, g, r, v, &s);
  memset(x, 0, sizeof *x);
  x->bank_worst = 1.0;
  for (int i = 0; i < w->num_inputs; ++i) {
    OperandTraffic tr;
    operandTraffic(d, config, g, r, v, &s, i, cache, &tr);
    x->loads_per_iter += tr.loads_per_iter;
    x->frag_bytes_total += tr.frag_elems * d->ops[i].bytes;
    x->frag_elems_total += tr.frag_elems;
    x->total_l2 += tr.l2_bytes;
    x->total_dram += tr.dram_bytes;
    x->total_smem_cycles += tr.smem_cycles;
    x->smem_load += tr.smem_load_bytes;
    x->smem_store += tr.smem_store_bytes;
    x->inflight += tr.inflight_bytes;
    x->coal_num += tr.coalescing * tr.l2_bytes;
    x->coal_den += tr.l2_bytes;
    x->bank_worst = dmax(x->bank_worst, tr.bank);
  }
  /* Output stores: each block writes its tile once (accumulators stay in registers). */
  for (int i = w->num_inputs; i < d->num_operands; ++i)
    x->store_bytes += g->blocks * footprint(&d->ops[i], &g->block_out) * d->ops[i].bytes;
  x->total_l2 += x->store_bytes;
  x->total_dram += x->store_bytes;
}

/* Compute time before the spill penalty (docs/draft.md, "Latency": compute, eff(k),
 * instr_eff, sched_fill, fma hiding): per SM, k resident blocks share 4 schedulers, for
 * the full waves and then the last, partial one. */
typedef struct DraftCompute {
  double fma_per_iter; /* FMA-pipe instructions per thread per reduction point */
  double warp_fill;
  double seconds;
} DraftCompute;

static void draftCompute(const struct PrunerDraftImpl *d, const PrunerConfig *config,
                         const DraftGeometry *g, const DraftWaves *v, double loads_per_iter,
                         DraftCompute *c) {
  const PrunerTargetDesc *t = &d->t;
  c->fma_per_iter = g->acc_elems * d->instr_per_point;
  double issue =
      c->fma_per_iter + loads_per_iter + kLoopOverheadInstr +
      (kStepOverheadInstr + (config->promote_operands ? 2.0 * kStepOverheadInstr : 0.0)) /
          g->red_points_step;
  /* Implicit GEMM: each thread's share of the block's im2col elements per k (the A tile
   * is workgroup[m] elements wide per k; batch tile 1). */
  if (d->im2col_instr_per_elem > 0 && g->threads > 0)
    issue += d->im2col_instr_per_elem * (double)config->workgroup[1] / g->threads;
  double instr_eff = dmin(1.0, c->fma_per_iter * d->fma_issue_cycles / issue);
  c->warp_fill = g->threads / (double)(g->warps * t->warp_size);
  double ilp = dmin(g->acc_elems, kFmaLatencyCycles);
  double block_instr = g->padded_points / g->blocks * d->instr_per_point; /* thread-instrs */
  double lanes_rate = d->lanes_per_sm * d->clock_hz;
  double t_block_sm[2];
  int kblocks[2] = {v->occ.blocks_per_sm, 0};
  double full_waves = floor(g->blocks / v->slots);
  double rem = g->blocks - full_waves * v->slots;
  kblocks[1] = (int)ceil(rem / t->sm_count);
  for (int j = 0; j < 2; ++j) {
    int k = kblocks[j];
    if (k == 0) {
      t_block_sm[j] = 0.0;
      continue;
    }
    double rw = (double)k * g->warps;
    double sched_fill = dmin(1.0, rw / kSubPartitions);
    double per_sched = rw / dmin(rw, kSubPartitions);
    double lat_hide = dmin(1.0, per_sched * ilp * d->fma_issue_cycles / kFmaLatencyCycles);
    double eff = instr_eff * sched_fill * lat_hide * c->warp_fill;
    t_block_sm[j] = k * block_instr / (lanes_rate * eff);
  }
  c->seconds = full_waves * t_block_sm[0] + t_block_sm[1];
}

/* Cross-thread reductions (docs/draft.md, "Cross-thread reductions"): every thread stores
 * its partial of each of the block's outputs to shared memory, and after a barrier one
 * thread per element of the output's last dim folds the xthreads partials of its outputs
 * in a dependent chain while the block's other threads wait. From 64 threads, where it
 * shortens that chain, the combine has two levels (prunerConfigCombineFirstTile): the
 * block's lanes first fold each
 * element's partials into 32 (a chain of xthreads / 32 per element, `tile` elements per
 * thread), and after a second barrier one thread per element folds those 32. Adds the
 * shared-memory bytes and cycles, and the chains (once per wave: resident blocks overlap
 * theirs) to compute. */
static void draftCombine(const struct PrunerDraftImpl *d, const PrunerConfig *config,
                         const DraftGeometry *g, const DraftWaves *v, DraftTraffic *x,
                         DraftCompute *c) {
  if (g->xthreads <= 1)
    return;
  const PrunerWorkload *w = &d->w;
  const DraftOperand *o = &d->ops[w->num_inputs];
  double outs = footprint(o, &g->block_out);
  double bytes = g->blocks * outs * (double)g->xthreads * o->bytes;
  x->smem_store += bytes;
  x->smem_load += bytes;
  x->total_smem_cycles += 2.0 * bytes / kSharedBytesPerClock;
  int last = -1; /* loop of the output's last dim: one combining thread per element */
  for (int l = 0; l < w->num_loops && last < 0 && o->rank > 0; ++l)
    if (w->operands[w->num_inputs].index_coeff[o->rank - 1][l])
      last = l;
  double per_thread = last >= 0 ? outs / (double)config->workgroup[last] : outs;
  double step = d->instr_per_point * kFmaLatencyCycles; /* one dependent fold */
  double level = kBarrierCycles + kSharedLatencyCycles;
  double chain = level + per_thread * (double)g->xthreads * step;
  int64_t tile = prunerConfigCombineFirstTile(w, config);
  if (tile) {
    double firsts = g->blocks * outs * (double)PRUNER_COMBINE_LANES * o->bytes;
    x->smem_store += firsts;
    x->smem_load += firsts;
    x->total_smem_cycles += 2.0 * firsts / kSharedBytesPerClock;
    chain = level + per_thread * (double)tile * (double)(g->xthreads / PRUNER_COMBINE_LANES) * step +
            level + per_thread * (double)PRUNER_COMBINE_LANES * step;
  }
  c->seconds += v->waves * chain / d->clock_hz;
}

/* Split-K's combining kernel (docs/draft.md, "Split-K over blocks"): a launch of its own
 * after the partial kernel, reading the split_k partials of every output element (from
 * L2 when they fit it: the partial kernel has just written them) and writing the output
 * once. The partial kernel's own output stores (split_k x the output) are counted by
 * draftTraffic, whose blocks include the slices. */
static double splitKCombineUs(const struct PrunerDraftImpl *d, const DraftGeometry *g) {
  if (g->split_k <= 1)
    return 0.0;
  const PrunerWorkload *w = &d->w;
  double out_bytes = 0.0;
  for (int i = w->num_inputs; i < d->num_operands; ++i)
    out_bytes += d->ops[i].total_bytes;
  double partial_bytes = (double)g->split_k * out_bytes;
  double read_rate = partial_bytes <= 0.5 * (double)d->t.l2_bytes
                         ? d->l2_bytes_per_s
                         : d->t.dram_gbps * 1e9 * kDramEfficiency;
  double write_rate = d->t.dram_gbps * 1e9 * kDramEfficiency;
  return kLaunchUs + (partial_bytes / read_rate + out_bytes / write_rate) * 1e6;
}

/* Register pressure (docs/draft.md, "register pressure"): spills add local-memory round
 * trips, 1 + 4 x spilled / (allocated + spilled). */
static double spillPenalty(int regs, int spill_bytes) {
  double spill_frac = regs > 0 ? (spill_bytes / 4.0) / (double)(regs + spill_bytes / 4.0) : 0.0;
  return 1.0 + kSpillPenalty * spill_frac;
}

/* Memory-side times (docs/draft.md, "Latency": dram, l2, shared). DRAM bandwidth is
 * reached only with enough bytes in flight per SM (Little's law). */
typedef struct DraftMemory {
  double hiding; /* bytes in flight / bytes needed in flight, at most 1 */
  double dram_s, l2_s, smem_s;
} DraftMemory;

static void draftMemory(const struct PrunerDraftImpl *d, const DraftGeometry *g,
                        const DraftWaves *v, const DraftTraffic *x, DraftMemory *m) {
  const PrunerTargetDesc *t = &d->t;
  double busy_sms = dmin((double)t->sm_count, g->blocks);
  double need_inflight = t->dram_gbps * 1e9 / t->sm_count * (kDramLatencyCycles / d->clock_hz);
  double have_inflight =
      dmin((double)v->occ.blocks_per_sm, ceil(g->blocks / t->sm_count)) * x->inflight;
  m->hiding = x->inflight > 0 ? dmin(1.0, have_inflight / need_inflight) : 1.0;
  double sm_share = busy_sms / t->sm_count;
  m->dram_s =
      x->total_dram / (t->dram_gbps * 1e9 * kDramEfficiency * dmax(1e-3, m->hiding * sm_share));
  m->l2_s = x->total_l2 / (d->l2_bytes_per_s * sm_share);
  m->smem_s =
      x->total_smem_cycles / (busy_sms * d->clock_hz) * (v->waves / dmax(1.0, v->waves_frac));
}

/* The latency (docs/draft.md, "Latency": core, memory, latency): loads and math overlap
 * across resident blocks; with one block per SM and a barrier per step (no double
 * buffering) they serialize. Fills the times and the bound of `out`. */
static void draftLatency(double compute_s, const DraftMemory *m, int blocks_per_sm,
                         PrunerDraftSymbols *out) {
  double core_s = dmax(compute_s, m->smem_s) + kOverlapResidual * dmin(compute_s, m->smem_s);
  double mem_s = dmax(m->dram_s, m->l2_s);
  double non_overlap = dmin(1.0, 1.0 / dmax(1.0, (double)blocks_per_sm) + kOverlapResidual);
  double body_s = dmax(core_s, mem_s) + non_overlap * dmin(core_s, mem_s);
  double body_us = body_s * 1e6;
  out->compute_us = compute_s * 1e6;
  out->memory_us = m->dram_s * 1e6;
  out->l2_us = m->l2_s * 1e6;
  out->shared_us = m->smem_s * 1e6;
  out->launch_us = kLaunchUs;
  out->predicted_us = kLaunchUs + body_us;
  if (kLaunchUs > body_us)
    out->bound = PRUNER_DRAFT_BOUND_LAUNCH;
  else if (mem_s >= core_s)
    out->bound = PRUNER_DRAFT_BOUND_MEMORY;
  else
    out->bound = compute_s >= m->smem_s ? PRUNER_DRAFT_BOUND_COMPUTE : PRUNER_DRAFT_BOUND_SHARED;
}

/* The remaining symbols (docs/draft.md, "What is computed per config"). */
static void draftSymbols(const struct PrunerDraftImpl *d, const PrunerConfig *config,
                         const DraftGeometry *g, const DraftResources *r, const DraftWaves *v,
                         const DraftTraffic *x, const DraftCompute *c, const DraftMemory *m,
                         double reg_penalty, bool from_ptxas, PrunerDraftSymbols *out) {
  const PrunerTargetDesc *t = &d->t;
  out->flops = d->flops;
  out->executed_flops = d->flops * g->padded_points / d->points;
  out->padding_waste = g->padded_points / d->points - 1.0;
  out->global_load_bytes = x->total_l2 - x->store_bytes;
  out->dram_bytes = x->total_dram;
  out->shared_load_bytes = x->smem_load;
  out->shared_store_bytes = x->smem_store;
  out->global_store_bytes = x->store_bytes;
  out->reuse = x->frag_bytes_total > 0 ? 2.0 * c->fma_per_iter / x->frag_bytes_total : 0.0;
  out->arithmetic_intensity = x->total_dram > 0 ? d->flops / x->total_dram : 0.0;
  out->blocks = prunerDoubleToInt64Sat(g->blocks);
  out->threads_per_block = g->ithreads;
  out->warps_per_block = g->warps;
  out->registers = r->regs;
  out->registers_from_ptxas = from_ptxas;
  out->spill_bytes = r->spill_bytes;
  out->smem_per_block = r->smem_used;
  out->blocks_per_sm = v->occ.blocks_per_sm;
  out->limiter = v->occ.limiter;
  out->occupancy = (double)v->occ.blocks_per_sm * g->warps / (t->max_threads_per_sm / t->warp_size);
  out->waves = v->waves;
  out->waves_fractional = v->waves_frac;
  out->sm_utilization = v->waves_frac / v->waves;
  out->warp_fill = c->warp_fill;
  out->register_penalty = reg_penalty;
  out->coalescing = x->coal_den > 0 ? x->coal_num / x->coal_den : 1.0;
  out->vector_efficiency = x->loads_per_iter > 0 && config->vector_width > 0
                               ? x->frag_elems_total / (x->loads_per_iter * config->vector_width)
                               : 1.0;
  out->bank_conflict = x->bank_worst;
  out->l2_reuse = x->total_dram > 0 ? x->total_l2 / x->total_dram : 1.0;
  out->latency_hiding = m->hiding;
}

bool prunerDraftScore(PrunerDraft draft, const PrunerConfig *config,
                      const PrunerKernelResources *resources, PrunerDraftSymbols *out) {
  if (!prunerConfigIsValid(&draft->w, &draft->t, config))
    return false;
  return draftScoreValid(draft, config, resources, out);
}

bool draftScoreValid(PrunerDraft draft, const PrunerConfig *config,
                     const PrunerKernelResources *resources, PrunerDraftSymbols *out) {
  return draftScoreCached(draft, config, resources, out, NULL);
}

/* The GPU draft, term by term in the order of docs/draft.md. */
static bool gpuScore(const struct PrunerDraftImpl *d, const PrunerConfig *config,
                     const PrunerKernelResources *resources, PrunerDraftSymbols *out,
                     DraftWarpCache *cache) {
  if (config->mma) /* tensor cores: their own term (mma.c) */
    return draftMmaScore(d, config, resources, out);
  PrunerWorkload gemm;
  PrunerConfig gemm_config;
  if (d->igemm && prunerConfigImplicitGemm(&d->w, config, &gemm, &gemm_config))
    return gpuScore(d->igemm, &gemm_config, resources, out, NULL); /* the GEMM's terms */
  DraftGeometry g;
  draftGeometry(d, config, &g);
  DraftResources r;
  if (!draftResources(d, config, &g, resources, &r))
    return false;
  DraftWaves v;
  if (!draftWaves(d, config, &g, &r, &v))
    return false;
  DraftTraffic x;
  draftTraffic(d, config, &g, &r, &v, cache, &x);
  DraftCompute c;
  draftCompute(d, config, &g, &v, x.loads_per_iter, &c);
  draftCombine(d, config, &g, &v, &x, &c);
  double reg_penalty = spillPenalty(r.regs, r.spill_bytes);
  double compute_s = c.seconds * reg_penalty;
  DraftMemory m;
  draftMemory(d, &g, &v, &x, &m);
  if (!out)
    return true;
  memset(out, 0, sizeof *out);
  draftLatency(compute_s, &m, v.occ.blocks_per_sm, out);
  double combine_us = splitKCombineUs(d, &g);
  if (combine_us > 0.0) { /* a second launch, after the first has finished */
    out->predicted_us += combine_us;
    out->launch_us += kLaunchUs;
  }
  draftSymbols(d, config, &g, &r, &v, &x, &c, &m, reg_penalty, resources != NULL, out);
  return true;
}

bool draftScoreCached(PrunerDraft draft, const PrunerConfig *config,
                      const PrunerKernelResources *resources, PrunerDraftSymbols *out,
                      DraftWarpCache *cache) {
  const struct PrunerDraftImpl *d = draft;
  if (d->terms) {
    PrunerDraftSymbols s;
    memset(&s, 0, sizeof s);
    if (!d->terms(&d->w, &d->t, config, &s, d->terms_user))
      return false;
    if (out)
      *out = s;
    return true;
  }
  if (d->t.kind == PRUNER_TARGET_HOST)
    return prunerHostDraftScore(&d->w, &d->t, config, out);
  if (d->t.kind == PRUNER_TARGET_IREE_CPU)
    return prunerIreeCpuDraftScore(&d->w, &d->t, config, out);
  return gpuScore(d, config, resources, out, cache);
}

size_t prunerDraftScoreBatch(PrunerDraft draft, const PrunerConfig *configs, size_t n,
                             PrunerDraftSymbols *out, bool *valid) {
  DraftWarpCache *cache = calloc(1, sizeof *cache);
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    valid[i] = prunerConfigIsValid(&draft->w, &draft->t, &configs[i]) &&
               draftScoreCached(draft, &configs[i], NULL, &out[i], cache);
    count += valid[i];
  }
  free(cache);
  return count;
}

double prunerDraftPredictUs(PrunerDraft draft, const PrunerConfig *config) {
  PrunerDraftSymbols s;
  return prunerDraftScore(draft, config, NULL, &s) ? s.predicted_us : -1.0;
}

/* lib/backend/host/draft_host.c: the draft model of the host CPU (docs/host.md, "Draft").
 *
 * A roofline over the cache levels, with vectorization and parallel efficiency:
 *   compute = flops / (per-core peak x SIMD use x FMA-latency cover x load-port balance
 *                      x cores used x wave efficiency)
 *   L1      = register-level operand traffic (each register tile's operand slices per
 *             reduction step, the accumulator once per cache block) / L1 bandwidth
 *   L2, LLC, DRAM = the bytes each cache level fetches from the next one, from the
 *             working sets of the schedule's loop nest (cacheFills below), over that
 *             next level's bandwidth
 *   latency = max of the terms + a share of the others + call and fork/join overhead.
 * The constants and their sources are in docs/host.md. */
#include <math.h>
#include <string.h>

#include "pruner/backend/host_rules.h"
#include "pruner/checked.h"
#include "pruner/draft.h"

/* FMA latency in cycles: 4 on Skylake-SP .. Sapphire Rapids (Intel optimization manual,
 * appendix "instruction latency") and on Zen 4 (AMD 56665, FP pipe latencies). */
#define FMA_LATENCY 4.0
/* Share of the SIMD register file a register tile of a 2-D conv, whose accumulators make
 * memory round trips every step (CONV2D_ACC_ROUND_TRIPS), needs as accumulators for full
 * FMA throughput: one half. Measured where the knee can be seen: 16 of 32 registers on
 * the Zen 4 (data/host-conv-nhwc.jsonl: the best time per accumulator count falls until
 * 16 and is flat after: 1.78x at 4, 1.15-1.30x at 8, 1.03x at 12) and 8 of 16 under AVX2
 * on the Xeon (data/host-conv-nhwc-intel-avx2.jsonl: 1.46x at 4, 1.20x at 6, best at 8,
 * 1.02x at 12). A fixed count of 16 instead made the draft prefer 14-row tiles under
 * AVX2, which fill the register file and measure 1.7x the best (docs/host.md, "Draft").
 * Hoisted accumulators need only FMA latency x pipes (4 on Zen 4, 8 with two 512-bit
 * pipes): data/host-bmm.jsonl reaches its best time with 4. */
#ifndef UNHOISTED_ACCUMULATOR_SHARE /* a study build may set it: PRUNER_HOST_DRAFT_STUDY */
#define UNHOISTED_ACCUMULATOR_SHARE 0.5
#endif
/* Register demand of a vectorized 2-D conv's register step: its accumulators, one
 * broadcast per tile row (each input pixel feeds up to kw taps of the unrolled step, so
 * LLVM keeps them live) and one filter vector per tile vector. The compiled inner loops
 * spill where the demand passes the SIMD register file by more than CONV2D_REGISTER_SLACK:
 * the 3x3 convs' tiles in llvm-objdump (scripts/conv-spill-census.sh) show 0-2 stack
 * accesses per step up to 2 over (AVX-512 6 x 4: 2, 10 x 2; AVX2 5 x 2, 8 x 1) and 8-52
 * from 4 over (AVX-512 12 x 2, 14 x 2; AVX2 6 x 2, 10 x 1, 12 x 1, 14 x 1; lit tests
 * test/lit/host/conv-spill*.test), alike for LLVM's Intel and AMD CPU models. Each
 * register over the slack divides the register efficiency by 1 +
 * CONV2D_SPILL_COST_PER_REGISTER, chosen leave-one-dataset-out over the seven conv
 * datasets (scripts/draft-lowo-conv.sh, docs/quality.md "Spills in the host draft"): 0.04
 * in five folds, 0.02 and 0.08 in the others, which rank the top alike; fitted on the
 * timings too, the slack is 2 in every fold. Measured: the Zen 4's 14 x 2 (10 over the
 * slack) 1.36x its best tile, 12 x 2 (4 over) 1.18x; the Zen 3's 6 x 2 (2 over) 1.35x, the
 * Xeon's under AVX2 1.02x. */
#ifndef CONV2D_REGISTER_SLACK /* a study build may set these: PRUNER_HOST_DRAFT_STUDY */
#define CONV2D_REGISTER_SLACK 2.0
#endif
#ifndef CONV2D_SPILL_COST_PER_REGISTER
#define CONV2D_SPILL_COST_PER_REGISTER 0.04
#endif
#ifndef CONV2D_HOISTED_SPILLS /* study builds: 0 charges no spills to hoisted accumulators */
#define CONV2D_HOISTED_SPILLS 1
#endif
#ifndef HOISTED_CONV_ACCUMULATOR_SHARE /* study builds: the hoisted conv's knee, 0: none */
#define HOISTED_CONV_ACCUMULATOR_SHARE 0.0
#endif
/* The register demand of a hoisted conv's step with a single tap (kw step 1) counts one
 * live broadcast, not one per tile row: each input pixel then feeds one row of FMAs and
 * is dead after it (llvm-objdump of the Xeon's AVX2 6 x 2 tiles: 7 stack accesses per
 * step with one tap, 32 with three). Chosen leave-one-dataset-out over the five version-4
 * conv datasets (scripts/draft-lowo-conv-hoisted.sh, docs/quality.md "Five version-4 conv
 * files"): four folds of five choose it. A study build may set it to 0 (one per row). */
#ifndef CONV2D_ONE_TAP_BROADCASTS
#define CONV2D_ONE_TAP_BROADCASTS 1
#endif
/* Independent accumulator chains in flight when runs are short: while one register tile's
 * chains wait on FMA latency, the out-of-order core already issues the next tiles' loads
 * and FMAs, whose accumulators are other registers; a run of `chain` FMAs per accumulator
 * (its reduction block: 3 for a depthwise conv's kw taps) leaves up to OOO_WINDOW_FMAS /
 * chain chains in flight, however few accumulators one tile has. Without it the draft
 * charged a depthwise conv's 1-row tiles 8x the FMA time and they measure 1.0-1.5x the
 * best tile's (docs/quality.md, "Short runs overlap"). Chosen leave-one-dataset-out over
 * the 27 host datasets (scripts/draft-lowo-window.sh: 0, 8, 16, 24, 32, 64, 128, 256): 16
 * in 26 folds, 128 in one; larger windows rank the bulk of the depthwise spaces as well
 * but push near-best configs down. 0 turns the overlap off (a study build may set it). */
#ifndef OOO_WINDOW_FMAS
#define OOO_WINDOW_FMAS 16.0
#endif
/* Extra latency, in cycles per FMA, of the accumulator chains of a full 2-D conv's step
 * that unrolls several kw taps (each accumulator takes kw dependent FMAs a step): such a
 * tile needs (FMA_LATENCY + MULTI_TAP_CHAIN_LATENCY) x pipes accumulators to cover them.
 * Seen in the version-4 conv files' near-best configs (within 1.3x of the best), against
 * the same tile's one-tap steps: three-tap 4 x 2 and 2 x 4 tiles (8 accumulators, the
 * FMA_LATENCY x pipes the draft had) measured 10-19% slower than the draft said on the Zen
 * 3 and on the Xeon under AVX2, 4-11% on the Xeon with AVX-512; 5 x 2 (10) 1-5%; a
 * quiet Zen 3 times the one-tap step of those tiles 5% faster where the draft had said
 * 10% slower (data/README.md, "Taps per step"). Why is not measured (these machines have
 * no performance counters). Chosen leave-one-dataset-out over the 31 host sets
 * (scripts/draft-lowo-constant.sh MULTI_TAP_CHAIN_LATENCY 0 0 0.5 1 1.5 2 3: the default
 * 0, then the candidates): 1.5 in 30 folds, 0.5 in one; judged by the search study
 * (docs/quality.md "Chains of taps"). Not for depthwise convs: their runs are short (3-9
 * FMAs per accumulator) and the next tiles' chains already overlap them (OOO_WINDOW_FMAS);
 * applied there it cost two of the four depthwise files trials to 2%. 0 turns it off (a
 * study build may set it). */
#ifndef MULTI_TAP_CHAIN_LATENCY
#define MULTI_TAP_CHAIN_LATENCY 1.5
#endif
/* Fixed cost of one run of an innermost loop that is not a reduction (elementwise): its
 * mispredicted exit, 11-18 cycles on current x86 cores (Agner Fog, "The microarchitecture
 * of Intel, AMD and VIA CPUs": 15). A reduction loop's run (one register tile in one cache
 * block) is charged only the port time of its accumulators' load and store: its exit and
 * the latencies at its ends (the accumulators' first load to use, the last FMA before the
 * store) overlap with the FMAs queued in the out-of-order window, because the exit branch
 * and the next tile's loads depend on nothing the FMA chains compute. Until 2026-12-05
 * they were charged too (15 + 7 + 4 cycles), which predicted the Xeon's 512^3 matmul 12%
 * faster at a 512 k step than at 32 where it measures 7% faster (docs/quality.md, "The
 * runs' fixed cost"). */
#define LOOP_EXIT_CYCLES 15.0
/* Trip counts up to which a loop's exit is taken as predicted (not charged): a loop of a
 * few trips, run again and again, ends on a branch pattern the predictor learns. Chosen
 * leave-one-dataset-out (scripts/draft-lowo-runs.sh; docs/quality.md "Short loops and
 * the depthwise conv's runs"); 1 charges every exit. A study build may set it. */
#ifndef SHORT_LOOP_TRIPS
#define SHORT_LOOP_TRIPS 16.0
#endif
/* Loads per cycle: two on both families (same sources). Stores: 64 bytes per cycle to
 * L1 (Zen 4: two 32-byte store pipes, AMD 56665 sec. 2.12; Golden Cove: two stores of
 * up to 32 bytes or one of 64), i.e. one 512-bit or two 256-bit vector stores. */
#define LOADS_PER_CYCLE 2.0
#define STORE_BYTES_PER_CYCLE 64.0
/* Round trips of the output register tile through memory per innermost step of a 2-D
 * conv. Its schedule decomposes the conv on tensors and bufferizes inside the schedule
 * (docs/host.md, "Schedule" step 5), after which the accumulator is not hoisted out of
 * the reduction loop: `pruner-host-tool --print=scheduled` shows each step loading and
 * storing the output tile three times (the FMAs' round trip and two copies), for kw = 1
 * and kw = 3 and for one or many tasks alike (docs/host.md, "Draft"). Matmul-like schedules
 * keep the accumulator in registers (hoist_redundant_vector_transfers). */
#define CONV2D_ACC_ROUND_TRIPS 3.0
/* Instructions issued per cycle (Zen 4 dispatches 6 macro-ops, Golden Cove 6; 4 is the
 * sustained rate of FP-heavy loops), and the loop's own (increment, compare, branch).
 * Leave-one-dataset-out over 31 host sets (scripts/draft-lowo-constant.sh ISSUE_WIDTH)
 * prefers 3.5 in 29 folds on the draft's regrets, but the search study at 3.5 needs 1.06x
 * the trials to 2% and meets fewer goals (docs/quality.md "The Zen 3 conv with host
 * version 4"), so 4 stays. */
#ifndef ISSUE_WIDTH /* study builds may set it: PRUNER_HOST_DRAFT_STUDY */
#define ISSUE_WIDTH 4.0
#endif
#define LOOP_UOPS 3.0
/* Share of the non-dominant roofline terms that is not hidden. Cache fills are made by
 * the hardware prefetchers and line-fill buffers while the core computes (the loads'
 * issue slots are already in the compute term's port balance), so only a small residual
 * remains: 0.1, the GPU draft's overlap residual (docs/draft.md). First a chosen value;
 * leave-one-dataset-out over 31 host sets (scripts/draft-lowo-constant.sh OVERLAP_LOSS:
 * 0, 0.1, 0.25, 0.5, 1) keeps 0.1 in 30 folds (docs/quality.md). */
#ifndef OVERLAP_LOSS /* study builds may set it: PRUNER_HOST_DRAFT_STUDY */
#define OVERLAP_LOSS 0.1
#endif
/* Sustained bytes per cycle per core: L1 LOADS_PER_CYCLE loads of one vector each
 * (l1BytesPerCycle below), L2 32 (both manuals' L2->L1 fill bandwidth), last-level cache
 * 16 (measured LLC read bandwidth per core on server parts is 15-20 B/cycle; Intel manual
 * "memory subsystem"). */
#define L2_BYTES_PER_CYCLE 32.0
#define LLC_BYTES_PER_CYCLE 16.0
/* Share of a cache a loop's working set may fill and still be fully reused: one half. Caches
 * are set-associative with (pseudo-)LRU replacement, and the data streamed through a
 * loop competes with the reused blocks; Goto and van de Geijn (ACM TOMS 34(3), 2008,
 * sec. 6) size the reused blocks of GEMM to about half of the cache that holds them, and
 * BLIS' analytical model (Low et al., ACM TOMS 43(2), 2016) reserves a similar share of
 * the ways for the streamed operands. */
#define CACHE_USABLE 0.5
/* L1 data cache sets span 4 KiB: x86 L1D caches are virtually indexed and physically
 * tagged with 64 sets of 64-byte lines (Zen 4: 32 KiB 8-way, AMD 57647, "L1 data cache"; Golden
 * Cove: 48 KiB 12-way, Intel optimization manual), so that the set index lies in the
 * page offset; rows of an operand a multiple of 4 KiB apart map onto the same sets, and
 * the cache's ways are what holds them (ways = L1 size / 4 KiB). */
#define L1_SET_SPAN_BYTES 4096.0
/* Lines an L1 fill brings per line a task uses when the task's slice of an operand's
 * contiguous dim is one 64-byte line or less and the dim goes on (a depthwise conv's
 * 16-channel task, a matmul task 16 columns wide): the hardware prefetchers fetch lines
 * beside the ones loaded (Intel's L1 next-line and L2 adjacent-line "spatial"
 * prefetchers, Intel optimization manual, "Data prefetching"; AMD's L1 and L2 stream and
 * up/down prefetchers, AMD 57647, "Hardware prefetching"), and here the line beside is
 * another task's, evicted before that task runs. Chosen leave-one-dataset-out over the
 * 27 host datasets (scripts/draft-lowo-lines.sh: 1, 1.5, 2, 3; 2 in every fold), not
 * measured per prefetcher (docs/quality.md, "One-line tasks"). A study build may set it. */
#ifndef ONE_LINE_TASK_FILLS
#define ONE_LINE_TASK_FILLS 2.0
#endif
/* Data TLB: 4 KiB pages (Linux's default; transparent huge pages are applied only to
 * madvise'd memory on Debian's default, and the harness does not madvise), first-level
 * DTLB entries (Zen 4: 72, AMD 57647, "Translation-lookaside buffer"; Golden Cove: 96 for loads;
 * the smaller bound of older cores, 64, is used), and a first-level miss that hits the second level
 * costs its latency (7 cycles on Zen 4, same source; 7-9 on Intel): a register tile
 * that touches more pages per run than the first level holds pays it at every new page. */
#define PAGE_BYTES 4096.0
#define DTLB_L1_ENTRIES 64.0
#define DTLB_L2_HIT_CYCLES 7.0
/* Share of that latency a run does not hide behind its FMAs (out-of-order execution
 * overlaps the next steps' misses with this step's work). Chosen on measured pairs of
 * packed and unpacked configs of the 1024^3 and BERT FFN matmuls (docs/host.md, "Packing
 * B"), not on the data/ datasets it is judged on in docs/quality.md. */
#define DTLB_MISS_EXPOSED 0.5
/* Fixed cost of one packed panel besides its copy: malloc + free of the panel buffer
 * (glibc serves a chunk of the size just freed from its bins without a system call once
 * the mmap threshold has adapted: some tens of nanoseconds) and the copy loop's exit. A
 * round figure, not a fit; it is small against any panel the space offers. */
#define PACK_PANEL_CYCLES 200.0
/* OpenMP parallel region fork/join, microseconds (EPCC OpenMP micro-benchmarks: 1-3 us
 * for PARALLEL FOR on a few cores). */
#define OMP_FORK_US 2.0
/* Call overhead of the JIT'ed function through the packed interface, microseconds. */
#define CALL_US 0.5

static double dmin(double a, double b) { return a < b ? a : b; }
static double dmax(double a, double b) { return a > b ? a : b; }

PrunerStatus prunerHostDraftCheckTarget(const PrunerWorkload *w, const PrunerTargetDesc *t) {
  struct {
    const char *name;
    double value;
  } fields[] = {
      {"sm_count (cores)", prunerHostTargetCores(t)},
      {"boost_clock_mhz", t->boost_clock_mhz},
      {"peak_fp32_gflops", t->peak_fp32_gflops},
      {"dram_gbps", t->dram_gbps},
      {"l2_bytes", (double)t->l2_bytes},
      {"smem_per_sm (L1d)", t->smem_per_sm},
      {"warp_size (SIMD lanes)", prunerHostTargetSimdLanes(t)},
      {"regs_per_sm (SIMD registers)", t->regs_per_sm}, /* the 2-D conv's knee, spills */
  };
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i)
    if (!(fields[i].value > 0))
      return prunerStatusError("draft for %s: host target '%s' has %s = %g (must be > 0)", w->key,
                               t->name, fields[i].name, fields[i].value);
  return prunerStatusOk();
}

/* Elements of operand o's dim d that a box of per-loop extents `ext` touches. */
static int64_t dimExtent(const PrunerWorkload *w, int o, int d, const int64_t *ext) {
  const PrunerOperand *op = &w->operands[o];
  int64_t e = 1;
  for (int l = 0; l < w->num_loops; ++l) {
    int64_t c = op->index_coeff[d][l];
    if (c)
      e += (c < 0 ? -c : c) * (ext[l] - 1);
  }
  return e > op->shape[d] ? op->shape[d] : e;
}

/* Bytes of operand o's slice over per-loop extents `ext` (footprint of an affine box). */
static double footprintBytes(const PrunerWorkload *w, int o, const int64_t *ext) {
  const PrunerOperand *op = &w->operands[o];
  double elems = 1.0;
  for (int d = 0; d < op->rank; ++d)
    elems *= (double)dimExtent(w, o, d, ext);
  return elems * prunerDTypeBytes(op->dtype);
}

/* An operand's slice as rows: `rows` runs of `row_bytes` contiguous bytes (its last dim),
 * `stride_bytes` apart (one step of the next dim). A packed operand is one contiguous
 * buffer (stride = row). */
typedef struct HostRows {
  double rows, row_bytes, stride_bytes;
} HostRows;

static HostRows hostRows(const PrunerWorkload *w, int o, const int64_t *ext, bool packed) {
  const PrunerOperand *op = &w->operands[o];
  double eb = prunerDTypeBytes(op->dtype);
  HostRows r = {1.0, (double)dimExtent(w, o, op->rank - 1, ext) * eb, 0.0};
  for (int d = 0; d + 1 < op->rank; ++d)
    r.rows *= (double)dimExtent(w, o, d, ext);
  r.stride_bytes = packed || op->rank < 2 ? r.row_bytes : (double)op->shape[op->rank - 1] * eb;
  return r;
}

static int64_t gcdI64(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* Lines of operand o's slice in the fullest L1 set. Its rows start at
 * g = 4096 / gcd(stride mod 4096, 4096) distinct positions of the 4 KiB the sets span
 * (L1_SET_SPAN_BYTES), so the fullest set holds ceil(rows / g) of its lines when the
 * rows do not overlap there; a packed (contiguous) slice spreads evenly. A 32-row slice
 * of B at N = 1024 f32 (4 KiB rows) puts 32 lines into each of its sets: an 8-way L1
 * keeps 8 of them. */
static double l1LinesPerSet(const PrunerWorkload *w, int o, const int64_t *ext, bool packed) {
  HostRows r = hostRows(w, o, ext, packed);
  double even = ceil(r.rows * r.row_bytes / L1_SET_SPAN_BYTES);
  if (r.rows <= 1 || r.stride_bytes <= r.row_bytes || r.row_bytes >= L1_SET_SPAN_BYTES)
    return even;
  int64_t span = (int64_t)L1_SET_SPAN_BYTES, rem = (int64_t)r.stride_bytes % span;
  double starts = rem == 0 ? 1.0 : (double)(span / gcdI64(rem, span));
  if (starts * r.row_bytes > L1_SET_SPAN_BYTES)
    return even; /* the rows cover every set */
  return dmax(even, ceil(r.rows / starts));
}

/* 4 KiB pages operand o's slice lies on. */
static double pagesTouched(const PrunerWorkload *w, int o, const int64_t *ext, bool packed) {
  HostRows r = hostRows(w, o, ext, packed);
  if (r.stride_bytes >= PAGE_BYTES)
    return r.rows * ceil(r.row_bytes / PAGE_BYTES);
  return ceil(((r.rows - 1.0) * r.stride_bytes + r.row_bytes) / PAGE_BYTES);
}

static bool isConv2d(const PrunerWorkload *w) {
  return w->kind == PRUNER_OP_CONV_2D_NHWC_HWCF || w->kind == PRUNER_OP_CONV_2D_NCHW_FCHW ||
         w->kind == PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC;
}

/* Whether the kernels modelled keep a vectorized 2-D conv's output register tile in
 * registers across the reduction steps: this build's host kernels do (host code-generator
 * version 4, docs/host.md "Schedule" step 5); a host dataset of earlier versions timed
 * kernels whose accumulators made CONV2D_ACC_ROUND_TRIPS every step
 * (PrunerTargetDesc.codegen_version). iree-cpu configs are scored here too (IREE's own
 * kernels, IREE's versions): they keep the round trips the model has always charged them
 * until an iree-cpu conv dataset says otherwise. */
static bool convAccumulatorsHoisted(const PrunerTargetDesc *t) {
  return t->kind == PRUNER_TARGET_HOST && (t->codegen_version == 0 || t->codegen_version >= 4);
}

/* The loop nest the host schedule builds (docs/host.md, "Schedule"), outermost first:
 * the task loops (parallel loops by the workgroup tile), the cache-block loops (reduction
 * loops by their step), the register-tile loops (parallel loops, workgroup by thread
 * tile), the inner reduction loops (step by the register-level extent). Each entry
 * narrows one loop's extent from `outer` to `inner`. */
typedef struct HostNestLoop {
  int loop;
  int64_t outer, inner;
} HostNestLoop;

typedef struct HostNest {
  HostNestLoop loops[4 * PRUNER_MAX_LOOPS];
  int depth;
} HostNest;

static void hostNestAdd(HostNest *nest, int loop, int64_t outer, int64_t inner) {
  if (inner < outer) /* trip count 1 changes nothing */
    nest->loops[nest->depth++] = (HostNestLoop){loop, outer, inner};
}

/* Whether the workload is a contraction: it has a reduction loop (elementwise ops have
 * none). */
static bool isContraction(const PrunerWorkload *w) {
  for (int l = 0; l < w->num_loops; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION)
      return true;
  return false;
}

/* Whether operand o is indexed by loop l. */
static bool indexes(const PrunerWorkload *w, int o, int l) {
  for (int d = 0; d < w->operands[o].rank; ++d)
    if (w->operands[o].index_coeff[d][l])
      return true;
  return false;
}

/* With a packed operand (`packed` >= 0) the register-tile loops that index it come first:
 * the schedule tiles them into panels before it promotes (schedule_host.c). */
static void hostNest(const PrunerWorkload *w, const PrunerConfig *c, const int64_t *reg, int packed,
                     HostNest *nest) {
  nest->depth = 0;
  const int n = w->num_loops;
  for (int l = 0; l < n; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_PARALLEL)
      hostNestAdd(nest, l, w->bounds[l], c->workgroup[l]);
  for (int l = 0; l < n; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION)
      hostNestAdd(nest, l, w->bounds[l], c->reduction[l]);
  for (int pass = packed >= 0 ? 0 : 1; pass < 2; ++pass)
    for (int l = 0; l < n; ++l)
      if (w->loop_kinds[l] == PRUNER_LOOP_PARALLEL &&
          (packed < 0 || (pass == 0) == indexes(w, packed, l)))
        hostNestAdd(nest, l, c->workgroup[l], reg[l]);
  for (int l = 0; l < n; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION)
      hostNestAdd(nest, l, c->reduction[l], reg[l]);
}

/* Bytes of all operands over a box: the working set (`traffic` false) or the bytes
 * moved when the box is brought in (`traffic` true: the output is read and written back,
 * so it counts twice). */
static double boxBytes(const PrunerWorkload *w, const int64_t *ext, bool traffic,
                       const double *weight) {
  double bytes = 0;
  for (int o = 0; o < w->num_inputs + w->num_outputs; ++o)
    bytes += footprintBytes(w, o, ext) * (traffic && w->operands[o].is_output ? 2.0 : 1.0) *
             (traffic && weight ? weight[o] : 1.0);
  return bytes;
}

/* Whether a box's working set of `bytes` stays in a cache of `capacity` bytes; for the
 * L1 (`strided` >= 0: the packable operand, unpacked) its rows must also fit the ways of
 * the sets they map to (l1LinesPerSet; the ways scale with the capacity, so the usable
 * half of the cache is half of its ways). Only the operand packing is about is checked:
 * the register tile's other slices are a few rows, and the accumulator is in registers. */
static bool boxFits(const PrunerWorkload *w, const int64_t *ext, double capacity, int strided,
                    double bytes) {
  if (bytes > capacity)
    return false;
  return strided < 0 || l1LinesPerSet(w, strided, ext, false) <= capacity / L1_SET_SPAN_BYTES;
}

/* Bytes a cache fetches from the next level over the whole nest if it reuses exactly the
 * boxes whose working set is at most `capacity` (LRU, fully associative). Walking from
 * the outermost loop in, the first box (extents of the loops inside depth d) that fits is
 * reused within; the loop just outside it (depth d - 1) is where data stops being reused
 * across iterations: an operand that does not depend on that loop is fetched once for all
 * its iterations (its data is touched again after only the fitting working set), one
 * that does gets its new slices each iteration, which is its footprint over that loop's
 * whole box. So the fills are the depth d - 1 box's bytes times the iterations of the
 * loops outside it. If the whole problem fits, each byte comes once; if not even one
 * register step fits, every access misses. `*fit_bytes` is the fitting working set. */
static double fillsIfReused(const PrunerWorkload *w, const HostNest *nest, double capacity,
                            int strided, const double *weight, double *fit_bytes) {
  int64_t ext[PRUNER_MAX_LOOPS], prev[PRUNER_MAX_LOOPS];
  for (int l = 0; l < w->num_loops; ++l)
    ext[l] = w->bounds[l];
  *fit_bytes = boxBytes(w, ext, false, NULL);
  if (boxFits(w, ext, capacity, strided, *fit_bytes))
    return boxBytes(w, ext, true, weight);
  double outside = 1; /* iterations of the loops outside the current depth */
  for (int d = 0; d < nest->depth; ++d) {
    const HostNestLoop *e = &nest->loops[d];
    memcpy(prev, ext, sizeof ext);
    ext[e->loop] = e->inner;
    *fit_bytes = boxBytes(w, ext, false, NULL);
    if (boxFits(w, ext, capacity, strided, *fit_bytes))
      return boxBytes(w, prev, true, weight) * outside;
    outside *= ceil((double)e->outer / (double)e->inner);
  }
  return boxBytes(w, ext, true, weight) * outside;
}

/* The fills of a real cache of `size` bytes: a working set up to CACHE_USABLE x size is
 * reused fully, one that fills the whole cache not at all (set conflicts and the streamed
 * data evict it), linearly in between (an interpolation, not a measurement); so the
 * estimate moves smoothly as a block grows instead of jumping at one threshold. */
static double cacheFills(const PrunerWorkload *w, const HostNest *nest, double size, int strided,
                         const double *weight) {
  double fit_full = 0, fit_half = 0;
  double fills_full = fillsIfReused(w, nest, size, strided, weight, &fit_full);
  double fills_half = fillsIfReused(w, nest, CACHE_USABLE * size, strided, weight, &fit_half);
  if (fills_full == fills_half || fit_full <= CACHE_USABLE * size)
    return fills_half;
  double crowded = (fit_full - CACHE_USABLE * size) / ((1.0 - CACHE_USABLE) * size);
  return (1.0 - crowded) * fills_full + crowded * fills_half;
}

/* The model's quantities, term by term, in the order docs/host.md ("Draft") explains
 * them: each function below computes one term from the ones before it. */
typedef struct HostDraft {
  const PrunerWorkload *w;
  const PrunerTargetDesc *t;
  const PrunerConfig *c;
  int n, nops;
  int packed; /* the operand promote_operands packs, -1: none */
  double clock, lanes, cores, pipes;
  /* The loop nest's extents: cache block and register step per loop. */
  int64_t block[PRUNER_MAX_LOOPS], reg[PRUNER_MAX_LOOPS];
  double tasks, reg_iters, rows, vectors, peel_loss;
  double vector_fill; /* useful share of the vectors' lanes (1 but in a remainder) */
  /* Register efficiency. */
  double simd, acc, latency_cover, port_balance, reg_eff;
  /* Busy cores. */
  double waves, used, wave_eff;
  /* Innermost-loop runs and the nest they run in. */
  double runs;
  HostNest nest;
  /* Traffic per level, bytes. */
  double l1, l2, llc_bytes, dram;
  /* Times of the levels the symbols do not keep. */
  double llc_us, dram_us;
} HostDraft;

/* The loop nest's extents per level: task (parallel wg, reduction whole), cache block
 * (parallel wg, reduction step), register step (parallel th, reduction 1 or a conv's kw
 * whole); the register tile (rows x vectors) and the peeled remainders' loss. */
static void hostDraftExtents(HostDraft *h) {
  const PrunerWorkload *w = h->w;
  const PrunerConfig *c = h->c;
  h->tasks = 1;
  h->reg_iters = 1;
  int vl = prunerHostVectorLoop(w);
  h->rows = 1;
  h->vectors = 1;
  h->vector_fill = 1;
  h->peel_loss = 0;
  for (int l = 0; l < h->n; ++l) {
    if (w->loop_kinds[l] == PRUNER_LOOP_PARALLEL) {
      h->block[l] = c->workgroup[l];
      h->reg[l] = c->thread[l];
      h->tasks *= (double)(w->bounds[l] / c->workgroup[l]);
      h->reg_iters *= ceil((double)c->workgroup[l] / (double)c->thread[l]) *
                      (double)(w->bounds[l] / c->workgroup[l]);
      if (l == vl && c->vector_width > 1) {
        /* Whole vectors, except in a split loop's remainder (docs/host.md, "Split
         * loops"): a 9-wide register tile still issues a whole vector per row, and a
         * peeled last tile runs as few columns as remain with the same instructions. */
        h->vectors = ceil((double)c->thread[l] / c->vector_width);
        h->vector_fill = (double)c->thread[l] / c->vector_width / h->vectors;
        int64_t rem = c->workgroup[l] % c->thread[l];
        if (rem)
          h->peel_loss += (double)rem / c->workgroup[l] * (1.0 - (double)rem / c->thread[l]);
      } else {
        h->rows *= (double)c->thread[l];
        int64_t rem = c->workgroup[l] % c->thread[l];
        if (rem) /* the peeled remainder runs with `rem` rows instead of thread */
          h->peel_loss += (double)rem / c->workgroup[l] * (1.0 - (double)rem / c->thread[l]);
      }
    } else {
      h->block[l] = c->reduction[l];
      bool whole = isConv2d(w) && w->loop_roles[l] == PRUNER_ROLE_FILTER_W;
      h->reg[l] = whole ? c->reduction[l] : 1;
      h->reg_iters *= (double)(w->bounds[l] / h->reg[l]);
    }
  }
}

/* Loads per register step of a vectorized contraction, per input: one for every
 * combination of the register tile's parallel loops that index it, the vector loop aside;
 * times the tile's vectors if the vector loop indexes it (vector loads), one each if not
 * (broadcasts). A matmul loads A[m, k] as the tile's m broadcasts and B[k, n] as its
 * vectors once (its rows share them); an NHWC conv its input as one broadcast per output
 * pixel of the tile and its filter once; a batch_matmul B[b, k, n] once per batch row of
 * the tile (batches share no operand). Where the vector loop indexes every input (a
 * depthwise conv, a reduction along the output) nothing is broadcast. Elementwise ops and
 * scalar tiles keep rows + vectors. */
static double hostDraftStepLoads(const HostDraft *h) {
  const PrunerWorkload *w = h->w;
  int vl = prunerHostVectorLoop(w);
  if (h->c->vector_width <= 1 || !isContraction(w) || vl < 0)
    return h->rows + h->vectors;
  double loads = 0;
  for (int o = 0; o < w->num_inputs; ++o) {
    double copies = 1;
    for (int l = 0; l < h->n; ++l)
      if (l != vl && w->loop_kinds[l] == PRUNER_LOOP_PARALLEL && indexes(w, o, l))
        copies *= (double)h->reg[l];
    loads += indexes(w, o, vl) ? h->vectors * copies : copies;
  }
  return loads;
}

/* Register efficiency = accumulator cover x port balance x peel loss x vector fill. One
 * innermost iteration: the register tile times the register-level reduction extent (a
 * conv's kw taps): rows x vectors FMAs per step against its loads (hostDraftStepLoads),
 * plus the loop's own instructions. Its cycles are bounded by the FMA pipes, the load ports, the
 * issue width and the accumulators' dependency chains. */
static void hostDraftRegisterEfficiency(HostDraft *h) {
  const PrunerWorkload *w = h->w;
  const PrunerConfig *c = h->c;
  /* A narrower vector than the lanes (a bound no whole vector divides) does that many. */
  h->simd = c->vector_width > 1 ? dmin((double)c->vector_width, h->lanes) : 1.0;
  h->acc = h->rows * h->vectors;
  double red_ext = 1;
  for (int l = 0; l < h->n; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION)
      red_ext *= (double)h->reg[l];
  double fmas = h->acc * red_ext, loads = hostDraftStepLoads(h) * red_ext, stores = 0;
  /* Without the hoist (vectorized 2-D convs) the accumulators make their round trips
   * every step. Scalar configs are left to LLVM at opt level 2, whose LICM promotes such
   * accumulators to registers (not checked in their IR: no round trips charged). The
   * round trips are charged here, in the ports they occupy, and not again as L1 bytes:
   * they hit lines the same step just wrote. */
  bool vector_conv = isConv2d(w) && c->vector_width > 1;
  double acc_trips =
      vector_conv && !convAccumulatorsHoisted(h->t) ? CONV2D_ACC_ROUND_TRIPS : 0.0;
  loads += acc_trips * h->acc;
  stores += acc_trips * h->acc;
  double fma_cycles = fmas / h->pipes, load_cycles = loads / LOADS_PER_CYCLE;
  double store_cycles = stores * h->simd * prunerDTypeBytes(w->operands[w->num_inputs].dtype) /
                        STORE_BYTES_PER_CYCLE;
  double issue_cycles = (fmas + loads + stores + LOOP_UOPS) / ISSUE_WIDTH;
  /* Throughput grows with independent accumulator chains until they cover one chain's
   * latency: FMA latency x pipes for accumulators held in registers (BLIS' analytical
   * model, Low et al. 2016: m_r n_r / lanes >= pipes x FMA latency). Without the hoist
   * the chain runs through memory every step (store forwarded to the next load), and the
   * measured knee applies instead (UNHOISTED_ACCUMULATOR_SHARE of the registers). */
  double needed_acc = acc_trips > 0 ? UNHOISTED_ACCUMULATOR_SHARE * h->t->regs_per_sm
                                    : FMA_LATENCY * h->pipes;
  if (vector_conv && acc_trips == 0)
    needed_acc = dmax(needed_acc, HOISTED_CONV_ACCUMULATOR_SHARE * h->t->regs_per_sm);
  /* Chains of register tiles that follow one another overlap when a run is short
   * (OOO_WINDOW_FMAS says when): each accumulator's chain is its run's reduction block.
   * Only contractions have such chains; elementwise tiles keep the cover they had. */
  double chains = h->acc;
  if (acc_trips == 0 && OOO_WINDOW_FMAS > 0) {
    double chain = 1;
    for (int l = 0; l < h->n; ++l)
      if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION)
        chain *= (double)c->reduction[l];
    if (isContraction(w) && chain > 0)
      chains = dmax(chains, OOO_WINDOW_FMAS / chain);
  }
  if (acc_trips == 0 && red_ext > 1 && w->kind != PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC)
    needed_acc += MULTI_TAP_CHAIN_LATENCY * h->pipes;
  h->latency_cover = dmin(1.0, chains / needed_acc);
  h->port_balance =
      dmin(1.0, fma_cycles / dmax(dmax(load_cycles, store_cycles), issue_cycles));
  h->reg_eff = h->latency_cover * h->port_balance * (1.0 - dmin(0.9, h->peel_loss)) *
               h->vector_fill;
  if (vector_conv && (acc_trips > 0 || CONV2D_HOISTED_SPILLS)) {
    double taps = 1;
    for (int l = 0; l < h->n; ++l)
      if (w->loop_roles[l] == PRUNER_ROLE_FILTER_H || w->loop_roles[l] == PRUNER_ROLE_FILTER_W)
        taps *= (double)h->reg[l];
    double broadcasts = CONV2D_ONE_TAP_BROADCASTS && acc_trips == 0 && taps == 1 ? 1 : h->rows;
    double over = h->acc + broadcasts + h->vectors - h->t->regs_per_sm - CONV2D_REGISTER_SLACK;
    if (over > 0)
      h->reg_eff /= 1.0 + CONV2D_SPILL_COST_PER_REGISTER * over;
  }
}

/* Busy cores: tasks run in waves of `cores`; the average number busy is tasks / waves. */
static void hostDraftBusyCores(HostDraft *h) {
  h->waves = ceil(h->tasks / h->cores);
  h->used = h->tasks / h->waves;
  h->wave_eff = h->used / h->cores;
}

/* Page crossings of one run of the innermost (reduction) loop: the run walks a register
 * tile over one cache block of the reduction loops; when its operands lie on more 4 KiB
 * pages than the first-level DTLB holds, every page it enters of an operand that does
 * not fit the L2 misses there (DTLB_L2_HIT_CYCLES each) and starts a new prefetch
 * stream (the L2 streamers of both vendors stop at 4 KiB page boundaries: Intel
 * optimization manual, "Data prefetching"; AMD 57647, "Hardware prefetching"). An unpacked B read k
 * row by k row a row apart enters a new page every step or two; a packed panel is contiguous. An
 * operand the L2 holds whole is exempt: on the 512^3 matmul (B 1 MiB, its rows 2 KiB apart) long k
 * steps measure fastest, on the 128x768x3072 one (B 9.4 MiB, 3 KiB apart) they measure up to 2.9x
 * slower than packed (docs/host.md, "Packing B"). */
static double hostDraftTlbCycles(const HostDraft *h) {
  const PrunerWorkload *w = h->w;
  int64_t run[PRUNER_MAX_LOOPS];
  for (int l = 0; l < h->n; ++l)
    run[l] = w->loop_kinds[l] == PRUNER_LOOP_PARALLEL ? h->reg[l] : h->block[l];
  int64_t whole[PRUNER_MAX_LOOPS];
  for (int l = 0; l < h->n; ++l)
    whole[l] = w->bounds[l];
  double pages = 0, entered = 0;
  for (int o = 0; o < h->nops; ++o) {
    double p = pagesTouched(w, o, run, o == h->packed);
    pages += p;
    if (footprintBytes(w, o, whole) > (double)h->t->l2_bytes)
      entered += p;
  }
  return pages > DTLB_L1_ENTRIES ? entered * DTLB_L2_HIT_CYCLES * DTLB_MISS_EXPOSED : 0.0;
}

/* Packing's copy (promote_operands, docs/host.md "Packing B"): each panel (one cache
 * block of the reduction loops x one register tile of the loops the packed operand is
 * indexed by) is copied once per task row block, before any register tile uses it, so
 * nothing hides it: a row at a time, one vector load and store per register vector plus
 * the row loop's own instructions at the issue width, each source row on a new page
 * paying the DTLB miss as a run does, the panel's bytes fetched from the level that
 * holds the whole operand (L2, last-level cache or DRAM), and per panel a loop exit and
 * the buffer's malloc + free (PACK_PANEL_CYCLES). */
static double hostDraftPackUs(const HostDraft *h) {
  if (h->packed < 0)
    return 0.0;
  const PrunerWorkload *w = h->w;
  const PrunerConfig *c = h->c;
  int64_t panel[PRUNER_MAX_LOOPS];
  double panels = 1;
  for (int l = 0; l < h->n; ++l) {
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION) {
      panel[l] = c->reduction[l];
      panels *= (double)(w->bounds[l] / c->reduction[l]);
    } else if (indexes(w, h->packed, l)) {
      panel[l] = c->thread[l];
      panels *= ceil((double)w->bounds[l] / (double)c->thread[l]);
    } else {
      panel[l] = c->workgroup[l];
      panels *= (double)(w->bounds[l] / c->workgroup[l]);
    }
  }
  HostRows r = hostRows(w, h->packed, panel, true);
  HostRows src = hostRows(w, h->packed, panel, false);
  double vectors = ceil(r.row_bytes / (h->lanes * 4.0));
  double row_cycles = (2.0 * vectors + LOOP_UOPS) / ISSUE_WIDTH;
  double pages = pagesTouched(w, h->packed, panel, false);
  double tlb = pages > DTLB_L1_ENTRIES || src.stride_bytes >= PAGE_BYTES
                   ? pages * DTLB_L2_HIT_CYCLES * DTLB_MISS_EXPOSED
                   : 0.0;
  int64_t whole[PRUNER_MAX_LOOPS];
  for (int l = 0; l < h->n; ++l)
    whole[l] = w->bounds[l];
  double operand = footprintBytes(w, h->packed, whole), panel_bytes = r.rows * r.row_bytes;
  double llc = h->t->smem_per_block > 0 ? (double)h->t->smem_per_block : (double)h->t->l2_bytes;
  double fetch = operand <= CACHE_USABLE * (double)h->t->l2_bytes ? panel_bytes / L2_BYTES_PER_CYCLE
                 : operand <= CACHE_USABLE * llc
                     ? panel_bytes / LLC_BYTES_PER_CYCLE
                     : panel_bytes / (h->t->dram_gbps * 1e9 / h->cores / h->clock);
  double cycles =
      panels * (r.rows * row_cycles + tlb + fetch + LOOP_EXIT_CYCLES + PACK_PANEL_CYCLES);
  return cycles / (h->clock * h->used) * 1e6;
}

/* Compute = flops / (per-core peak x SIMD use x register efficiency x busy cores) + runs
 * x per-run cost. Runs of the innermost loop of the nest: when it is a reduction loop
 * (matmul-like, convs), a run is one register tile in one cache block, and it pays the
 * accumulators' load and store (hoisted: once per run) and its page misses (DTLB);
 * otherwise (elementwise) the loop exit (LOOP_EXIT_CYCLES says why the two differ).
 * `runs` also counts the accumulator traffic. */
static double hostDraftComputeUs(HostDraft *h, double flops) {
  const PrunerWorkload *w = h->w;
  const PrunerTargetDesc *t = h->t;
  double core_peak = t->peak_fp32_gflops * 1e9 / h->cores * h->simd / h->lanes;
  double us = flops / (core_peak * h->reg_eff * h->used) * 1e6;
  h->runs = h->reg_iters;
  for (int l = 0; l < h->n; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION)
      h->runs /= (double)(h->c->reduction[l] / h->reg[l]);
  hostNest(w, h->c, h->reg, h->packed, &h->nest);
  bool reduction_runs = h->nest.depth > 0 && w->loop_kinds[h->nest.loops[h->nest.depth - 1].loop] ==
                                                 PRUNER_LOOP_REDUCTION;
  double out_bytes = prunerDTypeBytes(w->operands[w->num_inputs].dtype);
  double acc_cycles =
      h->acc / LOADS_PER_CYCLE + h->acc * h->simd * out_bytes / STORE_BYTES_PER_CYCLE;
  /* The loop whose exits are charged: the innermost, or where that one and the loops
   * around it run SHORT_LOOP_TRIPS times or fewer, the first enclosing loop that runs more
   * (a short loop's exit follows a pattern the branch predictor learns). */
  int exiting = h->nest.depth - 1;
  if (!reduction_runs)
    while (exiting > 0 && ceil((double)h->nest.loops[exiting].outer /
                               (double)h->nest.loops[exiting].inner) <= SHORT_LOOP_TRIPS)
      --exiting;
  double loop_runs = 1;
  for (int d = 0; d < exiting; ++d)
    loop_runs *= ceil((double)h->nest.loops[d].outer / (double)h->nest.loops[d].inner);
  if (reduction_runs) {
    us += loop_runs * (acc_cycles + hostDraftTlbCycles(h)) / (h->clock * h->used) * 1e6;
  } else {
    us += loop_runs * LOOP_EXIT_CYCLES / (h->clock * h->used) * 1e6;
    /* A contraction whose innermost loop is a parallel register loop (a depthwise conv's
     * channel tiles) still loads and stores its accumulators once per run of its
     * register tile over a cache block, as every other contraction does. */
    if (isContraction(w))
      us += h->runs * acc_cycles / (h->clock * h->used) * 1e6;
  }
  return us + hostDraftPackUs(h);
}

/* Per operand, the factor its L1 fills are counted with: ONE_LINE_TASK_FILLS where a
 * task's slice of the operand's contiguous dim is one line or less while the dim goes on
 * (the line beside is another task's), 1 elsewhere. */
static void oneLineTaskWeights(const HostDraft *h, double *weight) {
  const PrunerWorkload *w = h->w;
  int64_t task[PRUNER_MAX_LOOPS];
  for (int l = 0; l < h->n; ++l)
    task[l] = w->loop_kinds[l] == PRUNER_LOOP_PARALLEL ? h->c->workgroup[l] : w->bounds[l];
  for (int o = 0; o < h->nops; ++o) {
    const PrunerOperand *op = &w->operands[o];
    double eb = prunerDTypeBytes(op->dtype);
    double slice = (double)dimExtent(w, o, op->rank - 1, task) * eb;
    weight[o] =
        slice <= 64.0 && (double)op->shape[op->rank - 1] * eb > slice ? ONE_LINE_TASK_FILLS : 1.0;
  }
}

/* Traffic. Register level: what the innermost loop loads from L1. Cache levels: the bytes
 * each level fetches from the next (cacheFills). L1 and L2 are private, so each busy core
 * has its own; the last-level cache is shared by the tasks running at once. When the
 * whole problem fits the last-level cache nothing comes from DRAM: the kernel is timed
 * repeatedly on the same buffers (docs/host.md, "Measurement"), so after the warm-up run
 * every operand is resident. */
static void hostDraftTraffic(HostDraft *h) {
  const PrunerWorkload *w = h->w;
  const PrunerTargetDesc *t = h->t;
  h->l1 = 0;
  for (int o = 0; o < h->nops; ++o) {
    double reg_bytes = footprintBytes(w, o, h->reg);
    if (w->operands[o].is_output) {
      /* Accumulator in registers across the inner reduction loop: loaded and stored once
       * per register tile and cache block. */
      h->l1 += 2.0 * reg_bytes * h->runs;
    } else {
      h->l1 += reg_bytes * h->reg_iters;
    }
  }
  double llc = t->smem_per_block > 0 ? (double)t->smem_per_block : (double)t->l2_bytes;
  /* Set conflicts matter in the L1 only (the L2's sets span 64-128 KiB). */
  int strided = h->packed < 0 ? prunerHostPackableOperand(w) : -1;
  double lines[PRUNER_MAX_OPERANDS];
  oneLineTaskWeights(h, lines);
  h->l2 = cacheFills(w, &h->nest, t->smem_per_sm, strided, lines);
  h->llc_bytes = cacheFills(w, &h->nest, (double)t->l2_bytes, -1, NULL);
  double resident = 0;
  for (int o = 0; o < h->nops; ++o) {
    int64_t whole[PRUNER_MAX_LOOPS];
    for (int l = 0; l < h->n; ++l)
      whole[l] = w->bounds[l];
    resident += footprintBytes(w, o, whole);
  }
  h->dram = resident <= CACHE_USABLE * llc ? 0.0 : cacheFills(w, &h->nest, llc / h->used, -1, NULL);
}

/* L1 load bandwidth, bytes per cycle: LOADS_PER_CYCLE loads of one vector each. Intel's
 * AVX-512 cores load two full 64-byte vectors per cycle (Skylake-SP to Sapphire Rapids:
 * "2x64B loads", Intel optimization manual, the L1 data cache's peak bandwidth in each
 * core's cache table); AVX2 code loads two 32-byte vectors on both vendors, SSE two of 16.
 * A core with one 512-bit FMA pipe (Zen 4) runs 512-bit ops as two 256-bit halves, and
 * its loads too: two 32-byte loads per cycle (AMD's Zen 4 software optimization guide,
 * "Load-Store Unit"), 64 bytes. A single 64 for every core made the Xeon's 2 x 4 register
 * tiles L1-bound in the model; they measure among its fastest (docs/quality.md, "The
 * draft's errors near the top"). */
static double l1BytesPerCycle(const HostDraft *h) {
  /* The loads are as wide as the config's vectors (a narrower vector: fewer bytes). */
  double width = h->c->vector_width > 1 ? h->simd : h->lanes;
  bool split = width >= 16 && h->pipes < 2;
  return LOADS_PER_CYCLE * width * 4.0 * (split ? 0.5 : 1.0);
}

/* Level times from the traffic, and the prediction: the slowest term plus a share
 * OVERLAP_LOSS of the others (loads and FMAs share issue slots, so the memory levels do
 * not hide completely behind the compute or each other), plus the call. */
static void hostDraftCombine(HostDraft *h, PrunerDraftSymbols *s) {
  double per_core = h->clock * h->used;
  s->shared_us = h->l1 / (l1BytesPerCycle(h) * per_core) * 1e6;
  s->l2_us = h->l2 / (L2_BYTES_PER_CYCLE * per_core) * 1e6;
  h->llc_us = h->llc_bytes / (LLC_BYTES_PER_CYCLE * per_core) * 1e6;
  h->dram_us = h->dram / (h->t->dram_gbps * 1e9) * 1e6;
  s->memory_us = dmax(h->llc_us, h->dram_us);
  s->launch_us = CALL_US + (h->tasks > 1 && h->cores > 1 ? OMP_FORK_US : 0.0);
  double sum = s->compute_us + h->llc_us + h->dram_us + s->l2_us + s->shared_us;
  double worst = s->compute_us;
  s->bound = PRUNER_DRAFT_BOUND_COMPUTE;
  if (s->memory_us > worst) {
    worst = s->memory_us;
    s->bound = PRUNER_DRAFT_BOUND_MEMORY;
  }
  if (s->l2_us > worst) {
    worst = s->l2_us;
    s->bound = PRUNER_DRAFT_BOUND_MEMORY;
  }
  if (s->shared_us > worst) {
    worst = s->shared_us;
    s->bound = PRUNER_DRAFT_BOUND_SHARED;
  }
  if (s->launch_us > worst)
    s->bound = PRUNER_DRAFT_BOUND_LAUNCH;
  s->predicted_us = worst + OVERLAP_LOSS * (sum - worst) + s->launch_us;
}

/* The symbols the verifier reads, in the GPU model's vocabulary (docs/draft.md): blocks
 * are tasks, one "thread" per task, occupancy is the accumulator cover. */
static void hostDraftSymbols(const HostDraft *h, PrunerDraftSymbols *s) {
  const PrunerWorkload *w = h->w;
  s->global_load_bytes = h->l2;
  s->dram_bytes = h->dram > 0 ? h->dram : h->llc_bytes; /* the bytes from beyond L2 */
  s->shared_load_bytes = h->l1;
  s->global_store_bytes = footprintBytes(w, w->num_inputs, h->block) * h->tasks;
  s->reuse = h->l1 > 0 ? s->flops / h->l1 : 0;
  s->arithmetic_intensity = s->dram_bytes > 0 ? s->flops / s->dram_bytes : 0;
  s->blocks = prunerDoubleToInt64Sat(h->tasks);
  s->threads_per_block = 1;
  s->warps_per_block = 1;
  s->registers = prunerDoubleToIntSat(h->acc + h->vectors + 1);
  s->blocks_per_sm = 1;
  s->limiter = PRUNER_DRAFT_LIMIT_BLOCKS;
  s->occupancy = h->latency_cover;
  s->waves = h->waves;
  s->waves_fractional = h->tasks / h->cores;
  s->sm_utilization = h->wave_eff;
  s->warp_fill = h->simd / h->lanes;
  s->register_penalty = 1.0 / dmax(h->reg_eff, 1e-6);
  s->coalescing = 1.0;
  s->vector_efficiency = h->port_balance;
  s->bank_conflict = 1.0;
  s->l2_reuse = s->dram_bytes > 0 ? h->l2 / s->dram_bytes : 1.0;
  s->latency_hiding = h->latency_cover;
}

static void hostDraftScorePart(const PrunerWorkload *w, const PrunerTargetDesc *t,
                               const PrunerConfig *c, PrunerDraftSymbols *out) {
  PrunerDraftSymbols s;
  memset(&s, 0, sizeof s);
  HostDraft h;
  memset(&h, 0, sizeof h);
  h.w = w;
  h.t = t;
  h.c = c;
  h.n = w->num_loops;
  h.nops = w->num_inputs + w->num_outputs;
  h.clock = t->boost_clock_mhz * 1e6;
  h.lanes = prunerHostTargetSimdLanes(t);
  h.cores = prunerHostTargetCores(t);
  h.packed = c->promote_operands ? prunerHostPackableOperand(w) : -1;
  /* FMA pipes follow from the described peak (target_host.c). */
  h.pipes = dmax(1.0, t->peak_fp32_gflops * 1e9 / (h.cores * 2.0 * h.lanes * h.clock));
  hostDraftExtents(&h);
  s.flops = prunerWorkloadFlops(w);
  s.executed_flops = s.flops;
  hostDraftRegisterEfficiency(&h);
  hostDraftBusyCores(&h);
  s.compute_us = hostDraftComputeUs(&h, s.flops);
  hostDraftTraffic(&h);
  hostDraftCombine(&h, &s);
  hostDraftSymbols(&h, &s);
  *out = s;
}

/* Adds part `p`'s additive symbols (times, work, traffic, tasks) to `s`. */
static void addPart(PrunerDraftSymbols *s, const PrunerDraftSymbols *p) {
  s->predicted_us += p->predicted_us;
  s->compute_us += p->compute_us;
  s->memory_us += p->memory_us;
  s->l2_us += p->l2_us;
  s->shared_us += p->shared_us;
  s->launch_us += p->launch_us;
  s->flops += p->flops;
  s->executed_flops += p->executed_flops;
  s->global_load_bytes += p->global_load_bytes;
  s->dram_bytes += p->dram_bytes;
  s->shared_load_bytes += p->shared_load_bytes;
  s->global_store_bytes += p->global_store_bytes;
  s->blocks += p->blocks;
  s->waves += p->waves;
  s->waves_fractional += p->waves_fractional;
  if (p->registers > s->registers)
    s->registers = p->registers;
}

bool prunerHostDraftScore(const PrunerWorkload *w, const PrunerTargetDesc *t,
                          const PrunerConfig *c, PrunerDraftSymbols *out) {
  /* An NCHW conv runs as its channels-last twin: the twin's conv is scored, not the
   * transposes around it (docs/host.md). The input's and the filter's cost the same for
   * every config; the output's add-back runs per task with several tasks and whole on one
   * thread otherwise, which the model does not see. */
  PrunerWorkload twin;
  int twin_loop[PRUNER_MAX_LOOPS];
  if (prunerHostRunsChannelsLast(w, t) && prunerHostChannelsLastWorkload(w, &twin, twin_loop)) {
    PrunerConfig tc;
    prunerHostConfigToTwin(c, twin_loop, w->num_loops, &tc);
    return prunerHostDraftScore(&twin, t, &tc, out);
  }
  PrunerDraftSymbols s;
  int split_loops[PRUNER_HOST_MAX_SPLIT_LOOPS];
  if (prunerHostSplitLoops(w, c, split_loops) == 0) {
    hostDraftScorePart(w, t, c, &s); /* the common case: no parts to copy */
  } else {
    PrunerHostPart parts[PRUNER_HOST_MAX_PARTS];
    int num_parts = prunerHostConfigParts(w, c, parts);
    /* A split loop's parts run one after the other in one call (docs/host.md, "Split
     * loops"): their times add up, the call is paid once, and the ratios are the main
     * part's (part 0, the largest). iree-cpu scores its configs here too, though IREE
     * runs a partial workgroup in the same dispatch (docs/iree.md, rule 7). */
    hostDraftScorePart(&parts[0].workload, t, &parts[0].config, &s);
    for (int p = 1; p < num_parts; ++p) {
      PrunerDraftSymbols ps;
      hostDraftScorePart(&parts[p].workload, t, &parts[p].config, &ps);
      addPart(&s, &ps);
      s.predicted_us -= CALL_US;
      s.launch_us -= CALL_US;
    }
    s.reuse = s.shared_load_bytes > 0 ? s.flops / s.shared_load_bytes : 0;
    s.arithmetic_intensity = s.dram_bytes > 0 ? s.flops / s.dram_bytes : 0;
    s.l2_reuse = s.dram_bytes > 0 ? s.global_load_bytes / s.dram_bytes : 1.0;
  }
  if (out)
    *out = s;
  return true;
}

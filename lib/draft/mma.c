/* lib/draft/mma.c: the draft's tensor-core term (configs with mma = 1, docs/draft.md
 * "Tensor cores"). The kernel it describes (lib/schedule/mma.c): per block the threads
 * zero C, then each warp runs the K loop with its (wm/16) x (wn/8) accumulator fragments
 * in registers, loading A and B fragments straight from global memory (L1/L2) each K step
 * and issuing (wm/16)(wn/8)(ks/16) mma.sync m16n8k16 per step; C is read once and
 * written once.
 *
 * Time = launch + max(tensor, L2, DRAM, L1) + a residual of the smaller ones, where
 *  tensor: the target's dense f16 tensor rate (lib/target, peak_tensor_gflops) per SM,
 *          scaled by 2/3 on sm_90 (mma.sync reaches about 2/3 of Hopper's tensor peak; only
 *          wgmma reaches it: Shah et al., "FlashAttention-3", 2024, section 3), by how well
 *          resident warps cover the 4 sub-partitions and the mma latency, and by the issue
 *          slots the fragment loads take; per wave as in the FMA term;
 *  L2:     each block reads its A and B tiles once per K step (warps of a block share rows
 *          through L1), plus C in and out;
 *  DRAM:   operands once when the inputs fit L2, else A re-read per block column and B per
 *          block row;
 *  L1:     the wavefronts of every warp's fragment loads (and a staged block's copies),
 *          with the staged tiles' bank conflicts, at one per cycle and SM.
 * Staged configs (promote_operands = [0, 1], docs/schedule.md "Tensor cores staged in
 * shared memory") read fragments with ldmatrix (fewer issue slots), take their tiles' shared
 * memory from occupancy, and wait per K step for two cp.async round trips (the chain
 * the resident blocks must cover). Pipelined ones (stages 2, 3) read fragments with
 * ldmatrix too, take stages x the tiles, and wait only for what their own S - 1 steps of
 * work leave of one round trip.
 * The register estimate is 4 per 16x8 accumulator fragment + 24 (fitted to ptxas). */
#include <math.h>
#include <string.h>

#include "draft_internal.h"

/* mma.sync m16n8k16: 2 x 16 x 8 x 16 flops. */
#define MMA_FLOPS 4096.0
/* Dependent-issue latency of an mma.sync m16n8k16 (cycles): an assumed value of the order
 * public microbenchmarks of Ampere and Hopper report (a few tens of cycles); not measured
 * here, to be fitted on the GPU session's records. */
#define MMA_LATENCY_CYCLES 32.0
#define SUB_PARTITIONS 4.0
/* Registers besides the accumulators: fragments, addresses, loop state (fitted, see
 * draftMmaRegisters). */
#define BASE_REGISTERS 24
/* Pipelined staged configs (stages 2, 3) hold more: the stages' buffer views carried
 * through the loop and the prologue's and epilogue's fragments. The median of ptxas
 * minus the estimate over the compile study's 218 pipelined configs (docs/compile.md),
 * fitted when their fragments were scalar shared loads; leave-one-workload-out it raised
 * the share within 25% of ptxas from 48% to 62% on average over the three workloads. On
 * the kernels of 2026-12-04 (fragments by ldmatrix, rows padded; 204 pipelined configs
 * of the rerun study) the median is still 18 and the share within 25% 81% (86 / 85 /
 * 72%); refitted leave-one-workload-out it would be 14 / 16 / 24 and 70% (78 / 80 / 51%),
 * so it stays. */
#define PIPELINE_REGISTERS 18
/* Staged configs (promote_operands = [0, 1]): per K step the block waits twice for its
 * cp.async groups (A, then B: the barrier after each copy splits them) before the warps
 * read the tiles. An L2 round trip of a few hundred cycles, the order public
 * microbenchmarks of Ampere and Hopper report; assumed, not measured here, to be fitted on
 * the GPU session's records as MMA_LATENCY_CYCLES. */
#define STAGE_LATENCY_CYCLES 300.0
/* L1 / shared-memory pipe of an SM: one wavefront (one 128-byte access of a warp's
 * request) per cycle, the figure NVIDIA's Nsight Compute documents for its
 * l1tex__data_pipe_lsu_wavefronts metrics. Not fitted: the GPU session's complete
 * tensor-core spaces (docs/draft.md) judged it as is. */
#define L1_WAVEFRONTS_PER_CYCLE 1.0
#define BARRIER_CYCLES 40.0 /* as the FMA term (draft.c, kBarrierCycles) */
#define LAUNCH_US 3.0 /* as the FMA term (draft.c, kLaunchUs) */
#define OVERLAP_RESIDUAL 0.1
#define DRAM_EFFICIENCY 0.9

static double dmin(double a, double b) { return a < b ? a : b; }
static double dmax(double a, double b) { return a > b ? a : b; }

/* How many ways an 8-row ldmatrix read of 16-byte rows conflicts when consecutive rows
 * are `row_bytes` apart: 32 banks of 4 bytes hold 8 groups of 16 bytes, so rows r and
 * r + 8 / g share a group when g = gcd(row_bytes / 16, 8) > 1. A row of an odd number of
 * 16-byte units (the padded pipelined tiles) has none. */
static int ldmatrixConflictWays(int64_t row_bytes) {
  if (row_bytes <= 0 || row_bytes % 16 != 0)
    return 1;
  int64_t units = row_bytes / 16;
  int ways = 1;
  while (ways < 8 && units % (2 * ways) == 0)
    ways *= 2;
  return ways;
}

/* L1 / shared-memory wavefronts one warp issues per K step (docs/draft.md, "Tensor cores":
 * the L1 term). From global memory (the fragments' loads go through L1): an A load
 * (vector<2xf16> per lane) touches 8 rows, 8 lines; a B load (a scalar per lane, read
 * transposed) 4 rows. Staged: an ldmatrix.x4 (A) is 4 wavefronts, an .x2.trans (B) 2,
 * each times its tile's bank-conflict ways, plus the warp's share of the block's cp.async
 * stores (128 bytes a wavefront). */
static double mmaWavefrontsPerStep(const PrunerConfig *c, int64_t bm, int64_t bn, int64_t wm,
                                   int64_t wn, int64_t ks, int64_t warps, int64_t elem_bytes) {
  double pieces_a = (double)(wm / 16) * (double)(ks / 16);
  double pieces_b = (double)(wn / 8) * (double)(ks / 16);
  if (!c->promote_operands)
    return pieces_a * 4.0 * 8.0 + pieces_b * 4.0 * 4.0;
  /* A tile rows hold ks elements, B tile rows bn (B is read transposed); the pipelined
   * tiles' rows are padded (prunerStagedRowElems). */
  bool padded = prunerConfigIsPipelinedMma(c);
  int64_t a_row = padded ? prunerStagedRowElems(ks, elem_bytes) : ks;
  int64_t b_row = padded ? prunerStagedRowElems(bn, elem_bytes) : bn;
  double stores = (double)((bm + bn) * ks * elem_bytes) / 128.0 / (double)warps;
  return pieces_a * 4.0 * ldmatrixConflictWays(a_row * elem_bytes) +
         pieces_b * 2.0 * ldmatrixConflictWays(b_row * elem_bytes) + stores;
}

int draftMmaRegisters(const PrunerWorkload *w, const PrunerConfig *c) {
  int64_t wm = 0, wn = 0;
  for (int l = 0; l < w->num_loops; ++l) {
    if (w->loop_roles[l] == PRUNER_ROLE_M)
      wm = c->thread[l];
    else if (w->loop_roles[l] == PRUNER_ROLE_N)
      wn = c->thread[l];
  }
  /* Per thread: 4 f32 per 16x8 accumulator fragment, plus addresses and loop state. The
   * fragments of A and B add nothing measurable: fitted on the compile study's 220 sm_90
   * configs (docs/compile.md), this form has a mean error of 10% (median 3%) against
   * ptxas; counting one K step's A and B fragments too gave 76%. */
  int64_t acc = 4 * (wm / 16) * (wn / 8);
  return (int)(acc + BASE_REGISTERS + (prunerConfigStages(c) > 1 ? PIPELINE_REGISTERS : 0));
}

bool draftMmaScore(const struct PrunerDraftImpl *d, const PrunerConfig *c,
                   const PrunerKernelResources *resources, PrunerDraftSymbols *out) {
  const PrunerWorkload *w = &d->w;
  const PrunerTargetDesc *t = &d->t;
  int64_t bm = 1, bn = 1, wm = 1, wn = 1, ks = 1, K = 1, M = 1, N = 1;
  for (int l = 0; l < w->num_loops; ++l) {
    if (w->loop_roles[l] == PRUNER_ROLE_M) {
      bm = c->workgroup[l];
      wm = c->thread[l];
      M = w->bounds[l];
    } else if (w->loop_roles[l] == PRUNER_ROLE_N) {
      bn = c->workgroup[l];
      wn = c->thread[l];
      N = w->bounds[l];
    } else if (w->loop_roles[l] == PRUNER_ROLE_K) {
      ks = c->reduction[l];
      K = w->bounds[l];
    }
  }
  PrunerLaunchShape ls;
  prunerConfigLaunchShape(w, c, &ls);
  double blocks = (double)ls.blocks;
  int64_t warps = ls.threads_per_block / t->warp_size;

  int regs = draftMmaRegisters(w, c), spill = 0;
  if (resources) {
    regs = resources->registers;
    spill = resources->spill_store_bytes + resources->spill_load_bytes;
  } else {
    /* ptxas fits the block into the per-block register file (as the FMA term). */
    int64_t groups = (warps + 3) / 4 * 4;
    int64_t cap = t->regs_per_block / (groups * t->warp_size);
    cap = cap * t->warp_size / t->reg_alloc_unit * t->reg_alloc_unit / t->warp_size;
    if (cap > d->reg_cap_per_thread)
      cap = d->reg_cap_per_thread;
    if (regs > cap) {
      spill = (regs - (int)cap) * 4;
      regs = (int)cap;
    }
  }
  PrunerDraftLimiter limiter;
  bool staged = c->promote_operands != 0;
  int bps = draftBlocksPerSm(d, ls.threads_per_block, regs, ls.smem_bytes, &limiter);
  if (bps < 1)
    return false;
  double slots = (double)t->sm_count * bps;
  double waves = ceil(blocks / slots), waves_frac = blocks / slots;

  /* Tensor pipe: per SM and cycle. */
  double rate_sm = t->peak_tensor_gflops * 1e9 / t->sm_count / d->clock_hz; /* flops/cycle */
  if (t->compute_capability >= 90)
    rate_sm *= 2.0 / 3.0;
  double interval = MMA_FLOPS / (rate_sm / SUB_PARTITIONS); /* cycles per mma, sub-partition */
  double tiles = (double)(wm / 16) * (double)(wn / 8);
  double mma_step = tiles * (double)(ks / 16);
  /* Issue slots per warp and K step: the mma ops, the fragment loads (A: 4 per 16x16
   * piece, vector<2xf16> each; B read transposed: 4 scalar loads per 16x8 piece), loop and
   * address overhead. */
  double loads_step = (double)(ks / 16) * (4.0 * (double)(wm / 16) + 4.0 * (double)(wn / 8));
  int stages = prunerConfigStages(c);
  if (staged) {
    /* Staged (any number of stages): one ldmatrix.x4 per 16x16 A piece and one
     * ldmatrix.x2.trans per 16x8 B piece, plus the warp's share of the block's 16-byte
     * cp.async copies (an address computation and a copy each), the two waits and three
     * barriers. */
    double copies = (double)((bm + bn) * ks) / (double)(ls.threads_per_block * 8);
    double frag = (double)(ks / 16) * ((double)(wm / 16) + (double)(wn / 8));
    loads_step = frag + 2.0 * copies + 5.0;
  }
  double instr_step = mma_step + loads_step + 12.0;
  double issue_eff = dmin(1.0, mma_step * interval / dmax(mma_step * interval, instr_step));
  double spill_pen = 1.0 + 4.0 * ((spill / 4.0) / dmax(1.0, regs + spill / 4.0));

  double block_flops = 2.0 * (double)bm * (double)bn * (double)K;
  double t_block[2] = {0.0, 0.0};
  int kblocks[2] = {bps, 0};
  double full = floor(blocks / slots);
  double rem = blocks - full * slots;
  kblocks[1] = (int)ceil(rem / t->sm_count);
  for (int j = 0; j < 2; ++j) {
    int k = kblocks[j];
    if (!k)
      continue;
    double rw = (double)k * warps;
    double fill = dmin(1.0, rw / SUB_PARTITIONS);
    /* Independent mma per sub-partition in flight vs the latency / issue interval. */
    double per_sub = rw / dmin(rw, SUB_PARTITIONS);
    double hide = dmin(1.0, per_sub * tiles * interval / MMA_LATENCY_CYCLES);
    double eff = fill * hide * issue_eff;
    t_block[j] = k * block_flops / (rate_sm * d->clock_hz * eff);
    if (staged) {
      /* Each block's chain per K step: three barriers, and the copies' round trip: two
       * (A, then B) with one stage; with S stages one, issued S - 1 steps ahead, so the
       * block's own S - 1 steps of work cover it. The other resident blocks' work covers
       * the chain (throughput) but the block's own cannot. */
      double steps = (double)(K / ks), own_step = t_block[j] / k / steps * d->clock_hz;
      double wait = stages > 1
                        ? dmax(0.0, STAGE_LATENCY_CYCLES - (double)(stages - 1) * own_step)
                        : 2.0 * STAGE_LATENCY_CYCLES;
      double stall_s = steps * (wait + 3.0 * BARRIER_CYCLES) / d->clock_hz;
      t_block[j] = dmax(t_block[j], stall_s + t_block[j] / k);
    }
  }
  double compute_s = (full * t_block[0] + t_block[1]) * spill_pen;

  /* L2 -> SM: A and B tiles per block and K step, C read once and written once (and
   * zeroed by the fill before). */
  double batch = blocks / ((double)(M / bm) * (double)(N / bn));
  double ab_bytes = blocks * (double)(bm + bn) * (double)K * 2.0;
  double c_bytes = batch * (double)M * (double)N * 4.0;
  double l2 = ab_bytes + 3.0 * c_bytes;
  double busy = dmin((double)t->sm_count, blocks) / t->sm_count;
  double l2_s = l2 / (d->l2_bytes_per_s * busy);
  double a_bytes = d->ops[0].total_bytes, b_bytes = d->ops[1].total_bytes;
  double dram = d->input_bytes <= (double)t->l2_bytes
                    ? d->input_bytes + c_bytes
                    : a_bytes * (double)(N / bn) + b_bytes * (double)(M / bm) + c_bytes;
  dram = dmin(dram, l2);
  double dram_s = dram / (t->dram_gbps * 1e9 * DRAM_EFFICIENCY * dmax(1e-3, busy));
  /* The SM's L1 / shared pipe: every resident warp's fragment loads (and copies) per K
   * step. Without it the draft ranked the fragments-from-global and the unpadded one-stage
   * kernels far too high (measured 4-7x its prediction, the pipelined ones 2x). */
  double wavefronts = blocks * (double)warps * (double)(K / ks) *
                      mmaWavefrontsPerStep(c, bm, bn, wm, wn, ks, warps,
                                           prunerDTypeBytes(w->operands[0].dtype));
  double l1_s = wavefronts / ((double)t->sm_count * busy * d->clock_hz * L1_WAVEFRONTS_PER_CYCLE);
  double mem_s = dmax(dmax(l2_s, dram_s), l1_s);
  double body_s = dmax(compute_s, mem_s) + OVERLAP_RESIDUAL * dmin(compute_s, mem_s);

  if (!out)
    return true;
  memset(out, 0, sizeof *out);
  out->compute_us = compute_s * 1e6;
  out->memory_us = dram_s * 1e6;
  out->l2_us = l2_s * 1e6;
  out->shared_us = l1_s * 1e6;
  out->launch_us = LAUNCH_US;
  out->predicted_us = LAUNCH_US + body_s * 1e6;
  out->bound = LAUNCH_US > body_s * 1e6 ? PRUNER_DRAFT_BOUND_LAUNCH
               : mem_s >= compute_s     ? PRUNER_DRAFT_BOUND_MEMORY
                                        : PRUNER_DRAFT_BOUND_COMPUTE;
  out->flops = d->flops;
  out->executed_flops = d->flops;
  out->global_load_bytes = ab_bytes + c_bytes;
  out->dram_bytes = dram;
  out->global_store_bytes = c_bytes;
  out->reuse = (2.0 * tiles * 16.0 * 8.0 * 16.0 / t->warp_size) /
               dmax(1.0, (double)((wm + wn) * 16 * 2) / t->warp_size);
  out->arithmetic_intensity = dram > 0 ? d->flops / dram : 0.0;
  out->blocks = ls.blocks;
  out->threads_per_block = ls.threads_per_block;
  out->warps_per_block = warps;
  out->smem_per_block = ls.smem_bytes;
  if (staged) {
    out->shared_store_bytes = ab_bytes;
    /* Every warp reads its A rows and B columns of the block's tiles (ldmatrix). */
    out->shared_load_bytes = blocks * (double)warps * (double)(wm + wn) * (double)K * 2.0;
  }
  out->registers = regs;
  out->registers_from_ptxas = resources != NULL;
  out->spill_bytes = spill;
  out->blocks_per_sm = bps;
  out->limiter = limiter;
  out->occupancy = (double)bps * warps / (t->max_threads_per_sm / t->warp_size);
  out->waves = waves;
  out->waves_fractional = waves_frac;
  out->sm_utilization = waves_frac / waves;
  out->warp_fill = 1.0;
  out->register_penalty = spill_pen;
  out->coalescing = 1.0;
  out->vector_efficiency = 1.0;
  out->bank_conflict = 1.0;
  out->l2_reuse = dram > 0 ? l2 / dram : 1.0;
  out->latency_hiding = 1.0;
  return true;
}

/* lib/draft/draft_host.c: the draft model of the host CPU (docs/host.md, "Draft").
 *
 * A roofline over the cache levels, with vectorization and parallel efficiency:
 *   compute = flops / (per-core peak x SIMD use x FMA-latency cover x load-port balance
 *                      x cores used x wave efficiency)
 *   L1      = register-level operand traffic (each register tile's operand slices per
 *             reduction step, the accumulator once per cache block) / L1 bandwidth
 *   L2      = cache-block traffic (each task x cache block's operand footprints, loaded
 *             once when they fit L1 together, else the L1 traffic) / L2 bandwidth
 *   memory  = compulsory bytes when all operands fit the last-level cache, else the L2
 *             traffic when the cache blocks do not fit L2, else the block footprints,
 *             over the DRAM bandwidth
 *   latency = max of the four + the OpenMP fork/join when there is more than one task.
 * The constants and their sources are in docs/host.md. */
#include <math.h>
#include <string.h>

#include "draft_host.h"

/* FMA latency in cycles: 4 on Skylake-SP .. Sapphire Rapids (Intel optimization manual,
 * appendix "instruction latency") and on Zen 4 (AMD 56665, FP pipe latencies). */
#define FMA_LATENCY 4.0
/* Accumulators (SIMD registers) a register tile needs for full FMA throughput: 16, the
 * knee measured on both machines of this project: HOST-FACTS.md (16-24 is the sweet spot
 * on the AVX-512 Xeon) and data/host-conv-nhwc.jsonl (Zen 4: the best time per
 * accumulator count falls until 16 and is flat after). It exceeds latency x pipes (4-8)
 * because the row broadcasts and the loop share the issue slots with the FMAs. */
#define SATURATING_ACCUMULATORS 16.0
/* Loads per cycle: two on both families (same sources). */
#define LOADS_PER_CYCLE 2.0
/* Instructions issued per cycle (Zen 4 dispatches 6 macro-ops, Golden Cove 6; 4 is the
 * sustained rate of FP-heavy loops), and the loop's own (increment, compare, branch). */
#define ISSUE_WIDTH 4.0
#define LOOP_UOPS 3.0
/* Share of the non-dominant roofline terms that is not hidden (a chosen calibration, not
 * a measurement: it only breaks the roofline's ties; docs/host.md). */
#define OVERLAP_LOSS 0.25
/* Sustained bytes per cycle per core: L1 64 (one full 64-byte line per cycle is what
 * both Zen 4 and Golden Cove sustain for 512-bit loads), L2 32 (both manuals' L2->L1
 * fill bandwidth), last-level cache 16 (measured LLC read bandwidth per core on server
 * parts is 15-20 B/cycle; Intel manual "memory subsystem"). */
#define L1_BYTES_PER_CYCLE 64.0
#define L2_BYTES_PER_CYCLE 32.0
#define LLC_BYTES_PER_CYCLE 16.0
/* OpenMP parallel region fork/join, microseconds (EPCC OpenMP micro-benchmarks: 1-3 us
 * for PARALLEL FOR on a few cores). */
#define OMP_FORK_US 2.0
/* Call overhead of the JIT'ed function through the packed interface, microseconds. */
#define CALL_US 0.5

static double dmin(double a, double b) { return a < b ? a : b; }
static double dmax(double a, double b) { return a > b ? a : b; }

PrunerStatus draftHostCheckTarget(const PrunerWorkload *w, const PrunerTargetDesc *t) {
  struct {
    const char *name;
    double value;
  } fields[] = {
      {"sm_count (cores)", t->sm_count},       {"boost_clock_mhz", t->boost_clock_mhz},
      {"peak_fp32_gflops", t->peak_fp32_gflops}, {"dram_gbps", t->dram_gbps},
      {"l2_bytes", (double)t->l2_bytes},        {"smem_per_sm (L1d)", t->smem_per_sm},
      {"warp_size (SIMD lanes)", t->warp_size},
  };
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i)
    if (!(fields[i].value > 0))
      return prunerStatusError("draft for %s: host target '%s' has %s = %g (must be > 0)",
                               w->key, t->name, fields[i].name, fields[i].value);
  return prunerStatusOk();
}

/* Bytes of operand o's slice over per-loop extents `ext` (footprint of an affine box). */
static double footprintBytes(const PrunerWorkload *w, int o, const int64_t *ext) {
  const PrunerOperand *op = &w->operands[o];
  double elems = 1.0;
  for (int d = 0; d < op->rank; ++d) {
    int64_t e = 1;
    for (int l = 0; l < w->num_loops; ++l) {
      int64_t c = op->index_coeff[d][l];
      if (c)
        e += (c < 0 ? -c : c) * (ext[l] - 1);
    }
    if (e > op->shape[d])
      e = op->shape[d];
    elems *= (double)e;
  }
  return elems * prunerDTypeBytes(op->dtype);
}

static bool isConv2d(const PrunerWorkload *w) {
  return w->kind == PRUNER_OP_CONV_2D_NHWC_HWCF || w->kind == PRUNER_OP_CONV_2D_NCHW_FCHW ||
         w->kind == PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC;
}

bool draftHostScore(const PrunerWorkload *w, const PrunerTargetDesc *t, const PrunerConfig *c,
                    PrunerDraftSymbols *out) {
  PrunerDraftSymbols s;
  memset(&s, 0, sizeof s);
  const int n = w->num_loops, nops = w->num_inputs + w->num_outputs;
  const double clock = t->boost_clock_mhz * 1e6;
  const double lanes = t->warp_size;
  const double cores = t->sm_count;
  /* FMA pipes follow from the described peak (lib/target/host.c). */
  const double pipes = dmax(1.0, t->peak_fp32_gflops * 1e9 / (cores * 2.0 * lanes * clock));

  /* Extents per level: task (parallel wg, reduction whole), cache block (parallel wg,
   * reduction step), register step (parallel th, reduction 1 or a conv's kw whole). */
  int64_t block[PRUNER_MAX_LOOPS], reg[PRUNER_MAX_LOOPS];
  double tasks = 1, reg_iters = 1, blocks = 1, red_blocks = 1;
  int vl = prunerHostVectorLoop(w);
  double rows = 1, vectors = 1, peel_loss = 0;
  for (int l = 0; l < n; ++l) {
    if (w->loop_kinds[l] == PRUNER_LOOP_PARALLEL) {
      block[l] = c->workgroup[l];
      reg[l] = c->thread[l];
      tasks *= (double)(w->bounds[l] / c->workgroup[l]);
      reg_iters *= ceil((double)c->workgroup[l] / (double)c->thread[l]) *
                   (double)(w->bounds[l] / c->workgroup[l]);
      if (l == vl && c->vector_width > 1) {
        vectors = (double)c->thread[l] / c->vector_width;
      } else {
        rows *= (double)c->thread[l];
        int64_t rem = c->workgroup[l] % c->thread[l];
        if (rem) /* the peeled remainder runs with `rem` rows instead of thread */
          peel_loss += (double)rem / c->workgroup[l] * (1.0 - (double)rem / c->thread[l]);
      }
    } else {
      block[l] = c->reduction[l];
      bool whole = isConv2d(w) && w->loop_roles[l] == PRUNER_ROLE_FILTER_W;
      reg[l] = whole ? c->reduction[l] : 1;
      red_blocks *= (double)(w->bounds[l] / c->reduction[l]);
      reg_iters *= (double)(w->bounds[l] / reg[l]);
    }
  }
  blocks = tasks * red_blocks;

  /* Compute. */
  s.flops = prunerWorkloadFlops(w);
  s.executed_flops = s.flops;
  double simd = c->vector_width > 1 ? lanes : 1.0;
  double acc = rows * vectors;
  /* One innermost iteration: the register tile times the register-level reduction
   * extent (a conv's kw taps): rows x vectors FMAs per step against rows broadcasts +
   * vectors loads, plus the loop's own instructions. Its cycles are bounded by the FMA
   * pipes, the load ports, the issue width and the accumulators' dependency chains. */
  double red_ext = 1;
  for (int l = 0; l < n; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION)
      red_ext *= (double)reg[l];
  double fmas = acc * red_ext, loads = (rows + vectors) * red_ext;
  double fma_cycles = fmas / pipes, load_cycles = loads / LOADS_PER_CYCLE;
  double issue_cycles = (fmas + loads + LOOP_UOPS) / ISSUE_WIDTH;
  /* Throughput grows with independent accumulators up to SATURATING_ACCUMULATORS. */
  double latency_cover = dmin(1.0, acc / dmax(SATURATING_ACCUMULATORS, FMA_LATENCY * pipes));
  double port_balance = dmin(1.0, fma_cycles / dmax(load_cycles, issue_cycles));
  double reg_eff = latency_cover * port_balance * (1.0 - dmin(0.9, peel_loss));
  /* Tasks run in waves of `cores`; the average number of busy cores is tasks / waves. */
  double waves = ceil(tasks / cores);
  double used = tasks / waves;
  double wave_eff = used / cores;
  double core_peak = t->peak_fp32_gflops * 1e9 / cores * simd / lanes;
  s.compute_us = s.flops / (core_peak * reg_eff * used) * 1e6;

  /* Traffic. */
  double l1 = 0, l2 = 0, block_sum = 0, total;
  for (int o = 0; o < nops; ++o) {
    double reg_bytes = footprintBytes(w, o, reg);
    double block_bytes = footprintBytes(w, o, block);
    block_sum += block_bytes;
    if (w->operands[o].is_output) {
      /* Accumulator in registers across the inner reduction loop: loaded and stored once
       * per register tile and cache block. */
      double tiles = reg_iters;
      for (int l = 0; l < n; ++l)
        if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION)
          tiles /= (double)(c->reduction[l] / reg[l]);
      l1 += 2.0 * reg_bytes * tiles;
    } else {
      l1 += reg_bytes * reg_iters;
    }
  }
  total = prunerWorkloadBytes(w);
  l2 = block_sum <= t->smem_per_sm ? block_sum * blocks : l1;
  double dram;
  double llc = t->smem_per_block > 0 ? (double)t->smem_per_block : (double)t->l2_bytes;
  if (total <= llc)
    dram = total;
  else if (block_sum > t->l2_bytes)
    dram = l2;
  else
    dram = block_sum * blocks;
  dram = dmax(dram, total);

  double per_core_cycles_l1 = L1_BYTES_PER_CYCLE * clock * used;
  s.shared_us = l1 / per_core_cycles_l1 * 1e6;
  s.l2_us = l2 / (L2_BYTES_PER_CYCLE * clock * used) * 1e6;
  double dram_bw = total <= llc ? LLC_BYTES_PER_CYCLE * clock * used : t->dram_gbps * 1e9;
  s.memory_us = dram / dram_bw * 1e6;
  s.launch_us = CALL_US + (tasks > 1 && cores > 1 ? OMP_FORK_US : 0.0);

  /* Loads and FMAs share issue slots, so the memory levels do not hide completely behind
   * the compute (or each other): a share OVERLAP_LOSS of the other terms adds on. */
  double sum = s.compute_us + s.memory_us + s.l2_us + s.shared_us;
  double worst = s.compute_us;
  s.bound = PRUNER_DRAFT_BOUND_COMPUTE;
  if (s.memory_us > worst) {
    worst = s.memory_us;
    s.bound = PRUNER_DRAFT_BOUND_MEMORY;
  }
  if (s.l2_us > worst) {
    worst = s.l2_us;
    s.bound = PRUNER_DRAFT_BOUND_MEMORY;
  }
  if (s.shared_us > worst) {
    worst = s.shared_us;
    s.bound = PRUNER_DRAFT_BOUND_SHARED;
  }
  if (s.launch_us > worst)
    s.bound = PRUNER_DRAFT_BOUND_LAUNCH;
  s.predicted_us = worst + OVERLAP_LOSS * (sum - worst) + s.launch_us;

  s.global_load_bytes = l2;
  s.dram_bytes = dram;
  s.shared_load_bytes = l1;
  s.global_store_bytes = footprintBytes(w, w->num_inputs, block) * tasks;
  s.reuse = l1 > 0 ? s.flops / l1 : 0;
  s.arithmetic_intensity = dram > 0 ? s.flops / dram : 0;
  s.blocks = (int64_t)tasks;
  s.threads_per_block = 1;
  s.warps_per_block = 1;
  s.registers = (int)(acc + vectors + 1);
  s.blocks_per_sm = 1;
  s.limiter = PRUNER_DRAFT_LIMIT_BLOCKS;
  s.occupancy = latency_cover;
  s.waves = waves;
  s.waves_fractional = tasks / cores;
  s.sm_utilization = wave_eff;
  s.warp_fill = simd / lanes;
  s.register_penalty = 1.0 / dmax(reg_eff, 1e-6);
  s.coalescing = 1.0;
  s.vector_efficiency = port_balance;
  s.bank_conflict = 1.0;
  s.l2_reuse = dram > 0 ? l2 / dram : 1.0;
  s.latency_hiding = latency_cover;
  if (out)
    *out = s;
  return true;
}

/* pruner/backend/host_rules.h: what the host CPU backend tells the models, MLIR-free and
 * records-free (lib/backend/host: target_host.c, space_host.c, draft_host.c): the machine
 * and its target description, the host space rules, and the host draft. lib/target,
 * lib/space and lib/draft call these for PRUNER_TARGET_HOST; the measuring half of the
 * backend is pruner/backend/host.h.
 *
 * What a PrunerConfig means on the host (docs/host.md, "Space"):
 *   workgroup    per-task tile of the parallel loops; tasks are spread over the cores; one
 *                that does not divide its bound splits the loop (prunerHostConfigParts);
 *   reduction    cache tile (step) of the reduction loops;
 *   thread       register tile of the parallel loops (the innermost a multiple of the
 *                SIMD width when vectorized; other loops are peeled when it does not
 *                divide the task tile);
 *   vector_width 1 (scalar) or the SIMD lanes of the element type (vectorized);
 *   promote_operands 0, or operand 1 (bit 1) of a contraction packed into a contiguous
 *                K-step x register-tile panel before the register tiles read it
 *                (prunerHostPackableOperand).
 *
 * How the host fills a PrunerTargetDesc (prunerTargetLookup("host")):
 *   sm_count = cores the process may run on, boost_clock_mhz = core clock,
 *   peak_fp32_gflops = cores x FMA pipes x 2 x f32 lanes x clock, dram_gbps = estimate,
 *   smem_per_sm = L1d per core, l2_bytes = L2 per core, smem_per_block = last-level cache,
 *   warp_size = f32 SIMD lanes, regs_per_sm = SIMD registers, l1_line_bytes = cache line,
 *   max_threads_per_block = max_threads_per_sm = max_blocks_per_sm = 1. */
#ifndef PRUNER_BACKEND_HOST_RULES_H
#define PRUNER_BACKEND_HOST_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pruner/space.h"
#include "pruner/status.h"
#include "pruner/target.h"
#include "pruner/workload.h"

/* The version of the host kernels this backend builds from a config (the host schedule
 * and its lowering to the JIT), on its records as PrunerRecord.codegen_version: raise it
 * with any change that alters an existing config's kernel (docs/records.md), or how the
 * harness times it. 2: operand buffers aligned to 64 bytes (pruner/timing.h); version 1
 * times depended on the heap's placement of the buffers. 3: erf, exp, log and tanh in
 * vector code are polynomial approximations (pruner-approximate-math), which changed only
 * the kernels of bodies with those ops: prunerHostCodegenVersionOf. 4: NHWC and depthwise
 * 2-D convolutions keep their output register tile in registers across the reduction
 * steps (the bufferized self-copies that blocked the hoist are erased), which changed
 * only their kernels (NCHW convs are scalar and compile as before). 5: NCHW 2-D
 * convolutions run as their channels-last twin, transposes around a vectorized NHWC conv
 * (docs/host.md), which changed only their kernels. */
#define PRUNER_HOST_CODEGEN_VERSION 5

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the machine (target_host.c) ------------------------------------------------- */

typedef struct PrunerHostInfo {
  char model[64];        /* /proc/cpuinfo "model name"                         */
  char isa[16];          /* "avx512", "avx2", "sse": the ISA described         */
  char native_isa[16];   /* the widest ISA this CPU has (isa may be narrower)  */
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

/* Reads the machine (no side effects, no timing runs), at its widest SIMD ISA. */
void prunerHostDescribe(PrunerHostInfo *out);

/* The version of the kernel this build makes of `w`'s configs: the last version that
 * changed it (PRUNER_HOST_CODEGEN_VERSION's history), so that a change to some kernels
 * leaves the records of the others current: 5 for an NCHW 2-D convolution, 4 for an NHWC
 * or depthwise 2-D convolution,
 * 3 for a body with
 * erf, exp, log or tanh (whatever its element type: only f32 vectors changed, and the
 * host measures f32 only), else 2. What host records carry and are checked against
 * (docs/records.md). */
int prunerHostCodegenVersionOf(const PrunerWorkload *w);
/* The machine described as if its SIMD ISA were `isa`: "avx512", "avx2" or "sse" (lanes,
 * registers, FMA pipes, peak and name follow; caches, cores and clock stay), or NULL, ""
 * or "native" for its widest. Fails, naming the CPU and its widest ISA, when the CPU
 * lacks `isa`, and lists the accepted names when `isa` is unknown (docs/host.md). */
PrunerStatus prunerHostDescribeIsa(const char *isa, PrunerHostInfo *out);
/* The narrowing step of prunerHostDescribeIsa on a description `h` whose native_isa,
 * cores and clock are set (tests use it to play a CPU they do not run on). */
PrunerStatus prunerHostInfoNarrow(PrunerHostInfo *h, const char *isa);
/* The description `h` (read from this machine) recast as the machine a records key
 * names: `cores` cores, SIMD ISA `isa` (wider than this CPU's allowed: the result models
 * a machine, nothing is compiled for it), FMA pipes per vendor (`amd`: Zen 4 runs 512-bit
 * FMAs on one pipe), and the caches and clock of `measured` where it gives them (NULL or
 * 0: this machine's). Memory stays this machine's (docs/quality.md, "Datasets from
 * another machine"). */
PrunerStatus prunerHostInfoAssume(PrunerHostInfo *h, int cores, const char *isa, bool amd,
                                  const PrunerMeasuredMachine *measured);
/* LLVM target features that keep generated code within the ISA `t` describes on this
 * CPU: "" when `t` is at the CPU's widest ISA, "-avx512f" for AVX2 on an AVX-512 CPU,
 * "-avx,-avx512f" for SSE on an AVX CPU. Static storage. */
const char *prunerHostTargetFeatures(const PrunerTargetDesc *t);
/* The target description of this machine (kind PRUNER_TARGET_HOST, arch "host"). */
void prunerHostTargetDesc(const PrunerHostInfo *info, PrunerTargetDesc *out);
/* The two PrunerTargetDesc fields named after GPU parts that the host fills with CPU
 * quantities (the table above): host code reads them through these names. */
int prunerHostTargetCores(const PrunerTargetDesc *t);     /* sm_count: cores to run on */
int prunerHostTargetSimdLanes(const PrunerTargetDesc *t); /* warp_size: f32 SIMD lanes */
/* The caches and clock a host target describes (smem_per_sm: L1d, l2_bytes, smem_per_block:
 * L3, boost_clock_mhz), as records carry them. */
void prunerHostTargetMachine(const PrunerTargetDesc *t, PrunerMeasuredMachine *out);

/* ---- space rules (space_host.c) -------------------------------------------------- */

/* Default limits of host spaces (docs/host.md): tasks tiles up to 512 per loop, register
 * tiles up to 16 elements per loop (64 on the vectorized loop). */
PrunerSpaceOptions prunerHostSpaceDefaultOptions(void);

/* The host's validity rules (docs/host.md): entries in the right loops, task tiles in
 * [1, bound] (at most PRUNER_HOST_MAX_SPLIT_LOOPS not dividing), reduction steps dividing
 * the bounds, register tiles no larger than
 * the task tiles and dividing them on the vectorized loop, vector width 1 or the lanes,
 * the register tile's vector accumulators within the SIMD registers. NULL opts: defaults. */
PrunerStatus prunerHostConfigCheck(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                   const PrunerSpaceOptions *opts, const PrunerConfig *config);

bool prunerHostConfigIsValid(const PrunerWorkload *w, const PrunerTargetDesc *t,
                             const PrunerSpaceOptions *opts, const PrunerConfig *config);

/* Split loops (docs/host.md, "Split loops"): a parallel loop whose task tile does not
 * divide its bound runs as two parts, the loop split at the last multiple of the tile:
 * the main part is tiled by the config, the remainder (shorter than a task tile) is one
 * task along that loop with its register tile cut to the remainder (on the vectorized
 * loop: 4, 2 or 1 whole vectors with a peeled tail of at most one vector, or all of a
 * remainder narrower than one vector) and peeled where it does not divide it. At most
 * PRUNER_HOST_MAX_SPLIT_LOOPS loops split, 2^k parts. */
#define PRUNER_HOST_MAX_SPLIT_LOOPS 3
#define PRUNER_HOST_MAX_PARTS (1 << PRUNER_HOST_MAX_SPLIT_LOOPS)
typedef struct PrunerHostPart {
  PrunerWorkload workload; /* `w` with the part's bounds (shapes and key stay the op's) */
  PrunerConfig config;     /* the config as the part runs it                           */
} PrunerHostPart;
/* The loops a config splits (task tile not dividing the bound), ascending, at most
 * PRUNER_HOST_MAX_SPLIT_LOOPS, into `loops`; returns their count. */
int prunerHostSplitLoops(const PrunerWorkload *w, const PrunerConfig *c, int *loops);
/* The parts of a checked config, in the schedule's order: bit i of a part's index is set
 * when it is the remainder along the i-th split loop (ascending loop order). Part 0 is
 * the main part; one part (the config itself) when no loop is split. Returns the count;
 * `parts` holds PRUNER_HOST_MAX_PARTS. A remainder along the packed operand's loops does
 * not pack. */
int prunerHostConfigParts(const PrunerWorkload *w, const PrunerConfig *c, PrunerHostPart *parts);

/* Every knob of the host space in space.c's order (parallel loops' tile pairs, reduction
 * steps, promote_operands = {0} or {0, packed operand}, vector_width); at most `cap`
 * knobs. */
PrunerStatus prunerHostSpaceKnobs(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                  const PrunerSpaceOptions *opts, PrunerKnob *knobs, int cap,
                                  int *num_knobs);

/* Candidate values of the host knobs (space.c builds its mixed-radix index from them).
 * Task tile candidates of loop l with their register tiles (pairs), at most `cap`; where
 * the space has two vector widths (prunerHostVectorCandidates), the vectorized loop's
 * pairs of both. */
int prunerHostTileCandidates(const PrunerWorkload *w, const PrunerTargetDesc *t,
                             const PrunerSpaceOptions *opts, int loop, int64_t *workgroup,
                             int64_t *thread, int cap);
/* Reduction steps of loop l, at most `cap`. */
int prunerHostReductionCandidates(const PrunerWorkload *w, int loop, int64_t *steps, int cap);
/* Vector widths: the one of prunerHostVectorWidth, and where that is a narrower vector
 * dividing the bound, the widest that fits in the bound (at most the SIMD lanes) too,
 * with the loop split. */
int prunerHostVectorCandidates(const PrunerWorkload *w, const PrunerTargetDesc *t,
                               int64_t *widths, int cap);
/* The vector width of the host space for `w`: the SIMD lanes of its element type when
 * the vectorized loop's bound is a multiple of them; else the widest power of two below
 * that divides it, down to 4; else the widest vector of at least 4 that fits in the
 * bound, at most the lanes (the loop is split); 1 (scalar) when there is no vectorized
 * loop, its bound is below 4, and for NCHW convs (other than the host's channels-last
 * twins). */
int prunerHostVectorWidth(const PrunerWorkload *w, const PrunerTargetDesc *t);
/* The loop that is vectorized: the output's contiguous loop (-1: none, scalar only). */
int prunerHostVectorLoop(const PrunerWorkload *w);
/* The operand a host config may pack (promote_operands = [it]): operand 1 of a
 * contraction (matmul, batch_matmul, contraction generic) whose last index is the
 * vectorized loop alone and which some parallel loop does not index; -1 when none. */
int prunerHostPackableOperand(const PrunerWorkload *w);

/* ---- NCHW convolutions run channels-last (channels_last.c; docs/host.md) --------- */

/* Whether the host kernel of `w` is an NCHW 2-D convolution run as its channels-last twin:
 * input, filter and output transposed to NHWC / HWCF / NHWC around the conv_2d_nhwc_hwcf
 * the config schedules, and the result transposed back. Host targets of this build's
 * kernels (codegen_version 0 or from 5 on) or t NULL (the kernel this build makes) only:
 * IREE's CPU backend compiles NCHW convs its own way, and an older host dataset timed
 * scalar NCHW kernels. */
bool prunerHostRunsChannelsLast(const PrunerWorkload *w, const PrunerTargetDesc *t);
/* The twin: `w`'s conv as conv_2d_nhwc_hwcf, loops (n, oh, ow, f, kh, kw, c); its key,
 * op_name (for messages), body, strides and dilations stay `w`'s. twin_loop[l] is the
 * twin's loop of `w`'s loop l (PRUNER_MAX_LOOPS entries). False when `w` is not one. */
bool prunerHostChannelsLastWorkload(const PrunerWorkload *w, PrunerWorkload *twin,
                                    int *twin_loop);
/* A config of `w` in the twin's loop order, and back (n = w's loop count). */
void prunerHostConfigToTwin(const PrunerConfig *c, const int *twin_loop, int n,
                            PrunerConfig *out);
void prunerHostConfigFromTwin(const PrunerConfig *twin_config, const int *twin_loop, int n,
                              PrunerConfig *out);

/* ---- draft (draft_host.c; docs/host.md, "Draft") --------------------------------- */

typedef struct PrunerDraftSymbols PrunerDraftSymbols; /* pruner/draft.h */

/* Fails, naming the field, when the host description lacks what the model divides by. */
PrunerStatus prunerHostDraftCheckTarget(const PrunerWorkload *w, const PrunerTargetDesc *t);
/* Scores a valid host config (validity is the caller's: prunerConfigIsValid). */
bool prunerHostDraftScore(const PrunerWorkload *w, const PrunerTargetDesc *t,
                          const PrunerConfig *c, PrunerDraftSymbols *out);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_BACKEND_HOST_RULES_H */

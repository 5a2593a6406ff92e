/* Internal layout of a PrunerDraft: everything that depends only on (workload, target),
 * precomputed by prunerDraftCreate so that scoring a config is arithmetic only. */
#ifndef PRUNER_DRAFT_INTERNAL_H
#define PRUNER_DRAFT_INTERNAL_H

#include "pruner/draft.h"

/* One non-zero indexing term: operand dim `dim` moves by `coeff` per step of `loop`. */
typedef struct DraftTerm {
  int dim;
  int loop;
  int64_t coeff; /* absolute value: footprints only need the span */
} DraftTerm;

typedef struct DraftOperand {
  int bytes;
  int is_output;
  int rank;
  int64_t shape[PRUNER_MAX_RANK];
  int num_terms;
  DraftTerm terms[PRUNER_MAX_RANK * PRUNER_MAX_LOOPS];
  /* Byte distance in global memory of one step of each loop (row-major layout). */
  double global_step_bytes[PRUNER_MAX_LOOPS];
  int contiguous_loop; /* loop walking the last dim with coefficient 1, or -1 */
  double total_bytes;  /* whole operand: the compulsory DRAM traffic */
} DraftOperand;

struct PrunerDraftImpl {
  PrunerWorkload w;
  PrunerTargetDesc t;
  int num_operands;
  DraftOperand ops[PRUNER_MAX_OPERANDS];
  double flops;            /* useful FLOPs */
  double points;           /* product of the bounds */
  double instr_per_point;  /* FMA-pipe instructions per iteration point */
  int acc_regs_per_elem;   /* registers per accumulator element */
  double input_bytes;      /* sum of input operand sizes */
  /* Target-derived constants (docs/draft.md). */
  double clock_hz;
  double lanes_per_sm;     /* FP32 lanes: peak / (2 x clock x SMs) */
  double fma_issue_cycles; /* scheduler cycles one warp FMA occupies the FP32 pipe */
  double l2_bytes_per_s;
  double l1_bytes_per_sm;  /* unified L1 + shared memory of one SM */
  int smem_granularity;
  int reg_cap_per_thread;  /* 255: the most a thread can address (PTX ISA) */
  PrunerDraftTermsFn terms; /* a backend's own terms (prunerDraftCreateWithTerms), or NULL */
  void *terms_user;
  /* conv_2d_nhwc_hwcf on a GPU target: the draft of its implicit GEMM, which scores the
   * implicit-GEMM configs (promote_operands on the conv); NULL otherwise. */
  struct PrunerDraftImpl *igemm;
  /* In that GEMM's draft: issue slots per element of the block's A tile (the im2col fill,
   * scalar, with its floordiv / mod index arithmetic); 0 in any other draft. */
  double im2col_instr_per_elem;
};

/* Memo of the warp access analysis (32-byte sectors and useful bytes of a warp-wide load,
 * shared-memory bank conflicts), keyed by the warp shape, the lane strides and the access
 * width. The configs of one scan share few distinct keys and the analysis was the
 * costliest part of a score (about 40% of a 1024^3 matmul scan, perf). The caller owns
 * it (a scan keeps one on its stack), so the draft handle stays read-only and shareable
 * between threads. Direct-mapped; a miss overwrites. */
#define DRAFT_WARP_CACHE_SIZE 1024
typedef struct DraftWarpEntry {
  bool valid;
  int kind; /* 0: sectors/useful, 1: bank conflict */
  int width;
  int64_t bx, by;
  double sx, sy;
  double a, b; /* sectors and useful bytes, or the bank-conflict degree in a */
} DraftWarpEntry;
typedef struct DraftWarpCache {
  DraftWarpEntry entries[DRAFT_WARP_CACHE_SIZE];
} DraftWarpCache;

/* draftScoreValid with a memo (NULL: none); scores are identical with or without it. */
bool draftScoreCached(PrunerDraft draft, const PrunerConfig *config,
                      const PrunerKernelResources *resources, PrunerDraftSymbols *out,
                      DraftWarpCache *cache);

/* prunerDraftScore without the validity check, for configs that prunerSpaceNext or
 * prunerSpaceGetConfig produced (they are valid by construction; the space's own check
 * is prunerConfigIsValid). */
bool draftScoreValid(PrunerDraft draft, const PrunerConfig *config,
                     const PrunerKernelResources *resources, PrunerDraftSymbols *out);

/* Resident blocks per SM of a kernel (draft.c's occupancy rules) and what limits it. */
int draftBlocksPerSm(const struct PrunerDraftImpl *d, int64_t threads, int regs, int64_t smem,
                     PrunerDraftLimiter *limiter);

/* The tensor-core term (mma.c) for configs with mma != 0, and its register estimate. */
bool draftMmaScore(const struct PrunerDraftImpl *d, const PrunerConfig *c,
                   const PrunerKernelResources *resources, PrunerDraftSymbols *out);
int draftMmaRegisters(const PrunerWorkload *w, const PrunerConfig *c);

#endif /* PRUNER_DRAFT_INTERNAL_H */

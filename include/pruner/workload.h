/* pruner/workload.h: what one tunable linalg op computes, independent of MLIR.
 *
 * A workload is the op's iteration domain (one loop per dimension, with its bound, its
 * kind, parallel or reduction, and its role, such as M, N or K of a GEMM) plus its
 * operands (shape, element type, and how each operand dimension is indexed by the loops).
 * Indexing is kept as integer coefficients, operand_dim = sum_l coeff[l] * loop_l, which
 * covers projected permutations (matmul, elementwise, reductions) and the strided,
 * dilated windows of convolutions. Everything downstream (space, draft, verifier,
 * schedule, runner reference) reads this struct; none of it needs MLIR.
 *
 * The workload key is stable: identical workloads anywhere (another module, another run,
 * another machine) get the same key, and different ones differ. */
#ifndef PRUNER_WORKLOAD_H
#define PRUNER_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pruner/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PRUNER_MAX_LOOPS 8
#define PRUNER_MAX_OPERANDS 6
#define PRUNER_MAX_RANK 6
#define PRUNER_WORKLOAD_KEY_SIZE 160

typedef enum PrunerOpKind {
  PRUNER_OP_MATMUL = 0,            /* linalg.matmul (plain maps)                    */
  PRUNER_OP_BATCH_MATMUL,          /* linalg.batch_matmul                           */
  PRUNER_OP_CONTRACTION,           /* transposed matmul, contraction-shaped generic */
  PRUNER_OP_CONV_2D_NHWC_HWCF,
  PRUNER_OP_CONV_2D_NCHW_FCHW,
  PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC,
  PRUNER_OP_ELEMENTWISE,           /* all-parallel generic                          */
  PRUNER_OP_REDUCTION,             /* generic with reduction loops, not a contraction */
  PRUNER_OP_KIND_COUNT
} PrunerOpKind;

typedef enum PrunerLoopKind {
  PRUNER_LOOP_PARALLEL = 0,
  PRUNER_LOOP_REDUCTION = 1,
} PrunerLoopKind;

/* What a loop means for the op; drives knob choices and the draft's traffic model. */
typedef enum PrunerLoopRole {
  PRUNER_ROLE_BATCH = 0, /* b: batch of a batched contraction        */
  PRUNER_ROLE_M,         /* m: rows of the output (GEMM)             */
  PRUNER_ROLE_N,         /* n: columns of the output (GEMM)          */
  PRUNER_ROLE_K,         /* k: contracted                            */
  PRUNER_ROLE_IMAGE,     /* img: batch of images (conv n)            */
  PRUNER_ROLE_OUT_H,     /* oh                                       */
  PRUNER_ROLE_OUT_W,     /* ow                                       */
  PRUNER_ROLE_OUT_CHANNEL, /* f (or c of a depthwise conv)           */
  PRUNER_ROLE_FILTER_H,  /* kh                                       */
  PRUNER_ROLE_FILTER_W,  /* kw                                       */
  PRUNER_ROLE_IN_CHANNEL,/* c                                        */
  PRUNER_ROLE_PARALLEL,  /* p: other parallel loop (elementwise, reduction output) */
  PRUNER_ROLE_REDUCED,   /* r: other reduction loop                  */
  PRUNER_ROLE_COUNT
} PrunerLoopRole;

typedef enum PrunerDType {
  PRUNER_DTYPE_F32 = 0,
  PRUNER_DTYPE_F16,
  PRUNER_DTYPE_BF16,
  PRUNER_DTYPE_F64,
  PRUNER_DTYPE_I8,
  PRUNER_DTYPE_I32,
  PRUNER_DTYPE_COUNT
} PrunerDType;

/* The scalar body of a linalg op, as a tiny SSA program, so that references (host and
 * GPU) and regenerated payloads compute exactly what the original op computed. Values
 * 0 .. num_inputs+num_outputs-1 are the block arguments (one per operand, outputs last);
 * value num_operands + i is the result of body[i]. Named contractions and convolutions
 * get the body mulf + addf (muli + addi for integers). */
#define PRUNER_MAX_BODY_OPS 16
typedef enum PrunerBodyOpcode {
  PRUNER_BODY_ADD = 0, /* arith.addf / arith.addi                 */
  PRUNER_BODY_SUB,
  PRUNER_BODY_MUL,
  PRUNER_BODY_DIV,
  PRUNER_BODY_MAX,     /* arith.maximumf / maxnumf / maxsi        */
  PRUNER_BODY_MIN,
  PRUNER_BODY_NEG,
  PRUNER_BODY_EXP,     /* math.exp                                */
  PRUNER_BODY_CONST,   /* arith.constant: `constant`              */
  PRUNER_BODY_CAST,    /* extf / truncf / sitofp ...: to `dtype`  */
  /* Unary float math (GELU, LayerNorm, log-softmax, tanh activations). Appended: an
   * opcode's number is part of the workload key (its body hash). */
  PRUNER_BODY_TANH,    /* math.tanh                               */
  PRUNER_BODY_LOG,     /* math.log                                */
  PRUNER_BODY_SQRT,    /* math.sqrt                               */
  PRUNER_BODY_RSQRT,   /* math.rsqrt                              */
  PRUNER_BODY_ERF,     /* math.erf                                */
  PRUNER_BODY_ABS,     /* math.absf                               */
  PRUNER_BODY_OPCODE_COUNT
} PrunerBodyOpcode;

typedef struct PrunerBodyOp {
  PrunerBodyOpcode opcode;
  int args[2];       /* value numbers (see above); -1 if unused */
  double constant;   /* PRUNER_BODY_CONST                       */
  PrunerDType dtype; /* result type                             */
} PrunerBodyOp;

typedef struct PrunerOperand {
  int rank;
  int64_t shape[PRUNER_MAX_RANK];
  PrunerDType dtype;
  int is_output;
  /* operand dim d = sum_l index_coeff[d][l] * loop_l (all zero-offset). */
  int64_t index_coeff[PRUNER_MAX_RANK][PRUNER_MAX_LOOPS];
} PrunerOperand;

/* A function's signature in pruner's terms: its tensors' shapes and element types (an
 * operand's index_coeff and is_output are unused). What a whole-module check feeds and
 * compares (prunerIrTensorFunctions, PrunerBackend.checkModule). */
typedef struct PrunerFunctionSignature {
  char name[101];
  int num_args, num_results;
  PrunerOperand args[PRUNER_MAX_OPERANDS], results[PRUNER_MAX_OPERANDS];
} PrunerFunctionSignature;

typedef struct PrunerWorkload {
  PrunerOpKind kind;
  char op_name[48];   /* "linalg.matmul", "linalg.generic", ...      */
  int num_loops;
  int64_t bounds[PRUNER_MAX_LOOPS];
  PrunerLoopKind loop_kinds[PRUNER_MAX_LOOPS];
  PrunerLoopRole loop_roles[PRUNER_MAX_LOOPS];
  int num_inputs;
  int num_outputs;
  PrunerOperand operands[PRUNER_MAX_OPERANDS]; /* inputs first, then outputs */
  int64_t strides[2];   /* convolutions: (h, w); 1 otherwise */
  int64_t dilations[2];
  /* The body (see PrunerBodyOp); body_yield[i] is the value yielded for output i.
   * body_ops counts arithmetic ops per iteration (constants and casts excluded) and
   * body_hash fingerprints the body for the key. */
  int body_len;
  PrunerBodyOp body[PRUNER_MAX_BODY_OPS];
  int body_yield[PRUNER_MAX_OPERANDS];
  int body_ops;
  uint64_t body_hash;
  char key[PRUNER_WORKLOAD_KEY_SIZE];
} PrunerWorkload;

const char *prunerOpKindName(PrunerOpKind kind);       /* "matmul", "conv_2d_nhwc_hwcf" ... */
const char *prunerLoopRoleName(PrunerLoopRole role);   /* "m", "n", "k", "oh", ...          */
const char *prunerDTypeName(PrunerDType dtype);        /* "f32", "f16", ...                 */
int prunerDTypeBytes(PrunerDType dtype);
/* Parses a dtype name; returns false if unknown. */
int prunerDTypeParse(const char *name, PrunerDType *out);

/* Floating-point (or integer multiply-add) operations of one execution: 2 per MAC for
 * contractions and convolutions, body_ops per point for generics. */
double prunerWorkloadFlops(const PrunerWorkload *w);

/* Total bytes of all operands (each read or written once). */
double prunerWorkloadBytes(const PrunerWorkload *w);

/* Fills w->key from the other fields; call after building a workload by hand. When the
 * body is not empty it first refreshes body_ops and body_hash from it (docs/space.md). */
void prunerWorkloadComputeKey(PrunerWorkload *w);

/* Checks internal consistency (bounds > 0, shapes match the indexing); a workload built
 * by hand should pass this before it is used. */
PrunerStatus prunerWorkloadVerify(const PrunerWorkload *w);

/* Index of the operand dimension that is contiguous in memory (the last one), and the
 * loop that walks it with coefficient 1, or -1 if none. */
int prunerWorkloadContiguousLoop(const PrunerWorkload *w, int operand);

/* Builders for the common workloads, for tests, benchmarks and tools. All return a
 * verified workload with its key computed. */
void prunerWorkloadMatmul(PrunerWorkload *w, int64_t m, int64_t n, int64_t k, PrunerDType in,
                          PrunerDType out);
void prunerWorkloadBatchMatmul(PrunerWorkload *w, int64_t b, int64_t m, int64_t n, int64_t k,
                               PrunerDType in, PrunerDType out);
/* conv_2d_nhwc_hwcf: input n x ih x iw x c, filter kh x kw x c x f; strides, dilations 1 if 0. */
void prunerWorkloadConv2dNhwcHwcf(PrunerWorkload *w, int64_t n, int64_t ih, int64_t iw,
                                  int64_t c, int64_t kh, int64_t kw, int64_t f, int64_t stride,
                                  int64_t dilation, PrunerDType dtype);
/* depthwise_conv_2d_nhwc_hwc: input n x ih x iw x c, filter kh x kw x c (one per channel). */
void prunerWorkloadDepthwiseConv2dNhwcHwc(PrunerWorkload *w, int64_t n, int64_t ih, int64_t iw,
                                          int64_t c, int64_t kh, int64_t kw, int64_t stride,
                                          int64_t dilation, PrunerDType dtype);
/* The implicit GEMM of a conv_2d_nhwc_hwcf (what convert_conv2d_to_img2col builds): a
 * contraction generic with loops (n, m = oh * ow, f, k = kh * kw * c), A [n, m, k],
 * B [k, f], C [n, m, f]. False (gemm untouched) for any other op. */
bool prunerWorkloadImplicitGemm(const PrunerWorkload *conv, PrunerWorkload *gemm);
/* conv_2d_nchw_fchw: input n x c x ih x iw, filter f x c x kh x kw. */
void prunerWorkloadConv2dNchwFchw(PrunerWorkload *w, int64_t n, int64_t c, int64_t ih,
                                  int64_t iw, int64_t f, int64_t kh, int64_t kw, int64_t stride,
                                  int64_t dilation, PrunerDType dtype);

/* All-parallel linalg.generic out = a + b over dims[0..rank) (rank 1..PRUNER_MAX_RANK). */
void prunerWorkloadElementwiseAdd(PrunerWorkload *w, const int64_t *dims, int rank,
                                  PrunerDType dtype);
/* linalg.generic out[d0..d(rank-2)] += in[d0..d(rank-1)]: a sum over the last dimension
 * (rank 2..PRUNER_MAX_RANK). */
void prunerWorkloadReduceSum(PrunerWorkload *w, const int64_t *dims, int rank,
                             PrunerDType dtype);
/* The builder named `kind` ("matmul", "batch_matmul", "conv_2d_nhwc_hwcf",
 * "conv_2d_nchw_fchw", "elementwise", "reduction") on the n sizes `dims` (the order of
 * the builders above; convolutions take an optional stride and dilation); f16/bf16
 * contractions and convolutions accumulate in f32. The message names the kind and sizes
 * when they do not fit. */
PrunerStatus prunerWorkloadBuild(const char *kind, const int64_t *dims, int n,
                                 PrunerDType dtype, PrunerWorkload *w);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_WORKLOAD_H */

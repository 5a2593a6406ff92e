/* lib/backend/host/host.c: measuring host kernels in an isolated child (docs/host.md).
 *
 * The parent (the tuner) holds a PrunerWorker. Its child, forked on first use, owns an
 * MLIR context, OpenBLAS (dlopen'ed after OPENBLAS_CORETYPE is set, so that only the
 * child sees it) and libomp; it keeps the inputs and the reference output of the last
 * workload, so a run of candidates of one workload computes them once. Per request it
 * JIT-compiles the candidate, runs it once from the initial output and compares with the
 * reference, then warms up and times it. A crash or hang kills only the child. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host_internal.h"
#include "pruner/checked.h"
#include "pruner/clock.h"
#include "pruner/file.h"
#include "pruner/measure.h"
#include "pruner/random.h"
#include "pruner/schedule.h"
#include "pruner/text.h"
#include "pruner/timing.h"
#include "pruner/worker.h"

/* CBLAS enum values (the CBLAS standard, cblas.h): row-major, no transpose. */
#define CBLAS_ROW_MAJOR 101
#define CBLAS_NO_TRANS 111

typedef void (*SgemmFn)(int, int, int, int, int, int, float, const float *, int, const float *,
                        int, float, float *, int);
typedef void (*SetThreadsFn)(int);
typedef int (*OmpIntFn)(void);
/* libgomp's entry point for `#pragma omp parallel` (GCC's ABI, which LLVM's libomp also
 * exports): runs fn(data) on `threads` threads of the pool, the caller among them. */
typedef void (*GompParallelFn)(void (*fn)(void *), void *data, unsigned threads, unsigned flags);
typedef char *(*CorenameFn)(void);
/* BLIS (blis.h): dim_t is int64_t in Debian's build (BLIS_INT_TYPE_SIZE 64), arch_t an
 * enum. */
typedef void (*BlisThreadsFn)(int64_t);
typedef int (*BlisArchIdFn)(void);
typedef const char *(*BlisArchStringFn)(int);

typedef enum HostRequestKind {
  HOST_REQ_CANDIDATE = 0,
  HOST_REQ_UNTILED,
  HOST_REQ_BASELINE,
  HOST_REQ_REMEASURE, /* configs (+ baseline) back to back: prunerHostRemeasure */
} HostRequestKind;

typedef struct HostRequest {
  HostRequestKind kind;
  PrunerWorkload w;
  PrunerConfig config;
  PrunerTargetDesc target;
  PrunerHostOptions opts; /* pointers inside are not used by the child */
  /* HOST_REQ_REMEASURE: */
  PrunerConfig configs[PRUNER_HOST_REMEASURE_MAX];
  int num_configs;
  bool baseline;
  bool blis;   /* BLIS as one more entry after OpenBLAS */
  bool onednn; /* oneDNN's convolution as the last entry */
} HostRequest;

/* What the child answers: one measurement, or a back-to-back re-measurement. */
typedef union HostReply {
  PrunerHostResult result;
  PrunerHostRemeasure remeasure;
} HostReply;

/* The child's state (the parent's copy stays empty). */
typedef struct HostChild {
  bool started;
  /* JITDUMPDIR for the child: the folder where LLVM's perf listener (on in MLIR's
   * ExecutionEngine) writes each JIT's dump; "" when the user set JITDUMPDIR. */
  char jit_dir[PATH_MAX];
  char coretype[32];
  int64_t memory_limit_mb;
  MlirContext ctx;
  void *blas;
  SgemmFn sgemm;
  SetThreadsFn blas_threads;
  CorenameFn corename;
  void *omp;
  SetThreadsFn omp_threads;
  /* The same pool runs the BLAS baselines' im2col copy (blasColumnsCopy). */
  GompParallelFn omp_parallel;
  OmpIntFn omp_thread_num, omp_num_threads;
  int threads;      /* the last setThreads */
  int copy_threads; /* the OpenBLAS baseline's last im2col copy ran on (0: none) */
  /* BLIS: loaded on the first request that asks for it (blis_tried). */
  bool blis_tried;
  void *blis;
  SgemmFn blis_sgemm;
  BlisThreadsFn blis_threads;
  char blis_core[32];
  char blis_error[160];
  /* oneDNN: loaded on the first request that asks for it. */
  bool onednn_tried;
  HostOnednn *onednn;
  char onednn_error[160];
  /* The child's CPUs before the kernels' libomp binds this thread to its first place
   * (OMP_PROC_BIND): BLIS and oneDNN run with them (childCpusEnter). */
  cpu_set_t cpus;
  bool has_cpus;
  /* Inputs and reference of the current workload. */
  char key[PRUNER_WORKLOAD_KEY_SIZE];
  uint64_t seed;
  int nops;
  int64_t elems[PRUNER_MAX_OPERANDS];
  float *data[PRUNER_MAX_OPERANDS];  /* inputs, then outputs (working buffers) */
  float *init[PRUNER_MAX_OPERANDS];  /* initial output values                  */
  float *ref[PRUNER_MAX_OPERANDS];   /* reference output values                */
  bool ref_ok;
  char ref_error[200];
  /* The BLAS baseline's im2col buffer (2-D convs; blasColumns), grown on demand. */
  float *col;
  int64_t col_elems;
} HostChild;

struct PrunerHostImpl {
  PrunerHostOptions opts;
  PrunerTargetDesc target;
  char target_key[96];
  HostChild child;
  PrunerWorker worker;
};

PrunerHostOptions prunerHostDefaultOptions(void) {
  PrunerHostOptions o;
  memset(&o, 0, sizeof o);
  o.threads = 0;
  o.opt_level = 0; /* docs/host.md, H6: same run time as 3, a third of the JIT */
  /* Scalar code is another matter: the schedule leaves it to LLVM's loop passes (LICM,
   * unrolling, SLP), which level 0 skips. The stem conv of examples/model.mlir (NCHW,
   * scalar) ran 321 ms at level 0 and 45 ms at level 2 (43 ms at 3) in the same session,
   * for about the same JIT time (docs/host.md). */
  o.scalar_opt_level = 2;
  o.min_samples = 5;
  o.max_samples = 15;
  o.min_sample_seconds = 0.2;
  o.warmup = 1;
  o.timeout_seconds = 60;
  o.memory_limit_mb = PRUNER_HOST_MEMORY_LIMIT_MB;
  o.seed = 1;
  o.check = true;
  o.openblas_coretype = NULL;
  return o;
}

/* The GEMM a workload is computed with by the BLAS baseline: `calls` row-major sgemm
 * calls C[m,n] += A[m,k] B[k,n] (the batches of a batch_matmul, the images of an NCHW conv)
 * and `col` elements of im2col buffer (0: the input is the GEMM operand as it is, as for a
 * 1x1 stride-1 conv). NHWC with HWCF filters is one GEMM over all images: A is the im2col
 * matrix [N*OH*OW, KH*KW*C], B the filter [KH*KW*C, F], C the output [N*OH*OW, F]. NCHW
 * with FCHW filters is one GEMM per image: A the filter [F, C*KH*KW], B the image's
 * im2col matrix [C*KH*KW, OH*OW], C the image's output [F, OH*OW] (Caffe's layout). */
typedef struct BlasGemm {
  int64_t calls, m, n, k, col;
} BlasGemm;

/* False when `w` has no such form or a size is past cblas' int (larger ones were truncated:
 * a 2^62-row matmul became a 0-row sgemm and an "ok" baseline). */
static bool blasGemmOf(const PrunerWorkload *w, BlasGemm *g) {
  memset(g, 0, sizeof *g);
  for (int o = 0; o < w->num_inputs + w->num_outputs; ++o)
    if (w->operands[o].dtype != PRUNER_DTYPE_F32)
      return false;
  for (int l = 0; l < w->num_loops; ++l)
    if (w->bounds[l] > INT_MAX)
      return false;
  const int64_t *in = w->operands[0].shape, *fl = w->operands[1].shape;
  const int64_t *out = w->operands[w->num_inputs].shape;
  bool direct = false; /* the input is the GEMM operand: 1x1, stride 1, no extra rows */
  bool ok = true;
  switch (w->kind) {
  case PRUNER_OP_MATMUL:
  case PRUNER_OP_BATCH_MATMUL: {
    int b = w->kind == PRUNER_OP_BATCH_MATMUL ? 1 : 0;
    g->calls = b ? in[0] : 1;
    g->m = in[b];
    g->k = in[b + 1];
    g->n = fl[b + 1];
    direct = true;
    break;
  }
  /* The GEMM sizes come from the filter and the output, the column copies from the input:
   * they must agree (linalg's verifier makes them; a hand-built workload might not). With
   * one tap per output and as many input as output rows and columns, stride and dilation
   * are 1 in effect and the input is the GEMM operand ("direct"). */
  case PRUNER_OP_CONV_2D_NHWC_HWCF: /* in [N,H,W,C], filter [KH,KW,C,F], out [N,OH,OW,F] */
    if (in[0] != out[0] || in[3] != fl[2] || fl[3] != out[3])
      return false;
    g->calls = 1;
    ok = prunerCheckedProduct(out, 3, &g->m) && prunerCheckedProduct(fl, 3, &g->k);
    g->n = fl[3];
    direct = fl[0] == 1 && fl[1] == 1 && in[1] == out[1] && in[2] == out[2];
    break;
  case PRUNER_OP_CONV_2D_NCHW_FCHW: /* in [N,C,H,W], filter [F,C,KH,KW], out [N,F,OH,OW] */
    if (in[0] != out[0] || in[1] != fl[1] || fl[0] != out[1])
      return false;
    g->calls = out[0];
    g->m = fl[0];
    ok = prunerCheckedProduct(out + 2, 2, &g->n) && prunerCheckedProduct(fl + 1, 3, &g->k);
    direct = fl[2] == 1 && fl[3] == 1 && in[2] == out[2] && in[3] == out[3];
    break;
  default:
    return false;
  }
  if (!ok || g->m > INT_MAX || g->n > INT_MAX || g->k > INT_MAX)
    return false;
  if (!direct && !prunerCheckedMul(w->kind == PRUNER_OP_CONV_2D_NCHW_FCHW ? g->n : g->m, g->k,
                                   &g->col))
    return false;
  return true;
}

bool prunerHostHasBlasBaseline(const PrunerWorkload *w) {
  BlasGemm g;
  return blasGemmOf(w, &g);
}

const char *prunerHostBlasBaselineMethod(const PrunerWorkload *w) {
  BlasGemm g;
  if (!blasGemmOf(w, &g))
    return NULL;
  if (w->kind == PRUNER_OP_CONV_2D_NHWC_HWCF || w->kind == PRUNER_OP_CONV_2D_NCHW_FCHW)
    return g.col > 0 ? "im2col + sgemm" : "sgemm on the input (1x1 conv)";
  return g.calls > 1 ? "sgemm per batch" : "sgemm";
}

/* ---- the child: libraries, data, reference -------------------------------------------- */

void prunerHostSetThreadPoolEnvironment(void) {
  /* Idle worker threads sleep instead of spinning on (docs/measurement.md, "Host: thread
   * pools"): the kernels' libomp pool and oneDNN's and BLIS' libgomp (OMP_WAIT_POLICY,
   * read when they start), OpenBLAS' pthreads. Pools spinning for their default times
   * (libomp 200 ms) took a core from the other library in the final check's interleaved
   * rounds: a 2-thread 1024^3 kernel timed 10.4 ms alone measured 17.1 ms there, OpenBLAS
   * 20.4 ms. */
  setenv("OMP_WAIT_POLICY", "PASSIVE", 0);
  /* Yet not at once: libomp's threads spin 1 ms after a parallel region (KMP_BLOCKTIME,
   * which overrides the passive policy's 0), libgomp's 100,000 spins (GOMP_SPINCOUNT, its
   * own estimate of 1 ms) and OpenBLAS' 2^20 cycles (OPENBLAS_THREAD_TIMEOUT, 0.3-0.5 ms),
   * so back-to-back samples time the call, not the wake-up of sleeping threads, which on
   * a KVM guest cost a 2-thread depthwise conv about 150 us a call (kernels of 56 us timed
   * 180-240 us); the final check sleeps past the spinning between libraries
   * (childRemeasure). A user's own settings are kept (the 0 of setenv). */
  setenv("KMP_BLOCKTIME", "1", 0);
  setenv("GOMP_SPINCOUNT", "100000", 0);
  setenv("OPENBLAS_THREAD_TIMEOUT", "20", 0);
}

static void childStart(HostChild *ch) {
  if (ch->started)
    return;
  ch->started = true;
  ch->has_cpus = sched_getaffinity(0, sizeof ch->cpus, &ch->cpus) == 0;
  prunerLimitAddressSpace(ch->memory_limit_mb); /* none under ASan (pruner/worker.h) */
  /* OpenBLAS reads OPENBLAS_CORETYPE when it loads: set it first, then dlopen. */
  if (ch->coretype[0])
    setenv("OPENBLAS_CORETYPE", ch->coretype, 1);
  prunerHostSetThreadPoolEnvironment();
  /* Sleeping OpenMP threads are woken where the scheduler likes, at times onto the core
   * of the thread that woke them: a 2-thread kernel then ran at half speed in one
   * process of three. Bound to one core each (the cores of the affinity mask), the
   * same kernel measured 3.47-3.64 ms in six processes instead of 3.63-4.80. */
  setenv("OMP_PROC_BIND", "true", 0);
  setenv("OMP_PLACES", "cores", 0);
  if (ch->jit_dir[0]) {
    setenv("JITDUMPDIR", ch->jit_dir, 1);
    /* This child's mark, so that a later host can clean up after it if the tuner dies
     * before reaping it (hostCollectStale). */
    char mark[PATH_MAX + 32];
    if ((size_t)snprintf(mark, sizeof mark, "%s/child-%ld", ch->jit_dir, (long)getpid()) <
        sizeof mark) {
      int fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
      if (fd >= 0)
        close(fd);
    }
  }
  ch->blas = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  if (ch->blas) {
    ch->sgemm = (SgemmFn)dlsym(ch->blas, "cblas_sgemm");
    ch->blas_threads = (SetThreadsFn)dlsym(ch->blas, "openblas_set_num_threads");
    ch->corename = (CorenameFn)dlsym(ch->blas, "openblas_get_corename");
  }
  /* The same library the ExecutionEngine loads for the kernels' __kmpc_* calls. */
  ch->omp = dlopen(PRUNER_HOST_LIBOMP, RTLD_NOW | RTLD_GLOBAL);
  if (ch->omp) {
    ch->omp_threads = (SetThreadsFn)dlsym(ch->omp, "omp_set_num_threads");
    ch->omp_parallel = (GompParallelFn)dlsym(ch->omp, "GOMP_parallel");
    ch->omp_thread_num = (OmpIntFn)dlsym(ch->omp, "omp_get_thread_num");
    ch->omp_num_threads = (OmpIntFn)dlsym(ch->omp, "omp_get_num_threads");
  }
  ch->ctx = hostContextCreate();
}

static void setThreads(HostChild *ch, int threads) {
  ch->threads = threads;
  if (ch->omp_threads)
    ch->omp_threads(threads);
  if (ch->blas_threads)
    ch->blas_threads(threads);
}

/* The candidates measured after a baseline run without its im2col buffer (several times
 * a 3x3 conv's input): it is freed when the baseline is done. */
static void blasColumnsRelease(HostChild *ch) {
  prunerTimingBufferDestroy(ch->col);
  ch->col = NULL;
  ch->col_elems = 0;
}

static void freeData(HostChild *ch) {
  for (int o = 0; o < PRUNER_MAX_OPERANDS; ++o) {
    prunerTimingBufferDestroy(ch->data[o]);
    prunerTimingBufferDestroy(ch->init[o]);
    prunerTimingBufferDestroy(ch->ref[o]);
    ch->data[o] = ch->init[o] = ch->ref[o] = NULL;
  }
  blasColumnsRelease(ch);
  ch->key[0] = '\0';
}

/* pruner-run's values (prunerRandomTestValue): exact sums, so any difference is a bug. */
static void fillRandom(float *d, int64_t n, uint64_t *state) {
  for (int64_t i = 0; i < n; ++i)
    d[i] = (float)prunerRandomTestValue(state, true);
}

/* `v` rounded to the floating type `t` (round to nearest even, as LLVM's fptrunc) or, for
 * an integer type, wrapped to its width (arith.trunci; fptosi's values are in range). */
static double roundToType(double v, PrunerDType t) {
  switch (t) {
  case PRUNER_DTYPE_F32: return (double)(float)v;
  case PRUNER_DTYPE_F16: return (double)(_Float16)(float)v;
  case PRUNER_DTYPE_BF16: {
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u)
      return v; /* NaN */
    u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
    memcpy(&f, &u, sizeof f);
    return (double)f;
  }
  case PRUNER_DTYPE_I8: return isfinite(v) ? (double)(int8_t)(int64_t)v : NAN;
  case PRUNER_DTYPE_I32: return isfinite(v) ? (double)(int32_t)(int64_t)v : NAN;
  default: return v;
  }
}

static bool isIntType(PrunerDType t) { return t == PRUNER_DTYPE_I8 || t == PRUNER_DTYPE_I32; }

/* The body as the measured payload computes it (lib/schedule/payload.c): maximumf and
 * minimumf propagate NaN, divsi truncates toward zero, fptosi truncates, truncf rounds to
 * nearest even; values are kept in double and rounded to each op's type. */
static double evalBody(const PrunerWorkload *w, const double *args, double *vals) {
  int nops = w->num_inputs + w->num_outputs;
  for (int i = 0; i < nops; ++i)
    vals[i] = args[i];
  for (int i = 0; i < w->body_len; ++i) {
    const PrunerBodyOp *b = &w->body[i];
    double x = b->args[0] >= 0 ? vals[b->args[0]] : 0, y = b->args[1] >= 0 ? vals[b->args[1]] : 0;
    double r = 0;
    switch (b->opcode) {
    case PRUNER_BODY_ADD: r = x + y; break;
    case PRUNER_BODY_SUB: r = x - y; break;
    case PRUNER_BODY_MUL: r = x * y; break;
    case PRUNER_BODY_DIV:
      r = !isIntType(b->dtype) ? x / y : y != 0 ? trunc(x / y) : NAN;
      break;
    case PRUNER_BODY_MAX: r = isnan(x) || isnan(y) ? NAN : x > y ? x : y; break;
    case PRUNER_BODY_MIN: r = isnan(x) || isnan(y) ? NAN : x < y ? x : y; break;
    case PRUNER_BODY_NEG: r = -x; break;
    case PRUNER_BODY_EXP: r = exp(x); break;
    case PRUNER_BODY_TANH: r = tanh(x); break;
    case PRUNER_BODY_LOG: r = log(x); break;
    case PRUNER_BODY_SQRT: r = sqrt(x); break;
    case PRUNER_BODY_RSQRT: r = 1.0 / sqrt(x); break;
    case PRUNER_BODY_ERF: r = erf(x); break;
    case PRUNER_BODY_ABS: r = fabs(x); break;
    case PRUNER_BODY_CONST: r = b->constant; break;
    case PRUNER_BODY_CAST: r = isIntType(b->dtype) ? trunc(x) : x; break;
    default: r = NAN; break;
    }
    if (b->opcode != PRUNER_BODY_CONST)
      r = roundToType(r, b->dtype);
    vals[nops + i] = r;
  }
  return 0;
}

/* The plain reference: walks every point of the iteration space in order and applies
 * the body, as linalg's semantics define it (outputs read and written in place). Each
 * operand's flat offset is linear in the loop indices (zero-offset maps), so it is kept
 * up to date by adding per-loop strides as the odometer ticks: the 115 M points of the
 * model's 3x3 conv took ~11 s with the offsets recomputed from the maps per point. */
static void interpret(const PrunerWorkload *w, double *const *ops) {
  int nops = w->num_inputs + w->num_outputs, n = w->num_loops;
  int64_t idx[PRUNER_MAX_LOOPS] = {0};
  int64_t stride[PRUNER_MAX_OPERANDS][PRUNER_MAX_LOOPS] = {{0}};
  for (int o = 0; o < nops; ++o) {
    int64_t p = 1;
    for (int d = w->operands[o].rank - 1; d >= 0; --d) {
      for (int l = 0; l < n; ++l)
        stride[o][l] += w->operands[o].index_coeff[d][l] * p;
      p *= w->operands[o].shape[d];
    }
  }
  double args[PRUNER_MAX_OPERANDS], vals[PRUNER_MAX_OPERANDS + PRUNER_MAX_BODY_OPS];
  int64_t flat[PRUNER_MAX_OPERANDS] = {0};
  for (;;) {
    for (int o = 0; o < nops; ++o)
      args[o] = ops[o][flat[o]];
    evalBody(w, args, vals);
    for (int o = 0; o < w->num_outputs; ++o)
      ops[w->num_inputs + o][flat[w->num_inputs + o]] = vals[w->body_yield[o]];
    int l = n - 1;
    for (; l >= 0; --l) {
      if (++idx[l] < w->bounds[l]) {
        for (int o = 0; o < nops; ++o)
          flat[o] += stride[o][l];
        break;
      }
      for (int o = 0; o < nops; ++o) /* back to 0 in loop l */
        flat[o] -= stride[o][l] * (w->bounds[l] - 1);
      idx[l] = 0;
    }
    if (l < 0)
      return;
  }
}

/* Rows [begin, end) of the im2col matrix of an NHWC image batch: row (n, oh, ow) holds the
 * taps (kh, kw) in order, each the C channels of input pixel (oh*sh + kh*dh, ow*sw +
 * kw*dw), one copy. */
static void im2colNhwcRows(const PrunerWorkload *w, const float *in, float *col, int64_t begin,
                           int64_t end) {
  const int64_t *is = w->operands[0].shape, *fs = w->operands[1].shape;
  const int64_t *os = w->operands[w->num_inputs].shape;
  int64_t H = is[1], W = is[2], C = is[3], KH = fs[0], KW = fs[1], OH = os[1], OW = os[2];
  int64_t sh = w->strides[0], sw = w->strides[1], dh = w->dilations[0], dw = w->dilations[1];
  col += begin * KH * KW * C;
  for (int64_t r = begin; r < end; ++r) {
    int64_t n = r / (OH * OW), oh = r / OW % OH, ow = r % OW;
    for (int64_t kh = 0; kh < KH; ++kh)
      for (int64_t kw = 0; kw < KW; ++kw) {
        const float *src = in + ((n * H + oh * sh + kh * dh) * W + ow * sw + kw * dw) * C;
        memcpy(col, src, (size_t)C * sizeof(float));
        col += C;
      }
  }
}

/* Rows [begin, end) of the im2col matrix of one NCHW image: row (c, kh, kw), column
 * (oh, ow). */
static void im2colNchwRows(const PrunerWorkload *w, const float *image, float *col, int64_t begin,
                           int64_t end) {
  const int64_t *is = w->operands[0].shape, *fs = w->operands[1].shape;
  const int64_t *os = w->operands[w->num_inputs].shape;
  int64_t H = is[2], W = is[3], KH = fs[2], KW = fs[3], OH = os[2], OW = os[3];
  int64_t sh = w->strides[0], sw = w->strides[1], dh = w->dilations[0], dw = w->dilations[1];
  col += begin * OH * OW;
  for (int64_t r = begin; r < end; ++r) {
    int64_t c = r / (KH * KW), kh = r / KW % KH, kw = r % KW;
    for (int64_t oh = 0; oh < OH; ++oh) {
      const float *row = image + (c * H + oh * sh + kh * dh) * W + kw * dw;
      if (sw == 1)
        memcpy(col, row, (size_t)OW * sizeof(float));
      else
        for (int64_t ow = 0; ow < OW; ++ow)
          col[ow] = row[ow * sw];
      col += OW;
    }
  }
}

/* A libgomp pool (BLIS's, oneDNN's) is created by, and inherits the affinity of, the
 * calling thread, which the kernels' libomp has bound to one CPU (OMP_PROC_BIND): its
 * threads shared that CPU and a 2-thread 1024^3 BLIS call took 9x its 1-thread time. So
 * such libraries are called with the child's whole CPU set, and the thread's binding is
 * restored after. */
static void childCpusEnter(const HostChild *ch, cpu_set_t *bound, bool *rebind) {
  *rebind = ch->has_cpus && sched_getaffinity(0, sizeof *bound, bound) == 0 &&
            sched_setaffinity(0, sizeof ch->cpus, &ch->cpus) == 0;
}

static void childCpusLeave(const cpu_set_t *bound, bool rebind) {
  if (rebind)
    sched_setaffinity(0, sizeof *bound, bound);
}

/* One im2col copy, its rows split evenly over the threads of a parallel region. */
typedef struct Im2colCopy {
  const HostChild *ch;
  const PrunerWorkload *w;
  const float *in;
  float *col;
  int64_t rows;
  int threads; /* the region's threads, as the runtime gave them (thread 0 writes it) */
} Im2colCopy;

static void im2colCopyPart(void *arg) {
  Im2colCopy *copy = arg;
  int64_t part = copy->ch->omp_thread_num(), parts = copy->ch->omp_num_threads();
  if (part == 0)
    copy->threads = (int)parts;
  int64_t begin = copy->rows * part / parts, end = copy->rows * (part + 1) / parts;
  if (copy->w->kind == PRUNER_OP_CONV_2D_NHWC_HWCF)
    im2colNhwcRows(copy->w, copy->in, copy->col, begin, end);
  else
    im2colNchwRows(copy->w, copy->in, copy->col, begin, end);
}

/* Threads the im2col copy asks for: the baseline's (setThreads) where the kernels' libomp
 * gives the parallel region's entry points, else 1 (the runtime may give fewer). */
static int blasCopyThreads(const HostChild *ch) {
  bool pool = ch->omp_parallel && ch->omp_thread_num && ch->omp_num_threads;
  return pool && ch->threads > 1 ? ch->threads : 1;
}

/* The im2col matrix of `in` (an NHWC batch, or one NCHW image) into `col`, on as many
 * threads as the baseline's GEMM (setThreads), in the kernels' libomp pool: a framework's
 * im2col runs on its threads too (Caffe2's and PyTorch's are OpenMP loops), and a serial
 * copy held a 2-thread baseline to 1.3x its 1-thread time (docs/host.md). */
static int blasColumnsCopy(const HostChild *ch, const PrunerWorkload *w, const float *in,
                           float *col, int64_t rows) {
  Im2colCopy copy = {ch, w, in, col, rows, 1};
  if (blasCopyThreads(ch) > 1) {
    ch->omp_parallel(im2colCopyPart, &copy, (unsigned)ch->threads, 0);
    return copy.threads;
  }
  if (w->kind == PRUNER_OP_CONV_2D_NHWC_HWCF)
    im2colNhwcRows(w, in, col, 0, copy.rows);
  else
    im2colNchwRows(w, in, col, 0, copy.rows);
  return 1;
}

/* One sgemm call; with `own_cpus` (BLIS) on the child's whole CPU set (childCpusEnter). */
static void blasSgemm(const HostChild *ch, SgemmFn sgemm, bool own_cpus, int m, int n, int k,
                      const float *a, int lda, const float *b, int ldb, float *c, int ldc) {
  cpu_set_t bound;
  bool rebind = false;
  if (own_cpus)
    childCpusEnter(ch, &bound, &rebind);
  sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, m, n, k, 1.0f, a, lda, b, ldb, 1.0f, c,
        ldc);
  childCpusLeave(&bound, rebind);
}

/* C += A B for `w` with `sgemm` (OpenBLAS' or BLIS', `own_cpus` for BLIS: blasSgemm): `a`,
 * `b` the inputs, `c` the output, `col` the im2col buffer (blasColumns; unused when the
 * GEMM needs none), copied on the child's threads in the kernels' pool (blasColumnsCopy),
 * outside the CPU set BLIS runs with. Returns the threads the copy ran on, 0: no copy. */
static int blasCompute(const HostChild *ch, SgemmFn sgemm, bool own_cpus, const PrunerWorkload *w,
                       const float *a, const float *b, float *c, float *col) {
  BlasGemm g;
  blasGemmOf(w, &g); /* callers checked prunerHostHasBlasBaseline */
  int m = (int)g.m, n = (int)g.n, k = (int)g.k, copied = 0;
  if (w->kind == PRUNER_OP_CONV_2D_NHWC_HWCF) {
    if (g.col > 0)
      copied = blasColumnsCopy(ch, w, a, col, g.m);
    blasSgemm(ch, sgemm, own_cpus, m, n, k, g.col > 0 ? col : a, k, b, n, c, n);
    return copied;
  }
  if (w->kind == PRUNER_OP_CONV_2D_NCHW_FCHW) {
    const int64_t *is = w->operands[0].shape;
    int64_t image = is[1] * is[2] * is[3];
    for (int64_t i = 0; i < g.calls; ++i) {
      if (g.col > 0)
        copied = blasColumnsCopy(ch, w, a + i * image, col, g.k);
      blasSgemm(ch, sgemm, own_cpus, m, n, k, b, k, g.col > 0 ? col : a + i * image, n,
                c + i * g.m * g.n, n);
    }
    return copied;
  }
  /* matmul: A[m,k] B[k,n] C[m,n]; batch_matmul: one sgemm per batch. */
  for (int64_t i = 0; i < g.calls; ++i)
    blasSgemm(ch, sgemm, own_cpus, m, n, k, a + i * g.m * g.k, k, b + i * g.k * g.n, n,
              c + i * g.m * g.n, n);
  return 0;
}

/* The im2col buffer the baseline of `w` needs, allocated once per workload; false, with a
 * reason, when the worker's memory does not hold it (the baseline then fails by name). */
static bool blasColumns(HostChild *ch, const PrunerWorkload *w, char *why, size_t size) {
  BlasGemm g;
  blasGemmOf(w, &g);
  if (g.col <= ch->col_elems)
    return true;
  int64_t bytes;
  prunerTimingBufferDestroy(ch->col);
  ch->col_elems = 0;
  ch->col = prunerCheckedMul(g.col, (int64_t)sizeof(float), &bytes) && (uint64_t)bytes <= SIZE_MAX
                ? prunerTimingBufferCreate((size_t)bytes)
                : NULL;
  if (!ch->col) {
    snprintf(why, size,
             "out of memory for the im2col buffer of %.80s (%lld elements; worker memory "
             "limit %lld MB)",
             w->key, (long long)g.col, (long long)ch->memory_limit_mb);
    return false;
  }
  ch->col_elems = g.col;
  return true;
}

static void blasRun(HostChild *ch, const PrunerWorkload *w, const float *a, const float *b,
                    float *c) {
  ch->copy_threads = blasCompute(ch, ch->sgemm, false, w, a, b, c, ch->col);
}

/* BLIS beside OpenBLAS in one process: both export cblas_sgemm. RTLD_LOCAL keeps BLIS's
 * symbols out of the global scope (nothing else binds to them) and RTLD_DEEPBIND makes
 * BLIS's own references resolve inside BLIS first (its cblas_sgemm calls its own
 * sgemm_, not OpenBLAS'); the handle's dlsym gives BLIS's entry point. */
static void blisStart(HostChild *ch) {
  if (ch->blis_tried)
    return;
  ch->blis_tried = true;
  if (prunerBuiltWithAddressSanitizer()) {
    /* AddressSanitizer ends the process on a dlopen with RTLD_DEEPBIND (google/sanitizers
     * issue 611), and without it BLIS's calls could bind to OpenBLAS: no BLIS entry. */
    snprintf(ch->blis_error, sizeof ch->blis_error,
             "libblis.so.4 is not loaded in an AddressSanitizer build (ASan refuses the "
             "RTLD_DEEPBIND that keeps BLIS apart from OpenBLAS)");
    return;
  }
  ch->blis = dlopen("libblis.so.4", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (!ch->blis) {
    snprintf(ch->blis_error, sizeof ch->blis_error, "libblis.so.4 could not be loaded: %.100s",
             dlerror());
    return;
  }
  ch->blis_sgemm = (SgemmFn)dlsym(ch->blis, "cblas_sgemm");
  ch->blis_threads = (BlisThreadsFn)dlsym(ch->blis, "bli_thread_set_num_threads");
  BlisArchIdFn id = (BlisArchIdFn)dlsym(ch->blis, "bli_arch_query_id");
  BlisArchStringFn name = (BlisArchStringFn)dlsym(ch->blis, "bli_arch_string");
  if (id && name)
    snprintf(ch->blis_core, sizeof ch->blis_core, "%.31s", name(id()));
  if (!ch->blis_sgemm)
    snprintf(ch->blis_error, sizeof ch->blis_error, "libblis.so.4 has no cblas_sgemm");
}

static bool outOfMemory(HostChild *ch, const PrunerWorkload *w, int o, char *why, size_t size) {
  freeData(ch);
  snprintf(why, size,
           "out of memory for operand %d of %.80s (%lld elements; worker memory "
           "limit %lld MB)",
           o, w->key, (long long)ch->elems[o], (long long)ch->memory_limit_mb);
  return false;
}

/* Element counts of every operand, checked: the reference copies are doubles, so each
 * operand's count times 8 bytes must fit. False with a reason otherwise. */
static bool operandSizes(const PrunerWorkload *w, int64_t *elems, char *why, size_t size) {
  for (int o = 0; o < w->num_inputs + w->num_outputs; ++o) {
    int64_t bytes;
    if (!prunerCheckedProduct(w->operands[o].shape, w->operands[o].rank, &elems[o]) ||
        !prunerCheckedMul(elems[o], (int64_t)sizeof(double), &bytes) ||
        (uint64_t)bytes > SIZE_MAX) {
      snprintf(why, size, "operand %d of %.100s has more elements than this host can address", o,
               w->key);
      return false;
    }
  }
  return true;
}

/* Inputs, initial outputs and the reference output of `w` (cached per workload). False,
 * with a reason, when a size is past what the host can address or memory runs out (the
 * worker's RAM limit); before, an overflowed count allocated a wrapped size. */
static bool prepareData(HostChild *ch, const PrunerWorkload *w, uint64_t seed, char *why,
                        size_t why_size) {
  if (strcmp(ch->key, w->key) == 0 && ch->seed == seed)
    return true;
  freeData(ch);
  int64_t elems[PRUNER_MAX_OPERANDS];
  if (!operandSizes(w, elems, why, why_size))
    return false;
  ch->nops = w->num_inputs + w->num_outputs;
  ch->seed = seed;
  uint64_t state = seed;
  PrunerOutputInit init = prunerOutputInitDefault(w);
  for (int o = 0; o < ch->nops; ++o) {
    int64_t n = elems[o];
    ch->elems[o] = n;
    ch->data[o] = prunerTimingBufferCreate((size_t)n * sizeof(float));
    if (!ch->data[o])
      return outOfMemory(ch, w, o, why, why_size);
    if (o < w->num_inputs) {
      fillRandom(ch->data[o], n, &state);
      continue;
    }
    ch->init[o] = prunerTimingBufferCreate((size_t)n * sizeof(float));
    ch->ref[o] = prunerTimingBufferCreate((size_t)n * sizeof(float));
    if (!ch->init[o] || !ch->ref[o])
      return outOfMemory(ch, w, o, why, why_size);
    if (init == PRUNER_OUTPUT_RANDOM)
      fillRandom(ch->init[o], n, &state);
    else if (init == PRUNER_OUTPUT_ZERO)
      memset(ch->init[o], 0, (size_t)n * sizeof(float));
    else
      for (int64_t i = 0; i < n; ++i)
        ch->init[o][i] = NAN; /* poison: an element the kernel never writes shows up */
  }
  ch->ref_ok = true;
  ch->ref_error[0] = '\0';
  int out = w->num_inputs;
  if ((w->kind == PRUNER_OP_MATMUL || w->kind == PRUNER_OP_BATCH_MATMUL) &&
      prunerHostHasBlasBaseline(w) && ch->sgemm) {
    /* The contractions start from zero (ZERO init): C = A B. A conv's reference is the
     * interpreter's, which also checks the im2col baseline. */
    memset(ch->ref[out], 0, (size_t)ch->elems[out] * sizeof(float));
    blasRun(ch, w, ch->data[0], ch->data[1], ch->ref[out]);
  } else {
    double *ops[PRUNER_MAX_OPERANDS] = {0};
    for (int o = 0; o < ch->nops; ++o) {
      ops[o] = malloc((size_t)ch->elems[o] * sizeof(double));
      if (!ops[o]) {
        for (int p = 0; p < o; ++p)
          free(ops[p]);
        return outOfMemory(ch, w, o, why, why_size);
      }
      const float *src = o < w->num_inputs ? ch->data[o] : ch->init[o];
      for (int64_t i = 0; i < ch->elems[o]; ++i)
        ops[o][i] = src[i];
    }
    interpret(w, ops);
    for (int o = w->num_inputs; o < ch->nops; ++o)
      for (int64_t i = 0; i < ch->elems[o]; ++i)
        ch->ref[o][i] = (float)ops[o][i];
    for (int o = 0; o < ch->nops; ++o)
      free(ops[o]);
  }
  snprintf(ch->key, sizeof ch->key, "%s", w->key);
  return true;
}

static void resetOutputs(HostChild *ch, const PrunerWorkload *w) {
  for (int o = w->num_inputs; o < ch->nops; ++o)
    memcpy(ch->data[o], ch->init[o], (size_t)ch->elems[o] * sizeof(float));
}

/* Max |got - want| over the outputs; the check passes within 1e-4 (1 + |want|). */
static bool compareOutputs(HostChild *ch, const PrunerWorkload *w, double *max_err, char *why,
                           size_t why_size) {
  *max_err = 0;
  bool ok = true;
  for (int o = w->num_inputs; o < ch->nops; ++o)
    for (int64_t i = 0; i < ch->elems[o]; ++i) {
      double got = ch->data[o][i], want = ch->ref[o][i], err;
      bool agrees = prunerMeasureAgrees(got, want, 1e-4 * (1.0 + fabs(want)), &err);
      if (err > *max_err)
        *max_err = err;
      if (ok && !agrees) {
        ok = false;
        snprintf(why, why_size, "output %d element %lld: got %g, want %g", o - w->num_inputs,
                 (long long)i, got, want);
      }
    }
  return ok;
}



/* Runs the kernel once; a returned (not in-place) output is copied into the output
 * buffer and freed (it was malloc'ed by the lowered memref.alloc). */
static bool runOnce(HostChild *ch, const PrunerWorkload *w, HostKernel *k) {
  PrunerMemrefDescriptor descs[PRUNER_MAX_OPERANDS], result;
  void *ptrs[PRUNER_MAX_OPERANDS + 1];
  int n = 0;
  memset(&result, 0, sizeof result);
  if (k->num_results > 0)
    ptrs[n++] = &result;
  for (int o = 0; o < ch->nops; ++o) {
    prunerScheduleMemrefDescriptor(&descs[o], ch->data[o], &w->operands[o]);
    ptrs[n++] = &descs[o];
  }
  if (!hostKernelInvoke(k, ptrs, n))
    return false;
  if (k->num_results > 0 && result.aligned && result.aligned != ch->data[w->num_inputs]) {
    int out = w->num_inputs;
    memcpy(ch->data[out], (float *)result.aligned + result.offset,
           (size_t)ch->elems[out] * sizeof(float));
    free(result.allocated);
  }
  return true;
}

typedef bool (*RunFn)(HostChild *ch, const PrunerWorkload *w, void *user);

static bool runKernelFn(HostChild *ch, const PrunerWorkload *w, void *user) {
  return runOnce(ch, w, user);
}

static bool runBlasFn(HostChild *ch, const PrunerWorkload *w, void *user) {
  (void)user;
  blasRun(ch, w, ch->data[0], ch->data[1], ch->data[w->num_inputs]);
  return true;
}

static bool runBlisFn(HostChild *ch, const PrunerWorkload *w) {
  blasCompute(ch, ch->blis_sgemm, true, w, ch->data[0], ch->data[1], ch->data[w->num_inputs],
              ch->col);
  return true;
}

static bool runOnednnFn(HostChild *ch, HostOnednnConv *conv) {
  cpu_set_t bound;
  bool rebind;
  childCpusEnter(ch, &bound, &rebind);
  bool ok = hostOnednnConvRun(conv);
  childCpusLeave(&bound, rebind);
  return ok;
}

/* One run of the protocol (pruner/timing.h): the kernel or OpenBLAS, timed by the wall
 * clock around the call (the child runs nothing else). */
typedef struct HostTimed {
  HostChild *ch;
  const PrunerWorkload *w;
  RunFn fn;
  void *user;
} HostTimed;

static bool hostTimedRun(void *user, int index, double *sample_us, double *clock_mhz) {
  (void)index;
  (void)clock_mhz; /* the host does not read its core clock per sample */
  HostTimed *h = user;
  double t0 = prunerNowSeconds();
  if (!h->fn(h->ch, h->w, h->user))
    return false;
  if (sample_us)
    *sample_us = (prunerNowSeconds() - t0) * 1e6;
  return true;
}

/* Warm-up, then samples until min_samples and min_sample_seconds (or max_samples): the
 * timing protocol with the host's options (docs/host.md, "Measurement"). */
static bool timeRuns(HostChild *ch, const PrunerWorkload *w, const PrunerHostOptions *o, RunFn fn,
                     void *user, PrunerRecord *r) {
  PrunerTimingOptions to = {.warmup_runs = o->warmup,
                            .min_samples = o->min_samples,
                            .max_samples = o->max_samples,
                            .min_seconds = o->min_sample_seconds};
  HostTimed h = {ch, w, fn, user};
  PrunerTiming t;
  bool ok = prunerTimingRun(&to, hostTimedRun, &h, &t);
  r->num_samples = t.num_samples;
  memcpy(r->samples_us, t.samples_us, sizeof t.samples_us);
  if (ok) {
    r->median_us = t.median_us;
    r->spread_us = t.spread_us;
  }
  return ok;
}

/* The ExecutionEngine's LLVM IR opt level for `c` (NULL: untiled, scalar). */
static int hostOptLevel(const PrunerHostOptions *o, const PrunerConfig *c) {
  return c && c->vector_width > 1 ? o->opt_level : o->scalar_opt_level;
}

/* What the worker itself refuses: the kernels' data and reference are f32. */
static bool supported(const PrunerWorkload *w, char *why, size_t size) {
  for (int o = 0; o < w->num_inputs + w->num_outputs; ++o)
    if (w->operands[o].dtype != PRUNER_DTYPE_F32) {
      snprintf(why, size, "the host measures f32 workloads only; operand %d is %s", o,
               prunerDTypeName(w->operands[o].dtype));
      return false;
    }
  return true;
}

bool prunerHostMeasurable(const PrunerWorkload *w, char *why, size_t size) {
  if (!supported(w, why, size))
    return false;
  /* The operand data a worker holds: inputs once, outputs three times (the buffer, its
   * initial values, the reference), 4 bytes each, and once more each for an NCHW conv,
   * whose kernel works on channels-last copies of them (docs/host.md); past the default
   * limit every trial would end in "out of memory". 512 MB is left for the JIT and the
   * runtime. */
  const bool copies = prunerHostRunsChannelsLast(w, NULL);
  double mb = 0;
  for (int o = 0; o < w->num_inputs + w->num_outputs; ++o) {
    double n = 1;
    for (int d = 0; d < w->operands[o].rank; ++d)
      n *= (double)w->operands[o].shape[d];
    mb += n * 4.0 * ((o < w->num_inputs ? 1 : 3) + copies) / (1024.0 * 1024.0);
  }
  if (mb > PRUNER_HOST_MEMORY_LIMIT_MB - 512) {
    snprintf(why, size, "its operands%s need %.0f MB in the measuring worker, whose memory "
             "limit is %d MB", copies ? " and their channels-last copies" : "", mb,
             PRUNER_HOST_MEMORY_LIMIT_MB);
    return false;
  }
  return true;
}

static void childMeasure(HostChild *ch, const HostRequest *req, PrunerHostResult *rep) {
  PrunerRecord *r = &rep->record;
  const PrunerWorkload *w = &req->w;
  int threads = req->opts.threads > 0 ? req->opts.threads : prunerHostTargetCores(&req->target);
  setThreads(ch, threads > 0 ? threads : 1);
  char data_why[200] = "";
  if (!prepareData(ch, w, req->opts.seed, data_why, sizeof data_why)) {
    r->status = PRUNER_RECORD_LAUNCH_ERROR;
    snprintf(r->error, sizeof r->error, "%s", data_why);
    return;
  }
  const PrunerConfig *c = req->kind == HOST_REQ_CANDIDATE ? &req->config : NULL;
  HostKernel k;
  double t0 = prunerNowSeconds();
  /* prunerHostMeasure checked the config before sending it (one check per path). */
  PrunerStatus st = hostJit(ch->ctx, w, c, &req->target, true, hostOptLevel(&req->opts, c), &k);
  rep->compile_seconds = prunerNowSeconds() - t0;
  if (!st.ok) {
    r->status = PRUNER_RECORD_COMPILE_ERROR;
    snprintf(r->error, sizeof r->error, "%.255s", st.message);
    return;
  }
  resetOutputs(ch, w);
  if (!runOnce(ch, w, &k)) {
    r->status = PRUNER_RECORD_LAUNCH_ERROR;
    snprintf(r->error, sizeof r->error, "mlirExecutionEngineInvokePacked failed");
    hostKernelDestroy(&k);
    return;
  }
  char why[200] = "";
  if (req->opts.check && !compareOutputs(ch, w, &r->max_abs_error, why, sizeof why)) {
    r->status = PRUNER_RECORD_WRONG_RESULT;
    snprintf(r->error, sizeof r->error, "%s", why);
    hostKernelDestroy(&k);
    return;
  }
  if (!timeRuns(ch, w, &req->opts, runKernelFn, &k, r)) {
    r->status = PRUNER_RECORD_LAUNCH_ERROR;
    snprintf(r->error, sizeof r->error, "mlirExecutionEngineInvokePacked failed while timing");
  } else {
    r->status = PRUNER_RECORD_OK;
  }
  hostKernelDestroy(&k);
}

static void childBaselineRun(HostChild *ch, const HostRequest *req, PrunerHostResult *rep) {
  PrunerRecord *r = &rep->record;
  const PrunerWorkload *w = &req->w;
  r->is_baseline = true;
  snprintf(r->baseline_name, sizeof r->baseline_name, "openblas");
  if (!ch->sgemm) {
    r->status = PRUNER_RECORD_LAUNCH_ERROR;
    snprintf(r->error, sizeof r->error, "libopenblas.so.0 could not be loaded: %s",
             dlerror() ? dlerror() : "no cblas_sgemm");
    return;
  }
  if (ch->corename)
    snprintf(rep->baseline_core, sizeof rep->baseline_core, "%.31s", ch->corename());
  int threads = req->opts.threads > 0 ? req->opts.threads : prunerHostTargetCores(&req->target);
  setThreads(ch, threads > 0 ? threads : 1);
  char data_why[200] = "";
  if (!prepareData(ch, w, req->opts.seed, data_why, sizeof data_why)) {
    r->status = PRUNER_RECORD_LAUNCH_ERROR;
    snprintf(r->error, sizeof r->error, "%s", data_why);
    return;
  }
  if (!blasColumns(ch, w, data_why, sizeof data_why)) {
    r->status = PRUNER_RECORD_LAUNCH_ERROR;
    snprintf(r->error, sizeof r->error, "%s", data_why);
    return;
  }
  resetOutputs(ch, w);
  runBlasFn(ch, w, NULL);
  char why[200];
  if (!compareOutputs(ch, w, &r->max_abs_error, why, sizeof why)) {
    r->status = PRUNER_RECORD_WRONG_RESULT;
    snprintf(r->error, sizeof r->error, "%s", why);
    return;
  }
  r->status = timeRuns(ch, w, &req->opts, runBlasFn, NULL, r) ? PRUNER_RECORD_OK
                                                              : PRUNER_RECORD_LAUNCH_ERROR;
  if (r->status == PRUNER_RECORD_OK)
    rep->baseline_copy_threads = ch->copy_threads; /* as the timed runs' copies ran */
}

static void childBaseline(HostChild *ch, const HostRequest *req, PrunerHostResult *rep) {
  childBaselineRun(ch, req, rep);
  blasColumnsRelease(ch);
}

/* Quantile q of sorted[0..n) with linear interpolation between ranks. */
static void entryStats(PrunerHostRemeasureEntry *e) {
  double sorted[PRUNER_MAX_SAMPLES];
  int n = e->num_samples;
  prunerTimingSort(e->samples_us, n, sorted);
  e->min_us = sorted[0];
  e->max_us = sorted[n - 1];
  e->median_us = prunerTimingQuantile(sorted, n, 0.5);
  e->p25_us = prunerTimingQuantile(sorted, n, 0.25);
  e->p75_us = prunerTimingQuantile(sorted, n, 0.75);
}

/* True when every live kernel's interquartile range is within
 * PRUNER_HOST_REMEASURE_REL_IQR of its median: more rounds would not move the medians
 * much (pruner-run's rule for GPU samples, docs/measurement.md). */
static bool remeasureSettled(PrunerHostRemeasure *rep, const bool *live, int m) {
  for (int i = 0; i < m; ++i) {
    if (!live[i] || rep->entries[i].num_samples == 0)
      continue;
    entryStats(&rep->entries[i]);
    const PrunerHostRemeasureEntry *e = &rep->entries[i];
    if (e->p75_us - e->p25_us > PRUNER_HOST_REMEASURE_REL_IQR * e->median_us)
      return false;
  }
  return true;
}

/* One run of entry i of a re-measurement: a config's kernel, BLIS, oneDNN or OpenBLAS. */
static bool runEntry(HostChild *ch, const PrunerWorkload *w, HostKernel *k, int i, int n,
                     int blis, int onednn, HostOnednnConv *conv) {
  if (i < n)
    return runOnce(ch, w, &k[i]);
  if (i == blis)
    return runBlisFn(ch, w);
  if (i == onednn)
    return runOnednnFn(ch, conv);
  return runBlasFn(ch, w, NULL);
}

/* Each config JIT-compiled and checked (and OpenBLAS checked), then rounds of one timed
 * run per kernel, rotating the order (docs/measurement.md, "Host: the final check"). */
static void childRemeasure(HostChild *ch, const HostRequest *req, PrunerHostRemeasure *rep) {
  const PrunerWorkload *w = &req->w;
  int threads = req->opts.threads > 0 ? req->opts.threads : prunerHostTargetCores(&req->target);
  setThreads(ch, threads > 0 ? threads : 1);
  int n = req->num_configs;
  int blis = req->blis ? n + (req->baseline ? 1 : 0) : -1; /* BLIS's entry */
  int m = n + (req->baseline ? 1 : 0) + (req->blis ? 1 : 0);
  int onednn = req->onednn ? m++ : -1; /* oneDNN's entry, last */
  rep->num_entries = m;
  rep->has_onednn = req->onednn;
  rep->has_baseline = req->baseline;
  rep->has_blis = req->blis;
  if (req->blis) {
    blisStart(ch);
    snprintf(rep->blis_core, sizeof rep->blis_core, "%s", ch->blis_core);
    if (ch->blis_threads)
      ch->blis_threads(threads > 0 ? threads : 1);
  }
  char data_why[200] = "";
  if (!prepareData(ch, w, req->opts.seed, data_why, sizeof data_why)) {
    for (int i = 0; i < m; ++i) {
      rep->entries[i].status = PRUNER_RECORD_LAUNCH_ERROR;
      snprintf(rep->entries[i].error, sizeof rep->entries[i].error, "%s", data_why);
    }
    return;
  }
  HostKernel k[PRUNER_HOST_REMEASURE_MAX];
  memset(k, 0, sizeof k);
  bool live[PRUNER_HOST_REMEASURE_MAX + 3] = {false};
  char why[200];
  char col_why[200] = "";
  bool col_ok = !(req->baseline || req->blis) || blasColumns(ch, w, col_why, sizeof col_why);
  char conv_why[200] = "";
  HostOnednnConv *conv = NULL;
  if (req->onednn) {
    if (!ch->onednn_tried) {
      ch->onednn_tried = true;
      /* A narrowed target caps oneDNN's ISA, as it picks OpenBLAS' core (prunerHostCreate). */
      bool narrowed = prunerHostTargetFeatures(&req->target)[0] != '\0';
      ch->onednn = hostOnednnOpen(narrowed ? prunerHostTargetSimdLanes(&req->target) : 0,
                                  ch->onednn_error, sizeof ch->onednn_error);
    }
    snprintf(conv_why, sizeof conv_why, "%s", ch->onednn_error);
    if (ch->onednn) {
      hostOnednnSetThreads(ch->onednn, threads);
      conv = hostOnednnConvCreate(ch->onednn, w, ch->data[0], ch->data[1],
                                  ch->data[w->num_inputs], conv_why, sizeof conv_why);
    }
    if (conv)
      snprintf(rep->onednn_impl, sizeof rep->onednn_impl, "%s %.40s",
               hostOnednnVersion(ch->onednn), hostOnednnConvImpl(conv));
  }
  for (int i = 0; i < m; ++i) {
    PrunerHostRemeasureEntry *e = &rep->entries[i];
    resetOutputs(ch, w);
    if (i == onednn) {
      if (!conv) {
        e->status = PRUNER_RECORD_LAUNCH_ERROR;
        snprintf(e->error, sizeof e->error, "%s", conv_why);
        continue;
      }
      if (!runOnednnFn(ch, conv)) {
        e->status = PRUNER_RECORD_LAUNCH_ERROR;
        snprintf(e->error, sizeof e->error, "oneDNN's convolution failed to run");
        continue;
      }
    } else if (i >= n && !col_ok) {
      e->status = PRUNER_RECORD_LAUNCH_ERROR;
      snprintf(e->error, sizeof e->error, "%s", col_why);
      continue;
    } else if (i < n) {
      const PrunerConfig *c = &req->configs[i];
      /* Checked here, once: prunerHostRemeasure sends records' configs unchecked. */
      PrunerStatus st =
          hostJit(ch->ctx, w, c, &req->target, false, hostOptLevel(&req->opts, c), &k[i]);
      if (!st.ok) {
        e->status = PRUNER_RECORD_COMPILE_ERROR;
        snprintf(e->error, sizeof e->error, "%.199s", st.message);
        continue;
      }
      if (!runOnce(ch, w, &k[i])) {
        e->status = PRUNER_RECORD_LAUNCH_ERROR;
        snprintf(e->error, sizeof e->error, "mlirExecutionEngineInvokePacked failed");
        continue;
      }
    } else if (i == blis) {
      if (!ch->blis_sgemm) {
        e->status = PRUNER_RECORD_LAUNCH_ERROR;
        snprintf(e->error, sizeof e->error, "%s", ch->blis_error);
        continue;
      }
      runBlisFn(ch, w);
    } else if (!ch->sgemm) {
      e->status = PRUNER_RECORD_LAUNCH_ERROR;
      snprintf(e->error, sizeof e->error, "libopenblas.so.0 could not be loaded");
      continue;
    } else {
      if (ch->corename)
        snprintf(rep->baseline_core, sizeof rep->baseline_core, "%.31s", ch->corename());
      runBlasFn(ch, w, NULL);
    }
    double err = 0;
    if (req->opts.check && !compareOutputs(ch, w, &err, why, sizeof why)) {
      e->status = PRUNER_RECORD_WRONG_RESULT;
      snprintf(e->error, sizeof e->error, "%s", why);
      continue;
    }
    live[i] = true;
  }
  for (int i = 0; i < m; ++i)
    for (int r = 0; r < (req->opts.warmup > 0 ? req->opts.warmup : 1) && live[i]; ++r)
      live[i] = runEntry(ch, w, k, i, n, blis, onednn, conv);
  /* Rounds until enough of them and enough time; never past half the request's timeout
   * (slow kernels get fewer rounds rather than a killed child). */
  double start = prunerNowSeconds();
  double cap = 0.5 * req->opts.timeout_seconds;
  /* With several threads each entry is timed with its own pool awake and the others'
   * asleep (docs/measurement.md, "Host: thread pools"): a pool spins for a millisecond
   * or so after its run (KMP_BLOCKTIME, OPENBLAS_THREAD_TIMEOUT and GOMP_SPINCOUNT above;
   * libgomp loaded with the tool at its default, about 3 ms), so where the next
   * entry is another library's (the kernels share one) the child sleeps 5 ms first, and
   * each entry runs once untimed before its timed run, waking its pool as the previous
   * call of a program would have. */
  bool pools = ch->threads > 1;
  int prev = -1;
  for (int r = 0; r < PRUNER_MAX_SAMPLES; ++r) {
    for (int j = 0; j < m; ++j) {
      int i = (j + r) % m;
      if (!live[i])
        continue;
      bool ok = true;
      if (pools) {
        if (prev >= 0 && prev != i && (prev >= n || i >= n))
          nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL);
        ok = runEntry(ch, w, k, i, n, blis, onednn, conv);
      }
      prev = i;
      double t0 = prunerNowSeconds();
      ok = ok && runEntry(ch, w, k, i, n, blis, onednn, conv);
      double t1 = prunerNowSeconds();
      if (!ok) {
        live[i] = false;
        rep->entries[i].status = PRUNER_RECORD_LAUNCH_ERROR;
        snprintf(rep->entries[i].error, sizeof rep->entries[i].error, "%s",
                 i == onednn ? "oneDNN's convolution failed while timing"
                             : "mlirExecutionEngineInvokePacked failed while timing");
        continue;
      }
      PrunerHostRemeasureEntry *e = &rep->entries[i];
      e->samples_us[e->num_samples++] = (t1 - t0) * 1e6;
    }
    rep->rounds = r + 1;
    double elapsed = prunerNowSeconds() - start;
    if ((cap > 0 && elapsed >= cap) || elapsed >= PRUNER_HOST_REMEASURE_MAX_SECONDS)
      break;
    if (rep->rounds >= PRUNER_HOST_REMEASURE_MIN_ROUNDS &&
        elapsed >= PRUNER_HOST_REMEASURE_SECONDS && remeasureSettled(rep, live, m))
      break;
  }
  for (int i = 0; i < m; ++i) {
    if (live[i] && rep->entries[i].num_samples > 0) {
      rep->entries[i].status = PRUNER_RECORD_OK;
      entryStats(&rep->entries[i]);
    }
    if (i < n)
      hostKernelDestroy(&k[i]);
  }
  hostOnednnConvDestroy(conv);
  blasColumnsRelease(ch);
}

static bool childHandle(void *context, const void *request, void *reply) {
  HostChild *ch = context;
  const HostRequest *req = request;
  if (req->kind == HOST_REQ_REMEASURE) {
    PrunerHostRemeasure *rem = &((HostReply *)reply)->remeasure;
    char why[200];
    if (!supported(&req->w, why, sizeof why)) {
      memset(rem, 0, sizeof *rem);
      rem->num_entries = req->num_configs;
      for (int i = 0; i < rem->num_entries; ++i) {
        rem->entries[i].status = PRUNER_RECORD_INVALID;
        snprintf(rem->entries[i].error, sizeof rem->entries[i].error, "%s", why);
      }
      return true;
    }
    childStart(ch);
    childRemeasure(ch, req, rem);
    return true;
  }
  PrunerHostResult *rep = &((HostReply *)reply)->result;
  prunerRecordInit(&rep->record);
  char why[200];
  if (!supported(&req->w, why, sizeof why)) {
    rep->record.status = PRUNER_RECORD_INVALID;
    snprintf(rep->record.error, sizeof rep->record.error, "%s", why);
    return true;
  }
  childStart(ch);
  if (req->kind == HOST_REQ_BASELINE)
    childBaseline(ch, req, rep);
  else
    childMeasure(ch, req, rep);
  return true;
}

/* ---- the parent ------------------------------------------------------------------------- */

/* What a measuring child leaves behind when it is killed or leaves by _exit (its exit
 * handlers never run): libomp's registration of the process (a shared-memory object, or
 * a file in /tmp where /dev/shm is missing, named by pid and user; libomp removes it only
 * at a normal exit) and the perf listener's JIT dumps. The folder is emptied after each
 * child, so a long run keeps at most one child's dumps. */
static void removeRegistration(long pid) {
  char name[96];
  snprintf(name, sizeof name, "/__KMP_REGISTERED_LIB_%ld_%d", pid, (int)getuid());
  shm_unlink(name);
  char file[112];
  snprintf(file, sizeof file, "/tmp%s", name);
  unlink(file);
}

static void childReaped(void *context, int pid) {
  HostChild *ch = context;
  removeRegistration(pid);
  char path[PATH_MAX + 32];
  if (ch->jit_dir[0] && (size_t)snprintf(path, sizeof path, "%s/.debug", ch->jit_dir) < sizeof path)
    prunerRemoveTree(path); /* LLVM makes it again: <JITDUMPDIR>/.debug/jit/<run>/ */
  if (ch->jit_dir[0] &&
      (size_t)snprintf(path, sizeof path, "%s/child-%d", ch->jit_dir, pid) < sizeof path)
    unlink(path);
}

static bool processGone(long pid) { return pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH; }

/* A tuner killed outright (SIGKILL, or the second Ctrl-C's _exit) never destroys its
 * host: its folder "pruner-jit-<pid>-*" and its last child's registration stay. Each new
 * host removes those of tuners that are gone, with the registrations of their children
 * (the children's marks, "child-<pid>"), so leftovers do not pile up. */
static void hostCollectStale(const char *tmp) {
  DIR *d = opendir(tmp);
  if (!d)
    return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    long owner = 0;
    if (strncmp(e->d_name, "pruner-jit-", 11) != 0 || sscanf(e->d_name + 11, "%ld-", &owner) != 1 ||
        !processGone(owner))
      continue;
    char dir[PATH_MAX];
    if ((size_t)snprintf(dir, sizeof dir, "%s/%s", tmp, e->d_name) >= sizeof dir)
      continue;
    DIR *marks = opendir(dir);
    struct dirent *m;
    while (marks && (m = readdir(marks)) != NULL) {
      long child = 0;
      if (sscanf(m->d_name, "child-%ld", &child) == 1 && processGone(child))
        removeRegistration(child);
    }
    if (marks)
      closedir(marks);
    prunerRemoveTree(dir);
  }
  closedir(d);
}

PrunerStatus prunerHostCreate(const PrunerHostOptions *opts, PrunerHost *out) {
  *out = NULL;
  struct PrunerHostImpl *h = calloc(1, sizeof *h);
  if (!h)
    return prunerStatusError("host: out of memory");
  h->opts = opts ? *opts : prunerHostDefaultOptions();
  if (h->opts.min_samples < 1)
    h->opts.min_samples = 1;
  if (h->opts.max_samples < h->opts.min_samples)
    h->opts.max_samples = h->opts.min_samples;
  PrunerStatus st = prunerTargetLookup(h->opts.target ? h->opts.target : "host", &h->target);
  if (st.ok && h->target.kind != PRUNER_TARGET_HOST)
    st = prunerStatusError("host: target %s is not the host CPU", h->opts.target);
  if (!st.ok) {
    free(h);
    return st;
  }
  prunerTargetKey(&h->target, h->target_key, sizeof h->target_key);
  /* A fair baseline (docs/host.md, H7): Debian's OpenBLAS 0.3.21 does not know recent CPUs
   * and falls back to an SSE3 kernel; on AVX-512 machines SkylakeX is the right one. A
   * description narrower than the CPU gets OpenBLAS' kernel of that ISA (Haswell: AVX2 +
   * FMA; Nehalem: SSE4.2), so both sides of the comparison run the same ISA. An
   * OPENBLAS_CORETYPE the user set is kept. */
  const char *ct = h->opts.openblas_coretype;
  bool narrowed = prunerHostTargetFeatures(&h->target)[0] != '\0';
  if (!ct)
    ct = getenv("OPENBLAS_CORETYPE")                   ? getenv("OPENBLAS_CORETYPE")
         : prunerHostTargetSimdLanes(&h->target) >= 16 ? "SkylakeX"
         : !narrowed                                   ? ""
         : prunerHostTargetSimdLanes(&h->target) >= 8  ? "Haswell"
                                                       : "Nehalem";
  snprintf(h->child.coretype, sizeof h->child.coretype, "%.31s", ct);
  h->child.memory_limit_mb = h->opts.memory_limit_mb;
  /* The children's JIT dumps go to a folder of this host's, removed with it; a user's
   * JITDUMPDIR is kept (they asked for the dumps). No folder: LLVM's default place. */
  if (!getenv("JITDUMPDIR")) {
    const char *tmp = getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp";
    hostCollectStale(tmp);
    if ((size_t)snprintf(h->child.jit_dir, sizeof h->child.jit_dir, "%s/pruner-jit-%ld-XXXXXX", tmp,
                         (long)getpid()) >= sizeof h->child.jit_dir ||
        !mkdtemp(h->child.jit_dir))
      h->child.jit_dir[0] = '\0';
  }
  PrunerWorkerSpec spec = {.handler = childHandle,
                           .context = &h->child,
                           .request_size = sizeof(HostRequest),
                           .reply_size = sizeof(HostReply),
                           .stop = h->opts.stop,
                           .child_reaped = childReaped};
  st = prunerWorkerCreate(&spec, &h->worker);
  if (!st.ok) {
    if (h->child.jit_dir[0])
      rmdir(h->child.jit_dir);
    free(h);
    return st;
  }
  *out = h;
  return prunerStatusOk();
}

void prunerHostDestroy(PrunerHost host) {
  if (!host)
    return;
  prunerWorkerDestroy(host->worker);
  if (host->child.jit_dir[0])
    prunerRemoveTree(host->child.jit_dir);
  free(host);
}

const PrunerTargetDesc *prunerHostGetTarget(PrunerHost host) { return &host->target; }

void prunerHostFillRecord(PrunerHost host, const PrunerWorkload *w, const PrunerConfig *config,
                          PrunerRecord *r) {
  snprintf(r->workload_key, sizeof r->workload_key, "%s", w->key);
  r->workload = *w;
  r->has_workload = true;
  snprintf(r->target_key, sizeof r->target_key, "%s", host->target_key);
  snprintf(r->device_name, sizeof r->device_name, "%.95s", host->target.device);
  snprintf(r->toolchain_version, sizeof r->toolchain_version, "mlir-22 jit O%d",
           hostOptLevel(&host->opts, config));
  if (config) {
    r->config = *config;
    r->codegen_version = prunerHostCodegenVersionOf(w);
  }
  r->sm_clock_mhz = host->target.boost_clock_mhz;
  PrunerMeasuredMachine m;
  prunerHostTargetMachine(&host->target, &m);
  r->cache_bytes[0] = m.l1d_bytes;
  r->cache_bytes[1] = m.l2_bytes;
  r->cache_bytes[2] = m.l3_bytes;
  r->timestamp = (double)time(NULL);
}

static void call(PrunerHost host, HostRequestKind kind, const PrunerWorkload *w,
                 const PrunerConfig *config, PrunerHostResult *out) {
  HostRequest *req = calloc(1, sizeof *req);
  memset(out, 0, sizeof *out);
  prunerRecordInit(&out->record);
  if (!req) {
    out->record.status = PRUNER_RECORD_LAUNCH_ERROR;
    snprintf(out->record.error, sizeof out->record.error, "host: out of memory");
    return;
  }
  req->kind = kind;
  req->w = *w;
  if (config)
    req->config = *config;
  req->target = host->target;
  req->opts = host->opts;
  req->opts.openblas_coretype = NULL;
  req->opts.stop = NULL; /* the parent's flag: meaningless in the child */
  char why[200] = "";
  HostReply *reply = malloc(sizeof *reply);
  double t0 = prunerNowSeconds(); /* what the tuner waits for this candidate */
  PrunerWorkerOutcome oc = reply ? prunerWorkerCall(host->worker, req, reply,
                                                    host->opts.timeout_seconds, why, sizeof why)
                                 : PRUNER_WORKER_FAILED;
  if (!reply)
    snprintf(why, sizeof why, "out of memory");
  if (oc == PRUNER_WORKER_DONE)
    *out = reply->result;
  free(reply);
  free(req);
  if (oc != PRUNER_WORKER_DONE) {
    prunerRecordInit(&out->record);
    out->record.status = oc == PRUNER_WORKER_TIMEOUT ? PRUNER_RECORD_TIMEOUT
                                                     : PRUNER_RECORD_LAUNCH_ERROR;
    snprintf(out->record.error, sizeof out->record.error, "host worker: %s", why);
    out->interrupted = oc == PRUNER_WORKER_INTERRUPTED;
  }
  out->record.compile_s = out->compile_seconds;
  out->record.measure_s = prunerNowSeconds() - t0;
  if (kind == HOST_REQ_BASELINE) {
    out->record.is_baseline = true;
    snprintf(out->record.baseline_name, sizeof out->record.baseline_name, "openblas");
  }
  prunerHostFillRecord(host, w, config, &out->record);
}

void prunerHostMeasure(PrunerHost host, const PrunerWorkload *w, const PrunerConfig *config,
                       PrunerHostResult *out) {
  if (config) {
    PrunerStatus st = prunerHostConfigCheck(w, &host->target, NULL, config);
    if (!st.ok) {
      memset(out, 0, sizeof *out);
      prunerRecordInit(&out->record);
      out->record.status = PRUNER_RECORD_INVALID;
      snprintf(out->record.error, sizeof out->record.error, "%.255s", st.message);
      prunerHostFillRecord(host, w, config, &out->record);
      return;
    }
  }
  call(host, config ? HOST_REQ_CANDIDATE : HOST_REQ_UNTILED, w, config, out);
}

void prunerHostMeasureBaseline(PrunerHost host, const PrunerWorkload *w, PrunerHostResult *out) {
  if (!prunerHostHasBlasBaseline(w)) {
    memset(out, 0, sizeof *out);
    prunerRecordInit(&out->record);
    out->record.is_baseline = true;
    snprintf(out->record.baseline_name, sizeof out->record.baseline_name, "openblas");
    out->record.status = PRUNER_RECORD_INVALID;
    snprintf(out->record.error, sizeof out->record.error,
             "no OpenBLAS baseline for %.120s (f32 matmuls, batch_matmuls and NHWC or "
             "NCHW 2-D convs with sizes within cblas' int)",
             w->key);
    prunerHostFillRecord(host, w, NULL, &out->record);
    return;
  }
  call(host, HOST_REQ_BASELINE, w, NULL, out);
}

void prunerHostRemeasure(PrunerHost host, const PrunerWorkload *w, const PrunerConfig *configs,
                         int n, bool baseline, PrunerHostRemeasure *out) {
  prunerHostRemeasureBaselines(host, w, configs, n, baseline, false, false, out);
}

bool prunerHostHasOnednnBaseline(const PrunerWorkload *w) {
  return w->kind == PRUNER_OP_CONV_2D_NHWC_HWCF || w->kind == PRUNER_OP_CONV_2D_NCHW_FCHW ||
         w->kind == PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC;
}

void prunerHostRemeasureBaselines(PrunerHost host, const PrunerWorkload *w,
                                  const PrunerConfig *configs, int n, bool baseline, bool blis,
                                  bool onednn, PrunerHostRemeasure *out) {
  memset(out, 0, sizeof *out);
  if (n > PRUNER_HOST_REMEASURE_MAX)
    n = PRUNER_HOST_REMEASURE_MAX;
  baseline = baseline && prunerHostHasBlasBaseline(w);
  blis = blis && prunerHostHasBlasBaseline(w);
  onednn = onednn && prunerHostHasOnednnBaseline(w);
  HostRequest *req = calloc(1, sizeof *req);
  HostReply *reply = malloc(sizeof *reply);
  char why[200] = "";
  PrunerWorkerOutcome oc = PRUNER_WORKER_FAILED;
  if (req && reply) {
    req->kind = HOST_REQ_REMEASURE;
    req->w = *w;
    req->target = host->target;
    req->opts = host->opts;
    req->opts.openblas_coretype = NULL;
    req->num_configs = n;
    req->baseline = baseline;
    req->blis = blis;
    req->onednn = onednn;
    for (int i = 0; i < n; ++i)
      req->configs[i] = configs[i];
    /* JIT + check of every kernel, then rounds capped at half the timeout (child). */
    oc =
        prunerWorkerCall(host->worker, req, reply, 2 * host->opts.timeout_seconds, why, sizeof why);
  } else {
    snprintf(why, sizeof why, "out of memory");
  }
  if (oc == PRUNER_WORKER_DONE) {
    *out = reply->remeasure;
  } else {
    out->num_entries = n + (baseline ? 1 : 0) + (blis ? 1 : 0) + (onednn ? 1 : 0);
    out->has_baseline = baseline;
    out->has_blis = blis;
    out->has_onednn = onednn;
    for (int i = 0; i < out->num_entries; ++i) {
      out->entries[i].status =
          oc == PRUNER_WORKER_TIMEOUT ? PRUNER_RECORD_TIMEOUT : PRUNER_RECORD_LAUNCH_ERROR;
      snprintf(out->entries[i].error, sizeof out->entries[i].error, "host worker: %s", why);
    }
  }
  free(req);
  free(reply);
}

static void appendText(MlirStringRef s, void *user) {
  prunerTextAppendBytes(user, s.data, s.length);
}

PrunerStatus prunerHostLowerText(const PrunerWorkload *w, const PrunerConfig *config,
                                 const PrunerTargetDesc *t, int stage, char **text) {
  *text = NULL;
  MlirContext ctx = hostContextCreate();
  MlirModule m;
  HostStage s = stage <= 0 ? HOST_STAGE_BUFFERIZED
                : stage == 1 ? HOST_STAGE_SCHEDULED
                             : HOST_STAGE_LLVM;
  PrunerStatus st = hostLowerModule(ctx, w, config, t, false, s, &m, NULL);
  if (st.ok) {
    PrunerText b = {0};
    mlirOperationPrint(mlirModuleGetOperation(m), appendText, &b);
    mlirModuleDestroy(m);
    if (b.failed || !b.data) {
      free(b.data);
      st = prunerStatusError("host: out of memory printing the module of %s", w->key);
    } else {
      *text = b.data;
    }
  }
  mlirContextDestroy(ctx);
  return st;
}

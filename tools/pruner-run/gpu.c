/* pruner-run's worker: everything that touches CUDA, run inside the child process.
 *
 * CUDA is reached through the runtime API only (libcudart + cuBLAS load the driver
 * lazily), so the binary starts on machines without a driver and says so. Cubins are
 * loaded with cudaLibraryLoadData and launched with cudaLaunchKernel; NVML is optional
 * (dlopen) and only reports the SM clock and the driver version. The measurement protocol
 * is documented in docs/measurement.md. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"
#include "runner.h"
#include "pruner/measure.h"
#include "pruner/random.h"
#include "pruner/timing.h"

/* ---------------------------------------------------------------------------------- */
/* Worker state: lives in the child (the parent's copy is never initialized).          */

typedef struct GemmPlan {
  bool ok;
  cublasOperation_t trans_p, trans_q;
  int m, n, k;
  int p_operand, q_operand; /* operand indices feeding cuBLAS's A and B */
  int ld_p, ld_q, ld_c;
  long long stride_p, stride_q, stride_c;
  int batch;
  cudaDataType_t in_type, out_type;
} GemmPlan;

typedef struct Nvml {
  void *lib;
  int (*get_clock)(void *device, int type, unsigned *mhz);
  void *device;
} Nvml;

typedef struct GpuState {
  bool ready;
  cudaStream_t stream;
  cudaEvent_t start, stop;
  cublasHandle_t cublas;
  void *flush;          /* L2-sized buffer overwritten before every sample */
  size_t flush_bytes;
  Nvml nvml;
  int workload;         /* prepared workload, -1 none */
  void *buf[PRUNER_MAX_OPERANDS];
  size_t bytes[PRUNER_MAX_OPERANDS];
  int64_t elems[PRUNER_MAX_OPERANDS];
  void *init[PRUNER_MAX_OPERANDS];      /* host: initial output values (ZERO/RANDOM) */
  void *init_zero[PRUNER_MAX_OPERANDS]; /* host: zeros                               */
  double *ref[PRUNER_MAX_OPERANDS];     /* host: reference output values             */
  double *host_out;                     /* host: scratch for a candidate's output     */
  GemmPlan gemm;
  int64_t reduction_points;
} GpuState;

typedef struct GpuContext {
  PrunerBundle bundle;
  GpuState state;
} GpuContext;

/* ---------------------------------------------------------------------------------- */
/* Small helpers                                                                       */

static void setError(RunReply *rep, const char *what, cudaError_t err) {
  snprintf(rep->error, sizeof(rep->error), "%s: %s (%s)", what, cudaGetErrorString(err),
           cudaGetErrorName(err));
}


static uint64_t hashString(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* IEEE half / bfloat16 from float, round to nearest even (inputs are small multiples of
 * 1/16, so every value is exact in every dtype and the rounding never triggers). */
static uint16_t floatToHalf(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  int exp = (int)((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (((x >> 23) & 0xff) == 0xff)
    return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0));
  if (exp >= 31)
    return (uint16_t)(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10)
      return (uint16_t)sign;
    mant |= 0x800000u;
    int shift = 14 - exp;
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1)))
      half++;
    return (uint16_t)(sign | half);
  }
  uint32_t half = sign | ((uint32_t)exp << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1)))
    half++;
  return (uint16_t)half;
}

static double halfBitsAsDouble(uint16_t h) {
  int exp = (h >> 10) & 0x1f;
  int mant = h & 0x3ff;
  double v;
  if (exp == 0)
    v = ldexp((double)mant, -24);
  else if (exp == 31)
    v = mant ? NAN : INFINITY;
  else
    v = ldexp((double)(mant | 0x400), exp - 25);
  return (h & 0x8000) ? -v : v;
}

static uint16_t floatToBf16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return (uint16_t)((x >> 16) | 0x40);
  x += 0x7fffu + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}

static double bf16BitsAsDouble(uint16_t b) {
  uint32_t x = (uint32_t)b << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static void storeValue(PrunerDType t, void *base, int64_t i, double v) {
  switch (t) {
  case PRUNER_DTYPE_F32: ((float *)base)[i] = (float)v; break;
  case PRUNER_DTYPE_F16: ((uint16_t *)base)[i] = floatToHalf((float)v); break;
  case PRUNER_DTYPE_BF16: ((uint16_t *)base)[i] = floatToBf16((float)v); break;
  case PRUNER_DTYPE_F64: ((double *)base)[i] = v; break;
  case PRUNER_DTYPE_I8: ((int8_t *)base)[i] = (int8_t)v; break;
  case PRUNER_DTYPE_I32: ((int32_t *)base)[i] = (int32_t)v; break;
  default: break;
  }
}

static double loadValue(PrunerDType t, const void *base, int64_t i) {
  switch (t) {
  case PRUNER_DTYPE_F32: return ((const float *)base)[i];
  case PRUNER_DTYPE_F16: return halfBitsAsDouble(((const uint16_t *)base)[i]);
  case PRUNER_DTYPE_BF16: return bf16BitsAsDouble(((const uint16_t *)base)[i]);
  case PRUNER_DTYPE_F64: return ((const double *)base)[i];
  case PRUNER_DTYPE_I8: return ((const int8_t *)base)[i];
  case PRUNER_DTYPE_I32: return ((const int32_t *)base)[i];
  default: return NAN;
  }
}

static bool isFloat(PrunerDType t) {
  return t == PRUNER_DTYPE_F32 || t == PRUNER_DTYPE_F16 || t == PRUNER_DTYPE_BF16 ||
         t == PRUNER_DTYPE_F64;
}

/* Unit roundoff of a dtype (IEEE 754 binary32/16/64, bfloat16: 8-bit significand). */
static double dtypeEps(PrunerDType t) {
  switch (t) {
  case PRUNER_DTYPE_F32: return 0x1p-24;
  case PRUNER_DTYPE_F16: return 0x1p-11;
  case PRUNER_DTYPE_BF16: return 0x1p-8;
  case PRUNER_DTYPE_F64: return 0x1p-53;
  default: return 0;
  }
}

/* Random values as lib/backend/host draws them (prunerRandomTestValue: exact sums). */
static void fillRandom(PrunerDType t, void *host, int64_t n, uint64_t seed) {
  uint64_t s = seed;
  for (int64_t i = 0; i < n; i++)
    storeValue(t, host, i, prunerRandomTestValue(&s, isFloat(t)));
}

/* ---------------------------------------------------------------------------------- */
/* Device probe                                                                        */

static void nvmlOpen(Nvml *n) {
  memset(n, 0, sizeof(*n));
  n->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!n->lib)
    return;
  int (*init)(void) = (int (*)(void))dlsym(n->lib, "nvmlInit_v2");
  int (*by_bus)(const char *, void **) =
      (int (*)(const char *, void **))dlsym(n->lib, "nvmlDeviceGetHandleByPciBusId_v2");
  n->get_clock = (int (*)(void *, int, unsigned *))dlsym(n->lib, "nvmlDeviceGetClockInfo");
  char bus[64];
  if (!init || !by_bus || !n->get_clock || init() != 0 ||
      cudaDeviceGetPCIBusId(bus, sizeof(bus), 0) != cudaSuccess || by_bus(bus, &n->device) != 0) {
    dlclose(n->lib);
    memset(n, 0, sizeof(*n));
  }
}

static void nvmlDriverVersion(Nvml *n, char *buf, size_t size) {
  if (!n->lib)
    return;
  int (*ver)(char *, unsigned) = (int (*)(char *, unsigned))dlsym(n->lib,
                                                                   "nvmlSystemGetDriverVersion");
  char v[80];
  if (ver && ver(v, sizeof(v)) == 0)
    snprintf(buf, size, "%.31s", v);
}

/* Current SM clock in MHz (NVML_CLOCK_SM = 1), 0 if NVML is absent. */
static double smClock(GpuState *g) {
  unsigned mhz = 0;
  if (g->nvml.lib && g->nvml.get_clock(g->nvml.device, 1, &mhz) == 0)
    return mhz;
  return 0;
}

static int attr(enum cudaDeviceAttr a) {
  int v = 0;
  cudaDeviceGetAttribute(&v, a, 0);
  return v;
}

static bool initState(GpuState *g, RunReply *rep) {
  if (g->ready)
    return true;
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    rep->no_device = true;
    snprintf(rep->error, sizeof(rep->error), "%s", cudaGetErrorString(err));
    return false;
  }
  if (count == 0) {
    rep->no_device = true;
    snprintf(rep->error, sizeof(rep->error), "the CUDA runtime found no devices");
    return false;
  }
  if ((err = cudaSetDevice(0)) != cudaSuccess ||
      (err = cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking)) != cudaSuccess ||
      (err = cudaEventCreate(&g->start)) != cudaSuccess ||
      (err = cudaEventCreate(&g->stop)) != cudaSuccess) {
    setError(rep, "initializing device 0", err);
    return false;
  }
  g->flush_bytes = (size_t)attr(cudaDevAttrL2CacheSize);
  if (g->flush_bytes == 0)
    g->flush_bytes = 64u << 20;
  if ((err = cudaMalloc(&g->flush, g->flush_bytes)) != cudaSuccess) {
    setError(rep, "allocating the L2 flush buffer", err);
    return false;
  }
  if (cublasCreate(&g->cublas) != CUBLAS_STATUS_SUCCESS ||
      cublasSetStream(g->cublas, g->stream) != CUBLAS_STATUS_SUCCESS) {
    snprintf(rep->error, sizeof(rep->error), "cublasCreate failed");
    return false;
  }
  nvmlOpen(&g->nvml);
  g->workload = -1;
  g->ready = true;
  return true;
}

static void hello(GpuState *g, RunReply *rep) {
  if (!initState(g, rep))
    return;
  RunDeviceInfo *d = &rep->device;
  struct cudaDeviceProp prop;
  cudaError_t err = cudaGetDeviceProperties(&prop, 0);
  if (err != cudaSuccess) {
    setError(rep, "cudaGetDeviceProperties", err);
    return;
  }
  snprintf(d->name, sizeof(d->name), "%.95s", prop.name);
  d->cc_major = prop.major;
  d->cc_minor = prop.minor;
  d->sm_count = prop.multiProcessorCount;
  d->clock_mhz = attr(cudaDevAttrClockRate) / 1000.0; /* kHz */
  d->l2_bytes = prop.l2CacheSize;
  d->dram_bytes = (int64_t)prop.totalGlobalMem;
  d->smem_per_block = (int)prop.sharedMemPerBlockOptin;
  d->smem_per_block_static = (int)prop.sharedMemPerBlock;
  d->smem_per_sm = (int)prop.sharedMemPerMultiprocessor;
  d->regs_per_sm = prop.regsPerMultiprocessor;
  d->regs_per_block = prop.regsPerBlock;
  d->max_threads_per_block = prop.maxThreadsPerBlock;
  d->max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  d->max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  snprintf(d->driver_version, sizeof(d->driver_version), "cuda %d.%d", drv / 1000,
           (drv % 1000) / 10);
  nvmlDriverVersion(&g->nvml, d->driver_version, sizeof(d->driver_version));
  snprintf(d->runtime_version, sizeof(d->runtime_version), "cudart %d.%d", rt / 1000,
           (rt % 1000) / 10);
  rep->ok = true;
}

/* ---------------------------------------------------------------------------------- */
/* GEMM plan: when a workload is C[b?][..] += A * B with projected-permutation maps     */

/* Loop driving dim d of operand o (coefficient 1 on exactly one loop), or -1. */
static int dimLoop(const PrunerWorkload *w, int o, int d) {
  int loop = -1;
  for (int l = 0; l < w->num_loops; l++) {
    int64_t c = w->operands[o].index_coeff[d][l];
    if (c == 0)
      continue;
    if (c != 1 || loop >= 0)
      return -2;
    loop = l;
  }
  return loop;
}

static bool usesLoop(const PrunerWorkload *w, int o, int l) {
  for (int d = 0; d < w->operands[o].rank; d++)
    if (w->operands[o].index_coeff[d][l] != 0)
      return true;
  return false;
}

/* Value v is operand `o` or a cast of it. */
static bool isOperandValue(const PrunerWorkload *w, int v, int *o) {
  int operands = w->num_inputs + w->num_outputs;
  while (v >= operands && v - operands < w->body_len &&
         w->body[v - operands].opcode == PRUNER_BODY_CAST)
    v = w->body[v - operands].args[0];
  if (v < 0 || v >= operands)
    return false;
  *o = v;
  return true;
}

static bool isMulAdd(const PrunerWorkload *w) {
  if (w->num_inputs != 2 || w->num_outputs != 1)
    return false;
  int operands = 3;
  int y = w->body_yield[0] - operands;
  if (y < 0 || y >= w->body_len || w->body[y].opcode != PRUNER_BODY_ADD)
    return false;
  int a = w->body[y].args[0], b = w->body[y].args[1];
  if (a == 2) {
    a = b;
    b = 2;
  }
  if (b != 2 || a < operands || w->body[a - operands].opcode != PRUNER_BODY_MUL)
    return false;
  int x, z;
  const PrunerBodyOp *mul = &w->body[a - operands];
  return isOperandValue(w, mul->args[0], &x) && isOperandValue(w, mul->args[1], &z) &&
         ((x == 0 && z == 1) || (x == 1 && z == 0));
}

static bool cudaTypeOf(PrunerDType t, cudaDataType_t *out) {
  switch (t) {
  case PRUNER_DTYPE_F32: *out = CUDA_R_32F; return true;
  case PRUNER_DTYPE_F16: *out = CUDA_R_16F; return true;
  case PRUNER_DTYPE_BF16: *out = CUDA_R_16BF; return true;
  default: return false;
  }
}

static GemmPlan planGemm(const PrunerWorkload *w) {
  GemmPlan p;
  memset(&p, 0, sizeof(p));
  if (!isMulAdd(w))
    return p;
  const PrunerOperand *A = &w->operands[0], *B = &w->operands[1], *C = &w->operands[2];
  if (A->dtype != B->dtype || !cudaTypeOf(A->dtype, &p.in_type) ||
      !cudaTypeOf(C->dtype, &p.out_type))
    return p;
  int M = -1, N = -1, K = -1, batch = -1;
  for (int l = 0; l < w->num_loops; l++) {
    bool a = usesLoop(w, 0, l), b = usesLoop(w, 1, l), c = usesLoop(w, 2, l);
    int *slot = (a && b && c) ? &batch : (a && c && !b) ? &M : (b && c && !a) ? &N
                                                          : (a && b && !c) ? &K : NULL;
    if (!slot || *slot >= 0)
      return p;
    *slot = l;
  }
  if (M < 0 || N < 0 || K < 0 || w->loop_kinds[K] != PRUNER_LOOP_REDUCTION)
    return p;
  /* cuBLAS takes int sizes: larger GEMMs get no baseline rather than a truncated one. */
  for (int l = 0; l < w->num_loops; l++)
    if (w->bounds[l] > INT32_MAX)
      return p;
  int lead = batch >= 0 ? 1 : 0;
  for (int o = 0; o < 3; o++) {
    const PrunerOperand *op = &w->operands[o];
    if (op->rank != 2 + lead)
      return p;
    for (int d = 0; d < op->rank; d++)
      if (dimLoop(w, o, d) < 0)
        return p;
    if (lead && dimLoop(w, o, 0) != batch)
      return p;
  }
  int Y = dimLoop(w, 2, lead), X = dimLoop(w, 2, lead + 1);
  int p_op = X == M ? 0 : 1, q_op = 1 - p_op;
  const PrunerOperand *P = &w->operands[p_op], *Q = &w->operands[q_op];
  p.m = (int)w->bounds[X];
  p.n = (int)w->bounds[Y];
  p.k = (int)w->bounds[K];
  p.p_operand = p_op;
  p.q_operand = q_op;
  /* P holds (X, K), Q holds (K, Y); see docs/measurement.md for the derivation. */
  if (dimLoop(w, p_op, lead + 1) == X) {
    p.trans_p = CUBLAS_OP_N;
    p.ld_p = p.m;
  } else {
    p.trans_p = CUBLAS_OP_T;
    p.ld_p = p.k;
  }
  if (dimLoop(w, q_op, lead + 1) == K) {
    p.trans_q = CUBLAS_OP_N;
    p.ld_q = p.k;
  } else {
    p.trans_q = CUBLAS_OP_T;
    p.ld_q = p.n;
  }
  p.ld_c = p.m;
  p.batch = batch >= 0 ? (int)w->bounds[batch] : 1;
  p.stride_p = (long long)P->shape[lead] * P->shape[lead + 1];
  p.stride_q = (long long)Q->shape[lead] * Q->shape[lead + 1];
  p.stride_c = (long long)C->shape[lead] * C->shape[lead + 1];
  p.ok = true;
  return p;
}

static cublasStatus_t runGemm(GpuState *g, void *c, bool accumulate) {
  const GemmPlan *p = &g->gemm;
  float one = 1.0f, beta = accumulate ? 1.0f : 0.0f;
  if (p->in_type == CUDA_R_32F && p->out_type == CUDA_R_32F)
    return cublasSgemmStridedBatched(g->cublas, p->trans_p, p->trans_q, p->m, p->n, p->k, &one,
                                     g->buf[p->p_operand], p->ld_p, p->stride_p,
                                     g->buf[p->q_operand], p->ld_q, p->stride_q, &beta, c,
                                     p->ld_c, p->stride_c, p->batch);
  return cublasGemmStridedBatchedEx(g->cublas, p->trans_p, p->trans_q, p->m, p->n, p->k, &one,
                                    g->buf[p->p_operand], p->in_type, p->ld_p, p->stride_p,
                                    g->buf[p->q_operand], p->in_type, p->ld_q, p->stride_q,
                                    &beta, c, p->out_type, p->ld_c, p->stride_c, p->batch,
                                    CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

/* ---------------------------------------------------------------------------------- */
/* Prepare: buffers, inputs, reference                                                 */

static void releaseWorkload(GpuState *g) {
  for (int i = 0; i < PRUNER_MAX_OPERANDS; i++) {
    cudaFree(g->buf[i]);
    free(g->init[i]);
    free(g->init_zero[i]);
    free(g->ref[i]);
  }
  free(g->host_out);
  memset(g->buf, 0, sizeof(g->buf));
  memset(g->init, 0, sizeof(g->init));
  memset(g->init_zero, 0, sizeof(g->init_zero));
  memset(g->ref, 0, sizeof(g->ref));
  g->host_out = NULL;
  g->workload = -1;
}

static void describeReference(const PrunerWorkload *w, RefDesc *d) {
  memset(d, 0, sizeof(*d));
  d->num_loops = w->num_loops;
  d->num_inputs = w->num_inputs;
  d->num_outputs = w->num_outputs;
  d->parallel_points = 1;
  d->reduction_points = 1;
  for (int l = 0; l < w->num_loops; l++) {
    d->bounds[l] = w->bounds[l];
    d->is_reduction[l] = w->loop_kinds[l] == PRUNER_LOOP_REDUCTION;
    if (d->is_reduction[l])
      d->reduction_points *= w->bounds[l];
    else
      d->parallel_points *= w->bounds[l];
  }
  for (int o = 0; o < w->num_inputs + w->num_outputs; o++) {
    const PrunerOperand *op = &w->operands[o];
    d->dtype[o] = op->dtype;
    int64_t stride = 1;
    for (int dim = op->rank - 1; dim >= 0; dim--) {
      for (int l = 0; l < w->num_loops; l++)
        d->loop_stride[o][l] += op->index_coeff[dim][l] * stride;
      stride *= op->shape[dim];
    }
  }
  d->body_len = w->body_len;
  for (int i = 0; i < w->body_len; i++) {
    d->body[i].opcode = w->body[i].opcode;
    d->body[i].args[0] = w->body[i].args[0];
    d->body[i].args[1] = w->body[i].args[1];
    d->body[i].dtype = w->body[i].dtype;
    d->body[i].constant = w->body[i].constant;
  }
  for (int o = 0; o < w->num_outputs; o++)
    d->yield[o] = w->body_yield[o];
}

/* Initial output values per output_init kind: ZERO/POISON start from zeros (the fill),
 * RANDOM from seeded values. */
static void *initFor(GpuState *g, int operand, PrunerOutputInit init) {
  return init == PRUNER_OUTPUT_RANDOM ? g->init[operand] : g->init_zero[operand];
}

static bool computeReference(GpuState *g, const PrunerWorkload *w, PrunerOutputInit init,
                             RunReply *rep) {
  cudaError_t err;
  int out0 = w->num_inputs;
  if (g->gemm.ok && g->gemm.out_type == CUDA_R_32F && init != PRUNER_OUTPUT_RANDOM) {
    /* cuBLAS as the reference for GEMM-shaped f32-output contractions, in pedantic math
     * mode (no TF32, no reduced-precision shortcuts). */
    cublasSetMathMode(g->cublas, CUBLAS_PEDANTIC_MATH);
    cublasStatus_t cs = runGemm(g, g->buf[out0], false);
    cublasSetMathMode(g->cublas, CUBLAS_DEFAULT_MATH);
    if (cs != CUBLAS_STATUS_SUCCESS) {
      snprintf(rep->error, sizeof(rep->error), "cuBLAS reference failed: status %d", (int)cs);
      return false;
    }
    float *tmp = malloc(g->bytes[out0]);
    if (!tmp ||
        (err = cudaMemcpyAsync(tmp, g->buf[out0], g->bytes[out0], cudaMemcpyDeviceToHost,
                               g->stream)) != cudaSuccess ||
        (err = cudaStreamSynchronize(g->stream)) != cudaSuccess) {
      free(tmp);
      snprintf(rep->error, sizeof(rep->error), "reading the cuBLAS reference failed");
      return false;
    }
    for (int64_t i = 0; i < g->elems[out0]; i++)
      g->ref[out0][i] = tmp[i];
    free(tmp);
    return true;
  }
  RefDesc d;
  describeReference(w, &d);
  const void *ins[PRUNER_MAX_OPERANDS] = {0};
  double *outs[PRUNER_MAX_OPERANDS] = {0};
  for (int i = 0; i < w->num_inputs; i++)
    ins[i] = g->buf[i];
  bool ok = true;
  for (int o = 0; o < w->num_outputs && ok; o++) {
    int op = w->num_inputs + o;
    size_t bytes = (size_t)g->elems[op] * sizeof(double);
    const void *start = initFor(g, op, init);
    for (int64_t i = 0; i < g->elems[op]; i++)
      g->ref[op][i] = loadValue(w->operands[op].dtype, start, i);
    ok = cudaMalloc((void **)&outs[o], bytes) == cudaSuccess &&
         cudaMemcpy(outs[o], g->ref[op], bytes, cudaMemcpyHostToDevice) == cudaSuccess;
  }
  if (ok) {
    err = (cudaError_t)refLaunch(&d, ins, outs, g->stream);
    if (err == cudaSuccess)
      err = cudaStreamSynchronize(g->stream);
    if (err != cudaSuccess) {
      setError(rep, "reference kernel", err);
      ok = false;
    }
  } else {
    snprintf(rep->error, sizeof(rep->error), "allocating the float64 reference failed");
  }
  for (int o = 0; o < w->num_outputs; o++) {
    int op = w->num_inputs + o;
    if (ok && cudaMemcpy(g->ref[op], outs[o], (size_t)g->elems[op] * sizeof(double),
                         cudaMemcpyDeviceToHost) != cudaSuccess) {
      snprintf(rep->error, sizeof(rep->error), "reading the reference failed");
      ok = false;
    }
    cudaFree(outs[o]);
  }
  return ok;
}

static void prepare(GpuContext *ctx, const RunRequest *req, RunReply *rep) {
  GpuState *g = &ctx->state;
  if (!initState(g, rep))
    return;
  releaseWorkload(g);
  const PrunerWorkload *w = prunerBundleGetWorkload(ctx->bundle, (size_t)req->workload);
  if (!w) {
    snprintf(rep->error, sizeof(rep->error), "no workload %d in the bundle", req->workload);
    return;
  }
  int operands = w->num_inputs + w->num_outputs;
  uint64_t base = req->seed ^ hashString(w->key);
  int64_t max_elems = 0;
  for (int o = 0; o < operands; o++) {
    const PrunerOperand *op = &w->operands[o];
    int64_t n = 1, bytes = 0;
    bool overflow = false;
    for (int d = 0; d < op->rank; d++)
      overflow |= __builtin_mul_overflow(n, op->shape[d], &n);
    /* A manifest may hold any verified shape; a size that wraps would allocate a wrong,
     * small buffer. The reference also keeps n doubles per output. */
    overflow |= __builtin_mul_overflow(n, (int64_t)sizeof(double), &bytes);
    if (overflow) {
      snprintf(rep->error, sizeof(rep->error),
               "workload %s: operand %d has more elements than 64-bit sizes can address", w->key,
               o);
      return;
    }
    g->elems[o] = n;
    g->bytes[o] = (size_t)n * (size_t)prunerDTypeBytes(op->dtype);
    if (n > max_elems)
      max_elems = n;
    cudaError_t err = cudaMalloc(&g->buf[o], g->bytes[o]);
    if (err != cudaSuccess) {
      setError(rep, "allocating an operand", err);
      return;
    }
    uint64_t seed = base + 0x1000u * (uint64_t)(o + 1);
    if (o < w->num_inputs) {
      void *host = malloc(g->bytes[o]);
      if (!host) {
        snprintf(rep->error, sizeof(rep->error), "out of host memory");
        return;
      }
      fillRandom(op->dtype, host, n, seed);
      err = cudaMemcpy(g->buf[o], host, g->bytes[o], cudaMemcpyHostToDevice);
      free(host);
      if (err != cudaSuccess) {
        setError(rep, "uploading an input", err);
        return;
      }
    } else {
      g->init[o] = malloc(g->bytes[o]);
      g->init_zero[o] = calloc(1, g->bytes[o]);
      g->ref[o] = malloc((size_t)n * sizeof(double));
      if (!g->init[o] || !g->init_zero[o] || !g->ref[o]) {
        snprintf(rep->error, sizeof(rep->error), "out of host memory");
        return;
      }
      fillRandom(op->dtype, g->init[o], n, seed);
    }
  }
  g->host_out = malloc((size_t)max_elems * 8);
  if (!g->host_out) {
    snprintf(rep->error, sizeof(rep->error), "out of host memory");
    return;
  }
  g->gemm = planGemm(w);
  g->reduction_points = 1;
  for (int l = 0; l < w->num_loops; l++)
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION)
      g->reduction_points *= w->bounds[l];
  if (!computeReference(g, w, prunerOutputInitDefault(w), rep))
    return;
  g->workload = req->workload;
  rep->has_baseline = g->gemm.ok;
  rep->ok = true;
}

/* ---------------------------------------------------------------------------------- */
/* Checking and timing                                                                 */

/* Writes the poison (all bits set: NaN for floats, -1 for integers), then the initial
 * values the kind asks for, into every output. */
static cudaError_t resetOutputs(GpuState *g, const PrunerWorkload *w, PrunerOutputInit init) {
  for (int o = w->num_inputs; o < w->num_inputs + w->num_outputs; o++) {
    cudaError_t err = cudaMemsetAsync(g->buf[o], 0xff, g->bytes[o], g->stream);
    if (err == cudaSuccess && init != PRUNER_OUTPUT_POISON)
      err = cudaMemcpyAsync(g->buf[o], initFor(g, o, init), g->bytes[o], cudaMemcpyHostToDevice,
                            g->stream);
    if (err != cudaSuccess)
      return err;
  }
  return cudaSuccess;
}

/* Compares every output with the reference: |got - want| <= tol, with
 * tol = eps(out) * (16 |want| + 4 sqrt(R) mean|want| + 16) for floats (R: reduction
 * length) and 0 for integers (docs/measurement.md). */
static bool checkOutputs(GpuState *g, const PrunerWorkload *w, RunReply *rep) {
  rep->max_abs_error = 0;
  for (int o = w->num_inputs; o < w->num_inputs + w->num_outputs; o++) {
    PrunerDType t = w->operands[o].dtype;
    cudaError_t err = cudaMemcpyAsync(g->host_out, g->buf[o], g->bytes[o],
                                      cudaMemcpyDeviceToHost, g->stream);
    if (err == cudaSuccess)
      err = cudaStreamSynchronize(g->stream);
    if (err != cudaSuccess) {
      setError(rep, "reading the output", err);
      rep->status = PRUNER_RECORD_LAUNCH_ERROR;
      return false;
    }
    /* The mean magnitude over finite values: a NaN or inf of the reference (log of a
     * negative input) would make every tolerance NaN. */
    double mean = 0;
    int64_t finite = 0;
    for (int64_t i = 0; i < g->elems[o]; i++)
      if (isfinite(g->ref[o][i])) {
        mean += fabs(g->ref[o][i]);
        finite++;
      }
    mean /= (double)(finite ? finite : 1);
    double eps = dtypeEps(t);
    double base_tol = eps * (4.0 * sqrt((double)g->reduction_points) * mean + 16.0);
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < g->elems[o]; i++) {
      double got = loadValue(t, g->host_out, i), want = g->ref[o][i];
      /* A NaN or an infinity agrees only with the same (prunerMeasureAgrees, the host
       * check's rule); a finite result against an infinite reference fails. */
      double e;
      if (!prunerMeasureAgrees(got, want, base_tol + 16.0 * eps * fabs(want), &e)) {
        if (first < 0)
          first = i;
        bad++;
      }
      if (!(e <= rep->max_abs_error))
        rep->max_abs_error = isnan(e) ? INFINITY : e;
    }
    if (bad) {
      rep->status = PRUNER_RECORD_WRONG_RESULT;
      snprintf(rep->error, sizeof(rep->error),
               "output %d: %lld of %lld elements beyond tolerance; first at %lld: got %g, "
               "want %g",
               o - w->num_inputs, (long long)bad, (long long)g->elems[o], (long long)first,
               loadValue(t, g->host_out, first), g->ref[o][first]);
      return false;
    }
  }
  return true;
}

typedef cudaError_t (*LaunchFn)(GpuState *g, void *arg);

/* One sample: overwrite L2, then time one launch between two events. */
static cudaError_t sampleOnce(GpuState *g, LaunchFn launch, void *arg, int i, double *us) {
  cudaError_t err = cudaMemsetAsync(g->flush, i & 0xff, g->flush_bytes, g->stream);
  if (err == cudaSuccess)
    err = cudaEventRecord(g->start, g->stream);
  if (err == cudaSuccess)
    err = launch(g, arg);
  if (err == cudaSuccess)
    err = cudaEventRecord(g->stop, g->stream);
  if (err == cudaSuccess)
    err = cudaEventSynchronize(g->stop);
  float ms = 0;
  if (err == cudaSuccess)
    err = cudaEventElapsedTime(&ms, g->start, g->stop);
  *us = 1000.0 * ms;
  return err;
}

/* One run of the timing protocol (pruner/timing.h): a warm-up launch waited for, or a
 * sample (L2 flushed, CUDA events around the launch) with the SM clock it ran at. */
typedef struct GpuTimed {
  GpuState *g;
  LaunchFn launch;
  void *arg;
  cudaError_t err;
} GpuTimed;

static bool gpuTimedRun(void *user, int index, double *sample_us, double *clock_mhz) {
  GpuTimed *t = user;
  if (!sample_us) {
    /* Each warm-up launch is waited for, since launches are asynchronous: without the
     * wait the wall-clock floor passes at once and up to 1,000 launches are queued, so a
     * 2 ms kernel would spend 2 s here. */
    t->err = t->launch(t->g, t->arg);
    if (t->err == cudaSuccess)
      t->err = cudaStreamSynchronize(t->g->stream);
    return t->err == cudaSuccess;
  }
  t->err = sampleOnce(t->g, t->launch, t->arg, index, sample_us);
  if (t->err != cudaSuccess)
    return false;
  *clock_mhz = smClock(t->g);
  return true;
}

/* The timing protocol with pruner-run's options (docs/measurement.md): warm-up of at
 * least 3 launches and 20 ms of GPU work (at most 1,000), then samples: at least
 * `min_samples`, more while the relative IQR exceeds 2%, up to PRUNER_MAX_SAMPLES or the
 * time budget. */
static cudaError_t timeKernel(GpuState *g, LaunchFn launch, void *arg, int min_samples,
                              double budget, RunReply *rep) {
  PrunerTimingOptions o = {.warmup_runs = 3,
                           .warmup_seconds = 0.02,
                           .max_warmup_runs = 1000,
                           .min_samples = min_samples,
                           .max_samples = PRUNER_MAX_SAMPLES,
                           .stop_relative_iqr = 0.02,
                           .budget_seconds = budget};
  GpuTimed t = {g, launch, arg, cudaSuccess};
  PrunerTiming timing;
  prunerTimingRun(&o, gpuTimedRun, &t, &timing);
  rep->num_samples = timing.num_samples;
  memcpy(rep->samples_us, timing.samples_us, sizeof(double) * (size_t)timing.num_samples);
  if (timing.num_samples > 0) {
    rep->median_us = timing.median_us;
    rep->spread_us = timing.spread_us;
  }
  rep->sm_clock_mhz = timing.clock_mhz;
  return t.err;
}

/* One kernel of a candidate, ready to launch. */
typedef struct KernelCall {
  cudaKernel_t kernel;
  dim3 grid, block;
  size_t smem;
  void *params[PRUNER_MAX_KERNEL_ARGS];
  union {
    void *ptr;
    int64_t index;
  } values[PRUNER_MAX_KERNEL_ARGS];
} KernelCall;

/* A candidate: its main kernel, the kernels after it (split-K's combine), in order on
 * the stream, and the device workspaces they share; timed together. */
typedef struct KernelLaunch {
  int num_calls;
  KernelCall calls[PRUNER_MAX_LAUNCHES];
  int num_workspaces;
  void *workspaces[PRUNER_MAX_WORKSPACES];
} KernelLaunch;

static cudaError_t launchCandidate(GpuState *g, void *arg) {
  KernelLaunch *k = arg;
  cudaError_t err = cudaSuccess;
  for (int i = 0; i < k->num_calls && err == cudaSuccess; ++i) {
    KernelCall *c = &k->calls[i];
    err = cudaLaunchKernel((const void *)c->kernel, c->grid, c->block, c->params, c->smem,
                           g->stream);
  }
  return err;
}

/* cuBLAS in its default math mode (FP32 stays FP32: no TF32 unless the user's
 * environment asks for it); the output is operand 2 of a GEMM-shaped workload. */
static cudaError_t launchBaseline(GpuState *g, void *arg) {
  (void)arg;
  return runGemm(g, g->buf[2], false) == CUBLAS_STATUS_SUCCESS ? cudaSuccess
                                                                : cudaErrorUnknown;
}

/* Releases what loadCandidate acquired (only while the context is usable). */
static void unloadCandidate(cudaLibrary_t lib, KernelLaunch *k) {
  for (int i = 0; i < k->num_workspaces; ++i)
    cudaFree(k->workspaces[i]);
  k->num_workspaces = 0;
  cudaLibraryUnload(lib);
}

/* One kernel of the loaded library and its parameter list. */
static bool prepareCall(GpuState *g, cudaLibrary_t lib, const PrunerKernelLaunch *l,
                        const KernelLaunch *k, int num_operands, KernelCall *c, RunReply *rep) {
  cudaError_t err = cudaLibraryGetKernel(&c->kernel, lib, l->kernel_name);
  if (err != cudaSuccess) {
    char what[200];
    snprintf(what, sizeof(what), "kernel '%.120s' not found in the cubin", l->kernel_name);
    setError(rep, what, err);
    return false;
  }
  c->grid = (dim3){(unsigned)l->grid[0], (unsigned)l->grid[1], (unsigned)l->grid[2]};
  c->block = (dim3){(unsigned)l->block[0], (unsigned)l->block[1], (unsigned)l->block[2]};
  c->smem = (size_t)l->dynamic_smem_bytes;
  if (c->smem > 48 * 1024) {
    err = cudaFuncSetAttribute((const void *)c->kernel,
                               cudaFuncAttributeMaxDynamicSharedMemorySize, (int)c->smem);
    if (err != cudaSuccess) {
      setError(rep, "requesting dynamic shared memory", err);
      return false;
    }
  }
  for (int i = 0; i < l->num_args; i++) {
    const PrunerKernelArg *a = &l->args[i];
    if (a->kind == PRUNER_ARG_INDEX)
      c->values[i].index = a->value;
    else if (a->operand >= num_operands) /* a workspace (the bundle reader bounds it) */
      c->values[i].ptr = k->workspaces[a->operand - num_operands];
    else
      c->values[i].ptr = g->buf[a->operand];
    c->params[i] = &c->values[i];
  }
  return true;
}

/* Loads candidate `index`'s cubin, allocates its workspaces and builds the parameter
 * lists of its kernels. On failure the reply says why (status invalid) and nothing is
 * left loaded. */
static bool loadCandidate(GpuContext *ctx, int index, cudaLibrary_t *lib, KernelLaunch *k,
                          RunReply *rep) {
  GpuState *g = &ctx->state;
  const PrunerBundleCandidate *cand = prunerBundleGetCandidate(ctx->bundle, (size_t)index);
  const PrunerWorkload *w = prunerBundleGetWorkload(ctx->bundle, (size_t)cand->workload);
  int num_operands = w->num_inputs + w->num_outputs;
  unsigned char *data = NULL;
  size_t size = 0;
  PrunerStatus st = prunerBundleLoadBinary(ctx->bundle, (size_t)index, &data, &size);
  rep->status = PRUNER_RECORD_INVALID;
  if (!st.ok) {
    snprintf(rep->error, sizeof(rep->error), "%.255s", st.message);
    return false;
  }
  cudaError_t err = cudaLibraryLoadData(lib, data, NULL, NULL, 0, NULL, NULL, 0);
  free(data);
  if (err != cudaSuccess) {
    setError(rep, "loading the cubin", err);
    return false;
  }
  memset(k, 0, sizeof(*k));
  for (int i = 0; i < cand->extras.num_workspaces; ++i) {
    err = cudaMalloc(&k->workspaces[i], (size_t)cand->extras.workspace_bytes[i]);
    if (err != cudaSuccess) {
      setError(rep, "allocating a workspace", err);
      unloadCandidate(*lib, k);
      return false;
    }
    k->num_workspaces = i + 1;
  }
  k->num_calls = 1 + cand->extras.num_next;
  for (int i = 0; i < k->num_calls; ++i) {
    const PrunerKernelLaunch *l = i ? &cand->extras.next[i - 1] : &cand->launch;
    if (!prepareCall(g, *lib, l, k, num_operands, &k->calls[i], rep)) {
      unloadCandidate(*lib, k);
      return false;
    }
  }
  return true;
}

/* After a launch: a failure reported by the launch itself (bad configuration) leaves the
 * context usable; one reported by the synchronization (a fault) poisons it. */
static bool launchFailed(cudaError_t err, bool at_launch, RunReply *rep, bool *keep) {
  if (err == cudaSuccess)
    return false;
  rep->status = PRUNER_RECORD_LAUNCH_ERROR;
  setError(rep, at_launch ? "launch" : "kernel execution", err);
  if (!at_launch)
    *keep = false;
  return true;
}

static bool measureCandidate(GpuContext *ctx, const RunRequest *req, RunReply *rep) {
  GpuState *g = &ctx->state;
  bool keep = true;
  if (g->workload != req->workload) {
    rep->status = PRUNER_RECORD_INVALID;
    snprintf(rep->error, sizeof(rep->error), "runner: workload %d not prepared", req->workload);
    return keep;
  }
  const PrunerBundleCandidate *c = prunerBundleGetCandidate(ctx->bundle, (size_t)req->candidate);
  const PrunerWorkload *w = prunerBundleGetWorkload(ctx->bundle, (size_t)c->workload);
  if ((c->output_init == PRUNER_OUTPUT_RANDOM) !=
      (prunerOutputInitDefault(w) == PRUNER_OUTPUT_RANDOM)) {
    rep->status = PRUNER_RECORD_INVALID;
    snprintf(rep->error, sizeof(rep->error),
             "output_init '%s' contradicts the workload's reference ('%s')",
             prunerOutputInitName(c->output_init),
             prunerOutputInitName(prunerOutputInitDefault(w)));
    return keep;
  }
  cudaLibrary_t lib;
  KernelLaunch k;
  if (!loadCandidate(ctx, req->candidate, &lib, &k, rep))
    return keep;
  cudaError_t err = resetOutputs(g, w, c->output_init);
  if (err != cudaSuccess) {
    launchFailed(err, false, rep, &keep);
    goto out;
  }
  err = launchCandidate(g, &k);
  if (launchFailed(err, true, rep, &keep))
    goto out;
  err = cudaStreamSynchronize(g->stream);
  if (launchFailed(err, false, rep, &keep))
    goto out;
  if (!checkOutputs(g, w, rep))
    goto out; /* wrong results are not timed */
  err = timeKernel(g, launchCandidate, &k, req->samples, req->budget_seconds, rep);
  if (launchFailed(err, false, rep, &keep))
    goto out;
  rep->status = PRUNER_RECORD_OK;
  rep->error[0] = '\0';
out:
  if (keep)
    unloadCandidate(lib, &k);
  return keep;
}

static bool measureBaseline(GpuContext *ctx, const RunRequest *req, RunReply *rep) {
  GpuState *g = &ctx->state;
  bool keep = true;
  const PrunerWorkload *w = prunerBundleGetWorkload(ctx->bundle, (size_t)req->workload);
  if (g->workload != req->workload || !g->gemm.ok) {
    rep->status = PRUNER_RECORD_INVALID;
    snprintf(rep->error, sizeof(rep->error), "runner: no cuBLAS plan for workload %d",
             req->workload);
    return keep;
  }
  cudaError_t err = resetOutputs(g, w, PRUNER_OUTPUT_POISON);
  if (err == cudaSuccess)
    err = launchBaseline(g, NULL);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize(g->stream);
  if (launchFailed(err, false, rep, &keep))
    return keep;
  if (!checkOutputs(g, w, rep))
    return keep;
  err = timeKernel(g, launchBaseline, NULL, req->samples, req->budget_seconds, rep);
  if (launchFailed(err, false, rep, &keep))
    return keep;
  rep->status = PRUNER_RECORD_OK;
  rep->error[0] = '\0';
  return keep;
}

/* Rounds of one sample per entry (candidates, then cuBLAS), so drift hits all alike. */
static bool measureFinal(GpuContext *ctx, const RunRequest *req, RunReply *rep) {
  GpuState *g = &ctx->state;
  bool keep = true;
  int n = req->num_final;
  cudaLibrary_t libs[RUN_FINAL_TOP];
  KernelLaunch *ks = calloc(RUN_FINAL_TOP, sizeof(KernelLaunch));
  int loaded = 0;
  if (!ks || g->workload != req->workload) {
    snprintf(rep->error, sizeof(rep->error), "runner: final re-measurement not prepared");
    free(ks);
    return keep;
  }
  for (; loaded < n; loaded++)
    if (!loadCandidate(ctx, req->final_ids[loaded], &libs[loaded], &ks[loaded], rep))
      goto out;
  int entries = n + (req->final_baseline ? 1 : 0);
  int rounds = req->rounds < PRUNER_MAX_SAMPLES ? req->rounds : PRUNER_MAX_SAMPLES;
  double samples[RUN_FINAL_TOP + 1][PRUNER_MAX_SAMPLES];
  for (int e = 0; e < entries; e++) { /* warm-up */
    cudaError_t err = e < n ? launchCandidate(g, &ks[e]) : launchBaseline(g, NULL);
    if (err == cudaSuccess)
      err = cudaStreamSynchronize(g->stream);
    if (launchFailed(err, false, rep, &keep))
      goto out;
  }
  for (int r = 0; r < rounds; r++)
    for (int e = 0; e < entries; e++) {
      cudaError_t err = sampleOnce(g, e < n ? launchCandidate : launchBaseline,
                                   e < n ? (void *)&ks[e] : NULL, r * entries + e,
                                   &samples[e][r]);
      if (launchFailed(err, false, rep, &keep))
        goto out;
    }
  for (int e = 0; e < entries; e++) {
    PrunerTiming tmp;
    tmp.num_samples = rounds;
    memcpy(tmp.samples_us, samples[e], sizeof(double) * (size_t)rounds);
    prunerTimingSummarize(&tmp);
    rep->final_median_us[e] = tmp.median_us;
    rep->final_spread_us[e] = tmp.spread_us;
  }
  rep->ok = true;
out:
  if (keep)
    for (int i = 0; i < loaded; i++)
      unloadCandidate(libs[i], &ks[i]);
  free(ks);
  return keep;
}

bool runnerGpuHandler(void *context, const void *request, void *reply) {
  GpuContext *ctx = context;
  const RunRequest *req = request;
  RunReply *rep = reply;
  switch (req->kind) {
  case RUN_HELLO:
    hello(&ctx->state, rep);
    return rep->ok;
  case RUN_PREPARE:
    prepare(ctx, req, rep);
    return rep->ok;
  case RUN_CANDIDATE:
    return measureCandidate(ctx, req, rep);
  case RUN_BASELINE:
    return measureBaseline(ctx, req, rep);
  case RUN_FINAL:
    return measureFinal(ctx, req, rep);
  }
  snprintf(rep->error, sizeof(rep->error), "runner: unknown request %d", (int)req->kind);
  return true;
}

/* The context pruner-run's main hands to the worker: the bundle plus the child's state. */
void *runnerGpuContextCreate(PrunerBundle bundle) {
  GpuContext *ctx = calloc(1, sizeof(GpuContext));
  if (ctx) {
    ctx->bundle = bundle;
    ctx->state.workload = -1;
  }
  return ctx;
}

void runnerGpuContextDestroy(void *context) { free(context); }

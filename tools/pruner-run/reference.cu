// The reference kernel: one thread per point of the parallel loops, a sequential walk
// over the reduction loops, the workload's body program evaluated in float64. Slow and
// plain on purpose: it must be obviously right for any workload (convolutions,
// reductions, elementwise generics, contractions cuBLAS cannot express).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>

#include "reference.h"

namespace {

__device__ double loadAs(int dtype, const void *base, int64_t i) {
  switch (dtype) {
  case PRUNER_DTYPE_F32: return (double)((const float *)base)[i];
  case PRUNER_DTYPE_F16: return (double)__half2float(((const __half *)base)[i]);
  case PRUNER_DTYPE_BF16: return (double)__bfloat162float(((const __nv_bfloat16 *)base)[i]);
  case PRUNER_DTYPE_F64: return ((const double *)base)[i];
  case PRUNER_DTYPE_I8: return (double)((const signed char *)base)[i];
  case PRUNER_DTYPE_I32: return (double)((const int *)base)[i];
  default: return nan("");
  }
}

// Rounds a value to what a cast to `dtype` keeps (arith.truncf / fptosi ...).
__device__ double castTo(int dtype, double v) {
  switch (dtype) {
  case PRUNER_DTYPE_F32: return (double)(float)v;
  case PRUNER_DTYPE_F16: return (double)__half2float(__double2half(v));
  case PRUNER_DTYPE_BF16: return (double)__bfloat162float(__double2bfloat16(v));
  case PRUNER_DTYPE_I8: return (double)(signed char)(long long)trunc(v);
  case PRUNER_DTYPE_I32: return (double)(int)(long long)trunc(v);
  default: return v;
  }
}

__device__ double evalOp(const RefBodyOp &op, double a, double b) {
  switch (op.opcode) {
  case PRUNER_BODY_ADD: return a + b;
  case PRUNER_BODY_SUB: return a - b;
  case PRUNER_BODY_MUL: return a * b;
  case PRUNER_BODY_DIV: return (op.dtype == PRUNER_DTYPE_I8 || op.dtype == PRUNER_DTYPE_I32)
                                   ? trunc(a / b) : a / b;
  // maximumf / minimumf (what the payload emits): a NaN operand gives NaN, as in the host
  // reference (log and sqrt of the random inputs' negative half make NaNs).
  case PRUNER_BODY_MAX: return isnan(a) || isnan(b) ? nan("") : a > b ? a : b;
  case PRUNER_BODY_MIN: return isnan(a) || isnan(b) ? nan("") : a < b ? a : b;
  case PRUNER_BODY_NEG: return -a;
  case PRUNER_BODY_EXP: return exp(a);
  case PRUNER_BODY_TANH: return tanh(a);
  case PRUNER_BODY_LOG: return log(a);
  case PRUNER_BODY_SQRT: return sqrt(a);
  case PRUNER_BODY_RSQRT: return rsqrt(a);
  case PRUNER_BODY_ERF: return erf(a);
  case PRUNER_BODY_ABS: return fabs(a);
  case PRUNER_BODY_CONST: return op.constant;
  case PRUNER_BODY_CAST: return castTo(op.dtype, a);
  default: return nan("");
  }
}

// A value that rounds to an infinity in `dtype` becomes one, as the kernel's arithmetic
// in that type makes it (exp(100 x) in f32); finite values keep their float64 precision
// (the tolerance is set for a reference more exact than the kernel). The bounds are
// halfway between the largest finite value and the next power of two: from there round-
// to-nearest-even gives an infinity (65520 for f16).
__device__ double overflowTo(int dtype, double v) {
  double bound = dtype == PRUNER_DTYPE_F32    ? 3.4028235677973366e38
                 : dtype == PRUNER_DTYPE_F16  ? 65520.0
                 : dtype == PRUNER_DTYPE_BF16 ? 3.3961775292304258e38
                                              : INFINITY;
  return fabs(v) >= bound ? copysign(INFINITY, v) : v;
}

struct Pointers {
  const void *in[PRUNER_MAX_OPERANDS];
  double *out[PRUNER_MAX_OPERANDS];
};

__global__ void referenceKernel(RefDesc d, Pointers p) {
  int64_t point = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (point >= d.parallel_points)
    return;
  int64_t idx[PRUNER_MAX_LOOPS];
  int64_t rest = point;
  for (int l = d.num_loops - 1; l >= 0; l--) {
    idx[l] = 0;
    if (!d.is_reduction[l]) {
      idx[l] = rest % d.bounds[l];
      rest /= d.bounds[l];
    }
  }
  int operands = d.num_inputs + d.num_outputs;
  int64_t out_off[PRUNER_MAX_OPERANDS];
  double acc[PRUNER_MAX_OPERANDS];
  for (int o = 0; o < d.num_outputs; o++) {
    int op = d.num_inputs + o;
    out_off[o] = 0;
    for (int l = 0; l < d.num_loops; l++)
      out_off[o] += d.loop_stride[op][l] * idx[l];
    acc[o] = p.out[o][out_off[o]];
  }
  double vals[PRUNER_MAX_OPERANDS + PRUNER_MAX_BODY_OPS];
  for (int64_t r = 0; r < d.reduction_points; r++) {
    int64_t rr = r;
    for (int l = d.num_loops - 1; l >= 0; l--)
      if (d.is_reduction[l]) {
        idx[l] = rr % d.bounds[l];
        rr /= d.bounds[l];
      }
    for (int i = 0; i < d.num_inputs; i++) {
      int64_t off = 0;
      for (int l = 0; l < d.num_loops; l++)
        off += d.loop_stride[i][l] * idx[l];
      vals[i] = loadAs(d.dtype[i], p.in[i], off);
    }
    for (int o = 0; o < d.num_outputs; o++)
      vals[d.num_inputs + o] = acc[o];
    for (int b = 0; b < d.body_len; b++) {
      const RefBodyOp &op = d.body[b];
      double a = op.args[0] >= 0 ? vals[op.args[0]] : 0.0;
      double c = op.args[1] >= 0 ? vals[op.args[1]] : 0.0;
      vals[operands + b] = overflowTo(op.dtype, evalOp(op, a, c));
    }
    for (int o = 0; o < d.num_outputs; o++)
      acc[o] = vals[d.yield[o]];
  }
  for (int o = 0; o < d.num_outputs; o++)
    p.out[o][out_off[o]] = acc[o];
}

} // namespace

extern "C" int refLaunch(const RefDesc *desc, const void *const *inputs, double *const *outputs,
                         void *stream) {
  Pointers p;
  for (int i = 0; i < PRUNER_MAX_OPERANDS; i++) {
    p.in[i] = i < desc->num_inputs ? inputs[i] : nullptr;
    p.out[i] = i < desc->num_outputs ? outputs[i] : nullptr;
  }
  const int threads = 128;
  int64_t blocks = (desc->parallel_points + threads - 1) / threads;
  if (blocks > 2147483647LL)
    return (int)cudaErrorInvalidConfiguration;
  referenceKernel<<<(unsigned)blocks, threads, 0, (cudaStream_t)stream>>>(*desc, p);
  return (int)cudaGetLastError();
}

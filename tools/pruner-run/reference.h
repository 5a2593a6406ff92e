/* The reference kernel's description of a workload (plain C, shared by gpu.c and
 * reference.cu): each operand's element offset is linear in the loop indices,
 * offset = sum_l loop_stride[operand][l] * loop_l, which folds the workload's index
 * coefficients and the row-major strides of the operand's shape together. */
#ifndef PRUNER_RUN_REFERENCE_H
#define PRUNER_RUN_REFERENCE_H

#include <stdint.h>

#include "pruner/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct RefBodyOp {
  int opcode; /* PrunerBodyOpcode */
  int args[2];
  int dtype;  /* PrunerDType */
  double constant;
} RefBodyOp;

typedef struct RefDesc {
  int num_loops;
  int64_t bounds[PRUNER_MAX_LOOPS];
  int is_reduction[PRUNER_MAX_LOOPS];
  int num_inputs, num_outputs;
  int dtype[PRUNER_MAX_OPERANDS];
  int64_t loop_stride[PRUNER_MAX_OPERANDS][PRUNER_MAX_LOOPS];
  int body_len;
  RefBodyOp body[PRUNER_MAX_BODY_OPS];
  int yield[PRUNER_MAX_OPERANDS];
  int64_t parallel_points;  /* product of the parallel bounds  */
  int64_t reduction_points; /* product of the reduction bounds */
} RefDesc;

/* Computes every output point in float64 into out[o] (a double array laid out like output
 * o), starting from the values already in out[o]. inputs[i] points at input i in its own
 * dtype. Returns a cudaError_t value (0 on success). */
int refLaunch(const RefDesc *desc, const void *const *inputs, double *const *outputs,
              void *stream);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_RUN_REFERENCE_H */

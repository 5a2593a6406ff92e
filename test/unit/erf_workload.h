/* test/unit/erf_workload.h: a fixture the unit tests share: `dims` elementwise add
 * followed by erf (the shape of a GELU's transcendental step), whose body differs from
 * the plain add's. */
#ifndef PRUNER_TEST_ERF_WORKLOAD_H
#define PRUNER_TEST_ERF_WORKLOAD_H

#include "pruner/workload.h"

static inline void testErfWorkload(PrunerWorkload *w, const int64_t *dims, int rank) {
  prunerWorkloadElementwiseAdd(w, dims, rank, PRUNER_DTYPE_F32);
  int n = w->num_inputs + w->num_outputs;
  w->body[1] = (PrunerBodyOp){PRUNER_BODY_ERF, {n, -1}, 0.0, PRUNER_DTYPE_F32};
  w->body_len = 2;
  w->body_yield[0] = n + 1;
  prunerWorkloadComputeKey(w);
}

#endif

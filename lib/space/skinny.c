/* lib/space/skinny.c: which workloads the cross-thread reduction (reduction_threads > 1)
 * applies to. Reductions and contractions share the schedule (docs/schedule.md,
 * "Cross-thread reduction"): the block's threads split the one reduction loop, so a GEMV
 * (matmul with M = 1) or any skinny contraction gets its parallelism from K instead of
 * from its few outputs. */
#include "pruner/space.h"

bool prunerWorkloadHasReductionThreads(const PrunerWorkload *w) {
  bool kind = w->kind == PRUNER_OP_REDUCTION || w->kind == PRUNER_OP_MATMUL ||
              w->kind == PRUNER_OP_BATCH_MATMUL || w->kind == PRUNER_OP_CONTRACTION;
  if (!kind || w->num_outputs != 1 || w->num_loops < 2)
    return false;
  int reductions = 0;
  for (int l = 0; l < w->num_loops; ++l)
    reductions += w->loop_kinds[l] == PRUNER_LOOP_REDUCTION;
  return reductions == 1 && w->loop_kinds[w->num_loops - 1] == PRUNER_LOOP_REDUCTION;
}

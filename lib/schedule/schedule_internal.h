/* lib/schedule/schedule_internal.h: helpers shared by the payload and schedule emitters. */
#ifndef PRUNER_SCHEDULE_INTERNAL_H
#define PRUNER_SCHEDULE_INTERNAL_H

#include <stdbool.h>

#include "pruner/space.h"
#include "pruner/text.h"
#include "pruner/workload.h"

/* True for kinds whose accumulator is initialised by a fill (contractions, convs). */
bool prunerScheduleHasFill(const PrunerWorkload *w);

/* The staged lowering of the vectors of func handle `f` to 1-D (schedule.c). */
void prunerScheduleAppendVectorLowering(PrunerText *t, const char *f);

/* Outlines a K loop into a private function `func_name` (handle %kf; LLVM inlines it
 * again): the loop `loop`, or with `in` set, the scf.for tagged "<tag>.kloop" inside `in`
 * after the thread mapping, LICM'ed first (schedule.c). */
void prunerScheduleAppendOutline(PrunerText *t, const char *in, const char *tag, const char *loop,
                                 const char *func_name);

/* The end of a @pruner_tile body: canonicalize and cse the function, transform.yield and
 * the closing brace (schedule.c). */
void prunerScheduleAppendTileCleanup(PrunerText *t);

/* Tensor-core schedule (mma.c): the body of @pruner_tile for an mma config (through its
 * transform.yield and closing brace), and the per-op steps after bufferization that go
 * into @pruner_promote (no yield). */
void prunerScheduleAppendMmaTile(PrunerText *t, const PrunerWorkload *w, const PrunerConfig *c,
                                 const PrunerLaunchShape *ls, bool fill, const char *attr,
                                 const char *forall_tag, const char *mma_tag, bool gpu_mapping);
void prunerScheduleAppendMmaPost(PrunerText *t, const char *mma_tag, bool gpu_mapping);
/* Staged tensor cores (mma with promote_operands = [0, 1]): the body of @pruner_promote
 * (no yield: promotion, 16-byte cooperative copies, the warps' contracts inside the
 * block's K loop), and the steps after the thread mapping (@pruner_map: outline the K
 * loop, mma.sync conversion, cp.async, the staged tiles as module globals). */
void prunerScheduleAppendMmaStagedPromote(PrunerText *t, const PrunerWorkload *w,
                                          const PrunerConfig *c, const PrunerLaunchShape *ls,
                                          const char *forall_tag, const char *mma_tag,
                                          bool gpu_mapping);
void prunerScheduleAppendMmaStagedPost(PrunerText *t, const PrunerConfig *c, const char *mma_tag,
                                       bool gpu_mapping);


#endif /* PRUNER_SCHEDULE_INTERNAL_H */

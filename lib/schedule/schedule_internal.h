/* lib/schedule/schedule_internal.h: helpers shared by the payload and schedule emitters. */
#ifndef PRUNER_SCHEDULE_INTERNAL_H
#define PRUNER_SCHEDULE_INTERNAL_H

#include <stdbool.h>

#include "pruner/workload.h"

/* MLIR spelling of a dtype ("f32"), NULL if unknown. */
const char *prunerScheduleMlirType(PrunerDType dtype);
bool prunerScheduleIsFloat(PrunerDType dtype);
/* True for kinds whose accumulator is initialised by a fill (contractions, convs). */
bool prunerScheduleHasFill(const PrunerWorkload *w);

#endif /* PRUNER_SCHEDULE_INTERNAL_H */

/* pruner/clock.h: the project's clock helpers (lib/support). Durations, deadlines and
 * timing samples all read CLOCK_MONOTONIC, which never jumps with the wall clock; only a
 * record's timestamp reads the wall clock. */
#ifndef PRUNER_CLOCK_H
#define PRUNER_CLOCK_H

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds on the monotonic clock (an arbitrary origin: use differences). */
double prunerNowSeconds(void);

/* Seconds since the Unix epoch on the wall clock (CLOCK_REALTIME): timestamps only. */
double prunerEpochSeconds(void);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_CLOCK_H */

/* pruner/clock.h: the project's one clock helper (lib/support). Durations, deadlines and
 * timing samples all read CLOCK_MONOTONIC, which never jumps with the wall clock. */
#ifndef PRUNER_CLOCK_H
#define PRUNER_CLOCK_H

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds on the monotonic clock (an arbitrary origin: use differences). */
double prunerNowSeconds(void);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_CLOCK_H */

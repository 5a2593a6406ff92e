/* lib/support/clock.c: the monotonic clock and the wall clock (pruner/clock.h). */
#include "pruner/clock.h"

#include <time.h>

double prunerNowSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double prunerEpochSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

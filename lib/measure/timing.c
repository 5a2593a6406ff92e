/* lib/measure/timing.c: the timing protocol (pruner/timing.h). */
#include "pruner/timing.h"

#include "pruner/clock.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *prunerTimingBufferCreate(size_t bytes) {
  const size_t align = PRUNER_TIMING_BUFFER_ALIGNMENT;
  if (bytes > SIZE_MAX - align)
    return NULL;
  /* C11 aligned_alloc wants a non-zero multiple of the alignment. */
  size_t rounded = bytes == 0 ? align : (bytes + align - 1) / align * align;
  return aligned_alloc(align, rounded);
}

void prunerTimingBufferDestroy(void *buffer) { free(buffer); }

static int compareDouble(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

void prunerTimingSort(const double *samples, int n, double *sorted) {
  memcpy(sorted, samples, (size_t)n * sizeof(double));
  qsort(sorted, (size_t)n, sizeof(double), compareDouble);
}

double prunerTimingQuantile(const double *sorted, int n, double q) {
  double pos = q * (n - 1);
  int lo = (int)pos;
  if (lo >= n - 1)
    return sorted[n - 1];
  return sorted[lo] + (pos - lo) * (sorted[lo + 1] - sorted[lo]);
}

static void sortedSamples(const PrunerTiming *t, double *sorted) {
  prunerTimingSort(t->samples_us, t->num_samples, sorted);
}

void prunerTimingSummarize(PrunerTiming *t) {
  double sorted[PRUNER_MAX_SAMPLES];
  sortedSamples(t, sorted);
  int n = t->num_samples;
  t->median_us = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  t->spread_us = sorted[n - 1] - sorted[0];
}

double prunerTimingRelativeIqr(const PrunerTiming *t) {
  double sorted[PRUNER_MAX_SAMPLES];
  sortedSamples(t, sorted);
  int n = t->num_samples;
  double med = sorted[n / 2];
  return med > 0 ? (sorted[(3 * n) / 4] - sorted[n / 4]) / med : 0;
}

/* The stop rule of pruner/timing.h, checked after each sample. */
static bool enough(const PrunerTimingOptions *o, const PrunerTiming *t, int min_samples,
                   double warmup_start, double sampling_start) {
  if (t->num_samples < min_samples)
    return false;
  double now = prunerNowSeconds();
  if (now - sampling_start < o->min_seconds)
    return false;
  return o->stop_relative_iqr <= 0 || prunerTimingRelativeIqr(t) <= o->stop_relative_iqr ||
         now - warmup_start > o->budget_seconds;
}

bool prunerTimingRun(const PrunerTimingOptions *o, PrunerTimingRunFn run, void *user,
                     PrunerTiming *out) {
  memset(out, 0, sizeof *out);
  double warmup_start = prunerNowSeconds();
  for (int i = 0; (i < o->warmup_runs || prunerNowSeconds() - warmup_start < o->warmup_seconds) &&
                  (o->max_warmup_runs <= 0 || i < o->max_warmup_runs);
       ++i)
    if (!run(user, i, NULL, NULL))
      return false;
  int max = o->max_samples > 0 && o->max_samples < PRUNER_MAX_SAMPLES ? o->max_samples
                                                                      : PRUNER_MAX_SAMPLES;
  int min = o->min_samples < 1 ? 1 : o->min_samples > max ? max : o->min_samples;
  double sampling_start = prunerNowSeconds();
  double clock_sum = 0;
  int clocks = 0;
  bool ok = true;
  while (out->num_samples < max) {
    double us = 0, mhz = 0;
    if (!run(user, out->num_samples, &us, &mhz)) {
      ok = false;
      break;
    }
    out->samples_us[out->num_samples++] = us;
    if (mhz > 0) {
      clock_sum += mhz;
      clocks++;
    }
    if (enough(o, out, min, warmup_start, sampling_start))
      break;
  }
  if (out->num_samples > 0)
    prunerTimingSummarize(out);
  out->clock_mhz = clocks ? clock_sum / clocks : 0;
  return ok;
}

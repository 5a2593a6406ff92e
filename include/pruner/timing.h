/* pruner/timing.h: the one timing protocol (lib/measure, MLIR-free and CUDA-free): warm-up,
 * timed samples, the stop rule, median and spread, and the clock the samples ran at.
 *
 * Both places that time kernels use it: the host backend's measuring child
 * (lib/backend/host/host.c: wall clock around a JIT-compiled call) and pruner-run
 * (tools/pruner-run/gpu.c: CUDA events around a launch, after an L2 flush). What differs is
 * the sample function and the options, which are documented with their sources in
 * docs/measurement.md and docs/host.md:
 *   warm-up   at least `warmup_runs` runs and `warmup_seconds`, at most `max_warmup_runs`;
 *   samples   at least `min_samples`, at most `max_samples` (<= PRUNER_MAX_SAMPLES);
 *   stop      once there are min_samples and sampling has lasted min_seconds and, when
 *             stop_relative_iqr is set, the relative interquartile range is within it or
 *             budget_seconds have passed since the warm-up began;
 *   summary   median (mean of the middle two for an even count), spread = max - min, the
 *             mean of the clocks the samples reported (0 when none did).
 * The host's final check (interleaved rounds of several kernels) summarizes its samples
 * with the same sort and quantiles (prunerTimingSort, prunerTimingQuantile). */
#ifndef PRUNER_TIMING_H
#define PRUNER_TIMING_H

#include <stdbool.h>

#include "pruner/records.h" /* PRUNER_MAX_SAMPLES */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct PrunerTimingOptions {
  int warmup_runs;          /* at least this many warm-up runs                       */
  double warmup_seconds;    /* and at least this long (0: no time floor)             */
  int max_warmup_runs;      /* but no more runs than this (0: no cap)                */
  int min_samples;          /* >= 1                                                  */
  int max_samples;          /* <= PRUNER_MAX_SAMPLES (0 or more: PRUNER_MAX_SAMPLES) */
  double min_seconds;       /* sampling lasts at least this long (0: off)            */
  double stop_relative_iqr; /* 0: off; else sample on while the relative IQR exceeds
                               it, until budget_seconds                              */
  double budget_seconds;    /* with stop_relative_iqr: from the start of warm-up     */
} PrunerTimingOptions;

typedef struct PrunerTiming {
  int num_samples;
  double samples_us[PRUNER_MAX_SAMPLES];
  double median_us;
  double spread_us;
  double clock_mhz; /* mean of the reported clocks; 0: none reported */
} PrunerTiming;

/* One run of the kernel. Warm-up runs get sample_us == NULL. Timed runs write their time
 * in µs to *sample_us and, when known, the clock in MHz to *clock_mhz (left 0 otherwise).
 * `index` counts the runs of the phase from 0. False: the run failed and timing stops. */
typedef bool (*PrunerTimingRunFn)(void *user, int index, double *sample_us, double *clock_mhz);

/* Runs the protocol. False when a run failed: `out` then holds the samples taken before
 * the failure, summarized (num_samples may be 0). */
bool prunerTimingRun(const PrunerTimingOptions *opts, PrunerTimingRunFn run, void *user,
                     PrunerTiming *out);

/* `n` samples copied into `sorted`, ascending (n <= PRUNER_MAX_SAMPLES). */
void prunerTimingSort(const double *samples, int n, double *sorted);
/* The q-quantile (0..1) of n >= 1 sorted samples, interpolated linearly between the two
 * nearest ranks (q = 0.5 is the median). */
double prunerTimingQuantile(const double *sorted, int n, double q);

/* Median and spread of out->samples_us[0 .. num_samples) (num_samples >= 1). */
void prunerTimingSummarize(PrunerTiming *t);
/* (Q3 - Q1) / median of the samples (0 when the median is 0; num_samples >= 1). */
double prunerTimingRelativeIqr(const PrunerTiming *t);

/* Operand buffers of a timed host kernel start on a cache line, as a runtime's buffers do
 * (TVM's and PyTorch's CPU allocators align to 64 bytes). With malloc's 16-byte alignment
 * the same kernel's time depended on where the heap happened to put its buffers: on an
 * Intel Xeon the ResNet conv's best config measured 1.86-1.91 ms or 2.59-3.00 ms per
 * process, by its output's address mod 64 (docs/host.md, "Buffer alignment"). */
#define PRUNER_TIMING_BUFFER_ALIGNMENT 64

/* A buffer of at least `bytes` starting at a multiple of PRUNER_TIMING_BUFFER_ALIGNMENT;
 * NULL when memory runs out or `bytes` is too large. The caller owns it and releases it
 * with prunerTimingBufferDestroy (NULL is allowed there). */
void *prunerTimingBufferCreate(size_t bytes);
void prunerTimingBufferDestroy(void *buffer);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_TIMING_H */

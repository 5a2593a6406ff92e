/* The timing protocol (pruner/timing.h) with scripted runs: warm-up counts, the stop
 * rules of the host (min samples, max samples) and of pruner-run (relative IQR), the
 * summary (median, spread, clock), failures, and the operand buffers' alignment. No
 * wall-clock time is asserted: every time-based option is 0 or out of reach. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pruner/clock.h"
#include "pruner/timing.h"

typedef struct Script {
  int warmups, samples;
  int fail_warmup_at, fail_sample_at; /* -1: never */
  const double *values;               /* sample i gets values[i % num_values] */
  int num_values;
  double clock_mhz; /* reported by even samples only */
} Script;

static bool scripted(void *user, int index, double *sample_us, double *clock_mhz) {
  Script *s = user;
  if (!sample_us) {
    assert_int_equal(index, s->warmups);
    if (s->warmups == s->fail_warmup_at)
      return false;
    s->warmups++;
    return true;
  }
  assert_int_equal(index, s->samples);
  if (s->samples == s->fail_sample_at)
    return false;
  *sample_us = s->values[s->samples % s->num_values];
  if (s->samples % 2 == 0)
    *clock_mhz = s->clock_mhz;
  s->samples++;
  return true;
}

static Script script(const double *values, int n) {
  Script s = {0, 0, -1, -1, values, n, 0};
  return s;
}

static void test_host_rule_min_samples(void **state) {
  (void)state;
  const double v[] = {5, 1, 3, 2, 4};
  Script s = script(v, 5);
  PrunerTimingOptions o = {.warmup_runs = 2, .min_samples = 5, .max_samples = 15};
  PrunerTiming t;
  assert_true(prunerTimingRun(&o, scripted, &s, &t));
  assert_int_equal(s.warmups, 2);
  assert_int_equal(t.num_samples, 5); /* min_seconds 0: stop at min_samples */
  assert_true(t.median_us == 3.0);
  assert_true(t.spread_us == 4.0);
  assert_true(t.clock_mhz == 0.0);
}

static void test_host_rule_max_samples(void **state) {
  (void)state;
  const double v[] = {2, 4};
  Script s = script(v, 2);
  /* min_seconds out of reach: the count cap ends it. */
  PrunerTimingOptions o = {
      .warmup_runs = 1, .min_samples = 5, .max_samples = 6, .min_seconds = 1e9};
  PrunerTiming t;
  assert_true(prunerTimingRun(&o, scripted, &s, &t));
  assert_int_equal(t.num_samples, 6);
  assert_true(t.median_us == 3.0); /* even count: mean of the middle two */
  assert_true(t.spread_us == 2.0);
}

static void test_runner_rule_iqr(void **state) {
  (void)state;
  PrunerTimingOptions o = {.warmup_runs = 3,
                           .max_warmup_runs = 1000,
                           .min_samples = 10,
                           .max_samples = 0,
                           .stop_relative_iqr = 0.02,
                           .budget_seconds = 1e9};
  /* Steady samples: the IQR is 0 at once, so min_samples ends it. */
  const double steady[] = {7};
  Script s = script(steady, 1);
  s.clock_mhz = 1980;
  PrunerTiming t;
  assert_true(prunerTimingRun(&o, scripted, &s, &t));
  assert_int_equal(s.warmups, 3);
  assert_int_equal(t.num_samples, 10);
  assert_true(t.median_us == 7.0);
  assert_true(t.clock_mhz == 1980.0); /* the mean of the samples that reported one */
  /* Noisy samples (IQR 100%): sampling goes on to PRUNER_MAX_SAMPLES. */
  const double noisy[] = {1, 2, 3, 4};
  s = script(noisy, 4);
  assert_true(prunerTimingRun(&o, scripted, &s, &t));
  assert_int_equal(t.num_samples, PRUNER_MAX_SAMPLES);
  assert_true(prunerTimingRelativeIqr(&t) > 0.02);
}

static void test_budget_ends_noisy_sampling(void **state) {
  (void)state;
  const double noisy[] = {1, 2, 3, 4};
  Script s = script(noisy, 4);
  PrunerTimingOptions o = {
      .min_samples = 4, .stop_relative_iqr = 0.02, .budget_seconds = -1}; /* already spent */
  PrunerTiming t;
  assert_true(prunerTimingRun(&o, scripted, &s, &t));
  assert_int_equal(t.num_samples, 4);
}

static void test_warmup_cap_and_failures(void **state) {
  (void)state;
  const double v[] = {1};
  Script s = script(v, 1);
  /* A time floor out of reach is cut by the cap. */
  PrunerTimingOptions o = {
      .warmup_runs = 1, .warmup_seconds = 1e9, .max_warmup_runs = 7, .min_samples = 1};
  PrunerTiming t;
  assert_true(prunerTimingRun(&o, scripted, &s, &t));
  assert_int_equal(s.warmups, 7);
  /* A failing warm-up: no samples. */
  s = script(v, 1);
  s.fail_warmup_at = 0;
  o = (PrunerTimingOptions){.warmup_runs = 2, .min_samples = 3};
  assert_false(prunerTimingRun(&o, scripted, &s, &t));
  assert_int_equal(t.num_samples, 0);
  /* A failing sample: the samples before it, summarized. */
  const double w[] = {4, 2, 9};
  s = script(w, 3);
  s.fail_sample_at = 3;
  o = (PrunerTimingOptions){.min_samples = 10, .max_samples = 10};
  assert_false(prunerTimingRun(&o, scripted, &s, &t));
  assert_int_equal(t.num_samples, 3);
  assert_true(t.median_us == 4.0);
  assert_true(t.spread_us == 7.0);
}

static void test_min_clamped_to_max(void **state) {
  (void)state;
  const double v[] = {1};
  Script s = script(v, 1);
  PrunerTimingOptions o = {.min_samples = 100, .max_samples = 3};
  PrunerTiming t;
  assert_true(prunerTimingRun(&o, scripted, &s, &t));
  assert_int_equal(t.num_samples, 3);
  o = (PrunerTimingOptions){.min_samples = 0, .max_samples = 1000};
  s = script(v, 1);
  assert_true(prunerTimingRun(&o, scripted, &s, &t));
  assert_int_equal(t.num_samples, 1); /* at least one sample, at most PRUNER_MAX_SAMPLES */
}

static void test_quantiles(void **state) {
  (void)state;
  const double samples[] = {4, 1, 3, 2};
  double sorted[4];
  prunerTimingSort(samples, 4, sorted);
  assert_true(sorted[0] == 1 && sorted[3] == 4);
  assert_true(prunerTimingQuantile(sorted, 4, 0.5) == 2.5);
  assert_true(prunerTimingQuantile(sorted, 4, 0.25) == 1.75);
  assert_true(prunerTimingQuantile(sorted, 4, 1.0) == 4.0);
  assert_true(prunerTimingQuantile(sorted, 1, 0.75) == 1.0);
}

/* Every buffer starts on a cache line, whatever the heap did before: malloc's 16-byte
 * alignment would give 16, 32 or 48 mod 64 for most of these, as the host's operand
 * buffers had before (pruner/timing.h). */
static void test_buffers_start_on_a_cache_line(void **state) {
  (void)state;
  assert_int_equal(PRUNER_TIMING_BUFFER_ALIGNMENT % 64, 0);
  const size_t sizes[] = {0, 1, 4, 20, 64, 100, 4100, 200000, 861184, 3 * 1024 * 1024 + 4};
  void *kept[2 * (sizeof sizes / sizeof sizes[0])];
  int n = 0;
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i)
    for (int twice = 0; twice < 2; ++twice) {
      unsigned char *b = prunerTimingBufferCreate(sizes[i]);
      assert_non_null(b);
      assert_int_equal((uintptr_t)b % PRUNER_TIMING_BUFFER_ALIGNMENT, 0);
      if (sizes[i] > 0) {
        b[0] = 1; /* the whole requested size is usable */
        b[sizes[i] - 1] = 2;
      }
      kept[n++] = b;
    }
  assert_null(prunerTimingBufferCreate(SIZE_MAX - 8)); /* no wrapped rounding */
  for (int i = 0; i < n; ++i)
    prunerTimingBufferDestroy(kept[i]);
  prunerTimingBufferDestroy(NULL);
}

static void test_clock_is_monotonic(void **state) {
  (void)state;
  double a = prunerNowSeconds(), b = prunerNowSeconds();
  assert_true(a > 0 && b >= a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_host_rule_min_samples),
      cmocka_unit_test(test_host_rule_max_samples),
      cmocka_unit_test(test_runner_rule_iqr),
      cmocka_unit_test(test_budget_ends_noisy_sampling),
      cmocka_unit_test(test_warmup_cap_and_failures),
      cmocka_unit_test(test_min_clamped_to_max),
      cmocka_unit_test(test_quantiles),
      cmocka_unit_test(test_buffers_start_on_a_cache_line),
      cmocka_unit_test(test_clock_is_monotonic),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

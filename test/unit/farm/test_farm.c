/* test_farm.c: pruner/farm.h without a launcher: roles, options, how a process tells it
 * was started by one, and a farm of one rank (NULL) handing batches straight to the
 * backend. The ranks themselves are tested under mpirun by test/farm (ctest farm.*). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "pruner/farm.h"

static void test_roles(void **state) {
  (void)state;
  static const char *const names[] = {"auto", "compile", "measure", "both"};
  for (int i = 0; i < 4; ++i) {
    PrunerFarmRole r = PRUNER_FARM_ROLE_AUTO;
    assert_true(prunerFarmRoleParse(names[i], &r));
    assert_int_equal(r, i);
    assert_string_equal(prunerFarmRoleName(r), names[i]);
  }
  PrunerFarmRole r = PRUNER_FARM_ROLE_BOTH;
  assert_false(prunerFarmRoleParse("Compile", &r));
  assert_false(prunerFarmRoleParse("", &r));
  assert_false(prunerFarmRoleParse(NULL, &r));
  assert_int_equal(r, PRUNER_FARM_ROLE_BOTH); /* untouched on failure */
  /* compile and measure are bits of both: rank 0 matches work by them */
  assert_int_equal(PRUNER_FARM_ROLE_COMPILE | PRUNER_FARM_ROLE_MEASURE, PRUNER_FARM_ROLE_BOTH);
}

static void test_defaults(void **state) {
  (void)state;
  PrunerFarmOptions o = prunerFarmDefaultOptions();
  assert_int_equal(o.role, PRUNER_FARM_ROLE_AUTO);
  assert_true(o.rank_timeout_s == 30.0);
  assert_int_equal(prunerFarmRank(NULL), 0);
  assert_int_equal(prunerFarmSize(NULL), 1);
  assert_int_equal(prunerFarmLostRanks(NULL), 0);
  assert_null(prunerFarmSummary(NULL));
  prunerFarmDestroy(NULL, 0);
}

static void test_launched(void **state) {
  (void)state;
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"};
  for (size_t i = 0; i < 4; ++i)
    unsetenv(vars[i]);
  assert_false(prunerFarmLaunched());
  for (size_t i = 0; i < 4; ++i) {
    setenv(vars[i], "2", 1);
    assert_true(prunerFarmLaunched());
    unsetenv(vars[i]);
  }
}

/* A backend that counts its calls and draws one seed per measured batch. */
typedef struct Fake {
  int measured, exported;
  bool can_measure;
} Fake;
static Fake g_fake;

static bool fakeCanMeasure(const PrunerTargetDesc *t) {
  (void)t;
  return g_fake.can_measure;
}

static PrunerStatus fakeMeasure(PrunerBackendState s, const PrunerBackendBatch *b,
                                const PrunerBackendSink *sink) {
  (void)s;
  g_fake.measured++;
  sink->nextSeed(sink->user);
  for (size_t i = 0; i < b->n; ++i) {
    PrunerRecord r;
    memset(&r, 0, sizeof r);
    PrunerStatus st = sink->candidate(sink->user, i, &r);
    if (!st.ok)
      return st;
  }
  return prunerStatusOk();
}

static PrunerStatus fakeExportAdd(PrunerBackendState s, const PrunerBackendBatch *b,
                                  const PrunerBackendSink *sink) {
  (void)s, (void)b, (void)sink;
  g_fake.exported++;
  return prunerStatusOk();
}

typedef struct Sunk {
  size_t candidates;
  int seeds;
} Sunk;

static PrunerStatus sunkCandidate(void *user, size_t i, PrunerRecord *r) {
  (void)r;
  Sunk *s = user;
  assert_int_equal(i, s->candidates);
  s->candidates++;
  return prunerStatusOk();
}

static uint64_t sunkSeed(void *user) {
  ((Sunk *)user)->seeds++;
  return 7;
}

static void test_resolve_role(void **state) {
  (void)state;
  PrunerBackend b;
  memset(&b, 0, sizeof b);
  assert_int_equal(prunerFarmResolveRole(PRUNER_FARM_ROLE_AUTO, &b, NULL), PRUNER_FARM_ROLE_BOTH);
  b.canMeasure = fakeCanMeasure;
  g_fake.can_measure = false;
  assert_int_equal(prunerFarmResolveRole(PRUNER_FARM_ROLE_AUTO, &b, NULL),
                   PRUNER_FARM_ROLE_COMPILE);
  g_fake.can_measure = true;
  assert_int_equal(prunerFarmResolveRole(PRUNER_FARM_ROLE_AUTO, &b, NULL), PRUNER_FARM_ROLE_BOTH);
  /* A role given is kept, whatever the machine can do. */
  g_fake.can_measure = false;
  assert_int_equal(prunerFarmResolveRole(PRUNER_FARM_ROLE_MEASURE, &b, NULL),
                   PRUNER_FARM_ROLE_MEASURE);
}

/* Without a farm (one process) a batch goes straight to the backend: the same calls and
 * the same seed draws as a plain run. */
static void test_one_rank_passes_through(void **state) {
  (void)state;
  PrunerBackend b;
  memset(&b, 0, sizeof b);
  b.measure = fakeMeasure;
  b.exportAdd = fakeExportAdd;
  b.measure_draws_seed = true;
  memset(&g_fake, 0, sizeof g_fake);
  PrunerWorkload w;
  memset(&w, 0, sizeof w);
  PrunerConfig configs[3];
  double zeros[3] = {0};
  memset(configs, 0, sizeof configs);
  PrunerBackendBatch batch = {
      .workload = &w, .configs = configs, .draft_us = zeros, .verifier_scores = zeros, .n = 3};
  Sunk sunk = {0};
  PrunerBackendSink sink = {.user = &sunk, .candidate = sunkCandidate, .nextSeed = sunkSeed};
  assert_true(prunerFarmMeasure(NULL, &b, NULL, &batch, &sink).ok);
  assert_int_equal(g_fake.measured, 1);
  assert_int_equal(sunk.candidates, 3);
  assert_int_equal(sunk.seeds, 1);
  assert_true(prunerFarmExportAdd(NULL, &b, NULL, &batch, &sink).ok);
  assert_int_equal(g_fake.exported, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_roles),
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_launched),
      cmocka_unit_test(test_resolve_role),
      cmocka_unit_test(test_one_rank_passes_through),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

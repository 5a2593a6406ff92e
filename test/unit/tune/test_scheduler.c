/* White-box tests of the task scheduler (lib/tune/engine.c, docs/tune.md): round-robin
 * until every task had a round, then Ansor's gradient: the task whose weighted objective
 * is expected to drop fastest gets the next round. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../erf_workload.h"

#include "../../../lib/tune/tune_internal.h"

static void setUp(TuneEngine *e) {
  PrunerTuneOptions o = prunerTuneDefaultOptions();
  o.measure = PRUNER_TUNE_MEASURE_NONE;
  assert_true(tuneEngineInit(e, &o).ok);
  PrunerWorkload a, b;
  prunerWorkloadMatmul(&a, 16, 16, 8, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  prunerWorkloadMatmul(&b, 32, 32, 16, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_int_equal(tuneEngineAddWorkload(e, &a, NULL), 0);
  assert_int_equal(tuneEngineAddWorkload(e, &b, NULL), 1);
  assert_int_equal(tuneEngineAddWorkload(e, &a, NULL), 0); /* same key: one task, weight 2 */
  assert_int_equal(e->num_tasks, 2);
  assert_int_equal(e->tasks[0].occurrences, 2);
  assert_true(tuneEnginePrepare(e).ok);
}

static void setTask(TuneTask *t, int rounds, double best, double prev, int64_t trials) {
  t->rounds = rounds;
  t->has_best = true;
  t->best_us = best;
  t->prev_best_us = prev;
  t->trials = trials;
  t->last_round_trials = 16;
}

static void test_round_robin_first(void **state) {
  (void)state;
  TuneEngine e;
  setUp(&e);
  assert_ptr_equal(tuneEngineNextTask(&e), &e.tasks[0]);
  setTask(&e.tasks[0], 1, 10, 20, 16);
  assert_ptr_equal(tuneEngineNextTask(&e), &e.tasks[1]); /* never tuned yet */
  /* Two warm-up rounds: round-robin until every task has had two, gradient after. */
  e.opts.warmup_rounds = 2;
  setTask(&e.tasks[1], 1, 10, 20, 16);
  assert_ptr_equal(tuneEngineNextTask(&e), &e.tasks[0]);
  e.tasks[0].rounds = 2;
  assert_ptr_equal(tuneEngineNextTask(&e), &e.tasks[1]);
  e.tasks[0].done = true;
  e.tasks[1].done = true;
  assert_null(tuneEngineNextTask(&e));
  tuneEngineDestroy(&e);
}

static void test_gradient_prefers_improving_task(void **state) {
  (void)state;
  TuneEngine e;
  setUp(&e);
  /* Task 0 stalled at 10 us; task 1 just dropped from 200 to 100 us. */
  setTask(&e.tasks[0], 3, 10, 10, 48);
  setTask(&e.tasks[1], 3, 100, 200, 48);
  assert_ptr_equal(tuneEngineNextTask(&e), &e.tasks[1]);
  /* Now task 1 stalls and task 0 (weight 2) improves a lot: task 0. */
  setTask(&e.tasks[0], 4, 10, 40, 64);
  setTask(&e.tasks[1], 4, 100, 100, 64);
  e.tasks[1].best_us = 11; /* similar rates, so the forward term does not dominate */
  e.tasks[1].prev_best_us = 11;
  assert_ptr_equal(tuneEngineNextTask(&e), &e.tasks[0]);
  /* Round-robin mode ignores gradients: the task with fewer rounds. */
  e.opts.gradient_scheduler = false;
  e.tasks[0].rounds = 5;
  assert_ptr_equal(tuneEngineNextTask(&e), &e.tasks[1]);
  tuneEngineDestroy(&e);
}

/* A task that cannot be measured (no valid record after its rounds, e.g. an f16 op on
 * the host) gets at most the 3 rounds docs/tune.md promises; the budget then goes to the
 * tasks that can be measured, in both scheduler modes, and ends when none is left. */
static void test_unmeasurable_task_gets_three_rounds(void **state) {
  (void)state;
  TuneEngine e;
  setUp(&e);
  setTask(&e.tasks[1], 1, 10, 20, 16);
  e.tasks[0].rounds = 1; /* invalid so far: no best */
  assert_ptr_equal(tuneEngineNextTask(&e), &e.tasks[0]);
  e.tasks[0].rounds = 2;
  assert_ptr_equal(tuneEngineNextTask(&e), &e.tasks[0]);
  e.tasks[0].rounds = 3;
  for (int r = 2; r < 40; ++r) {
    setTask(&e.tasks[1], r, 10, 10, 16 * r);
    assert_ptr_equal(tuneEngineNextTask(&e), &e.tasks[1]);
  }
  e.opts.gradient_scheduler = false;
  assert_ptr_equal(tuneEngineNextTask(&e), &e.tasks[1]);
  e.opts.warmup_rounds = 10; /* warm-up rounds do not extend the cap either */
  e.opts.gradient_scheduler = true;
  setTask(&e.tasks[1], 4, 10, 10, 64);
  assert_ptr_equal(tuneEngineNextTask(&e), &e.tasks[1]);
  e.tasks[1].done = true;
  assert_null(tuneEngineNextTask(&e)); /* only the unmeasurable task left: stop */
  tuneEngineDestroy(&e);
}

/* "Similar tasks" (Ansor's forward term: a task could reach beta x the best FLOP rate of
 * its kind) must have the same body: a GELU (add then erf, libm's erff counted as one FLOP)
 * beside a bias add of the same shape looked 40x short of the add's rate, forever, and
 * took every round while it stayed flat (a review's BERT layer: six rounds, 1%) instead
 * of the matmul that was still improving. */
static void test_similar_tasks_share_a_body(void **state) {
  (void)state;
  TuneEngine e;
  PrunerTuneOptions o = prunerTuneDefaultOptions();
  o.measure = PRUNER_TUNE_MEASURE_NONE;
  assert_true(tuneEngineInit(&e, &o).ok);
  const int64_t dims[2] = {128, 3072};
  PrunerWorkload add, gelu, mm;
  prunerWorkloadElementwiseAdd(&add, dims, 2, PRUNER_DTYPE_F32);
  testErfWorkload(&gelu, dims, 2);
  assert_true(gelu.body_hash != add.body_hash);
  prunerWorkloadMatmul(&mm, 128, 768, 768, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  assert_int_equal(tuneEngineAddWorkload(&e, &add, NULL), 0);
  assert_int_equal(tuneEngineAddWorkload(&e, &gelu, NULL), 1);
  assert_int_equal(tuneEngineAddWorkload(&e, &mm, NULL), 2);
  assert_true(tuneEnginePrepare(&e).ok);
  setTask(&e.tasks[0], 3, 20, 20, 48);       /* the add: 20 us, flat */
  setTask(&e.tasks[1], 3, 1600, 1600, 48);   /* the GELU: 1.6 ms, flat */
  setTask(&e.tasks[2], 3, 1565, 2000, 48);   /* the matmul: still dropping */
  assert_ptr_equal(tuneEngineNextTask(&e), &e.tasks[2]);
  tuneEngineDestroy(&e);
}

/* Warm-up rounds share a small budget so that every task is measured; later rounds take
 * the batch, capped at what is left. */
static void test_round_size_spreads_small_budgets(void **state) {
  (void)state;
  TuneEngine e;
  setUp(&e); /* batch 16, two tasks */
  assert_int_equal(tuneEngineRoundSize(&e, &e.tasks[0], 100), 16);
  assert_int_equal(tuneEngineRoundSize(&e, &e.tasks[0], 16), 8);
  assert_int_equal(tuneEngineRoundSize(&e, &e.tasks[0], 5), 2);
  assert_int_equal(tuneEngineRoundSize(&e, &e.tasks[0], 1), 1); /* never 0 */
  e.tasks[0].rounds = 1; /* task 1 is the only one waiting now: it may take all K */
  assert_int_equal(tuneEngineRoundSize(&e, &e.tasks[1], 8), 8);
  assert_int_equal(tuneEngineRoundSize(&e, &e.tasks[0], 100), 16);
  assert_int_equal(tuneEngineRoundSize(&e, &e.tasks[0], 3), 3);
  /* A finished task is not waiting. */
  e.tasks[0].rounds = 0;
  e.tasks[1].done = true;
  assert_int_equal(tuneEngineRoundSize(&e, &e.tasks[0], 10), 10);
  tuneEngineDestroy(&e);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_robin_first),
      cmocka_unit_test(test_gradient_prefers_improving_task),
      cmocka_unit_test(test_unmeasurable_task_gets_three_rounds),
      cmocka_unit_test(test_similar_tasks_share_a_body),
      cmocka_unit_test(test_round_size_spreads_small_budgets),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

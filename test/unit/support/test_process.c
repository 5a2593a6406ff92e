/* test_process.c: prunerProcessRun (pruner/process.h): capture, exit status, timeout, a
 * program that does not exist. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "pruner/process.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_captures_both_streams_and_exit(void **state) {
  (void)state;
  char log[64];
  int ws = -1;
  char *argv[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
  PrunerStatus st = prunerProcessRun(argv, 10, log, sizeof log, &ws);
  assert_true(st.ok);
  assert_true(WIFEXITED(ws));
  assert_int_equal(WEXITSTATUS(ws), 3);
  assert_non_null(strstr(log, "out\n"));
  assert_non_null(strstr(log, "err\n"));
}

/* The log keeps what fits and stays NUL-terminated. */
static void test_truncates_log(void **state) {
  (void)state;
  char log[8];
  int ws = -1;
  char *argv[] = {"sh", "-c", "echo 0123456789abcdef", NULL};
  assert_true(prunerProcessRun(argv, 10, log, sizeof log, &ws).ok);
  assert_string_equal(log, "0123456");
}

/* Killed at the deadline, with and without captured output. */
static void test_timeout_kills(void **state) {
  (void)state;
  char log[64];
  int ws = 0;
  char *argv[] = {"sleep", "20", NULL};
  for (int capture = 0; capture < 2; ++capture) {
    double t0 = now();
    PrunerStatus st = prunerProcessRun(argv, 0.3, capture ? log : NULL, sizeof log, &ws);
    double elapsed = now() - t0;
    assert_false(st.ok);
    assert_non_null(strstr(st.message, "timeout after 0.3s in sleep"));
    assert_true(elapsed < 5.0);
    assert_true(WIFSIGNALED(ws));
  }
}

static void test_missing_program(void **state) {
  (void)state;
  int ws = 0;
  char *argv[] = {"/nonexistent/pruner-nothing", NULL};
  PrunerStatus st = prunerProcessRun(argv, 0, NULL, 0, &ws);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "cannot run /nonexistent/pruner-nothing"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_captures_both_streams_and_exit),
      cmocka_unit_test(test_truncates_log),
      cmocka_unit_test(test_timeout_kills),
      cmocka_unit_test(test_missing_program),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_process.c: prunerProcessRun (pruner/process.h): capture, exit status, timeout, a
 * program that does not exist. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>

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

static volatile sig_atomic_t stop_flag;
static void onAlarm(int sig) {
  (void)sig;
  stop_flag = 1;
}

/* The stop flag (Ctrl-C in the tuner) kills a child that has no deadline: set before the
 * call, and set by a signal handler while the call waits, with and without capture. */
static void test_stop_flag_kills(void **state) {
  (void)state;
  char log[64];
  char *argv[] = {"sleep", "600", NULL};
  struct sigaction sa = {0};
  sa.sa_handler = onAlarm;
  sigaction(SIGALRM, &sa, NULL);
  for (int capture = 0; capture < 2; ++capture) {
    for (int preset = 0; preset < 2; ++preset) {
      int ws = 0;
      stop_flag = preset;
      if (!preset) {
        struct itimerval it = {{0, 0}, {0, 200 * 1000}};
        setitimer(ITIMER_REAL, &it, NULL);
      }
      PrunerStatus st =
          prunerProcessRunStoppable(argv, 0, &stop_flag, capture ? log : NULL, sizeof log, &ws);
      assert_false(st.ok);
      assert_true(prunerProcessInterrupted(st));
      assert_non_null(strstr(st.message, "sleep: interrupted"));
      assert_true(WIFSIGNALED(ws));
    }
  }
  /* A flag that stays clear changes nothing; a timeout is not an interruption. */
  stop_flag = 0;
  int ws = 0;
  char *quick[] = {"sh", "-c", "exit 0", NULL};
  assert_true(prunerProcessRunStoppable(quick, 10, &stop_flag, NULL, 0, &ws).ok);
  char *slow[] = {"sleep", "20", NULL};
  PrunerStatus st = prunerProcessRunStoppable(slow, 0.2, &stop_flag, NULL, 0, &ws);
  assert_false(st.ok);
  assert_false(prunerProcessInterrupted(st));
}

/* The child's stdout lands on our stderr, never on our stdout (prunerMeasureRunBundle's
 * pruner-run broke pruner-bench's JSON on stdout). */
static void test_stdout_to_stderr(void **state) {
  (void)state;
  char out_path[] = "/tmp/pruner-process-outXXXXXX", err_path[] = "/tmp/pruner-process-errXXXXXX";
  int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
  assert_true(out_fd >= 0 && err_fd >= 0);
  fflush(stdout);
  fflush(stderr);
  int saved_out = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
  dup2(out_fd, STDOUT_FILENO);
  dup2(err_fd, STDERR_FILENO);
  int ws = -1;
  char *argv[] = {"sh", "-c", "echo to-out; echo to-err >&2", NULL};
  PrunerStatus st = prunerProcessRunToStderr(argv, 10, NULL, &ws);
  dup2(saved_out, STDOUT_FILENO);
  dup2(saved_err, STDERR_FILENO);
  close(saved_out);
  close(saved_err);
  assert_true(st.ok);
  assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
  char got[64] = "";
  assert_int_equal(pread(out_fd, got, sizeof got - 1, 0), 0); /* nothing on stdout */
  ssize_t n = pread(err_fd, got, sizeof got - 1, 0);
  assert_true(n > 0);
  got[n] = '\0';
  assert_string_equal(got, "to-out\nto-err\n");
  close(out_fd);
  close(err_fd);
  unlink(out_path);
  unlink(err_path);
}

static void test_missing_program(void **state) {
  (void)state;
  int ws = 0;
  char *argv[] = {"/nonexistent/pruner-nothing", NULL};
  PrunerStatus st = prunerProcessRun(argv, 0, NULL, 0, &ws);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "cannot run /nonexistent/pruner-nothing"));
}

/* A tool run by an MPI rank does not see the launcher's variables (IREE's runtime took
 * them for a job of its own and aborted in MPI_Init); the rest of the environment stays. */
static void test_no_launcher_environment(void **state) {
  (void)state;
  setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
  setenv("PMIX_RANK", "1", 1);
  setenv("PMI_RANK", "1", 1);
  setenv("MPI_LOCALRANKID", "1", 1);
  setenv("PRUNER_TEST_KEPT", "yes", 1);
  static char log[1 << 17]; /* the whole environment */
  int ws = -1;
  char *argv[] = {"env", NULL};
  PrunerStatus st = prunerProcessRun(argv, 10, log, sizeof log, &ws);
  unsetenv("OMPI_COMM_WORLD_SIZE");
  unsetenv("PMIX_RANK");
  unsetenv("PMI_RANK");
  unsetenv("MPI_LOCALRANKID");
  assert_true(st.ok);
  assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
  assert_non_null(strstr(log, "PRUNER_TEST_KEPT=yes"));
  assert_null(strstr(log, "OMPI_COMM_WORLD_SIZE"));
  assert_null(strstr(log, "PMIX_RANK"));
  assert_null(strstr(log, "PMI_RANK"));
  assert_null(strstr(log, "MPI_LOCALRANKID"));
  unsetenv("PRUNER_TEST_KEPT");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_captures_both_streams_and_exit),
      cmocka_unit_test(test_truncates_log),
      cmocka_unit_test(test_timeout_kills),
      cmocka_unit_test(test_stop_flag_kills),
      cmocka_unit_test(test_stdout_to_stderr),
      cmocka_unit_test(test_missing_program),
      cmocka_unit_test(test_no_launcher_environment),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

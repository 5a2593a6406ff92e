/* The isolated worker (pruner/worker.h): answers, timeouts, crashes, retiring children,
 * reply tails, several workers at once, the process-group kill and the memory limit. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pruner/worker.h"

typedef struct Req {
  int op;
  int value;
} Req;
typedef struct Rep {
  int value;
  int pid;
} Rep;

static bool handler(void *ctx, const void *request, void *reply) {
  (void)ctx;
  const Req *q = request;
  Rep *r = reply;
  r->pid = (int)getpid();
  switch (q->op) {
  case 0:
    r->value = q->value * 2;
    return true; /* answer */
  case 1:
    for (;;)
      pause(); /* hang */
  case 2:
    raise(SIGSEGV);
    return true; /* crash */
  case 3:
    r->value = -1;
    return false; /* answer, then retire */
  }
  return true;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_watchdog(void **state) {
  (void)state;
  PrunerWorkerSpec spec = {
      .handler = handler, .request_size = sizeof(Req), .reply_size = sizeof(Rep)};
  PrunerWorker w;
  assert_true(prunerWorkerCreate(&spec, &w).ok);
  assert_int_equal(prunerWorkerGeneration(w), 0);
  Req q = {0, 21};
  Rep r;
  char why[256];
  assert_int_equal(prunerWorkerCall(w, &q, &r, 5, why, sizeof(why)), PRUNER_WORKER_DONE);
  assert_int_equal(r.value, 42);
  int first_pid = r.pid;
  assert_int_equal(prunerWorkerGeneration(w), 1);
  q.op = 1; /* hang */
  assert_int_equal(prunerWorkerCall(w, &q, &r, 0.3, why, sizeof(why)), PRUNER_WORKER_TIMEOUT);
  assert_non_null(strstr(why, "no reply within 0.3 s"));
  q.op = 0;
  assert_int_equal(prunerWorkerCall(w, &q, &r, 5, why, sizeof(why)), PRUNER_WORKER_DONE);
  assert_int_equal(r.value, 42);
  assert_int_not_equal(r.pid, first_pid);
  assert_int_equal(prunerWorkerGeneration(w), 2);
  q.op = 2; /* crash */
  assert_int_equal(prunerWorkerCall(w, &q, &r, 5, why, sizeof(why)), PRUNER_WORKER_CRASHED);
  assert_non_null(strstr(why, "worker killed by signal 11"));
  q.op = 3; /* retires after answering */
  assert_int_equal(prunerWorkerCall(w, &q, &r, 5, why, sizeof(why)), PRUNER_WORKER_DONE);
  assert_int_equal(r.value, -1);
  assert_int_equal(prunerWorkerGeneration(w), 3);
  q.op = 0;
  assert_int_equal(prunerWorkerCall(w, &q, &r, 5, why, sizeof(why)), PRUNER_WORKER_DONE);
  assert_int_equal(prunerWorkerGeneration(w), 4);
  /* A NaN or non-positive timeout is refused before anything is sent. */
  assert_int_equal(prunerWorkerCall(w, &q, &r, NAN, why, sizeof(why)), PRUNER_WORKER_FAILED);
  assert_non_null(strstr(why, "not a positive number"));
  assert_int_equal(prunerWorkerCall(w, &q, &r, -1, why, sizeof(why)), PRUNER_WORKER_FAILED);
  assert_int_equal(prunerWorkerCall(w, &q, &r, 5, why, sizeof(why)), PRUNER_WORKER_DONE);
  assert_int_equal(prunerWorkerGeneration(w), 4);
  prunerWorkerDestroy(w);
}

/* child_reaped runs in the parent once for every child, however it ended: killed by the
 * watchdog, crashed, retired after answering, or ended at destroy. */
typedef struct Reaped {
  int pids[16];
  int n;
} Reaped;

static void onReaped(void *context, int pid) {
  Reaped *r = context;
  if (r->n < 16)
    r->pids[r->n++] = pid;
}

static int countPid(const Reaped *r, int pid) {
  int c = 0;
  for (int i = 0; i < r->n; ++i)
    c += r->pids[i] == pid;
  return c;
}

static void test_child_reaped(void **state) {
  (void)state;
  Reaped reaped = {{0}, 0};
  PrunerWorkerSpec spec = {.handler = handler,
                           .context = &reaped,
                           .request_size = sizeof(Req),
                           .reply_size = sizeof(Rep),
                           .child_reaped = onReaped};
  PrunerWorker w;
  assert_true(prunerWorkerCreate(&spec, &w).ok);
  Req q = {0, 1};
  Rep r;
  int pids[4];
  /* Killed by the watchdog. */
  assert_int_equal(prunerWorkerCall(w, &q, &r, 5, NULL, 0), PRUNER_WORKER_DONE);
  pids[0] = r.pid;
  q.op = 1;
  assert_int_equal(prunerWorkerCall(w, &q, &r, 0.2, NULL, 0), PRUNER_WORKER_TIMEOUT);
  assert_int_equal(countPid(&reaped, pids[0]), 1);
  /* Crashed. */
  q.op = 0;
  assert_int_equal(prunerWorkerCall(w, &q, &r, 5, NULL, 0), PRUNER_WORKER_DONE);
  pids[1] = r.pid;
  q.op = 2;
  assert_int_equal(prunerWorkerCall(w, &q, &r, 5, NULL, 0), PRUNER_WORKER_CRASHED);
  assert_int_equal(countPid(&reaped, pids[1]), 1);
  /* Retired after its answer. */
  q.op = 3;
  assert_int_equal(prunerWorkerCall(w, &q, &r, 5, NULL, 0), PRUNER_WORKER_DONE);
  pids[2] = r.pid;
  /* Ended at destroy (EOF on its input). */
  q.op = 0;
  assert_int_equal(prunerWorkerCall(w, &q, &r, 5, NULL, 0), PRUNER_WORKER_DONE);
  pids[3] = r.pid;
  assert_int_equal(countPid(&reaped, pids[2]), 1);
  assert_int_equal(countPid(&reaped, pids[3]), 0);
  prunerWorkerDestroy(w);
  for (int i = 0; i < 4; ++i)
    assert_int_equal(countPid(&reaped, pids[i]), 1);
  assert_int_equal(reaped.n, 4);
}

/* The stop flag (a tool's Ctrl-C handler sets it): a wait on a hanging child notices it,
 * kills the child and reports INTERRUPTED instead of waiting out the timeout; set by a
 * real signal handler (SIGALRM after 0.2 s) and set before the wait. Without the flag
 * being honoured the 30 s call ends in TIMEOUT. */
static volatile sig_atomic_t g_stop;

static void onAlarm(int sig) { g_stop = sig; }

static void test_stop_flag(void **state) {
  (void)state;
  PrunerWorkerSpec spec = {
      .handler = handler, .request_size = sizeof(Req), .reply_size = sizeof(Rep), .stop = &g_stop};
  PrunerWorker w;
  assert_true(prunerWorkerCreate(&spec, &w).ok);
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = onAlarm;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, &old);
  struct itimerval it = {.it_value = {0, 200 * 1000}};
  g_stop = 0;
  setitimer(ITIMER_REAL, &it, NULL);
  Req q = {1, 0}; /* hang */
  Rep r;
  char why[256];
  assert_int_equal(prunerWorkerCall(w, &q, &r, 30, why, sizeof(why)), PRUNER_WORKER_INTERRUPTED);
  assert_non_null(strstr(why, "interrupted"));
  assert_false(prunerWorkerBusy(w));
  sigaction(SIGALRM, &old, NULL);
  /* Set before the wait (a signal that landed just before poll()): noticed at once. */
  assert_int_equal(prunerWorkerSend(w, &q, 30, why, sizeof(why)), PRUNER_WORKER_DONE);
  prunerWorkerWaitAny(&w, 1); /* returns after one look at the flag, not after 30 s */
  assert_int_equal(prunerWorkerReceive(w, &r, NULL, NULL, false, why, sizeof(why)),
                   PRUNER_WORKER_INTERRUPTED);
  /* Cleared, the next request gets a fresh child and an answer. */
  g_stop = 0;
  q.op = 0;
  q.value = 4;
  assert_int_equal(prunerWorkerCall(w, &q, &r, 5, why, sizeof(why)), PRUNER_WORKER_DONE);
  assert_int_equal(r.value, 8);
  assert_int_equal(prunerWorkerGeneration(w), 3);
  prunerWorkerDestroy(w);
}

static void test_bad_spec(void **state) {
  (void)state;
  PrunerWorker w;
  PrunerWorkerSpec none = {.handler = NULL, .request_size = sizeof(Req), .reply_size = sizeof(Rep)};
  assert_false(prunerWorkerCreate(&none, &w).ok);
  PrunerWorkerSpec empty = {.handler = handler, .request_size = sizeof(Req), .reply_size = 0};
  assert_false(prunerWorkerCreate(&empty, &w).ok);
}

/* A tail of `value` bytes, each its index mod 251; the count of requests the child has
 * seen so far comes back in the reply (state kept in the child's copy of the context). */
typedef struct Counter {
  int seen;
  int init_calls;
} Counter;

static void countInit(void *context) { ((Counter *)context)->init_calls++; }

static bool tailHandler(void *context, const void *request, void *reply, void **tail,
                        size_t *tail_size) {
  Counter *c = context;
  const Req *q = request;
  Rep *r = reply;
  r->value = ++c->seen * 1000 + c->init_calls;
  r->pid = (int)getpid();
  if (q->value > 0) {
    unsigned char *bytes = malloc((size_t)q->value);
    for (int i = 0; i < q->value; ++i)
      bytes[i] = (unsigned char)(i % 251);
    *tail = bytes;
    *tail_size = (size_t)q->value;
  }
  return true;
}

static void test_tail_and_child_state(void **state) {
  (void)state;
  Counter counter = {0, 0};
  PrunerWorkerSpec spec = {.context = &counter,
                           .request_size = sizeof(Req),
                           .reply_size = sizeof(Rep),
                           .tail_handler = tailHandler,
                           .child_init = countInit};
  PrunerWorker w;
  assert_true(prunerWorkerCreate(&spec, &w).ok);
  char why[256];
  /* Larger than a socket buffer: the reader must assemble it from many pieces. */
  int sizes[] = {0, 5, 3 << 20, 1};
  for (int k = 0; k < 4; ++k) {
    Req q = {0, sizes[k]};
    Rep r;
    assert_int_equal(prunerWorkerSend(w, &q, 10, why, sizeof(why)), PRUNER_WORKER_DONE);
    assert_true(prunerWorkerBusy(w));
    void *tail = (void *)1;
    size_t tail_size = 99;
    assert_int_equal(prunerWorkerReceive(w, &r, &tail, &tail_size, true, why, sizeof(why)),
                     PRUNER_WORKER_DONE);
    assert_false(prunerWorkerBusy(w));
    assert_int_equal(r.value, (k + 1) * 1000 + 1); /* one child, initialised once */
    assert_int_equal(tail_size, (size_t)sizes[k]);
    if (sizes[k] == 0) {
      assert_null(tail);
    } else {
      const unsigned char *bytes = tail;
      for (int i = 0; i < sizes[k]; ++i)
        assert_int_equal(bytes[i], i % 251);
    }
    free(tail);
  }
  assert_int_equal(counter.seen, 0); /* the parent's copy is untouched */
  /* prunerWorkerCall drops a tail. */
  Req q = {0, 100};
  Rep r;
  assert_int_equal(prunerWorkerCall(w, &q, &r, 5, why, sizeof(why)), PRUNER_WORKER_DONE);
  assert_int_equal(r.value, 5001);
  prunerWorkerDestroy(w);
}

/* Two workers at once: one hangs, one answers; WaitAny wakes for the answer before the
 * hanging one's deadline, which then expires on its own, never early. No upper bound on
 * times: the deadline (3 s) is long against an answer (milliseconds) even under load. */
static void test_several_workers(void **state) {
  (void)state;
  PrunerWorkerSpec spec = {
      .handler = handler, .request_size = sizeof(Req), .reply_size = sizeof(Rep)};
  PrunerWorker w[2];
  assert_true(prunerWorkerCreate(&spec, &w[0]).ok);
  assert_true(prunerWorkerCreate(&spec, &w[1]).ok);
  char why[256];
  Req hang = {1, 0}, answer = {0, 4};
  Rep r;
  /* Before the sends: w[0]'s deadline counts from its send, and starting w[1]'s child
   * (a fork, slow under ASan on a loaded machine) comes between the two. */
  double start = now();
  assert_int_equal(prunerWorkerSend(w[0], &hang, 3.0, why, sizeof(why)), PRUNER_WORKER_DONE);
  assert_int_equal(prunerWorkerSend(w[1], &answer, 5.0, why, sizeof(why)), PRUNER_WORKER_DONE);
  assert_int_equal(prunerWorkerSend(w[1], &answer, 5.0, why, sizeof(why)), PRUNER_WORKER_FAILED);
  bool answered = false, timedOut = false;
  while (!answered || !timedOut) {
    prunerWorkerWaitAny(w, 2);
    PrunerWorkerOutcome o0 =
        prunerWorkerBusy(w[0]) ? prunerWorkerReceive(w[0], &r, NULL, NULL, false, why, sizeof(why))
                               : PRUNER_WORKER_PENDING;
    if (o0 == PRUNER_WORKER_TIMEOUT) {
      timedOut = true;
      assert_true(answered); /* the answer came first */
      assert_true(now() - start >= 3.0);
    } else {
      assert_int_equal(o0, PRUNER_WORKER_PENDING);
    }
    if (prunerWorkerBusy(w[1])) {
      PrunerWorkerOutcome o1 = prunerWorkerReceive(w[1], &r, NULL, NULL, false, why, sizeof(why));
      if (o1 == PRUNER_WORKER_DONE) {
        answered = true;
        assert_int_equal(r.value, 8);
      } else {
        assert_int_equal(o1, PRUNER_WORKER_PENDING);
      }
    }
  }
  prunerWorkerDestroy(w[0]);
  prunerWorkerDestroy(w[1]);
}

/* A handler that spawns a grandchild which would outlive it, then hangs: the timeout
 * kills the whole process group, grandchild included. The grandchild's pid comes back
 * through a pipe the parent reads. */
static int g_pipe[2];

static bool spawnHandler(void *ctx, const void *request, void *reply) {
  (void)ctx, (void)request, (void)reply;
  pid_t pid = fork();
  if (pid == 0) {
    execlp("sleep", "sleep", "60", (char *)NULL);
    _exit(127);
  }
  int sent = (int)pid;
  if (write(g_pipe[1], &sent, sizeof(sent)) != (ssize_t)sizeof(sent))
    _exit(1);
  for (;;)
    pause();
}

static void test_group_killed(void **state) {
  (void)state;
  assert_int_equal(pipe(g_pipe), 0);
  PrunerWorkerSpec spec = {
      .handler = spawnHandler, .request_size = sizeof(Req), .reply_size = sizeof(Rep)};
  PrunerWorker w;
  assert_true(prunerWorkerCreate(&spec, &w).ok);
  Req q = {0, 0};
  Rep r;
  char why[256];
  assert_int_equal(prunerWorkerCall(w, &q, &r, 0.5, why, sizeof(why)), PRUNER_WORKER_TIMEOUT);
  int grandchild = 0;
  assert_int_equal(read(g_pipe[0], &grandchild, sizeof(grandchild)), (ssize_t)sizeof(grandchild));
  assert_true(grandchild > 0);
  /* Killed with the group; reaped by init (or a subreaper) soon after. */
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = kill(grandchild, 0) != 0 && errno == ESRCH;
    if (!gone) {
      char path[64], stat[512] = "";
      snprintf(path, sizeof(path), "/proc/%d/stat", grandchild);
      FILE *f = fopen(path, "r");
      if (f) {
        if (!fgets(stat, sizeof(stat), f))
          stat[0] = '\0';
        fclose(f);
      }
      const char *close = strrchr(stat, ')');
      gone = !f || (close && close[1] == ' ' && close[2] == 'Z'); /* a zombie is dead */
    }
    if (!gone)
      usleep(10000);
  }
  assert_true(gone);
  close(g_pipe[0]);
  close(g_pipe[1]);
  prunerWorkerDestroy(w);
}

/* The memory limit applies in the child: a 256 MB allocation fails under 64 MB more than
 * what the test already maps, and succeeds without a limit. */
static bool allocHandler(void *ctx, const void *request, void *reply) {
  (void)ctx, (void)request;
  void *p = malloc((size_t)256 << 20);
  ((Rep *)reply)->value = p != NULL;
  free(p);
  return true;
}

static long mappedMb(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0;
  if (f) {
    if (fscanf(f, "%ld", &pages) != 1)
      pages = 0;
    fclose(f);
  }
  return pages * sysconf(_SC_PAGESIZE) / (1024 * 1024);
}

static void test_memory_limit(void **state) {
  (void)state;
  if (!prunerAddressSpaceLimitSupported()) {
    assert_false(prunerLimitAddressSpace(64)); /* refused, not silently half-applied */
    skip();                                    /* ASan build: no RLIMIT_AS (worker.h) */
  }
  PrunerWorkerSpec spec = {
      .handler = allocHandler, .request_size = sizeof(Req), .reply_size = sizeof(Rep)};
  PrunerWorker free_w, limited;
  assert_true(prunerWorkerCreate(&spec, &free_w).ok);
  spec.memory_limit_mb = mappedMb() + 64;
  assert_true(prunerWorkerCreate(&spec, &limited).ok);
  Req q = {0, 0};
  Rep r;
  char why[256];
  assert_int_equal(prunerWorkerCall(free_w, &q, &r, 5, why, sizeof(why)), PRUNER_WORKER_DONE);
  assert_int_equal(r.value, 1);
  assert_int_equal(prunerWorkerCall(limited, &q, &r, 5, why, sizeof(why)), PRUNER_WORKER_DONE);
  assert_int_equal(r.value, 0);
  prunerWorkerDestroy(free_w);
  prunerWorkerDestroy(limited);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_watchdog),        cmocka_unit_test(test_bad_spec),
      cmocka_unit_test(test_stop_flag),       cmocka_unit_test(test_tail_and_child_state),
      cmocka_unit_test(test_several_workers), cmocka_unit_test(test_group_killed),
      cmocka_unit_test(test_memory_limit),    cmocka_unit_test(test_child_reaped),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

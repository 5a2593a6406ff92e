/* The isolated worker (pruner/measure.h): a forked child that answers fixed-size requests
 * through a socket pair, watched by a per-call timeout in the parent.
 *
 * Protocol: the parent writes request_size bytes; the child answers with one flag byte
 * (1: it stays alive, 0: it exits after this reply) and then reply_size bytes. A socket
 * pair rather than pipes so that the parent can send with MSG_NOSIGNAL and never gets a
 * SIGPIPE from a dead child (the library must not touch signal dispositions). */
#include "pruner/measure.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

struct PrunerWorkerImpl {
  PrunerWorkerSpec spec;
  pid_t pid;     /* -1 when no child runs */
  int fd;        /* parent's end of the socket pair, -1 when none */
  int generation;
};

static double nowSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Blocking full read in the child; false on EOF or error. */
static bool readAll(int fd, void *buf, size_t size) {
  unsigned char *p = buf;
  while (size > 0) {
    ssize_t n = read(fd, p, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    size -= (size_t)n;
  }
  return true;
}

static bool sendAll(int fd, const void *buf, size_t size) {
  const unsigned char *p = buf;
  while (size > 0) {
    ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    size -= (size_t)n;
  }
  return true;
}

/* The reply buffer is its own allocation (malloc's alignment): handing the handler
 * `message + 1` misaligned every reply struct (UBSan: misaligned member access). */
static void childLoop(const PrunerWorkerSpec *spec, int fd) {
  unsigned char *request = malloc(spec->request_size ? spec->request_size : 1);
  unsigned char *reply = malloc(spec->reply_size);
  unsigned char *message = malloc(spec->reply_size + 1);
  if (!request || !reply || !message)
    _exit(70);
  for (;;) {
    if (!readAll(fd, request, spec->request_size))
      _exit(0); /* parent closed the pair: done */
    memset(reply, 0, spec->reply_size);
    bool keep = spec->handler(spec->context, request, reply);
    message[0] = keep ? 1 : 0;
    memcpy(message + 1, reply, spec->reply_size);
    if (!sendAll(fd, message, spec->reply_size + 1) || !keep)
      _exit(0);
  }
}

static void reap(PrunerWorker worker, int *wait_status) {
  if (worker->fd >= 0)
    close(worker->fd);
  worker->fd = -1;
  if (worker->pid > 0) {
    int st = 0;
    while (waitpid(worker->pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (wait_status)
      *wait_status = st;
  }
  worker->pid = -1;
}

static void killChild(PrunerWorker worker) {
  if (worker->pid > 0)
    kill(worker->pid, SIGKILL);
  reap(worker, NULL);
}

static void describeExit(int st, char *why, size_t size) {
  if (!why || size == 0)
    return;
  if (WIFSIGNALED(st))
    snprintf(why, size, "worker killed by signal %d (%s)", WTERMSIG(st),
             strsignal(WTERMSIG(st)));
  else if (WIFEXITED(st))
    snprintf(why, size, "worker exited with code %d before answering", WEXITSTATUS(st));
  else
    snprintf(why, size, "worker ended (wait status %d) before answering", st);
}

PrunerStatus prunerWorkerCreate(const PrunerWorkerSpec *spec, PrunerWorker *out) {
  if (!spec || !spec->handler || spec->reply_size == 0)
    return prunerStatusError("worker: a handler and a non-zero reply size are required");
  PrunerWorker worker = calloc(1, sizeof(*worker));
  if (!worker)
    return prunerStatusError("worker: out of memory");
  worker->spec = *spec;
  worker->pid = -1;
  worker->fd = -1;
  *out = worker;
  return prunerStatusOk();
}

PrunerStatus prunerWorkerEnsureStarted(PrunerWorker worker) {
  if (worker->pid > 0)
    return prunerStatusOk();
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    return prunerStatusError("worker: socketpair failed: %s", strerror(errno));
  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    close(fds[0]);
    close(fds[1]);
    return prunerStatusError("worker: fork failed: %s", strerror(err));
  }
  if (pid == 0) {
    close(fds[0]);
#ifdef __linux__
    /* A killed runner must not leave a child holding the GPU. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    /* A fault in the child must kill it, even if the parent installed handlers that
     * would catch it (test harnesses, crash reporters) and resume in inherited code. */
    const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM};
    for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
      signal(fatal[i], SIG_DFL);
    /* Ctrl-C is the parent's to handle; the child dies with it (PDEATHSIG) instead of
     * first reporting a bogus crash for the candidate in flight. */
    signal(SIGINT, SIG_IGN);
    childLoop(&worker->spec, fds[1]);
    _exit(0);
  }
  close(fds[1]);
  worker->pid = pid;
  worker->fd = fds[0];
  worker->generation++;
  return prunerStatusOk();
}

PrunerWorkerOutcome prunerWorkerCall(PrunerWorker worker, const void *request, void *reply,
                                     double timeout_seconds, char *why, size_t why_size) {
  if (why && why_size)
    why[0] = '\0';
  /* A NaN deadline never expires and (int)(NaN * 1000) below is undefined behaviour. */
  if (!(timeout_seconds > 0)) {
    if (why)
      snprintf(why, why_size, "worker: timeout %g s is not a positive number", timeout_seconds);
    return PRUNER_WORKER_FAILED;
  }
  PrunerStatus started = prunerWorkerEnsureStarted(worker);
  if (!started.ok) {
    if (why)
      snprintf(why, why_size, "%s", started.message);
    return PRUNER_WORKER_FAILED;
  }
  int st = 0;
  if (!sendAll(worker->fd, request, worker->spec.request_size)) {
    reap(worker, &st);
    describeExit(st, why, why_size);
    return PRUNER_WORKER_CRASHED;
  }
  size_t total = worker->spec.reply_size + 1;
  unsigned char *message = malloc(total);
  if (!message) {
    killChild(worker);
    if (why)
      snprintf(why, why_size, "worker: out of memory");
    return PRUNER_WORKER_FAILED;
  }
  double deadline = nowSeconds() + timeout_seconds;
  size_t got = 0;
  PrunerWorkerOutcome outcome = PRUNER_WORKER_DONE;
  while (got < total) {
    double left = deadline - nowSeconds();
    if (left <= 0) {
      outcome = PRUNER_WORKER_TIMEOUT;
      break;
    }
    struct pollfd p = {.fd = worker->fd, .events = POLLIN};
    int ms = left > 1e6 ? 1000000000 : (int)(left * 1000.0) + 1;
    int r = poll(&p, 1, ms);
    if (r < 0 && errno == EINTR)
      continue;
    if (r == 0)
      continue; /* re-check the deadline */
    if (r < 0) {
      outcome = PRUNER_WORKER_FAILED;
      if (why)
        snprintf(why, why_size, "worker: poll failed: %s", strerror(errno));
      break;
    }
    ssize_t n = read(worker->fd, message + got, total - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      outcome = PRUNER_WORKER_CRASHED;
      break;
    }
    got += (size_t)n;
  }
  if (outcome == PRUNER_WORKER_DONE) {
    memcpy(reply, message + 1, worker->spec.reply_size);
    if (message[0] == 0)
      reap(worker, NULL); /* the child asked to be replaced */
  } else if (outcome == PRUNER_WORKER_TIMEOUT) {
    killChild(worker);
    if (why)
      snprintf(why, why_size, "no reply within %.1f s; worker killed", timeout_seconds);
  } else if (outcome == PRUNER_WORKER_CRASHED) {
    reap(worker, &st);
    describeExit(st, why, why_size);
  } else {
    killChild(worker);
  }
  free(message);
  return outcome;
}

int prunerWorkerGeneration(PrunerWorker worker) { return worker->generation; }

void prunerWorkerDestroy(PrunerWorker worker) {
  if (!worker)
    return;
  if (worker->pid > 0) {
    close(worker->fd);
    worker->fd = -1;
    /* Give a healthy child a moment to see EOF and exit, then insist. */
    for (int i = 0; i < 200; i++) {
      int st;
      pid_t r = waitpid(worker->pid, &st, WNOHANG);
      if (r == worker->pid || (r < 0 && errno != EINTR)) {
        worker->pid = -1;
        break;
      }
      struct timespec ts = {0, 10 * 1000 * 1000};
      nanosleep(&ts, NULL);
    }
    if (worker->pid > 0)
      killChild(worker);
  }
  free(worker);
}

/* The isolated worker (pruner/worker.h): a forked child that answers fixed-size requests
 * through a socket pair, watched by a per-request deadline in the parent.
 *
 * Protocol: the parent writes request_size bytes; the child answers with a 16-byte header
 * (byte 0: 1 if it stays alive, 0 if it exits after this reply; bytes 8-15: the tail's
 * size) followed by reply_size bytes and the tail. A socket pair rather than pipes so
 * that the parent can send with MSG_NOSIGNAL and never gets a SIGPIPE from a dead child
 * (the library must not touch signal dispositions), and so that shutdown() ends the
 * child's input even when a sibling worker inherited a copy of the parent's end.
 * Each child leads its own process group: killing the group also kills what it spawned
 * (ptxas), which would otherwise outlive a timed-out compile. */
#define _GNU_SOURCE /* strsignal */
#include "pruner/clock.h"
#include "pruner/worker.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define HEADER_SIZE 16

struct PrunerWorkerImpl {
  PrunerWorkerSpec spec;
  pid_t pid; /* -1 when no child runs */
  int fd;    /* parent's end of the socket pair, -1 when none */
  int generation;
  bool busy;          /* a request is in flight */
  double deadline;    /* of the request in flight (monotonic seconds) */
  double timeout;     /* its timeout, for the message */
  unsigned char *buf; /* the reply being received: header, reply, tail */
  size_t len, cap;
};

/* Moves all `size` bytes (blocking): reads, or sends with MSG_NOSIGNAL; false on EOF or
 * an error. */
static bool transferAll(int fd, void *buf, size_t size, bool sending) {
  unsigned char *p = buf;
  while (size > 0) {
    ssize_t n = sending ? send(fd, p, size, MSG_NOSIGNAL) : read(fd, p, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    size -= (size_t)n;
  }
  return true;
}

static bool readAll(int fd, void *buf, size_t size) { return transferAll(fd, buf, size, false); }

static bool sendAll(int fd, const void *buf, size_t size) {
  return transferAll(fd, (void *)buf, size, true);
}

/* ---- child side --------------------------------------------------------------------- */

/* A child must die of its own faults: handlers inherited from the caller (a test
 * framework's SIGSEGV handler, a crash reporter, a tool's SIGTERM handler) would otherwise
 * run the caller's code in the child. Ctrl-C is the parent's to handle; the child dies
 * with the parent (PDEATHSIG) instead of first reporting a bogus crash. */
static void childSignals(void) {
  static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL,  SIGFPE, SIGABRT,
                              SIGTRAP, SIGSYS, SIGTERM, SIGHUP, SIGQUIT};
  for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); ++i)
    signal(fatal[i], SIG_DFL);
  signal(SIGINT, SIG_IGN);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
#ifdef __linux__
  /* A killed parent must not leave a child holding the GPU or compiling on. */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
}

/* The reply buffer is its own allocation (malloc's alignment): handing the handler a
 * pointer into the message misaligned every reply struct (UBSan). */
static void childLoop(const PrunerWorkerSpec *spec, int fd) {
  unsigned char *request = malloc(spec->request_size ? spec->request_size : 1);
  unsigned char *reply = malloc(spec->reply_size);
  if (!request || !reply)
    _exit(70);
  for (;;) {
    if (!readAll(fd, request, spec->request_size))
      _exit(0); /* the parent ended our input: done */
    memset(reply, 0, spec->reply_size);
    void *tail = NULL;
    size_t tail_size = 0;
    bool keep = spec->tail_handler
                    ? spec->tail_handler(spec->context, request, reply, &tail, &tail_size)
                    : spec->handler(spec->context, request, reply);
    unsigned char header[HEADER_SIZE] = {0};
    header[0] = keep ? 1 : 0;
    uint64_t size64 = tail ? (uint64_t)tail_size : 0;
    memcpy(header + 8, &size64, sizeof(size64));
    bool sent = sendAll(fd, header, sizeof(header)) && sendAll(fd, reply, spec->reply_size) &&
                (size64 == 0 || sendAll(fd, tail, (size_t)size64));
    free(tail);
    if (!sent || !keep)
      _exit(0);
  }
}

static void childMain(const PrunerWorkerSpec *spec, int fd) {
  setpgid(0, 0);
  childSignals();
  prunerLimitAddressSpace(spec->memory_limit_mb);
  if (spec->child_init)
    spec->child_init(spec->context);
  childLoop(spec, fd);
  _exit(0); /* never return into the caller's code, never run its atexit handlers */
}

/* GCC and Clang >= 15 define __SANITIZE_ADDRESS__ under -fsanitize=address; older Clang
 * only answers __has_feature. */
#if defined(__SANITIZE_ADDRESS__)
#define PRUNER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PRUNER_ASAN 1
#endif
#endif

bool prunerBuiltWithAddressSanitizer(void) {
#ifdef PRUNER_ASAN
  return true;
#else
  return false;
#endif
}

bool prunerAddressSpaceLimitSupported(void) { return !prunerBuiltWithAddressSanitizer(); }

bool prunerLimitAddressSpace(int64_t mb) {
  if (mb <= 0 || !prunerAddressSpaceLimitSupported())
    return false;
  rlim_t bytes = (rlim_t)mb * 1024 * 1024;
  struct rlimit limit = {.rlim_cur = bytes, .rlim_max = bytes};
  return setrlimit(RLIMIT_AS, &limit) == 0;
}

/* ---- parent side -------------------------------------------------------------------- */

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
    if (worker->spec.child_reaped)
      worker->spec.child_reaped(worker->spec.context, (int)worker->pid);
  }
  worker->pid = -1;
  worker->busy = false;
  worker->len = 0;
}

static void killChild(PrunerWorker worker) {
  if (worker->pid > 0) {
    kill(-worker->pid, SIGKILL); /* the group: what the child spawned dies with it */
    kill(worker->pid, SIGKILL);  /* in case the group did not exist yet */
  }
  reap(worker, NULL);
}

static void describeExit(int st, char *why, size_t size) {
  if (!why || size == 0)
    return;
  if (WIFSIGNALED(st))
    snprintf(why, size, "worker killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
  else if (WIFEXITED(st))
    snprintf(why, size, "worker exited with code %d before answering", WEXITSTATUS(st));
  else
    snprintf(why, size, "worker ended (wait status %d) before answering", st);
}

static void say(char *why, size_t size, const char *text) {
  if (why && size)
    snprintf(why, size, "%s", text);
}

PrunerStatus prunerWorkerCreate(const PrunerWorkerSpec *spec, PrunerWorker *out) {
  *out = NULL; /* on failure too: Destroy(NULL) is a no-op */
  if (!spec || (!spec->handler && !spec->tail_handler) || spec->reply_size == 0)
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
    childMain(&worker->spec, fds[1]);
  }
  setpgid(pid, pid); /* also here: whichever runs first, the group exists before a kill */
  close(fds[1]);
  worker->pid = pid;
  worker->fd = fds[0];
  worker->busy = false;
  worker->len = 0;
  worker->generation++;
  return prunerStatusOk();
}

PrunerWorkerOutcome prunerWorkerSend(PrunerWorker worker, const void *request,
                                     double timeout_seconds, char *why, size_t why_size) {
  if (why && why_size)
    why[0] = '\0';
  /* A NaN deadline never expires and its conversion to milliseconds is undefined. */
  if (!(timeout_seconds > 0)) {
    if (why)
      snprintf(why, why_size, "worker: timeout %g s is not a positive number", timeout_seconds);
    return PRUNER_WORKER_FAILED;
  }
  if (worker->busy) {
    say(why, why_size, "worker: a request is already in flight");
    return PRUNER_WORKER_FAILED;
  }
  PrunerStatus started = prunerWorkerEnsureStarted(worker);
  if (!started.ok) {
    say(why, why_size, started.message);
    return PRUNER_WORKER_FAILED;
  }
  if (!sendAll(worker->fd, request, worker->spec.request_size)) {
    int st = 0;
    kill(worker->pid, SIGKILL); /* a closed socket but a live child: make sure it ends */
    reap(worker, &st);
    describeExit(st, why, why_size);
    return PRUNER_WORKER_CRASHED;
  }
  worker->busy = true;
  worker->len = 0;
  worker->timeout = timeout_seconds;
  worker->deadline = prunerNowSeconds() + timeout_seconds;
  return PRUNER_WORKER_DONE;
}

static bool stopRequested(const PrunerWorker worker) {
  return worker->spec.stop && *worker->spec.stop;
}

/* Milliseconds to wait with `left` seconds to the deadline: a worker with a stop flag
 * looks at it every PRUNER_WORKER_STOP_POLL_MS, since a signal that lands just before
 * poll() would otherwise wait out the whole candidate timeout. */
static int pollMillis(const PrunerWorker worker, double left) {
  int ms = left <= 0 ? 0 : left > 1e6 ? 1000000000 : (int)(left * 1000.0) + 1;
  if (worker->spec.stop && ms > PRUNER_WORKER_STOP_POLL_MS)
    ms = PRUNER_WORKER_STOP_POLL_MS;
  return ms;
}

/* Bytes of the whole message, as far as the header already says. */
static size_t messageSize(const PrunerWorker worker) {
  size_t size = HEADER_SIZE + worker->spec.reply_size;
  if (worker->len >= HEADER_SIZE) {
    uint64_t tail;
    memcpy(&tail, worker->buf + 8, sizeof(tail));
    size += (size_t)tail;
  }
  return size;
}

/* Reads what is available without blocking: 1 when the message is complete, 0 for more
 * to come, -1 on EOF or an error (the child died), -2 out of memory. */
static int readAvailable(PrunerWorker worker) {
  for (;;) {
    size_t need = messageSize(worker);
    if (worker->len >= HEADER_SIZE && worker->len >= need)
      return 1;
    if (worker->cap < need) {
      unsigned char *grown = realloc(worker->buf, need);
      if (!grown)
        return -2;
      worker->buf = grown;
      worker->cap = need;
    }
    /* Up to the header first, so that the tail's size is known before reading past it. */
    size_t want = worker->len < HEADER_SIZE ? HEADER_SIZE - worker->len : need - worker->len;
    ssize_t n = recv(worker->fd, worker->buf + worker->len, want, MSG_DONTWAIT);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return 0;
    if (n <= 0)
      return -1;
    worker->len += (size_t)n;
  }
}

PrunerWorkerOutcome prunerWorkerReceive(PrunerWorker worker, void *reply, void **tail,
                                        size_t *tail_size, bool wait, char *why, size_t why_size) {
  if (tail)
    *tail = NULL;
  if (tail_size)
    *tail_size = 0;
  if (!worker->busy) {
    say(why, why_size, "worker: no request in flight");
    return PRUNER_WORKER_FAILED;
  }
  for (;;) {
    int got = readAvailable(worker);
    if (got == 1)
      break;
    if (got == -1) {
      int st = 0;
      reap(worker, &st);
      describeExit(st, why, why_size);
      return PRUNER_WORKER_CRASHED;
    }
    if (got == -2) {
      killChild(worker);
      say(why, why_size, "worker: out of memory for the reply");
      return PRUNER_WORKER_FAILED;
    }
    if (stopRequested(worker)) {
      killChild(worker);
      say(why, why_size, "interrupted; worker killed");
      return PRUNER_WORKER_INTERRUPTED;
    }
    double left = worker->deadline - prunerNowSeconds();
    if (left <= 0) {
      double timeout = worker->timeout;
      killChild(worker);
      if (why)
        snprintf(why, why_size, "no reply within %g s; worker killed", timeout);
      return PRUNER_WORKER_TIMEOUT;
    }
    if (!wait)
      return PRUNER_WORKER_PENDING;
    struct pollfd p = {.fd = worker->fd, .events = POLLIN};
    int ms = pollMillis(worker, left);
    if (poll(&p, 1, ms) < 0 && errno != EINTR) {
      if (why)
        snprintf(why, why_size, "worker: poll failed: %s", strerror(errno));
      killChild(worker);
      return PRUNER_WORKER_FAILED;
    }
  }
  worker->busy = false;
  memcpy(reply, worker->buf + HEADER_SIZE, worker->spec.reply_size);
  size_t size = messageSize(worker) - HEADER_SIZE - worker->spec.reply_size;
  if (tail && size > 0) {
    *tail = malloc(size);
    if (!*tail) {
      say(why, why_size, "worker: out of memory for the reply's tail");
      return PRUNER_WORKER_FAILED;
    }
    memcpy(*tail, worker->buf + HEADER_SIZE + worker->spec.reply_size, size);
    if (tail_size)
      *tail_size = size;
  }
  bool keep = worker->buf[0] != 0;
  worker->len = 0;
  if (!keep)
    reap(worker, NULL); /* the child asked to be replaced */
  return PRUNER_WORKER_DONE;
}

PrunerWorkerOutcome prunerWorkerCall(PrunerWorker worker, const void *request, void *reply,
                                     double timeout_seconds, char *why, size_t why_size) {
  PrunerWorkerOutcome sent = prunerWorkerSend(worker, request, timeout_seconds, why, why_size);
  if (sent != PRUNER_WORKER_DONE)
    return sent;
  return prunerWorkerReceive(worker, reply, NULL, NULL, true, why, why_size);
}

bool prunerWorkerBusy(PrunerWorker worker) { return worker->busy; }

void prunerWorkerWaitAny(PrunerWorker *workers, size_t n) {
  struct pollfd *fds = calloc(n ? n : 1, sizeof(*fds));
  if (!fds)
    return; /* the callers' receive loop still makes progress, only by polling */
  size_t busy = 0;
  double nearest = 0;
  PrunerWorker first = NULL, stoppable = NULL;
  for (size_t i = 0; i < n; ++i) {
    if (!workers[i] || !workers[i]->busy)
      continue;
    fds[busy++] = (struct pollfd){.fd = workers[i]->fd, .events = POLLIN};
    if (busy == 1 || workers[i]->deadline < nearest)
      nearest = workers[i]->deadline;
    first = first ? first : workers[i];
    stoppable = workers[i]->spec.stop ? workers[i] : stoppable;
  }
  if (busy > 0) {
    int ms = pollMillis(stoppable ? stoppable : first, nearest - prunerNowSeconds());
    poll(fds, (nfds_t)busy, ms); /* EINTR or an error: the callers look again */
  }
  free(fds);
}

int prunerWorkerGeneration(PrunerWorker worker) { return worker->generation; }

void prunerWorkerDestroy(PrunerWorker worker) {
  if (!worker)
    return;
  if (worker->pid > 0) {
    /* shutdown, not only close: a sibling worker forked later holds a copy of this end,
     * and the child sees EOF only when the socket itself is shut. */
    shutdown(worker->fd, SHUT_RDWR);
    close(worker->fd);
    worker->fd = -1;
    /* Give a healthy child a moment to see EOF and exit, then insist. */
    for (int i = 0; i < 200; i++) {
      int st;
      pid_t r = waitpid(worker->pid, &st, WNOHANG);
      if (r == worker->pid || (r < 0 && errno != EINTR)) {
        if (r == worker->pid && worker->spec.child_reaped)
          worker->spec.child_reaped(worker->spec.context, (int)worker->pid);
        worker->pid = -1;
        break;
      }
      struct timespec ts = {0, 10 * 1000 * 1000};
      nanosleep(&ts, NULL);
    }
    if (worker->pid > 0)
      killChild(worker);
  }
  free(worker->buf);
  free(worker);
}

/* prunerCompileMany: candidates compiled by a pool of forked worker processes.
 *
 * Each worker is a child process (its own process group, so that ptxas dies with it)
 * under an address-space limit (setrlimit RLIMIT_AS). The parent sends a candidate
 * index over a socket pair; the worker compiles it with prunerCompileOne in a fresh
 * MLIRContext of its own and sends back the result struct followed by the binary bytes.
 * The parent polls all busy workers with the nearest deadline: a worker past its
 * candidate's timeout is killed ("timeout after Ns"), one whose socket closes before a
 * full result arrived has crashed ("compiler crashed: signal N"); either way a new worker
 * takes its place and the pool goes on. Sockets (not pipes) so that writing to a dead
 * worker fails with EPIPE (MSG_NOSIGNAL) instead of killing the caller with SIGPIPE.
 *
 * Forking a process that runs threads is only safe if the child touches nothing those
 * threads might hold; the workers therefore create their MLIR contexts themselves, with
 * multithreading off, and never use a context of the parent. */
#define _GNU_SOURCE /* nftw's FTW_DEPTH/FTW_PHYS */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compile_internal.h"

/* Candidates compiled in one worker context before it is renewed: bounds what the context
 * accumulates (each PTX string, tens to hundreds of KB, stays uniqued in it). */
#define CONTEXT_USES 32

typedef struct Job {
  const PrunerWorkload *w;
  const PrunerConfig *configs;
  const PrunerTargetDesc *t;
  const PrunerCompileOptions *opts;
  const char *tmpdir; /* per-call scratch: what killed workers leave is removed with it */
} Job;

/* What a worker sends for one candidate; `result.binary` is meaningless on the wire and
 * `result.binary_size` bytes follow the header. */
typedef struct WireHeader {
  uint64_t task;
  PrunerCompileResult result;
} WireHeader;

typedef struct Worker {
  pid_t pid; /* 0: not running */
  int fd;
  int64_t task; /* -1: idle */
  double deadline;
  unsigned char *buf;
  size_t len, cap;
} Worker;

/* ---- worker side -------------------------------------------------------------------- */

static bool sendAll(int fd, const void *data, size_t size) {
  const unsigned char *p = data;
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

static bool recvAll(int fd, void *data, size_t size) {
  unsigned char *p = data;
  while (size > 0) {
    ssize_t n = recv(fd, p, size, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    size -= (size_t)n;
  }
  return true;
}

/* A worker must die of its own crashes: handlers inherited from the caller (a test
 * framework's SIGSEGV handler, a tool's SIGINT handler) would otherwise run the caller's
 * code in the child. It also dies with its parent instead of finishing a long compile. */
static void resetSignals(void) {
  static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL,  SIGFPE, SIGABRT, SIGTRAP,
                              SIGSYS,  SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); ++i)
    signal(fatal[i], SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
}

static void workerMain(int fd, const Job *job) {
  resetSignals();
  if (job->tmpdir)
    setenv("TMPDIR", job->tmpdir, 1); /* ptxas.c puts its files under TMPDIR */
  if (job->opts->memory_limit_mb > 0) {
    rlim_t bytes = (rlim_t)job->opts->memory_limit_mb * 1024 * 1024;
    struct rlimit limit = {.rlim_cur = bytes, .rlim_max = bytes};
    setrlimit(RLIMIT_AS, &limit);
  }
  /* One context for many candidates (dialects load once), renewed now and then because
   * a context keeps every attribute it ever uniqued, PTX strings included. */
  MlirContext ctx = {NULL};
  int uses = 0;
  uint64_t task;
  while (recvAll(fd, &task, sizeof(task))) {
    if (mlirContextIsNull(ctx) || uses++ == CONTEXT_USES) {
      if (!mlirContextIsNull(ctx))
        mlirContextDestroy(ctx);
      ctx = prunerCompileContextCreate();
      uses = 1;
    }
    WireHeader header;
    memset(&header, 0, sizeof(header));
    header.task = task;
    header.result = prunerCompileOneInContext(ctx, job->w, &job->configs[task], job->t, job->opts);
    unsigned char *binary = header.result.binary;
    header.result.binary = NULL;
    bool sent = sendAll(fd, &header, sizeof(header)) &&
                (header.result.binary_size == 0 || sendAll(fd, binary, header.result.binary_size));
    free(binary);
    if (!sent)
      break;
  }
  _exit(0); /* never return into the caller's code, never run its atexit handlers */
}

/* ---- parent side -------------------------------------------------------------------- */

static bool startWorker(Worker *workers, int jobs, int index, const Job *job) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return false;
  pid_t pid = fork();
  if (pid < 0) {
    close(sv[0]);
    close(sv[1]);
    return false;
  }
  if (pid == 0) {
    setpgid(0, 0);
    close(sv[0]);
    /* Siblings' sockets must not stay open here, or their EOF would never arrive. */
    for (int i = 0; i < jobs; ++i)
      if (i != index && workers[i].pid > 0)
        close(workers[i].fd);
    workerMain(sv[1], job);
  }
  setpgid(pid, pid); /* also here: whichever runs first, the group exists before a kill */
  close(sv[1]);
  fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
  Worker *wk = &workers[index];
  wk->pid = pid;
  wk->fd = sv[0];
  wk->task = -1;
  wk->len = 0;
  return true;
}

/* Kills (if asked) and reaps a worker; returns its wait status. */
static int stopWorker(Worker *wk, bool kill_it) {
  int status = 0;
  if (kill_it)
    kill(-wk->pid, SIGKILL);
  close(wk->fd);
  while (waitpid(wk->pid, &status, 0) < 0 && errno == EINTR) {
  }
  wk->pid = 0;
  wk->task = -1;
  wk->len = 0;
  return status;
}

static void failResult(PrunerCompileResult *r, PrunerStatus status) {
  memset(r, 0, sizeof(*r));
  r->status = status;
}

/* Reads what is available; returns -1 on EOF/error before a full message, 1 when a full
 * result is in the buffer, 0 to wait for more. */
static int readResult(Worker *wk) {
  for (;;) {
    size_t need = sizeof(WireHeader);
    if (wk->len >= sizeof(WireHeader)) {
      const WireHeader *h = (const WireHeader *)wk->buf;
      need += h->result.binary_size;
      if (wk->len >= need)
        return 1;
    }
    if (wk->cap < need) {
      unsigned char *grown = realloc(wk->buf, need);
      if (!grown)
        return -1;
      wk->buf = grown;
      wk->cap = need;
    }
    ssize_t n = recv(wk->fd, wk->buf + wk->len, need - wk->len, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return 0;
    if (n <= 0)
      return -1;
    wk->len += (size_t)n;
  }
}

static void takeResult(Worker *wk, PrunerCompileResult *results, size_t n) {
  WireHeader h;
  memcpy(&h, wk->buf, sizeof(h));
  PrunerCompileResult *r = &results[wk->task];
  *r = h.result;
  r->binary = NULL;
  if (h.task != (uint64_t)wk->task || h.task >= n) {
    failResult(r, prunerStatusError("compile worker answered candidate %llu for %lld",
                                    (unsigned long long)h.task, (long long)wk->task));
  } else if (r->binary_size > 0) {
    r->binary = malloc(r->binary_size);
    if (r->binary)
      memcpy(r->binary, wk->buf + sizeof(h), r->binary_size);
    else
      failResult(r, prunerStatusError("out of memory for a %zu-byte binary", h.result.binary_size));
  }
  wk->task = -1;
  wk->len = 0;
}

/* Allocation failures inside LLVM end in SIGSEGV or SIGABRT, so the limit is named. */
static PrunerStatus crashStatus(int status, int64_t memory_limit_mb) {
  if (WIFSIGNALED(status))
    return prunerStatusError("compiler crashed: signal %d (worker memory limit %lld MB)",
                             WTERMSIG(status), (long long)memory_limit_mb);
  return prunerStatusError("compiler crashed: worker exited with status %d before answering",
                           WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static int removeEntry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  remove(path);
  return 0;
}

void prunerCompileMany(const PrunerWorkload *w, const PrunerConfig *configs, size_t n,
                       const PrunerTargetDesc *t, const PrunerCompileOptions *opts,
                       PrunerCompileResult *results) {
  if (n == 0)
    return;
  PrunerCompileOptions defaults = prunerCompileDefaultOptions();
  if (!opts)
    opts = &defaults;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int jobs = opts->jobs > 0 ? opts->jobs : (cores > 0 ? (int)cores : 1);
  if ((size_t)jobs > n)
    jobs = (int)n;
  Worker *workers = calloc((size_t)jobs, sizeof(Worker));
  struct pollfd *fds = calloc((size_t)jobs, sizeof(struct pollfd));
  int *polled = calloc((size_t)jobs, sizeof(int));
  if (!workers || !fds || !polled) {
    for (size_t i = 0; i < n; ++i)
      failResult(&results[i], prunerStatusError("out of memory for the compile pool"));
    free(workers), free(fds), free(polled);
    return;
  }
  const char *base = getenv("TMPDIR");
  char tmpdir[512];
  snprintf(tmpdir, sizeof(tmpdir), "%s/pruner-compile-XXXXXX", base && *base ? base : "/tmp");
  Job job = {w, configs, t, opts, mkdtemp(tmpdir) ? tmpdir : NULL};
  size_t next = 0, done = 0;
  int startErrno = 0, idleDeaths = 0;
  while (done < n) {
    /* Hand candidates to idle workers, starting workers where needed. */
    startErrno = 0;
    for (int i = 0; i < jobs && next < n; ++i) {
      Worker *wk = &workers[i];
      if (wk->pid == 0 && !startWorker(workers, jobs, i, &job)) {
        startErrno = errno ? errno : EAGAIN;
        continue;
      }
      if (wk->task >= 0)
        continue;
      uint64_t task = next;
      if (!sendAll(wk->fd, &task, sizeof(task))) {
        stopWorker(wk, true); /* died while idle: a fresh one starts next round */
        idleDeaths++;
        continue;
      }
      wk->task = (int64_t)next++;
      wk->deadline = prunerCompileNow() + opts->timeout_seconds;
    }
    int busy = 0;
    double nearest = 0;
    for (int i = 0; i < jobs; ++i) {
      if (workers[i].pid > 0 && workers[i].task >= 0) {
        fds[busy] = (struct pollfd){.fd = workers[i].fd, .events = POLLIN};
        polled[busy++] = i;
        if (busy == 1 || workers[i].deadline < nearest)
          nearest = workers[i].deadline;
      }
    }
    if (busy == 0) {
      if (startErrno == 0 && idleDeaths < 3 * jobs)
        continue; /* a worker died while idle; its replacement starts above */
      /* Workers cannot be started, or die before taking work: fail the rest instead of
       * spinning. */
      PrunerStatus why =
          startErrno
              ? prunerStatusError("cannot start a compile worker: %s", strerror(startErrno))
              : prunerStatusError("compile workers die before taking work (%d times)", idleDeaths);
      for (; next < n; ++next, ++done)
        failResult(&results[next], why);
      break;
    }
    double wait = nearest - prunerCompileNow();
    int ready = poll(fds, (nfds_t)busy, wait > 0 ? (int)(wait * 1000.0) + 1 : 0);
    if (ready < 0 && errno != EINTR)
      ready = 0;
    for (int k = 0; k < busy; ++k) {
      Worker *wk = &workers[polled[k]];
      if (ready > 0 && fds[k].revents) {
        int got = readResult(wk);
        if (got > 0) {
          takeResult(wk, results, n);
          ++done;
          continue;
        }
        if (got < 0) {
          int64_t task = wk->task;
          failResult(&results[task], crashStatus(stopWorker(wk, true), opts->memory_limit_mb));
          ++done;
          continue;
        }
      }
      if (prunerCompileNow() >= wk->deadline) {
        int64_t task = wk->task;
        stopWorker(wk, true);
        failResult(&results[task], prunerStatusError("timeout after %gs", opts->timeout_seconds));
        ++done;
      }
    }
  }
  for (int i = 0; i < jobs; ++i) {
    if (workers[i].pid > 0)
      stopWorker(&workers[i], false); /* EOF on its socket makes it exit */
    free(workers[i].buf);
  }
  if (job.tmpdir)
    nftw(job.tmpdir, removeEntry, 8, FTW_DEPTH | FTW_PHYS);
  free(workers);
  free(fds);
  free(polled);
}

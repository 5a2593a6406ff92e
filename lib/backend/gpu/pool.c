/* prunerCompileMany: candidates compiled by a pool of forked worker processes.
 *
 * Each worker is a PrunerWorker (pruner/worker.h: its own process group, so that ptxas
 * dies with it, under an address-space limit). The parent sends a candidate index; the
 * worker compiles it with prunerCompileOne in an MLIRContext of its own and answers with
 * the result struct, the binary bytes as the reply's tail. The parent waits on all busy
 * workers with the nearest deadline: a worker past its candidate's timeout is killed
 * ("timeout after Ns"), one that dies before a full answer has crashed ("compiler
 * crashed: worker killed by signal N ..."); either way a new worker takes its place with
 * the next candidate and the pool goes on.
 *
 * Forking a process that runs threads is only safe if the child touches nothing those
 * threads might hold; the workers therefore create their MLIR contexts themselves, with
 * multithreading off, and never use a context of the parent. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile_internal.h"
#include "pruner/file.h"
#include "pruner/worker.h"

/* Candidates compiled in one worker context before it is renewed: bounds what the context
 * accumulates (each PTX string, tens to hundreds of KB, stays uniqued in it). */
#define CONTEXT_USES 32

/* Shared by the parent and (as a fork-time copy) every worker; ctx and uses are the
 * worker's own state, changed in the child only. */
typedef struct Job {
  const PrunerWorkload *w;
  const PrunerConfig *configs;
  const PrunerTargetDesc *t;
  const PrunerCompileOptions *opts;
  const char *tmpdir; /* per-call scratch: what killed workers leave is removed with it */
  MlirContext ctx;
  int uses;
} Job;

/* What a worker answers for one candidate; `result.binary` is meaningless on the wire
 * (the bytes come as the reply's tail). */
typedef struct WireReply {
  uint64_t task;
  PrunerCompileResult result;
} WireReply;

/* ---- worker side -------------------------------------------------------------------- */

static void workerInit(void *context) {
  const Job *job = context;
  if (job->tmpdir)
    setenv("TMPDIR", job->tmpdir, 1); /* ptxas.c puts its files under TMPDIR */
}

static bool workerCompile(void *context, const void *request, void *reply, void **tail,
                          size_t *tail_size) {
  Job *job = context;
  uint64_t task;
  memcpy(&task, request, sizeof(task));
  /* One context for many candidates (dialects load once), renewed now and then because
   * a context keeps every attribute it ever uniqued, PTX strings included. */
  if (mlirContextIsNull(job->ctx) || job->uses++ == CONTEXT_USES) {
    if (!mlirContextIsNull(job->ctx))
      mlirContextDestroy(job->ctx);
    job->ctx = prunerIrContextCreate();
    job->uses = 1;
  }
  WireReply *wire = reply;
  wire->task = task;
  wire->result =
      prunerCompileOneInContext(job->ctx, job->w, &job->configs[task], job->t, job->opts);
  *tail = wire->result.binary;
  *tail_size = wire->result.binary_size;
  wire->result.binary = NULL;
  return true;
}

/* ---- parent side -------------------------------------------------------------------- */

static void failResult(PrunerCompileResult *r, PrunerStatus status) {
  memset(r, 0, sizeof(*r));
  r->status = status;
}

static void takeResult(const WireReply *wire, unsigned char *binary, size_t binary_size,
                       int64_t task, PrunerCompileResult *results, size_t n) {
  PrunerCompileResult *r = &results[task];
  if (wire->task != (uint64_t)task || wire->task >= n) {
    free(binary);
    failResult(r, prunerStatusError("compile worker answered candidate %llu for %lld",
                                    (unsigned long long)wire->task, (long long)task));
    return;
  }
  *r = wire->result;
  r->binary = binary;
  r->binary_size = binary ? binary_size : 0;
  if (r->status.ok && wire->result.binary_size > 0 && !binary)
    failResult(r,
               prunerStatusError("out of memory for a %zu-byte binary", wire->result.binary_size));
}

/* A candidate the stop flag ended or never started: not a result (docs/tune.md). */
static void interruptResult(PrunerCompileResult *r) {
  failResult(r, prunerStatusError("interrupted before it was compiled"));
  r->interrupted = true;
}

/* Allocation failures inside LLVM end in SIGSEGV or SIGABRT, so the limit is named. */
static PrunerStatus outcomeStatus(PrunerWorkerOutcome outcome, const char *why,
                                  const PrunerCompileOptions *opts) {
  if (outcome == PRUNER_WORKER_TIMEOUT)
    return prunerStatusError("timeout after %gs", opts->timeout_seconds);
  if (outcome == PRUNER_WORKER_CRASHED)
    return prunerStatusError("compiler crashed: %s (worker memory limit %lld MB)", why,
                             (long long)opts->memory_limit_mb);
  return prunerStatusError("compile worker failed: %s", why);
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
  PrunerWorker *workers = calloc((size_t)jobs, sizeof(PrunerWorker));
  int64_t *tasks = calloc((size_t)jobs, sizeof(int64_t));
  WireReply *wire = malloc(sizeof(WireReply));
  if (!workers || !tasks || !wire) {
    for (size_t i = 0; i < n; ++i)
      failResult(&results[i], prunerStatusError("out of memory for the compile pool"));
    free(workers), free(tasks), free(wire);
    return;
  }
  const char *base = getenv("TMPDIR");
  char tmpdir[512];
  snprintf(tmpdir, sizeof(tmpdir), "%s/pruner-compile-XXXXXX", base && *base ? base : "/tmp");
  Job job = {w, configs, t, opts, mkdtemp(tmpdir) ? tmpdir : NULL, {NULL}, 0};
  PrunerWorkerSpec spec = {.context = &job,
                           .request_size = sizeof(uint64_t),
                           .reply_size = sizeof(WireReply),
                           .tail_handler = workerCompile,
                           .child_init = workerInit,
                           .memory_limit_mb = opts->memory_limit_mb,
                           .stop = opts->stop};
  PrunerStatus created = prunerStatusOk();
  for (int i = 0; i < jobs && created.ok; ++i) {
    tasks[i] = -1;
    created = prunerWorkerCreate(&spec, &workers[i]);
  }
  size_t next = 0, done = 0;
  int idleDeaths = 0;
  char why[PRUNER_STATUS_MESSAGE_SIZE] = "";
  if (!created.ok) {
    for (; next < n; ++next, ++done)
      failResult(&results[next], created);
  }
  while (done < n) {
    /* Ctrl-C: nothing more starts; the candidates in flight are killed below. */
    if (opts->stop && *opts->stop)
      for (; next < n; ++next, ++done)
        interruptResult(&results[next]);
    /* Hand candidates to idle workers; a worker that cannot start or died while idle is
     * tried again next round. */
    bool startFailed = false;
    for (int i = 0; i < jobs && next < n; ++i) {
      if (tasks[i] >= 0)
        continue;
      uint64_t task = next;
      PrunerWorkerOutcome sent =
          prunerWorkerSend(workers[i], &task, opts->timeout_seconds, why, sizeof(why));
      if (sent == PRUNER_WORKER_FAILED)
        startFailed = true;
      if (sent == PRUNER_WORKER_CRASHED)
        idleDeaths++;
      if (sent != PRUNER_WORKER_DONE)
        continue;
      tasks[i] = (int64_t)next++;
    }
    int busy = 0;
    for (int i = 0; i < jobs; ++i)
      busy += tasks[i] >= 0;
    if (busy == 0) {
      if (!startFailed && idleDeaths < 3 * jobs)
        continue; /* a worker died while idle; its replacement starts above */
      /* Workers cannot be started, or die before taking work: fail the rest instead of
       * spinning. */
      PrunerStatus reason =
          startFailed
              ? prunerStatusError("cannot start a compile worker: %s", why)
              : prunerStatusError("compile workers die before taking work (%d times)", idleDeaths);
      for (; next < n; ++next, ++done)
        failResult(&results[next], reason);
      break;
    }
    prunerWorkerWaitAny(workers, (size_t)jobs);
    for (int i = 0; i < jobs; ++i) {
      if (tasks[i] < 0)
        continue;
      void *binary = NULL;
      size_t binary_size = 0;
      PrunerWorkerOutcome got = prunerWorkerReceive(workers[i], wire, &binary, &binary_size,
                                                    /*wait=*/false, why, sizeof(why));
      if (got == PRUNER_WORKER_PENDING)
        continue;
      if (got == PRUNER_WORKER_DONE)
        takeResult(wire, binary, binary_size, tasks[i], results, n);
      else if (got == PRUNER_WORKER_INTERRUPTED)
        interruptResult(&results[tasks[i]]);
      else
        failResult(&results[tasks[i]], outcomeStatus(got, why, opts));
      tasks[i] = -1;
      ++done;
    }
  }
  for (int i = 0; i < jobs; ++i)
    prunerWorkerDestroy(workers[i]); /* EOF on its socket makes an idle worker exit */
  if (job.tmpdir)
    prunerRemoveTree(job.tmpdir);
  free(workers);
  free(tasks);
  free(wire);
}

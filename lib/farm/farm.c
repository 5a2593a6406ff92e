/* lib/farm/farm.c: candidates built and measured on MPI ranks (pruner/farm.h).
 *
 * Decisions (docs/distributed.md): rank 0 splits a batch into chunks of consecutive
 * candidates and hands them to idle ranks of the right role, keeping one for itself when
 * its role allows; results are handed to the tuner chunk by chunk in candidate order as
 * soon as every earlier chunk is in, so the records file reads as in a plain run and a
 * kill of rank 0 loses at most the chunks in flight. All MPI calls of a process go through
 * one mutex (the heartbeat thread shares MPI with the main thread); nothing blocks on a
 * peer: sends are non-blocking and tested, receives follow a probe. */
#include "pruner/farm.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pruner/clock.h"
#include "pruner/target.h"

static const char *const kRoleNames[] = {"auto", "compile", "measure", "both"};

const char *prunerFarmRoleName(PrunerFarmRole role) {
  return (unsigned)role < 4 ? kRoleNames[role] : "?";
}

bool prunerFarmRoleParse(const char *name, PrunerFarmRole *out) {
  for (int i = 0; i < 4; ++i)
    if (name && strcmp(name, kRoleNames[i]) == 0) {
      *out = (PrunerFarmRole)i;
      return true;
    }
  return false;
}

PrunerFarmOptions prunerFarmDefaultOptions(void) {
  PrunerFarmOptions o = {.role = PRUNER_FARM_ROLE_AUTO, .rank_timeout_s = 30.0};
  return o;
}

/* Open MPI's mpirun and a PMI/PMIx launcher (srun) say so in the environment. */
bool prunerFarmLaunched(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; ++i)
    if (getenv(vars[i]))
      return true;
  return false;
}

int prunerFarmLauncherRank(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; ++i) {
    const char *v = getenv(vars[i]);
    char *end = NULL;
    long r = v ? strtol(v, &end, 10) : -1;
    if (v && end != v && *end == '\0' && r >= 0 && r < 1000000)
      return (int)r;
  }
  return -1;
}

PrunerFarmRole prunerFarmResolveRole(PrunerFarmRole role, const PrunerBackend *backend,
                                     const PrunerTargetDesc *target) {
  if (role != PRUNER_FARM_ROLE_AUTO)
    return role;
  bool measures = !backend->canMeasure || backend->canMeasure(target);
  return measures ? PRUNER_FARM_ROLE_BOTH : PRUNER_FARM_ROLE_COMPILE;
}

#ifndef PRUNER_HAVE_MPI
/* ---------------------------------------------------------------------------------- */
/* A build without MPI: a farm is never created.                                       */

bool prunerFarmBuiltWithMpi(void) { return false; }

PrunerStatus prunerFarmCreate(int *argc, char ***argv, const PrunerFarmOptions *opts,
                              PrunerFarm *out) {
  (void)argc;
  (void)argv;
  (void)opts;
  *out = NULL;
  return prunerStatusError(
      "this build has no MPI (configured with PRUNER_WITH_MPI=OFF or without an MPI "
      "installation): run it without mpirun/srun, or rebuild with MPI (docs/distributed.md)");
}

void prunerFarmDestroy(PrunerFarm farm, int exit_status) { (void)farm, (void)exit_status; }
void prunerFarmAbortLaunch(int exit_status) { (void)exit_status; }
int prunerFarmRank(PrunerFarm farm) { return (void)farm, 0; }
void prunerFarmExpectTarget(PrunerFarm farm, const char *target_key, int codegen_version) {
  (void)farm, (void)target_key, (void)codegen_version;
}
int prunerFarmSize(PrunerFarm farm) { return (void)farm, 1; }

PrunerStatus prunerFarmServe(PrunerFarm farm, const PrunerBackend *backend,
                             const PrunerTargetDesc *target, const PrunerBackendOptions *opts) {
  (void)farm, (void)backend, (void)target, (void)opts;
  return prunerStatusError("this build has no MPI");
}

PrunerStatus prunerFarmMeasure(PrunerFarm farm, const PrunerBackend *backend,
                               PrunerBackendState local, const PrunerBackendBatch *batch,
                               const PrunerBackendSink *sink) {
  (void)farm;
  return backend->measure(local, batch, sink);
}

PrunerStatus prunerFarmExportAdd(PrunerFarm farm, const PrunerBackend *backend,
                                 PrunerBackendState local, const PrunerBackendBatch *batch,
                                 const PrunerBackendSink *sink) {
  (void)farm;
  return backend->exportAdd(local, batch, sink);
}

char *prunerFarmSummary(PrunerFarm farm) { return (void)farm, NULL; }
int prunerFarmLostRanks(PrunerFarm farm) { return (void)farm, 0; }

#else
/* ---------------------------------------------------------------------------------- */
/* The MPI farm                                                                        */

#include <mpi.h>
#include <pthread.h>
#include <errno.h>
#include <time.h>
#include <signal.h>
#include <unistd.h>

bool prunerFarmBuiltWithMpi(void) { return true; }

enum { TAG_HELLO = 11, TAG_WORK, TAG_RESULT, TAG_HEARTBEAT, TAG_STOP };
/* Not a tag on the wire: farmTryReceive's answer for a fragment of an unfinished message,
 * which tells rank 0 the sender is alive. */
enum { TAG_FRAGMENT = -1 };
/* JOB_MEASURE: build and measure; JOB_BUILD: build only (exportBuild), the blob comes
 * back; JOB_MEASURE_BUILT: measure what another rank built (measureBuilt), the blob goes
 * with the work. */
enum { JOB_MEASURE = 1, JOB_BUILD = 2, JOB_MEASURE_BUILT = 3 };

#define FARM_MAGIC 0x70464d31u /* "pFM1" */
#define FARM_HEARTBEAT_S 1.0
#define FARM_KEY 96

/* Sizes of the structs that travel as bytes (equal only between builds of one layout),
 * the backend's code-generator version (a record carries it: another version builds other
 * kernels from the same config), and the target as this rank's --target describes it
 * (another CPU or target would be measured under rank 0's key). */
typedef struct FarmHello {
  uint32_t magic;
  uint32_t role;
  uint64_t sizes[4];
  char host[64];
  int32_t codegen_version;
  char target_key[FARM_KEY];
} FarmHello;

typedef struct FarmWorkHeader {
  uint32_t kind; /* JOB_*                                                             */
  uint32_t n;
  uint64_t job;
  uint64_t seed;
  uint32_t has_seed;
  uint32_t want_baseline;
  char target_key[FARM_KEY];
  uint64_t blob_len; /* JOB_MEASURE_BUILT: the built batch that follows              */
} /* then: PrunerWorkload, n PrunerConfig, n draft_us, n verifier scores, blob */
FarmWorkHeader;

typedef struct FarmResultHeader {
  uint64_t job;
  uint32_t n;
  uint32_t ok;
  char message[PRUNER_STATUS_MESSAGE_SIZE];
  uint32_t has_baseline;
  uint32_t adopted;
  char adopted_key[FARM_KEY];
  char unmeasurable[PRUNER_STATUS_MESSAGE_SIZE]; /* "": the workload was measurable   */
  uint64_t notes_len;
  uint64_t blob_len;
} /* then: n present flags (uint8), n PrunerRecord, baseline (if any), notes, blob */
FarmResultHeader;

typedef struct FarmAssembly {
  unsigned char *buf;
  size_t len, got;
  int tag;
  bool active;
} FarmAssembly;

typedef struct FarmRank {
  PrunerFarmRole role;
  bool hello, lost, busy;
  double last_seen;
  long candidates; /* candidates this rank built or measured for rank 0            */
  char host[64];
} FarmRank;

struct PrunerFarmImpl {
  int rank, size;
  MPI_Comm comm;  /* a duplicate of MPI_COMM_WORLD: the farm's own error handler  */
  bool owns_mpi;  /* MPI was started by prunerFarmCreate, so Destroy finalizes it  */
  PrunerFarmOptions opts;
  PrunerFarmRole role; /* this rank's resolved role (rank 0: set at first use)        */
  bool role_resolved;
  pthread_mutex_t mpi;
  FarmAssembly *assembly; /* per sender: the message being received             */
  pthread_t heartbeat;
  bool heartbeat_running;
  volatile int quit;
  double created;
  /* rank 0 */
  FarmRank *ranks;
  uint64_t next_job;
  int lost;
  bool interrupted;
  bool noted_alone;
  bool noted_pipeline;
  /* worker ranks */
  volatile sig_atomic_t stop; /* the backend's stop flag here                       */
  const volatile sig_atomic_t *user_stop;
  volatile double last_rank0;
  volatile int rank0_lost;
  volatile int stop_seen;
  double last_poll;     /* rank 0: when it last looked for messages                  */
  char expect_key[FARM_KEY]; /* rank 0: its target's key before any device adopted one */
  int expect_codegen;        /* rank 0: its backend's code-generator version (0: unset) */
  double send_deadline; /* main thread: sends give up after this time (0: never)     */
};

static const int kHeartbeat = 1;

/* ---------------------------------------------------------------------------------- */
/* Buffers                                                                             */

typedef struct FarmBuf {
  unsigned char *p;
  size_t len, cap;
  bool failed;
} FarmBuf;

static void farmPut(FarmBuf *b, const void *data, size_t n) {
  if (b->failed || n == 0)
    return;
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 4096;
    while (cap < b->len + n)
      cap *= 2;
    unsigned char *p = realloc(b->p, cap);
    if (!p) {
      b->failed = true;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->len, data, n);
  b->len += n;
}

typedef struct FarmReader {
  const unsigned char *p;
  size_t len, at;
} FarmReader;

static bool farmGet(FarmReader *r, void *out, size_t n) {
  if (r->at + n > r->len)
    return false;
  memcpy(out, r->p + r->at, n);
  r->at += n;
  return true;
}

static const void *farmTake(FarmReader *r, size_t n) {
  if (r->at + n > r->len)
    return NULL;
  const void *p = r->p + r->at;
  r->at += n;
  return p;
}

/* ---------------------------------------------------------------------------------- */
/* One chunk, run by the backend in this process (rank 0's share or a worker's job)     */

typedef struct FarmChunkResult {
  PrunerStatus status;
  size_t n;
  bool *present;
  PrunerRecord *records;
  bool has_baseline;
  PrunerRecord baseline;
  bool adopted;
  char adopted_key[FARM_KEY];
  char unmeasurable[PRUNER_STATUS_MESSAGE_SIZE]; /* sink->unmeasurable's why; "": none */
  FarmBuf notes; /* lines: '1'/'0' (session note or not), text, '\n'                */
  void *blob;
  size_t blob_len;
} FarmChunkResult;

static void farmChunkResultFree(FarmChunkResult *r) {
  free(r->present);
  free(r->records);
  free(r->notes.p);
  free(r->blob);
  memset(r, 0, sizeof *r);
}

typedef struct FarmLocalSink {
  FarmChunkResult *out;
  const FarmWorkHeader *work;
  char target_key[FARM_KEY];
  const volatile sig_atomic_t *stop;
  const PrunerBackendSink *outer; /* rank 0: the tuner's sink (stop flag) */
} FarmLocalSink;

static PrunerStatus farmSinkCandidate(void *user, size_t i, PrunerRecord *r) {
  FarmLocalSink *s = user;
  if (i >= s->out->n)
    return prunerStatusError("farm: candidate index %zu out of %zu", i, s->out->n);
  s->out->present[i] = true;
  s->out->records[i] = *r;
  return prunerStatusOk();
}

static bool farmSinkHasBaseline(void *user) {
  FarmLocalSink *s = user;
  return !s->work->want_baseline || s->out->has_baseline;
}

static PrunerStatus farmSinkBaseline(void *user, const PrunerRecord *r) {
  FarmLocalSink *s = user;
  s->out->has_baseline = true;
  s->out->baseline = *r;
  return prunerStatusOk();
}

static const char *farmSinkTargetKey(void *user) { return ((FarmLocalSink *)user)->target_key; }

static void farmSinkAdoptTargetKey(void *user, const char *key) {
  FarmLocalSink *s = user;
  snprintf(s->target_key, sizeof s->target_key, "%s", key);
  s->out->adopted = true;
  snprintf(s->out->adopted_key, sizeof s->out->adopted_key, "%s", key);
}

/* The seed rank 0 drew for the batch: every chunk of a batch gets the same one, as the
 * whole batch does in a plain run. */
static uint64_t farmSinkNextSeed(void *user) { return ((FarmLocalSink *)user)->work->seed; }

static bool farmSinkStopRequested(void *user) {
  FarmLocalSink *s = user;
  if (s->outer)
    return s->outer->stopRequested(s->outer->user);
  return s->stop && *s->stop;
}

static void farmSinkNote(void *user, bool session, const char *message) {
  FarmLocalSink *s = user;
  farmPut(&s->out->notes, session ? "1" : "0", 1);
  farmPut(&s->out->notes, message, strlen(message));
  farmPut(&s->out->notes, "\n", 1);
}

static void farmSinkUnmeasurable(void *user, const char *why) {
  FarmLocalSink *s = user;
  snprintf(s->out->unmeasurable, sizeof s->out->unmeasurable, "%s", why);
}

static PrunerStatus farmRunChunk(const PrunerBackend *backend, PrunerBackendState state,
                                 const FarmWorkHeader *work, const PrunerBackendBatch *batch,
                                 const void *blob, size_t blob_len,
                                 const volatile sig_atomic_t *stop, const PrunerBackendSink *outer,
                                 FarmChunkResult *out) {
  memset(out, 0, sizeof *out);
  out->n = batch->n;
  out->present = calloc(batch->n ? batch->n : 1, sizeof *out->present);
  out->records = calloc(batch->n ? batch->n : 1, sizeof *out->records);
  if (!out->present || !out->records)
    return out->status = prunerStatusError("out of memory");
  FarmLocalSink ls = {.out = out, .work = work, .stop = stop, .outer = outer};
  snprintf(ls.target_key, sizeof ls.target_key, "%s", work->target_key);
  PrunerBackendSink sink = {.user = &ls,
                            .candidate = farmSinkCandidate,
                            .hasBaseline = farmSinkHasBaseline,
                            .baseline = farmSinkBaseline,
                            .targetKey = farmSinkTargetKey,
                            .adoptTargetKey = farmSinkAdoptTargetKey,
                            .nextSeed = farmSinkNextSeed,
                            .stopRequested = farmSinkStopRequested,
                            .note = farmSinkNote,
                            .unmeasurable = farmSinkUnmeasurable};
  if (work->kind == JOB_MEASURE)
    out->status = backend->measure(state, batch, &sink);
  else if (work->kind == JOB_MEASURE_BUILT)
    out->status = backend->measureBuilt(state, batch, blob, blob_len, &sink);
  else
    out->status = backend->exportBuild(state, batch, &sink, &out->blob, &out->blob_len);
  return out->status;
}

/* ---------------------------------------------------------------------------------- */
/* Messages                                                                            */

static bool farmPackWork(FarmBuf *b, const FarmWorkHeader *h, const PrunerBackendBatch *batch,
                         const void *blob) {
  farmPut(b, h, sizeof *h);
  farmPut(b, batch->workload, sizeof *batch->workload);
  farmPut(b, batch->configs, batch->n * sizeof *batch->configs);
  farmPut(b, batch->draft_us, batch->n * sizeof *batch->draft_us);
  farmPut(b, batch->verifier_scores, batch->n * sizeof *batch->verifier_scores);
  farmPut(b, blob, h->blob_len);
  return !b->failed;
}

/* The batch and *blob point into the message (valid while `r` is). */
static bool farmUnpackWork(FarmReader *r, FarmWorkHeader *h, PrunerBackendBatch *batch,
                           const void **blob) {
  if (!farmGet(r, h, sizeof *h))
    return false;
  batch->n = h->n;
  batch->workload = farmTake(r, sizeof *batch->workload);
  batch->configs = farmTake(r, h->n * sizeof *batch->configs);
  batch->draft_us = farmTake(r, h->n * sizeof *batch->draft_us);
  batch->verifier_scores = farmTake(r, h->n * sizeof *batch->verifier_scores);
  *blob = h->blob_len ? farmTake(r, h->blob_len) : NULL;
  return batch->workload && (h->blob_len == 0 || *blob) &&
         (h->n == 0 || (batch->configs && batch->draft_us && batch->verifier_scores));
}

static bool farmPackResult(FarmBuf *b, uint64_t job, const FarmChunkResult *res) {
  FarmResultHeader h;
  memset(&h, 0, sizeof h);
  h.job = job;
  h.n = (uint32_t)res->n;
  h.ok = res->status.ok;
  snprintf(h.message, sizeof h.message, "%s", res->status.message);
  h.has_baseline = res->has_baseline;
  h.adopted = res->adopted;
  snprintf(h.adopted_key, sizeof h.adopted_key, "%s", res->adopted_key);
  snprintf(h.unmeasurable, sizeof h.unmeasurable, "%s", res->unmeasurable);
  h.notes_len = res->notes.len;
  h.blob_len = res->blob_len;
  farmPut(b, &h, sizeof h);
  for (size_t i = 0; i < res->n; ++i) {
    uint8_t p = res->present[i];
    farmPut(b, &p, 1);
  }
  for (size_t i = 0; i < res->n; ++i)
    if (res->present[i])
      farmPut(b, &res->records[i], sizeof res->records[i]);
  if (res->has_baseline)
    farmPut(b, &res->baseline, sizeof res->baseline);
  farmPut(b, res->notes.p, res->notes.len);
  farmPut(b, res->blob, res->blob_len);
  return !b->failed;
}

static bool farmUnpackResult(FarmReader *r, uint64_t *job, FarmChunkResult *res) {
  FarmResultHeader h;
  memset(res, 0, sizeof *res);
  if (!farmGet(r, &h, sizeof h))
    return false;
  *job = h.job;
  res->n = h.n;
  res->status.ok = h.ok;
  snprintf(res->status.message, sizeof res->status.message, "%s", h.message);
  res->present = calloc(h.n ? h.n : 1, sizeof *res->present);
  res->records = calloc(h.n ? h.n : 1, sizeof *res->records);
  if (!res->present || !res->records)
    return false;
  for (size_t i = 0; i < h.n; ++i) {
    uint8_t p;
    if (!farmGet(r, &p, 1))
      return false;
    res->present[i] = p != 0;
  }
  for (size_t i = 0; i < h.n; ++i)
    if (res->present[i] && !farmGet(r, &res->records[i], sizeof res->records[i]))
      return false;
  res->has_baseline = h.has_baseline != 0;
  if (res->has_baseline && !farmGet(r, &res->baseline, sizeof res->baseline))
    return false;
  res->adopted = h.adopted != 0;
  snprintf(res->adopted_key, sizeof res->adopted_key, "%s", h.adopted_key);
  snprintf(res->unmeasurable, sizeof res->unmeasurable, "%.*s", (int)sizeof h.unmeasurable - 1,
           h.unmeasurable);
  const void *notes = farmTake(r, h.notes_len);
  if (!notes && h.notes_len)
    return false;
  farmPut(&res->notes, notes, h.notes_len);
  if (h.blob_len) {
    const void *blob = farmTake(r, h.blob_len);
    res->blob = blob ? malloc(h.blob_len) : NULL;
    if (!res->blob)
      return false;
    memcpy(res->blob, blob, h.blob_len);
    res->blob_len = h.blob_len;
  }
  return !res->notes.failed;
}

/* Messages travel in fragments below the transports' eager limit (Open MPI's shared
 * memory transport: 4 KiB): an eager fragment is copied whole into the receiver's queue,
 * while a larger message is pulled from the sender's memory during the receive, and a
 * receive from a rank killed in between never returns (seen with kill -9 under Open MPI
 * 4.1.4). The first fragment starts with the message's length; fragments of one sender
 * arrive in order (MPI's non-overtaking rule). */
#define FARM_FRAGMENT 3584

static bool farmSendFragment(PrunerFarm f, const void *data, size_t len, int dest, int tag,
                             volatile int *give_up) {
  MPI_Request req;
  pthread_mutex_lock(&f->mpi);
  int rc = MPI_Isend(data, (int)len, MPI_BYTE, dest, tag, f->comm, &req);
  pthread_mutex_unlock(&f->mpi);
  if (rc != MPI_SUCCESS)
    return false;
  for (;;) {
    int done = 0;
    pthread_mutex_lock(&f->mpi);
    rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    pthread_mutex_unlock(&f->mpi);
    if (rc != MPI_SUCCESS)
      return false;
    if (done)
      return true;
    if ((give_up && *give_up) || (f->send_deadline > 0 && prunerNowSeconds() > f->send_deadline)) {
      pthread_mutex_lock(&f->mpi);
      MPI_Cancel(&req);
      MPI_Request_free(&req);
      pthread_mutex_unlock(&f->mpi);
      return false;
    }
    usleep(200);
  }
}

/* Sends without blocking on the peer: each fragment's send is tested with the lock
 * released in between, so the heartbeat thread keeps beating. False when MPI reports an
 * error or `give_up` (may be NULL) becomes true. */
static bool farmSend(PrunerFarm f, const void *data, size_t len, int dest, int tag,
                     volatile int *give_up) {
  unsigned char frag[FARM_FRAGMENT];
  uint64_t total = len;
  memcpy(frag, &total, sizeof total);
  size_t first = len < FARM_FRAGMENT - sizeof total ? len : FARM_FRAGMENT - sizeof total;
  memcpy(frag + sizeof total, data, first);
  if (!farmSendFragment(f, frag, sizeof total + first, dest, tag, give_up))
    return false;
  for (size_t at = first; at < len; at += FARM_FRAGMENT) {
    size_t n = len - at < FARM_FRAGMENT ? len - at : FARM_FRAGMENT;
    if (!farmSendFragment(f, (const unsigned char *)data + at, n, dest, tag, give_up))
      return false;
  }
  return true;
}

/* A whole message waiting from `source` (MPI_ANY_SOURCE) with any tag, received into a
 * malloc'ed buffer; fragments of an unfinished one are kept per sender. False when no
 * whole message is there yet. Heartbeats are single ints, not fragmented. */
static bool farmTryReceive(PrunerFarm f, int source, int *from, int *got_tag, unsigned char **data,
                           int *len) {
  for (;;) {
    MPI_Status status;
    int flag = 0;
    pthread_mutex_lock(&f->mpi);
    if (MPI_Iprobe(source, MPI_ANY_TAG, f->comm, &flag, &status) != MPI_SUCCESS || !flag) {
      pthread_mutex_unlock(&f->mpi);
      return false;
    }
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    unsigned char frag[FARM_FRAGMENT];
    int rc = count >= 0 && count <= FARM_FRAGMENT
                 ? MPI_Recv(frag, count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG,
                            f->comm, MPI_STATUS_IGNORE)
                 : MPI_ERR_COUNT;
    pthread_mutex_unlock(&f->mpi);
    if (rc != MPI_SUCCESS)
      return false;
    int src = status.MPI_SOURCE;
    if (status.MPI_TAG == TAG_HEARTBEAT) {
      *from = src;
      *got_tag = TAG_HEARTBEAT;
      *data = NULL;
      *len = 0;
      return true;
    }
    FarmAssembly *a = &f->assembly[src];
    size_t at = 0;
    if (!a->active) {
      uint64_t total = 0;
      if ((size_t)count < sizeof total)
        continue; /* not one of ours */
      memcpy(&total, frag, sizeof total);
      at = sizeof total;
      a->buf = malloc(total ? total : 1);
      if (!a->buf)
        return false;
      a->len = total;
      a->got = 0;
      a->tag = status.MPI_TAG;
      a->active = true;
    }
    size_t n = (size_t)count - at;
    if (n > a->len - a->got)
      n = a->len - a->got;
    memcpy(a->buf + a->got, frag + at, n);
    a->got += n;
    if (a->got < a->len) {
      *from = src;
      *got_tag = TAG_FRAGMENT;
      *data = NULL;
      *len = 0;
      return true;
    }
    *from = src;
    *got_tag = a->tag;
    *data = a->buf;
    *len = (int)a->len;
    a->buf = NULL;
    a->active = false;
    return true;
  }
}

/* ---------------------------------------------------------------------------------- */
/* Heartbeats                                                                          */

static void *farmHeartbeatMain(void *arg) {
  PrunerFarm f = arg;
  double last_beat = 0;
  while (!f->quit) {
    double now = prunerNowSeconds();
    pthread_mutex_lock(&f->mpi);
    if (now - last_beat >= FARM_HEARTBEAT_S) {
      last_beat = now;
      for (int r = 0; r < f->size; ++r) {
        bool to = f->rank == 0 ? r > 0 && !f->ranks[r].lost : r == 0;
        if (!to)
          continue;
        MPI_Request req;
        if (MPI_Isend(&kHeartbeat, 1, MPI_INT, r, TAG_HEARTBEAT, f->comm, &req) ==
            MPI_SUCCESS)
          MPI_Request_free(&req);
      }
    }
    if (f->rank > 0) {
      /* Rank 0's beats and its stop word; the main thread may be deep in a build. */
      int flag = 1;
      while (flag) {
        MPI_Status st;
        if (MPI_Iprobe(0, TAG_HEARTBEAT, f->comm, &flag, &st) != MPI_SUCCESS)
          break;
        if (flag) {
          int v;
          MPI_Recv(&v, 1, MPI_INT, 0, TAG_HEARTBEAT, f->comm, MPI_STATUS_IGNORE);
          f->last_rank0 = now;
        }
      }
      int stop = 0;
      MPI_Status st;
      if (MPI_Iprobe(0, TAG_STOP, f->comm, &stop, &st) == MPI_SUCCESS && stop) {
        f->stop_seen = 1;
        f->stop = 1; /* the candidate in progress is cut short */
      }
      if (f->user_stop && *f->user_stop)
        f->stop = 1;
      if (now - f->last_rank0 > f->opts.rank_timeout_s) {
        f->rank0_lost = 1;
        f->stop = 1;
      }
    }
    pthread_mutex_unlock(&f->mpi);
    usleep(100 * 1000);
  }
  return NULL;
}

/* ---------------------------------------------------------------------------------- */
/* Set-up and tear-down                                                                */

PrunerStatus prunerFarmCreate(int *argc, char ***argv, const PrunerFarmOptions *opts,
                              PrunerFarm *out) {
  *out = NULL;
  PrunerFarm f = calloc(1, sizeof *f);
  if (!f)
    return prunerStatusError("out of memory");
  f->opts = opts ? *opts : prunerFarmDefaultOptions();
  if (!(f->opts.rank_timeout_s > 0))
    f->opts.rank_timeout_s = 30.0;
  /* A program that started MPI itself keeps it: the farm neither starts nor ends it. */
  int started = 0, provided = 0;
  MPI_Initialized(&started);
  if (started) {
    MPI_Query_thread(&provided);
  } else {
    if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
      free(f);
      return prunerStatusError("MPI_Init_thread failed");
    }
    f->owns_mpi = true;
  }
  /* The heartbeat thread calls MPI under the farm's own lock: enough when the farm owns
   * MPI's calls (SERIALIZED), but a program that started MPI may call it from its own
   * threads meanwhile, which only MULTIPLE allows. */
  int needed = f->owns_mpi ? MPI_THREAD_SERIALIZED : MPI_THREAD_MULTIPLE;
  if (provided < needed) {
    bool owned = f->owns_mpi;
    if (owned)
      MPI_Finalize();
    free(f);
    return prunerStatusError("the MPI library offers thread level %d; the farm's heartbeat "
                             "thread needs %s",
                             provided,
                             owned ? "MPI_THREAD_SERIALIZED"
                                   : "MPI_THREAD_MULTIPLE when the program started MPI "
                                     "(MPI_Init_thread with MPI_THREAD_MULTIPLE)");
  }
  /* Its own communicator, so that the error handler below is not the caller's: a dead
   * peer must come back as an error code, not end this process. */
  if (MPI_Comm_dup(MPI_COMM_WORLD, &f->comm) != MPI_SUCCESS) {
    if (f->owns_mpi)
      MPI_Finalize();
    free(f);
    return prunerStatusError("MPI_Comm_dup failed");
  }
  MPI_Comm_set_errhandler(f->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(f->comm, &f->rank);
  MPI_Comm_size(f->comm, &f->size);
  f->assembly = calloc((size_t)f->size, sizeof *f->assembly);
  if (f->rank == 0)
    f->ranks = calloc((size_t)f->size, sizeof *f->ranks);
  if (!f->assembly || (f->rank == 0 && !f->ranks)) {
    free(f->assembly);
    free(f->ranks);
    MPI_Comm_free(&f->comm);
    if (f->owns_mpi)
      MPI_Finalize();
    free(f);
    return prunerStatusError("out of memory");
  }
  pthread_mutex_init(&f->mpi, NULL);
  f->created = prunerNowSeconds();
  f->last_rank0 = f->created;
  if (f->rank == 0) {
    for (int r = 0; r < f->size; ++r)
      f->ranks[r].last_seen = f->created;
  }
  f->heartbeat_running = pthread_create(&f->heartbeat, NULL, farmHeartbeatMain, f) == 0;
  *out = f;
  return prunerStatusOk();
}

void prunerFarmExpectTarget(PrunerFarm f, const char *target_key, int codegen_version) {
  if (!f || f->rank != 0)
    return;
  snprintf(f->expect_key, sizeof f->expect_key, "%s", target_key ? target_key : "");
  f->expect_codegen = codegen_version;
}

int prunerFarmRank(PrunerFarm f) { return f ? f->rank : 0; }
int prunerFarmSize(PrunerFarm f) { return f ? f->size : 1; }
int prunerFarmLostRanks(PrunerFarm f) { return f ? f->lost : 0; }

/* MPI_Finalize after a lost rank: it returned at once in our tests with Open MPI 4.1.4
 * (and the launcher waits for it: a process that exits without it keeps mpirun running),
 * but an MPI may wait for the lost rank; a watchdog ends the process if it does. */
#define FARM_FINALIZE_WAIT_S 10

/* The watchdog waits for `finalized` (set when MPI_Finalize returned) or the deadline. */
typedef struct FarmWatchdog {
  pthread_mutex_t lock;
  pthread_cond_t done;
  bool finalized;
  int exit_status;
} FarmWatchdog;

static void *farmFinalizeWatchdog(void *arg) {
  FarmWatchdog *w = arg;
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline); /* the condition's clock: steps do not move it */
  deadline.tv_sec += FARM_FINALIZE_WAIT_S;
  pthread_mutex_lock(&w->lock);
  int rc = 0;
  while (!w->finalized && rc != ETIMEDOUT)
    rc = pthread_cond_timedwait(&w->done, &w->lock, &deadline);
  bool finalized = w->finalized;
  pthread_mutex_unlock(&w->lock);
  if (finalized)
    return NULL;
  static const char msg[] = "pruner-tune: MPI's shutdown did not return within 10 s (a "
                            "lost rank?); exiting without it (rank 0's records are "
                            "complete)\n";
  ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)ignored;
  _exit(w->exit_status);
}

void prunerFarmAbortLaunch(int exit_status) {
  if (!prunerFarmLaunched())
    return;
  int started = 0, provided = 0;
  MPI_Initialized(&started);
  if (!started && MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
    return;
  MPI_Abort(MPI_COMM_WORLD, exit_status);
}

void prunerFarmDestroy(PrunerFarm f, int exit_status) {
  if (!f)
    return;
  if (f->rank == 0) {
    static const int word = 0;
    volatile int give_up = 0;
    /* Lost ranks too (one that failed is alive), each given 2 s: a dead one never
     * takes it. */
    for (int r = 1; r < f->size; ++r) {
      f->send_deadline = prunerNowSeconds() + (f->ranks[r].lost ? 2.0 : f->opts.rank_timeout_s);
      farmSend(f, &word, sizeof word, r, TAG_STOP, &give_up);
    }
    f->send_deadline = 0;
  }
  f->quit = 1;
  if (f->heartbeat_running)
    pthread_join(f->heartbeat, NULL);
  /* Armed on every rank, around the communicator's release too (collective in MPI's
   * terms): a surviving worker's finalize can wait for the lost rank as much as rank
   * 0's, and it does not know of the loss. Disarmed when they return. A program that
   * started MPI finalizes it itself; only the release is watched then. */
  FarmWatchdog w = {.finalized = false, .exit_status = exit_status};
  pthread_mutex_init(&w.lock, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&w.done, &attr);
  pthread_condattr_destroy(&attr);
  pthread_t watchdog;
  bool armed = pthread_create(&watchdog, NULL, farmFinalizeWatchdog, &w) == 0;
  MPI_Comm_free(&f->comm);
  if (f->owns_mpi)
    MPI_Finalize();
  if (armed) {
    pthread_mutex_lock(&w.lock);
    w.finalized = true;
    pthread_cond_signal(&w.done);
    pthread_mutex_unlock(&w.lock);
    pthread_join(watchdog, NULL);
  }
  pthread_cond_destroy(&w.done);
  pthread_mutex_destroy(&w.lock);
  pthread_mutex_destroy(&f->mpi);
  for (int r = 0; r < f->size; ++r)
    free(f->assembly[r].buf);
  free(f->assembly);
  free(f->ranks);
  free(f);
}

/* ---------------------------------------------------------------------------------- */
/* Worker ranks                                                                        */

static PrunerStatus farmHello(PrunerFarm f, const PrunerBackend *backend,
                              const PrunerTargetDesc *target) {
  FarmHello h;
  memset(&h, 0, sizeof h);
  h.magic = FARM_MAGIC;
  h.role = (uint32_t)f->role;
  h.codegen_version = backend->codegen_version;
  prunerTargetKey(target, h.target_key, sizeof h.target_key);
  h.sizes[0] = sizeof(PrunerWorkload);
  h.sizes[1] = sizeof(PrunerConfig);
  h.sizes[2] = sizeof(PrunerRecord);
  h.sizes[3] = sizeof(FarmResultHeader);
  gethostname(h.host, sizeof h.host - 1);
  if (!farmSend(f, &h, sizeof h, 0, TAG_HELLO, &f->rank0_lost))
    return prunerStatusError("rank %d: cannot reach rank 0", f->rank);
  return prunerStatusOk();
}

PrunerStatus prunerFarmServe(PrunerFarm f, const PrunerBackend *backend,
                             const PrunerTargetDesc *target, const PrunerBackendOptions *opts) {
  if (!f || f->rank == 0)
    return prunerStatusError("prunerFarmServe: not a worker rank");
  f->role = prunerFarmResolveRole(f->opts.role, backend, target);
  f->user_stop = opts ? opts->stop : NULL;
  PrunerBackendOptions bo = opts ? *opts : (PrunerBackendOptions){0};
  bo.stop = &f->stop;
  PrunerBackendState state = NULL;
  PrunerStatus st = farmHello(f, backend, target);
  while (st.ok) {
    /* A signal to this rank alone (rank 0 sent no stop word): it ends. Rank 0 hears of it
     * from the chunk below, or loses it when its heartbeats stop. */
    if (f->user_stop && *f->user_stop && !f->stop_seen)
      break;
    if (f->rank0_lost) {
      st = prunerStatusError("rank %d: rank 0 silent for %.0f s; this rank ends", f->rank,
                             f->opts.rank_timeout_s);
      break;
    }
    int from = 0, tag = 0, len = 0;
    unsigned char *msg = NULL;
    if (!farmTryReceive(f, 0, &from, &tag, &msg, &len)) {
      usleep(2000);
      continue;
    }
    if (tag == TAG_HEARTBEAT || tag == TAG_FRAGMENT) {
      f->last_rank0 = prunerNowSeconds();
      free(msg);
      continue;
    }
    if (tag == TAG_STOP) {
      free(msg);
      break;
    }
    if (tag != TAG_WORK) {
      free(msg);
      continue;
    }
    FarmReader r = {msg, (size_t)len, 0};
    FarmWorkHeader h;
    PrunerBackendBatch batch;
    const void *blob = NULL;
    FarmChunkResult res;
    memset(&res, 0, sizeof res);
    if (!farmUnpackWork(&r, &h, &batch, &blob)) {
      res.status = prunerStatusError("rank %d: a malformed work message (%d bytes)", f->rank, len);
      h.job = 0;
    } else if (!state && !(res.status = backend->create(target, &bo, &state)).ok) {
      /* reported back: rank 0 decides */
    } else if (h.kind == JOB_BUILD && !backend->exportBuild) {
      res.status = prunerStatusError("backend %s cannot build for another rank", backend->name);
    } else if (h.kind == JOB_MEASURE_BUILT && !backend->measureBuilt) {
      res.status =
          prunerStatusError("backend %s cannot measure what another rank built", backend->name);
    } else {
      farmRunChunk(backend, state, &h, &batch, blob, (size_t)h.blob_len, &f->stop, NULL, &res);
    }
    /* Cut short by a signal to this rank alone: what it measured of the chunk is not a
     * measurement of the rest, so the chunk is reported failed and rank 0 gives it to
     * another rank. (Its empty answers used to be taken as results: rank 0 sent the same
     * candidates again, round after round, forever.) */
    bool interrupted = f->user_stop && *f->user_stop && !f->stop_seen;
    if (interrupted)
      res.status = prunerStatusError("rank %d was interrupted by a signal and ends", f->rank);
    FarmBuf out = {0};
    if (farmPackResult(&out, h.job, &res))
      farmSend(f, out.p, out.len, 0, TAG_RESULT, &f->rank0_lost);
    else
      st = prunerStatusError("rank %d: out of memory packing a result", f->rank);
    free(out.p);
    farmChunkResultFree(&res);
    free(msg);
    if (f->stop_seen || interrupted)
      break; /* the rest of the stop word is read above on the next turn; we are done */
  }
  if (state)
    backend->destroy(state);
  return st;
}

/* ---------------------------------------------------------------------------------- */
/* Rank 0                                                                              */

/* A chunk's way through rank 0: WAITING -> RUNNING (on `rank`) -> DONE -> FLUSHED (handed
 * to the tuner). In a pipelined measure batch a compile-only rank's build takes it from
 * RUNNING to BUILT, and its measurement elsewhere from BUILT through RUNNING to DONE. */
enum { CHUNK_WAITING, CHUNK_RUNNING, CHUNK_DONE, CHUNK_FLUSHED, CHUNK_BUILT };

typedef struct FarmChunk {
  size_t begin, n;
  int state; /* CHUNK_*                                                             */
  int rank;
  int job_kind; /* the job running or last run on it (JOB_*)                        */
  uint64_t job;
  bool want_baseline;
  FarmChunkResult result;
  void *blob; /* CHUNK_BUILT: the batch another rank built, kept until it is measured */
  size_t blob_len;
  FarmBuf build_notes; /* its build's notes, handed on before its measurement's      */
} FarmChunk;

typedef struct FarmRun {
  PrunerFarm f;
  const PrunerBackend *backend;
  PrunerBackendState local;
  const PrunerBackendBatch *batch;
  const PrunerBackendSink *sink;
  int kind;
  uint32_t need; /* role bits a rank needs                                          */
  bool pipeline; /* measure batch: compile-only ranks build, measuring ranks measure   */
  FarmWorkHeader proto;
  FarmChunk *chunks;
  size_t n_chunks, flushed;
  bool local_ok;
} FarmRun;

static void farmRankNote(const PrunerBackendSink *sink, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void farmRankNote(const PrunerBackendSink *sink, const char *fmt, ...) {
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  sink->note(sink->user, true, text);
}

static void farmMarkLost(FarmRun *run, int r, const char *why) {
  PrunerFarm f = run->f;
  if (f->ranks[r].lost)
    return;
  f->ranks[r].lost = true;
  f->ranks[r].busy = false;
  free(f->assembly[r].buf);
  memset(&f->assembly[r], 0, sizeof f->assembly[r]);
  f->lost++;
  size_t back = 0;
  for (size_t c = 0; c < run->n_chunks; ++c)
    if (run->chunks[c].state == CHUNK_RUNNING && run->chunks[c].rank == r) {
      /* A measurement of a built chunk goes back to be measured again, the build kept. */
      run->chunks[c].state =
          run->chunks[c].job_kind == JOB_MEASURE_BUILT ? CHUNK_BUILT : CHUNK_WAITING;
      back += run->chunks[c].n;
    }
  farmRankNote(run->sink,
               "warning: farm: rank %d (%s) lost: %s; its %zu unfinished candidate(s) go to "
               "another rank or back to rank 0",
               r, f->ranks[r].host[0] ? f->ranks[r].host : "?", why, back);
}

/* A chunk's job came back (`res` is taken over): the build of a pipelined measure batch
 * keeps its blob for a measuring rank; anything else is the chunk's result. */
static void farmChunkFinish(FarmRun *run, FarmChunk *c, FarmChunkResult *res) {
  if (run->kind == JOB_MEASURE && c->job_kind == JOB_BUILD && res->status.ok) {
    free(c->blob);
    c->blob = res->blob;
    c->blob_len = res->blob_len;
    res->blob = NULL;
    res->blob_len = 0;
    farmPut(&c->build_notes, res->notes.p, res->notes.len);
    farmChunkResultFree(res);
    c->state = CHUNK_BUILT;
    return;
  }
  c->result = *res;
  memset(res, 0, sizeof *res);
  c->state = CHUNK_DONE;
}

/* Hellos, heartbeats and results that arrived; returns whether anything did. */
static bool farmPoll(FarmRun *run) {
  PrunerFarm f = run->f;
  bool any = false;
  /* Silence counts only while rank 0 listens: after its own chunk or the verifier's
   * training, a worker's heartbeats may still sit behind a large result. */
  double now = prunerNowSeconds();
  double gap = f->last_poll > 0 ? now - f->last_poll : 0;
  if (gap > 0.5)
    for (int r = 1; r < f->size; ++r)
      f->ranks[r].last_seen = f->ranks[r].last_seen + gap < now ? f->ranks[r].last_seen + gap : now;
  int from, tag, len;
  unsigned char *msg;
  while (farmTryReceive(f, MPI_ANY_SOURCE, &from, &tag, &msg, &len)) {
    any = true;
    FarmRank *rk = &f->ranks[from];
    rk->last_seen = prunerNowSeconds(); /* a fragment too: the sender is alive */
    if (tag == TAG_FRAGMENT)
      continue;
    if (tag == TAG_HELLO && !rk->lost) {
      FarmHello h;
      FarmReader r = {msg, (size_t)len, 0};
      bool same = farmGet(&r, &h, sizeof h) && h.magic == FARM_MAGIC &&
                  h.sizes[0] == sizeof(PrunerWorkload) && h.sizes[1] == sizeof(PrunerConfig) &&
                  h.sizes[2] == sizeof(PrunerRecord) && h.sizes[3] == sizeof(FarmResultHeader);
      h.target_key[sizeof h.target_key - 1] = '\0';
      char why[FARM_KEY * 2 + 200] = "";
      if (!same)
        snprintf(why, sizeof why, "it runs another build of pruner-tune (every rank needs the "
                                  "same)");
      else if (f->expect_codegen && h.codegen_version != f->expect_codegen)
        snprintf(why, sizeof why, "its build makes kernels of code-generator version %d, rank "
                                  "0's of %d (every rank needs the same build)",
                 (int)h.codegen_version, f->expect_codegen);
      else if (f->expect_key[0] && strcmp(h.target_key, f->expect_key) != 0)
        snprintf(why, sizeof why, "its --target describes %s, rank 0's %s: its measurements "
                                  "would be recorded under rank 0's key",
                 h.target_key, f->expect_key);
      if (!why[0]) {
        rk->hello = true;
        rk->role = (PrunerFarmRole)h.role;
        snprintf(rk->host, sizeof rk->host, "%s", h.host);
      } else if (run->sink) {
        snprintf(rk->host, sizeof rk->host, "%s", same ? h.host : "?");
        farmMarkLost(run, from, why);
      }
    } else if (tag == TAG_RESULT && !rk->lost) {
      FarmReader r = {msg, (size_t)len, 0};
      uint64_t job = 0;
      FarmChunkResult res;
      bool ok = farmUnpackResult(&r, &job, &res);
      FarmChunk *c = NULL;
      for (size_t i = 0; i < run->n_chunks; ++i)
        if (run->chunks[i].job == job && run->chunks[i].state == CHUNK_RUNNING &&
            run->chunks[i].rank == from)
          c = &run->chunks[i];
      rk->busy = false;
      if (!c) {
        farmChunkResultFree(&res); /* a batch rank 0 gave up on (Ctrl-C) */
      } else if (!ok || (res.status.ok && res.n != c->n)) {
        farmChunkResultFree(&res);
        farmMarkLost(run, from, "a malformed result message");
      } else if (!res.status.ok) {
        /* What ends a plain run (no device, no tools) ends this rank's part: its chunk goes
         * elsewhere, and rank 0 meets the same failure itself only if no rank is left. */
        char why[PRUNER_STATUS_MESSAGE_SIZE + 16];
        snprintf(why, sizeof why, "it failed: %s", res.status.message);
        farmChunkResultFree(&res);
        farmMarkLost(run, from, why);
      } else {
        farmChunkFinish(run, c, &res);
        rk->candidates += (long)c->n;
      }
    }
    free(msg);
  }
  f->last_poll = prunerNowSeconds();
  return any;
}

static bool farmRankEligible(const FarmRun *run, int r) {
  const FarmRank *rk = &run->f->ranks[r];
  return rk->hello && !rk->lost && ((uint32_t)rk->role & run->need);
}

/* Waits (up to the rank timeout from start-up) until every rank said hello or was lost,
 * so that the first batch is split among all of them. */
static void farmAwaitHellos(FarmRun *run) {
  PrunerFarm f = run->f;
  for (;;) {
    farmPoll(run);
    bool all = true;
    for (int r = 1; r < f->size; ++r)
      all = all && (f->ranks[r].hello || f->ranks[r].lost);
    if (all)
      return;
    if (prunerNowSeconds() - f->created > f->opts.rank_timeout_s) {
      for (int r = 1; r < f->size; ++r)
        if (!f->ranks[r].hello)
          farmMarkLost(run, r, "no hello within the rank timeout");
      return;
    }
    if (run->sink->stopRequested(run->sink->user))
      return;
    usleep(2000);
  }
}

static void farmCheckTimeouts(FarmRun *run) {
  PrunerFarm f = run->f;
  double now = prunerNowSeconds();
  for (int r = 1; r < f->size; ++r)
    if (!f->ranks[r].lost && now - f->ranks[r].last_seen > f->opts.rank_timeout_s) {
      char why[96];
      snprintf(why, sizeof why, "no heartbeat for %.0f s (--rank-timeout)",
               now - f->ranks[r].last_seen);
      farmMarkLost(run, r, why);
    }
}

static PrunerBackendBatch farmSubBatch(const PrunerBackendBatch *b, size_t begin, size_t n) {
  PrunerBackendBatch s = {.workload = b->workload,
                          .configs = b->configs + begin,
                          .draft_us = b->draft_us + begin,
                          .verifier_scores = b->verifier_scores + begin,
                          .n = n};
  return s;
}

/* The work header of chunk `c` as a job of `kind`. */
static FarmWorkHeader farmChunkHeader(const FarmRun *run, const FarmChunk *c, int kind) {
  FarmWorkHeader h = run->proto;
  h.kind = (uint32_t)kind;
  h.n = (uint32_t)c->n;
  h.want_baseline = c->want_baseline;
  h.blob_len = kind == JOB_MEASURE_BUILT ? c->blob_len : 0;
  return h;
}

static bool farmSendChunk(FarmRun *run, FarmChunk *c, int r, int kind) {
  PrunerFarm f = run->f;
  FarmWorkHeader h = farmChunkHeader(run, c, kind);
  h.job = c->job = ++f->next_job;
  PrunerBackendBatch sub = farmSubBatch(run->batch, c->begin, c->n);
  FarmBuf b = {0};
  volatile int give_up = 0;
  /* A frozen rank (SIGSTOP, a hung node) never takes the message: a send that has not
   * completed within the rank timeout loses the rank. */
  f->send_deadline = prunerNowSeconds() + f->opts.rank_timeout_s;
  bool ok = farmPackWork(&b, &h, &sub, c->blob) && farmSend(f, b.p, b.len, r, TAG_WORK, &give_up);
  f->send_deadline = 0;
  free(b.p);
  if (!ok) {
    farmMarkLost(run, r, "the work message was not taken within the rank timeout");
    return false;
  }
  c->state = CHUNK_RUNNING;
  c->rank = r;
  c->job_kind = kind;
  f->ranks[r].busy = true;
  return true;
}

static void farmRunLocal(FarmRun *run, FarmChunk *c, int kind) {
  FarmWorkHeader h = farmChunkHeader(run, c, kind);
  PrunerBackendBatch sub = farmSubBatch(run->batch, c->begin, c->n);
  FarmChunkResult res;
  farmRunChunk(run->backend, run->local, &h, &sub, c->blob, c->blob_len, NULL, run->sink, &res);
  c->job_kind = kind;
  farmChunkFinish(run, c, &res);
  run->f->ranks[0].candidates += (long)c->n;
}

/* Notes as the backend wrote them (farmSinkNote), line by line, to the tuner. */
static void farmHandNotes(FarmRun *run, const FarmBuf *notes) {
  for (size_t at = 0; at < notes->len;) {
    const char *line = (const char *)notes->p + at;
    const char *end = memchr(line, '\n', notes->len - at);
    size_t n = end ? (size_t)(end - line) : notes->len - at;
    char text[1100];
    snprintf(text, sizeof text, "%.*s", (int)(n > 1 ? n - 1 : 0), line + 1);
    run->sink->note(run->sink->user, line[0] == '1', text);
    at += n + 1;
  }
}

/* A chunk's buffers (its result, its build). */
static void farmChunkFree(FarmChunk *c) {
  farmChunkResultFree(&c->result);
  free(c->blob);
  free(c->build_notes.p);
  c->blob = NULL;
  c->blob_len = 0;
  memset(&c->build_notes, 0, sizeof c->build_notes);
}

/* Hands finished chunks to the tuner in order; the first failure ends the batch. */
static PrunerStatus farmFlush(FarmRun *run, PrunerBackendBatch *built) {
  PrunerStatus st = prunerStatusOk();
  while (st.ok && run->flushed < run->n_chunks && run->chunks[run->flushed].state == CHUNK_DONE) {
    FarmChunk *c = &run->chunks[run->flushed];
    FarmChunkResult *res = &c->result;
    if (res->adopted)
      run->sink->adoptTargetKey(run->sink->user, res->adopted_key);
    farmHandNotes(run, &c->build_notes);
    farmHandNotes(run, &res->notes);
    if (!res->status.ok) {
      st = res->status;
      break;
    }
    if (run->kind == JOB_MEASURE) {
      for (size_t i = 0; i < c->n && st.ok; ++i)
        if (res->present[i])
          st = run->sink->candidate(run->sink->user, c->begin + i, &res->records[i]);
      if (st.ok && res->has_baseline && !run->sink->hasBaseline(run->sink->user))
        st = run->sink->baseline(run->sink->user, &res->baseline);
      if (st.ok && res->unmeasurable[0])
        run->sink->unmeasurable(run->sink->user, res->unmeasurable);
    } else {
      PrunerBackendBatch sub = farmSubBatch(run->batch, c->begin, c->n);
      st = run->backend->exportAddBuilt(run->local, &sub, res->blob, res->blob_len, run->sink);
    }
    (void)built;
    c->state = CHUNK_FLUSHED;
    farmChunkFree(c);
    run->flushed++;
  }
  return st;
}

static bool farmRankCan(const FarmRank *rk, PrunerFarmRole bit) {
  return ((uint32_t)rk->role & (uint32_t)bit) != 0;
}

/* The job an idle rank with role bits `role` takes next, and on which chunk (*chunk),
 * from chunk `first` on; 0 when there is nothing for it. A measuring rank first measures
 * a chunk another rank built, then takes a new one (built and measured in one go); a
 * compile-only rank of a pipelined measure batch builds one for the measuring ranks. */
static int farmNextJob(const FarmRun *run, PrunerFarmRole role, size_t first, size_t *chunk) {
  bool measures = ((uint32_t)role & PRUNER_FARM_ROLE_MEASURE) != 0;
  bool compiles = ((uint32_t)role & PRUNER_FARM_ROLE_COMPILE) != 0;
  if (run->kind == JOB_BUILD) {
    for (size_t c = first; c < run->n_chunks && compiles; ++c)
      if (run->chunks[c].state == CHUNK_WAITING)
        return *chunk = c, JOB_BUILD;
    return 0;
  }
  for (size_t c = first; c < run->n_chunks && measures; ++c)
    if (run->chunks[c].state == CHUNK_BUILT)
      return *chunk = c, JOB_MEASURE_BUILT;
  for (size_t c = first; c < run->n_chunks; ++c)
    if (run->chunks[c].state == CHUNK_WAITING) {
      if (measures)
        return *chunk = c, JOB_MEASURE;
      if (compiles && run->pipeline)
        return *chunk = c, JOB_BUILD;
    }
  return 0;
}

static PrunerStatus farmRunBatch(FarmRun *run) {
  PrunerFarm f = run->f;
  const PrunerBackendBatch *b = run->batch;
  if (!f->role_resolved) {
    f->role = prunerFarmResolveRole(f->opts.role, run->backend, NULL);
    f->role_resolved = true;
    f->ranks[0].role = f->role;
    f->ranks[0].hello = true;
    gethostname(f->ranks[0].host, sizeof f->ranks[0].host - 1);
  }
  farmAwaitHellos(run);
  /* A measure batch is pipelined when some rank only compiles, some rank measures and the
   * backend can measure what another process built: build hosts then build for the
   * measuring hosts (docs/distributed.md, "Roles"). Without a compile-only rank nothing
   * changes: each measuring rank builds what it measures. */
  bool compile_only = f->role == PRUNER_FARM_ROLE_COMPILE;
  bool measurer = farmRankCan(&f->ranks[0], PRUNER_FARM_ROLE_MEASURE);
  for (int r = 1; r < f->size; ++r) {
    const FarmRank *rk = &f->ranks[r];
    if (!rk->hello || rk->lost)
      continue;
    compile_only = compile_only || rk->role == PRUNER_FARM_ROLE_COMPILE;
    measurer = measurer || farmRankCan(rk, PRUNER_FARM_ROLE_MEASURE);
  }
  run->pipeline = run->kind == JOB_MEASURE && compile_only && measurer &&
                  run->backend->exportBuild && run->backend->measureBuilt;
  if (run->pipeline)
    run->need = PRUNER_FARM_ROLE_BOTH; /* compile-only ranks take part */
  int helpers = 0;
  for (int r = 1; r < f->size; ++r)
    helpers += farmRankEligible(run, r);
  run->local_ok = ((uint32_t)f->role & run->need) != 0;
  int ranks = helpers + (run->local_ok ? 1 : 0);
  if (helpers == 0) {
    if (!f->noted_alone)
      farmRankNote(run->sink, "farm: no other rank can %s for this target: rank 0 does it alone",
                   run->kind == JOB_MEASURE ? "measure" : "compile");
    f->noted_alone = true;
    /* A measure batch whose seed prunerFarmMeasure drew already runs as one local chunk,
     * so that the backend gets that seed and the tuner's generator advances as in a plain
     * run (handing the batch to backend->measure would draw a second one). */
    if (run->kind != JOB_MEASURE || !run->proto.has_seed) {
      f->ranks[0].candidates += (long)b->n; /* the per-rank counts add up to the batches */
      return run->kind == JOB_MEASURE ? run->backend->measure(run->local, b, run->sink)
                                      : run->backend->exportAdd(run->local, b, run->sink);
    }
  }
  if (run->pipeline && !f->noted_pipeline) {
    farmRankNote(run->sink,
                 "farm: compile-only ranks build candidates that measuring ranks measure");
    f->noted_pipeline = true;
  }
  /* Measuring: two chunks per rank, so that a rank that finishes early takes another.
   * Building: one chunk per rank, since each chunk starts a compile pool whose children
   * set up MLIR afresh (docs/distributed.md, "Speed"). */
  size_t parts = helpers == 0 ? 1 : (size_t)ranks * (run->kind == JOB_MEASURE ? 2 : 1);
  size_t per = (b->n + parts - 1) / parts;
  if (per < 1)
    per = 1;
  run->n_chunks = (b->n + per - 1) / per;
  run->chunks = calloc(run->n_chunks ? run->n_chunks : 1, sizeof *run->chunks);
  if (!run->chunks)
    return prunerStatusError("out of memory");
  for (size_t c = 0; c < run->n_chunks; ++c) {
    run->chunks[c].begin = c * per;
    run->chunks[c].n = c * per + per <= b->n ? per : b->n - c * per;
  }
  /* The baseline is measured after the last chunk's candidates, as a plain run measures
   * it after the batch's. */
  if (run->kind == JOB_MEASURE && run->n_chunks > 0)
    run->chunks[run->n_chunks - 1].want_baseline = !run->sink->hasBaseline(run->sink->user);
  PrunerStatus st = prunerStatusOk();
  while (st.ok && run->flushed < run->n_chunks) {
    if (run->sink->stopRequested(run->sink->user)) {
      f->interrupted = true;
      break;
    }
    bool progress = farmPoll(run);
    farmCheckTimeouts(run);
    bool any_helper = false, any_measurer = false, any_running = false;
    for (int r = 1; r < f->size; ++r) {
      any_helper = any_helper || farmRankEligible(run, r);
      any_measurer = any_measurer || (farmRankEligible(run, r) &&
                                      farmRankCan(&f->ranks[r], PRUNER_FARM_ROLE_MEASURE));
    }
    for (size_t c = 0; c < run->n_chunks; ++c)
      any_running = any_running || run->chunks[c].state == CHUNK_RUNNING;
    for (int r = 1; r < f->size; ++r) {
      size_t c = 0;
      int kind = farmRankEligible(run, r) && !f->ranks[r].busy
                     ? farmNextJob(run, f->ranks[r].role, 0, &c)
                     : 0;
      if (kind)
        progress = farmSendChunk(run, &run->chunks[c], r, kind) || progress;
    }
    /* Rank 0's share: one chunk at a time, the next-to-flush first; when every helper is
     * lost (every measuring helper, for built chunks), rank 0 takes the rest whatever its
     * role. */
    size_t c = 0;
    int kind = run->local_ok ? farmNextJob(run, f->role, run->flushed, &c) : 0;
    if (!kind && !any_helper && !any_running)
      kind = farmNextJob(run, PRUNER_FARM_ROLE_BOTH, run->flushed, &c);
    if (!kind && run->pipeline && !any_measurer)
      kind = farmNextJob(run, PRUNER_FARM_ROLE_MEASURE, run->flushed, &c);
    if (kind) {
      farmRunLocal(run, &run->chunks[c], kind);
      progress = true;
    }
    st = farmFlush(run, NULL);
    if (!progress)
      usleep(1000);
  }
  for (size_t c = 0; c < run->n_chunks; ++c) {
    if (run->chunks[c].state == CHUNK_RUNNING)
      f->ranks[run->chunks[c].rank].busy = false; /* its late answer is dropped */
    farmChunkFree(&run->chunks[c]);
  }
  free(run->chunks);
  return st;
}

PrunerStatus prunerFarmMeasure(PrunerFarm f, const PrunerBackend *backend, PrunerBackendState local,
                               const PrunerBackendBatch *batch, const PrunerBackendSink *sink) {
  if (!f || f->size < 2 || f->rank != 0)
    return backend->measure(local, batch, sink);
  FarmRun run = {.f = f,
                 .backend = backend,
                 .local = local,
                 .batch = batch,
                 .sink = sink,
                 .kind = JOB_MEASURE,
                 .need = PRUNER_FARM_ROLE_MEASURE};
  run.proto.kind = JOB_MEASURE;
  snprintf(run.proto.target_key, sizeof run.proto.target_key, "%s", sink->targetKey(sink->user));
  /* Exactly the draws of a plain run: one seed per batch where the backend takes one. */
  if (backend->measure_draws_seed) {
    run.proto.seed = sink->nextSeed(sink->user);
    run.proto.has_seed = 1;
  }
  return farmRunBatch(&run);
}

PrunerStatus prunerFarmExportAdd(PrunerFarm f, const PrunerBackend *backend,
                                 PrunerBackendState local, const PrunerBackendBatch *batch,
                                 const PrunerBackendSink *sink) {
  if (!f || f->size < 2 || f->rank != 0 || !backend->exportBuild || !backend->exportAddBuilt)
    return backend->exportAdd(local, batch, sink);
  FarmRun run = {.f = f,
                 .backend = backend,
                 .local = local,
                 .batch = batch,
                 .sink = sink,
                 .kind = JOB_BUILD,
                 .need = PRUNER_FARM_ROLE_COMPILE};
  run.proto.kind = JOB_BUILD;
  snprintf(run.proto.target_key, sizeof run.proto.target_key, "%s", sink->targetKey(sink->user));
  return farmRunBatch(&run);
}

char *prunerFarmSummary(PrunerFarm f) {
  if (!f || f->size < 2 || f->rank != 0)
    return NULL;
  FarmBuf b = {0};
  char here[64] = "?";
  gethostname(here, sizeof here - 1);
  for (int r = 0; r < f->size; ++r) {
    const FarmRank *rk = &f->ranks[r];
    /* Rank 0 says no hello; a worker's comes with the first farmed-out batch (none for
     * --draft-only, --measure=none or replay) or is refused (then it is lost). */
    const char *role = r == 0   ? (f->role_resolved ? prunerFarmRoleName(f->role) : "rank 0")
                       : rk->hello ? prunerFarmRoleName(rk->role)
                       : rk->lost  ? "refused or silent"
                                   : "no batch farmed out";
    char line[256];
    snprintf(line, sizeof line, "farm: rank %d (%s, %s): %ld candidate(s)%s\n", r,
             r == 0 ? here : rk->host[0] ? rk->host : "?", role, rk->candidates,
             rk->lost ? ", lost" : "");
    farmPut(&b, line, strlen(line));
  }
  farmPut(&b, "", 1);
  if (b.failed) {
    free(b.p);
    return NULL;
  }
  return (char *)b.p;
}

#endif /* PRUNER_HAVE_MPI */

/* farm-pipeline: lib/farm's pipelined measure batches (docs/distributed.md, "Roles"),
 * with a backend of closed forms so that no GPU is needed: a candidate "builds" to a
 * number (a function of its config, or a compile error for some configs) and "measures"
 * to that number as its median. The backend notes in each record's error field (for ok
 * records) which rank built and which measured it.
 *
 *   farm-pipeline ROLE OUT [DIE_AFTER]
 *
 * Without a launcher it runs the batches as a plain run does (backend->measure). Under
 * mpirun each rank takes ROLE (compile, measure, both); rank 0 runs the batches through
 * prunerFarmMeasure and writes OUT: one line per record in the order the tuner got them
 * (status, median, seed, error), an "unmeasurable" line for the last batch (its workload
 * has no reference, as when IREE's own build of an op does not run: the backend reports
 * no candidate and says so through sink->unmeasurable, once per chunk; the tuner's side
 * keeps one), then one "by" line per ok record with its provenance.
 * A measuring rank given DIE_AFTER > 0 ends itself (_exit) after that many measured
 * chunks, to lose it mid-run. test/farm/farm_test.py (scenario pipeline) compares OUT
 * with the plain run's and checks who built and measured what. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pruner/farm.h"

#define BATCHES 4 /* the last one's workload cannot be measured */
#define PER_BATCH 12

static int g_rank;
static int g_die_after, g_measured_chunks;

struct PrunerBackendStateImpl {
  int unused;
};

/* Configs with thread[0] == 3 fail to build; the others build to this value. */
static bool builds(const PrunerConfig *c) { return c->thread[0] != 3; }
static double value(const PrunerConfig *c) {
  return 10.0 + (double)c->workgroup[0] + 0.25 * (double)c->thread[1];
}

static PrunerStatus fakeCreate(const PrunerTargetDesc *t, const PrunerBackendOptions *o,
                               PrunerBackendState *out) {
  (void)t, (void)o;
  *out = calloc(1, sizeof **out);
  return *out ? prunerStatusOk() : prunerStatusError("out of memory");
}

static void fakeDestroy(PrunerBackendState s) { free(s); }

/* The fake's workload without a reference: nothing of it can be measured. */
static bool unmeasurable(const PrunerBackendBatch *b, const PrunerBackendSink *sink) {
  if (strstr(b->workload->key, "32x32x32") == NULL)
    return false;
  sink->unmeasurable(sink->user, "fake: no reference build of matmul 32x32x32");
  return true;
}

static PrunerStatus report(const PrunerBackendBatch *b, size_t i, bool ok, double v, int builder,
                           uint64_t seed, const PrunerBackendSink *sink) {
  PrunerRecord r;
  prunerRecordInit(&r);
  if (!ok) {
    r.status = PRUNER_RECORD_COMPILE_ERROR;
    snprintf(r.error, sizeof r.error, "fake compile error: thread[0] = %lld",
             (long long)b->configs[i].thread[0]);
  } else {
    r.status = PRUNER_RECORD_OK;
    r.median_us = v;
    r.num_samples = (int)(seed % 1000);
    snprintf(r.error, sizeof r.error, "built on %d, measured on %d", builder, g_rank);
  }
  return sink->candidate(sink->user, i, &r);
}

static PrunerStatus baseline(const PrunerBackendSink *sink) {
  if (sink->hasBaseline(sink->user))
    return prunerStatusOk();
  PrunerRecord r;
  prunerRecordInit(&r);
  r.is_baseline = true;
  r.status = PRUNER_RECORD_OK;
  r.median_us = 100.0;
  return sink->baseline(sink->user, &r);
}

static void maybeDie(void) {
  if (g_die_after > 0 && ++g_measured_chunks >= g_die_after)
    _exit(9); /* as a killed measuring host */
}

static PrunerStatus fakeMeasure(PrunerBackendState s, const PrunerBackendBatch *b,
                                const PrunerBackendSink *sink) {
  (void)s;
  uint64_t seed = sink->nextSeed(sink->user);
  if (unmeasurable(b, sink)) {
    maybeDie();
    return prunerStatusOk();
  }
  PrunerStatus st = prunerStatusOk();
  for (size_t i = 0; i < b->n && st.ok; ++i)
    st = report(b, i, builds(&b->configs[i]), value(&b->configs[i]), g_rank, seed, sink);
  if (st.ok)
    st = baseline(sink);
  maybeDie();
  return st;
}

/* A built candidate: its flag, value and builder. */
typedef struct Built {
  int32_t ok, builder;
  double value;
} Built;

static PrunerStatus fakeExportBuild(PrunerBackendState s, const PrunerBackendBatch *b,
                                    const PrunerBackendSink *sink, void **blob, size_t *size) {
  (void)s, (void)sink;
  Built *out = malloc((b->n ? b->n : 1) * sizeof *out);
  if (!out)
    return prunerStatusError("out of memory");
  for (size_t i = 0; i < b->n; ++i) {
    out[i].ok = builds(&b->configs[i]);
    out[i].builder = g_rank;
    out[i].value = value(&b->configs[i]);
  }
  *blob = out;
  *size = b->n * sizeof *out;
  return prunerStatusOk();
}

static PrunerStatus fakeMeasureBuilt(PrunerBackendState s, const PrunerBackendBatch *b,
                                     const void *blob, size_t size, const PrunerBackendSink *sink) {
  (void)s;
  if (size != b->n * sizeof(Built))
    return prunerStatusError("built batch of %zu bytes for %zu candidates", size, b->n);
  const Built *in = blob;
  uint64_t seed = sink->nextSeed(sink->user);
  if (unmeasurable(b, sink)) {
    maybeDie();
    return prunerStatusOk();
  }
  PrunerStatus st = prunerStatusOk();
  for (size_t i = 0; i < b->n && st.ok; ++i)
    st = report(b, i, in[i].ok, in[i].value, in[i].builder, seed, sink);
  if (st.ok)
    st = baseline(sink);
  maybeDie();
  return st;
}

static PrunerStatus fakeExportAdd(PrunerBackendState s, const PrunerBackendBatch *b,
                                  const PrunerBackendSink *sink) {
  (void)s, (void)b, (void)sink;
  return prunerStatusError("not used");
}

static const PrunerBackend kFake = {
    .name = "fake",
    .kind = PRUNER_TARGET_GPU,
    .measure_draws_seed = true,
    .create = fakeCreate,
    .destroy = fakeDestroy,
    .measure = fakeMeasure,
    .exportAdd = fakeExportAdd,
    .exportBuild = fakeExportBuild,
    .measureBuilt = fakeMeasureBuilt,
};

/* The tuner's side: records in the order they arrive, the seed from a counter. */
typedef struct Out {
  FILE *f;
  int batch;
  bool has_baseline;
  int unmeasurable_batch; /* the last batch said unmeasurable + 1; 0: none */
  uint64_t next_seed;
  char by[BATCHES * PER_BATCH][96];
  int n_by;
} Out;

static PrunerStatus outCandidate(void *user, size_t i, PrunerRecord *r) {
  Out *o = user;
  fprintf(o->f, "%d %zu %s %.2f %d %s\n", o->batch, i, prunerRecordStatusName(r->status),
          r->median_us, r->num_samples, r->status == PRUNER_RECORD_OK ? "" : r->error);
  if (r->status == PRUNER_RECORD_OK && o->n_by < BATCHES * PER_BATCH)
    snprintf(o->by[o->n_by++], sizeof o->by[0], "by %d %zu %.60s", o->batch, i, r->error);
  return prunerStatusOk();
}
static bool outHasBaseline(void *user) { return ((Out *)user)->has_baseline; }
static PrunerStatus outBaseline(void *user, const PrunerRecord *r) {
  Out *o = user;
  o->has_baseline = true;
  fprintf(o->f, "baseline %.2f\n", r->median_us);
  return prunerStatusOk();
}
static const char *outTargetKey(void *user) { return (void)user, "fake:0"; }
static void outAdopt(void *user, const char *key) { (void)user, (void)key; }
static uint64_t outNextSeed(void *user) { return ++((Out *)user)->next_seed * 7919u; }
static bool outStop(void *user) { return (void)user, false; }
static void outNote(void *user, bool session, const char *message) {
  (void)user, (void)session;
  fprintf(stderr, "note: %s\n", message);
}
/* Once per batch, as the tuner takes it (each chunk of a farm says it). */
static void outUnmeasurable(void *user, const char *why) {
  Out *o = user;
  if (o->unmeasurable_batch == o->batch + 1)
    return;
  o->unmeasurable_batch = o->batch + 1;
  fprintf(o->f, "unmeasurable %d %s\n", o->batch, why);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: farm-pipeline ROLE OUT [DIE_AFTER]\n");
    return 2;
  }
  PrunerFarmOptions fo = prunerFarmDefaultOptions();
  if (!prunerFarmRoleParse(argv[1], &fo.role)) {
    fprintf(stderr, "farm-pipeline: unknown role %s\n", argv[1]);
    return 2;
  }
  fo.rank_timeout_s = 10; /* short, so that the lost case ends soon; long for a loaded CI */
  g_die_after = argc > 3 ? atoi(argv[3]) : 0;
  PrunerFarm farm = NULL;
  if (prunerFarmLaunched()) {
    PrunerStatus st = prunerFarmCreate(&argc, &argv, &fo, &farm);
    if (!st.ok) {
      fprintf(stderr, "farm-pipeline: %s\n", st.message);
      return 1;
    }
  }
  g_rank = prunerFarmRank(farm);
  PrunerTargetDesc target;
  memset(&target, 0, sizeof target);
  if (g_rank > 0) {
    PrunerBackendOptions bo = {0};
    PrunerStatus st = prunerFarmServe(farm, &kFake, &target, &bo);
    prunerFarmDestroy(farm, st.ok ? 0 : 1);
    if (!st.ok)
      fprintf(stderr, "farm-pipeline: rank %d: %s\n", g_rank, st.message);
    return st.ok ? 0 : 1;
  }
  Out out = {.f = fopen(argv[2], "w")};
  if (!out.f) {
    perror(argv[2]);
    return 1;
  }
  PrunerBackendSink sink = {.user = &out,
                            .candidate = outCandidate,
                            .hasBaseline = outHasBaseline,
                            .baseline = outBaseline,
                            .targetKey = outTargetKey,
                            .adoptTargetKey = outAdopt,
                            .nextSeed = outNextSeed,
                            .stopRequested = outStop,
                            .note = outNote,
                            .unmeasurable = outUnmeasurable};
  PrunerBackendState state = NULL;
  PrunerStatus st = kFake.create(&target, NULL, &state);
  PrunerWorkload w, w_unmeasurable;
  prunerWorkloadMatmul(&w, 64, 64, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  prunerWorkloadMatmul(&w_unmeasurable, 32, 32, 32, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  for (int k = 0; k < BATCHES && st.ok; ++k) {
    PrunerConfig configs[PER_BATCH];
    double draft[PER_BATCH] = {0}, scores[PER_BATCH] = {0};
    memset(configs, 0, sizeof configs);
    for (int i = 0; i < PER_BATCH; ++i) {
      configs[i].workgroup[0] = 16 * (k + 1);
      configs[i].thread[0] = 1 + (i % 4); /* every fourth fails to build */
      configs[i].thread[1] = i;
    }
    PrunerBackendBatch b = {.workload = k == BATCHES - 1 ? &w_unmeasurable : &w,
                            .configs = configs,
                            .draft_us = draft,
                            .verifier_scores = scores,
                            .n = PER_BATCH};
    out.batch = k;
    st = prunerFarmMeasure(farm, &kFake, state, &b, &sink);
  }
  for (int i = 0; i < out.n_by; ++i)
    fprintf(out.f, "%s\n", out.by[i]);
  if (!st.ok)
    fprintf(out.f, "error %s\n", st.message);
  fclose(out.f);
  char *summary = prunerFarmSummary(farm);
  if (summary)
    fputs(summary, stderr);
  free(summary);
  kFake.destroy(state);
  prunerFarmDestroy(farm, st.ok ? 0 : 1);
  return st.ok ? 0 : 1;
}

/* lib/backend/gpu/backend_gpu.c: the GPU backend's entry in the backend table
 * (pruner/backend/gpu.h): candidates compiled in the worker pool into a bundle, measured
 * by pruner-run on the local GPU or exported for a GPU host. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pruner/backend/gpu.h"
#include "pruner/compile.h"
#include "pruner/file.h"
#include "pruner/measure.h"
#include "pruner/process.h"
#include "pruner/schedule.h"

struct PrunerBackendStateImpl {
  PrunerTargetDesc target;
  int compile_jobs;
  double candidate_timeout_s; /* 0: the compile pool's and pruner-run's defaults */
  char *runner_path;          /* NULL: pruner-run on PATH */
  const volatile sig_atomic_t *stop; /* Ctrl-C: compile workers and pruner-run killed */
  PrunerBundle export_bundle;
  char export_path[1024];
  /* An export's candidates that did not compile (left out of the bundle; no record is
   * written for them there) and the first one's error, for the closing note. */
  size_t export_failed;
  char export_first_error[300];
};

/* An exported candidate that did not compile: counted, the first error kept. */
static void gpuExportFailed(PrunerBackendState s, const char *error, size_t len) {
  if (s->export_failed++ == 0)
    snprintf(s->export_first_error, sizeof s->export_first_error, "%.*s",
             (int)(len < sizeof s->export_first_error ? len
                                                      : sizeof s->export_first_error - 1),
             error);
}

/* ---------------------------------------------------------------------------------- */
/* Target, space, draft                                                                */

static PrunerStatus gpuDescribeTarget(const char *name, PrunerTargetDesc *out) {
  PrunerTargetDesc t;
  PrunerStatus st = prunerTargetLookup(name, &t);
  if (!st.ok)
    return st;
  if (t.kind != PRUNER_TARGET_GPU)
    return prunerStatusError("target '%s' is not a GPU", name);
  *out = t;
  return prunerStatusOk();
}

static PrunerStatus gpuRefuseMeasure(const PrunerTargetDesc *t, const char *mode) {
  return prunerStatusError("--measure=%s needs --target=%s (target %s is a GPU: use "
                           "--measure=gpu, bundle:DIR, replay:FILE or none)",
                           mode, mode, t->name);
}

static void gpuDescribeMeasure(const PrunerTargetDesc *t, const char *export_path, char *buf,
                               size_t size) {
  (void)t;
  if (export_path) {
    snprintf(buf, size, "bundle:%s (compiled here for a GPU host; nothing is measured in this run)",
             export_path);
    return;
  }
  snprintf(buf, size, "gpu (compiled here, timed by pruner-run on the local GPU; baseline %s)",
           "cuBLAS");
}

static PrunerStatus gpuSpaceCreate(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                   PrunerSpace *out) {
  return prunerSpaceCreate(w, t, NULL, out);
}

static PrunerStatus gpuDraftCreate(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                   PrunerDraft *out) {
  return prunerDraftCreate(w, t, out);
}

/* ---------------------------------------------------------------------------------- */
/* State                                                                               */

static PrunerStatus gpuCreate(const PrunerTargetDesc *t, const PrunerBackendOptions *opts,
                              PrunerBackendState *out) {
  *out = NULL;
  PrunerBackendState s = calloc(1, sizeof *s);
  if (!s)
    return prunerStatusError("out of memory");
  s->target = *t;
  s->compile_jobs = opts ? opts->compile_jobs : 0;
  s->candidate_timeout_s = opts ? opts->candidate_timeout_s : 0;
  s->stop = opts ? opts->stop : NULL;
  if (opts && opts->runner_path) {
    s->runner_path = strdup(opts->runner_path);
    if (!s->runner_path) {
      free(s);
      return prunerStatusError("out of memory");
    }
  }
  *out = s;
  return prunerStatusOk();
}

static void gpuDestroy(PrunerBackendState s) {
  if (!s)
    return;
  if (s->export_bundle)
    prunerBundleDestroy(s->export_bundle);
  free(s->runner_path);
  free(s);
}

/* ---------------------------------------------------------------------------------- */
/* Building                                                                            */

/* Compiles a batch in the worker pool with the backend's jobs, stop flag and timeout.
 * On success *results holds b->n results, owned by the caller (release each, then free). */
static PrunerStatus gpuCompileBatch(PrunerBackendState s, const PrunerBackendBatch *b,
                                    PrunerCompileResult **results) {
  size_t n = b->n;
  *results = calloc(n ? n : 1, sizeof **results);
  if (!*results)
    return prunerStatusError("out of memory compiling %zu candidates", n);
  PrunerCompileOptions copts = prunerCompileDefaultOptions();
  copts.jobs = s->compile_jobs;
  copts.stop = s->stop;
  if (s->candidate_timeout_s > 0)
    copts.timeout_seconds = s->candidate_timeout_s;
  prunerCompileMany(b->workload, b->configs, n, &s->target, &copts, *results);
  return prunerStatusOk();
}

/* Compiles the candidates; ok results go into `bundle`, failures become records when
 * `report` (a measured round) and are left out otherwise (an export). */
static PrunerStatus gpuCompileInto(PrunerBackendState s, const PrunerBackendBatch *b,
                                   PrunerBundle bundle, int *ids, bool report,
                                   const PrunerBackendSink *sink) {
  size_t n = b->n;
  PrunerCompileResult *results = NULL;
  PrunerStatus compiled = gpuCompileBatch(s, b, &results);
  if (!compiled.ok)
    return compiled;
  PrunerStatus st = prunerStatusOk();
  for (size_t i = 0; i < n && st.ok; ++i) {
    ids[i] = -1;
    if (results[i].interrupted)
      continue; /* Ctrl-C: not a result; a resumed run compiles it again */
    if (results[i].status.ok) {
      st = prunerBundleAddCandidate(bundle, b->workload, &b->configs[i], &results[i],
                                    b->draft_us[i], b->verifier_scores[i], &ids[i]);
      if (st.ok)
        continue;
      results[i].status = st;
      st = prunerStatusOk();
    }
    if (report) {
      PrunerRecord r;
      prunerRecordInit(&r);
      r.status = PRUNER_RECORD_COMPILE_ERROR;
      snprintf(r.error, sizeof r.error, "%.*s", (int)sizeof r.error - 1, results[i].status.message);
      st = sink->candidate(sink->user, i, &r);
    } else {
      gpuExportFailed(s, results[i].status.message, strlen(results[i].status.message));
    }
  }
  for (size_t i = 0; i < n; ++i)
    prunerCompileResultRelease(&results[i]);
  free(results);
  return st;
}

/* ---------------------------------------------------------------------------------- */
/* Measuring on the local GPU                                                          */

/* pruner-run keys its records by the device it measured on (the driver's SM count and
 * name override the table). When the local GPU of the same architecture is another table
 * entry than --target named (an H100 where "sm_90" means H200), the device is what is being
 * tuned: the session adopts its key, so that its records count and resume. */
static void gpuAdoptDeviceKey(PrunerBackendState s, PrunerRecords got,
                              const PrunerBackendSink *sink) {
  if (prunerRecordsCount(got) == 0)
    return;
  const char *ours = sink->targetKey(sink->user);
  const char *key = NULL;
  for (size_t i = 0; i < prunerRecordsCount(got); ++i) {
    const char *k = prunerRecordsGet(got, i)->target_key;
    if (strcmp(k, ours) == 0)
      return;
    if (!key)
      key = k;
  }
  size_t arch_len = strlen(s->target.arch);
  if (strncmp(key, s->target.arch, arch_len) != 0 || key[arch_len] != ':')
    return; /* another architecture: its records stay foreign */
  prunerBackendNote(sink, true,
                    "warning: the local GPU measures under target key %s, not %s: tuning for "
                    "that device from now on",
                    key, ours);
  sink->adoptTargetKey(sink->user, key);
}

/* Without a driver there is no GPU: say so before compiling anything (the runner checks
 * for a device again, PRUNER_RUN_EXIT_NO_DEVICE). */
static PrunerStatus gpuCheckDevice(void) {
  void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!cuda)
    return prunerStatusError(
        "--measure=gpu: no CUDA device (the CUDA driver libcuda.so.1 cannot be loaded: %s). "
        "Without a local GPU, compile here and measure elsewhere with --measure=bundle:DIR "
        "(then --ingest), study with --measure=replay:FILE, or rank by the models alone with "
        "--measure=none",
        dlerror());
  dlclose(cuda);
  return prunerStatusOk();
}

static bool gpuCanMeasure(const PrunerTargetDesc *t) {
  (void)t;
  return gpuCheckDevice().ok;
}

/* The records pruner-run wrote for the batch, handed to the sink in candidate order;
 * the runner measures cuBLAS alongside, kept once per workload. */
static PrunerStatus gpuReport(PrunerBackendState s, const PrunerBackendBatch *b, const int *ids,
                              const char *results_path, bool interrupted,
                              const PrunerBackendSink *sink) {
  PrunerRecords got = NULL;
  PrunerStatus st = interrupted && access(results_path, F_OK) != 0
                        ? prunerStatusOk() /* killed before its first record */
                        : prunerRecordsCreate(results_path, &got);
  if (st.ok && got)
    gpuAdoptDeviceKey(s, got, sink);
  for (size_t i = 0; st.ok && i < b->n; ++i) {
    if (ids[i] < 0)
      continue;
    const PrunerRecord *m =
        got ? prunerRecordsFind(got, b->workload->key, sink->targetKey(sink->user),
                                &b->configs[i])
            : NULL;
    PrunerRecord r;
    if (m) {
      r = *m;
    } else if (interrupted) {
      continue;
    } else {
      prunerRecordInit(&r);
      r.status = PRUNER_RECORD_LAUNCH_ERROR;
      snprintf(r.error, sizeof r.error, "pruner-run wrote no result for candidate %d", ids[i]);
    }
    st = sink->candidate(sink->user, i, &r);
  }
  if (st.ok && got && !sink->hasBaseline(sink->user)) {
    const PrunerRecord *base =
        prunerRecordsBaseline(got, b->workload->key, sink->targetKey(sink->user));
    if (base)
      st = sink->baseline(sink->user, base);
  }
  if (got)
    prunerRecordsDestroy(got);
  return st;
}

static PrunerStatus gpuAddBuiltInto(PrunerBackendState s, const PrunerBackendBatch *b,
                                    PrunerBundle bundle, int *ids, bool report, const void *blob,
                                    size_t size, const PrunerBackendSink *sink);

/* Measures the batch on the local GPU: compiled here, or with `blob` as another process
 * built it (gpuExportBuild). */
static PrunerStatus gpuMeasureBatch(PrunerBackendState s, const PrunerBackendBatch *b,
                                    const void *blob, size_t size, const PrunerBackendSink *sink) {
  PrunerStatus check = gpuCheckDevice();
  if (!check.ok)
    return check;
  char dir[] = "/tmp/pruner-tune-XXXXXX";
  if (!mkdtemp(dir))
    return prunerStatusError("cannot create a bundle folder in /tmp: %s", strerror(errno));
  char results_path[sizeof dir + 32];
  snprintf(results_path, sizeof results_path, "%s/results.jsonl", dir);
  PrunerBundle bundle = NULL;
  int *ids = calloc(b->n ? b->n : 1, sizeof *ids);
  PrunerStatus st = ids ? prunerBundleCreate(dir, &s->target, sink->nextSeed(sink->user), &bundle)
                        : prunerStatusError("out of memory");
  if (st.ok)
    st = blob ? gpuAddBuiltInto(s, b, bundle, ids, true, blob, size, sink)
              : gpuCompileInto(s, b, bundle, ids, true, sink);
  bool stopped = s->stop && *s->stop;
  if (st.ok && !stopped && prunerBundleNumCandidates(bundle) > 0) {
    st = prunerBundleWrite(bundle);
    PrunerRunOptions ropts = prunerRunDefaultOptions();
    if (s->candidate_timeout_s > 0)
      ropts.timeout_seconds = s->candidate_timeout_s;
    ropts.stop = s->stop;
    if (st.ok)
      st = prunerMeasureRunBundle(s->runner_path, dir, results_path, &ropts);
    /* Ctrl-C while pruner-run measured: keep what it recorded, no error. Candidates
     * without a result are left out (not launch errors), so a resumed run measures them. */
    stopped = prunerProcessInterrupted(st);
    if (stopped)
      st = prunerStatusOk();
    if (!st.ok && strstr(st.message, "no CUDA device"))
      st = prunerStatusError("--measure=gpu: %s. Without a local GPU, compile here and "
                             "measure elsewhere with --measure=bundle:DIR (then --ingest), "
                             "study with --measure=replay:FILE, or rank by the models "
                             "alone with --measure=none",
                             st.message);
    if (st.ok)
      st = gpuReport(s, b, ids, results_path, stopped, sink);
  }
  if (bundle)
    prunerBundleDestroy(bundle);
  prunerRemoveTree(dir); /* manifest, cubins, results */
  free(ids);
  return st;
}

static PrunerStatus gpuMeasure(PrunerBackendState s, const PrunerBackendBatch *b,
                               const PrunerBackendSink *sink) {
  return gpuMeasureBatch(s, b, NULL, 0, sink);
}

/* A farm's measuring rank: the batch as a compile-only rank built it (pruner/farm.h). */
static PrunerStatus gpuMeasureBuilt(PrunerBackendState s, const PrunerBackendBatch *b,
                                    const void *blob, size_t size, const PrunerBackendSink *sink) {
  if (!blob)
    return prunerStatusError("a built batch of %zu candidates has no data", b->n);
  return gpuMeasureBatch(s, b, blob, size, sink);
}

/* ---------------------------------------------------------------------------------- */
/* Exporting a bundle (--measure=bundle:DIR)                                           */

static PrunerStatus gpuExportOpen(PrunerBackendState s, const char *path,
                                  const PrunerBackendSink *sink) {
  snprintf(s->export_path, sizeof s->export_path, "%s", path);
  s->export_failed = 0;
  s->export_first_error[0] = '\0';
  return prunerBundleCreate(path, &s->target, sink->nextSeed(sink->user), &s->export_bundle);
}

static PrunerStatus gpuExportAdd(PrunerBackendState s, const PrunerBackendBatch *b,
                                 const PrunerBackendSink *sink) {
  int *ids = malloc((b->n ? b->n : 1) * sizeof *ids);
  if (!ids)
    return prunerStatusError("out of memory");
  PrunerStatus st = gpuCompileInto(s, b, s->export_bundle, ids, false, sink);
  free(ids);
  return st;
}

/* A batch built in one process and bundled in another (a farm, pruner/farm.h), as bytes:
 * per candidate a flag, BUILT_OK followed by the compile result without its binary
 * pointer and then the binary, BUILT_FAILED by the error's length (uint32) and text,
 * BUILT_INTERRUPTED by nothing. Only the same build reads it back (the farm checks that
 * every rank runs one). */
enum { BUILT_FAILED = 0, BUILT_OK = 1, BUILT_INTERRUPTED = 2 };

/* The export in two halves for a farm: exportBuild compiles a batch into such bytes. */
static PrunerStatus gpuExportBuild(PrunerBackendState s, const PrunerBackendBatch *b,
                                   const PrunerBackendSink *sink, void **blob, size_t *size) {
  (void)sink;
  *blob = NULL;
  *size = 0;
  size_t n = b->n;
  PrunerCompileResult *results = NULL;
  PrunerStatus compiled = gpuCompileBatch(s, b, &results);
  if (!compiled.ok)
    return compiled;
  size_t total = 0;
  for (size_t i = 0; i < n; ++i)
    total += 1 + (results[i].interrupted ? 0
                  : results[i].status.ok ? sizeof results[i] + results[i].binary_size
                                         : sizeof(uint32_t) + strlen(results[i].status.message));
  unsigned char *out = malloc(total ? total : 1);
  PrunerStatus st = out ? prunerStatusOk() : prunerStatusError("out of memory");
  size_t at = 0;
  for (size_t i = 0; i < n && out; ++i) {
    if (results[i].interrupted) {
      out[at++] = BUILT_INTERRUPTED;
      continue;
    }
    if (!results[i].status.ok) {
      out[at++] = BUILT_FAILED;
      uint32_t len = (uint32_t)strlen(results[i].status.message);
      memcpy(out + at, &len, sizeof len);
      memcpy(out + at + sizeof len, results[i].status.message, len);
      at += sizeof len + len;
      continue;
    }
    out[at++] = BUILT_OK;
    PrunerCompileResult flat = results[i];
    flat.binary = NULL;
    memcpy(out + at, &flat, sizeof flat);
    at += sizeof flat;
    memcpy(out + at, results[i].binary, results[i].binary_size);
    at += results[i].binary_size;
  }
  for (size_t i = 0; i < n; ++i)
    prunerCompileResultRelease(&results[i]);
  free(results);
  if (st.ok) {
    *blob = out;
    *size = at;
  }
  return st;
}

/* Candidates of a built batch into `bundle` (ids[i]: its id there, -1 when left out);
 * with `report` a failed build becomes a compile-error record, as gpuCompileInto makes
 * one. A malformed blob is an error. */
static PrunerStatus gpuAddBuiltInto(PrunerBackendState s, const PrunerBackendBatch *b,
                                    PrunerBundle bundle, int *ids, bool report, const void *blob,
                                    size_t size, const PrunerBackendSink *sink) {
  const unsigned char *p = blob;
  size_t at = 0;
  PrunerStatus st = prunerStatusOk();
  for (size_t i = 0; i < b->n && st.ok; ++i) {
    if (ids)
      ids[i] = -1;
    if (at >= size)
      return prunerStatusError("a built batch of %zu candidates ends after %zu", b->n, i);
    unsigned char flag = p[at++];
    if (flag == BUILT_INTERRUPTED)
      continue; /* Ctrl-C: not a result; a resumed run compiles it again */
    if (flag == BUILT_FAILED) {
      uint32_t len;
      if (size - at < sizeof len)
        return prunerStatusError("a built batch is cut short at candidate %zu", i);
      memcpy(&len, p + at, sizeof len);
      at += sizeof len;
      if (size - at < len)
        return prunerStatusError("a built batch is cut short in candidate %zu's error", i);
      if (report) {
        PrunerRecord r;
        prunerRecordInit(&r);
        r.status = PRUNER_RECORD_COMPILE_ERROR;
        int keep = len < sizeof r.error ? (int)len : (int)sizeof r.error - 1;
        snprintf(r.error, sizeof r.error, "%.*s", keep, (const char *)p + at);
        st = sink->candidate(sink->user, i, &r);
      } else {
        gpuExportFailed(s, (const char *)p + at, len);
      }
      at += len;
      continue;
    }
    if (flag != BUILT_OK)
      return prunerStatusError("a built batch has an unknown flag %u at candidate %zu", flag, i);
    PrunerCompileResult r;
    if (size - at < sizeof r)
      return prunerStatusError("a built batch is cut short at candidate %zu", i);
    memcpy(&r, p + at, sizeof r);
    at += sizeof r;
    if (size - at < r.binary_size)
      return prunerStatusError("a built batch is cut short in candidate %zu's binary", i);
    r.binary = (unsigned char *)(p + at); /* the bundle copies it into its file */
    at += r.binary_size;
    PrunerStatus added =
        prunerBundleAddCandidate(bundle, b->workload, &b->configs[i], &r, b->draft_us[i],
                                 b->verifier_scores[i], ids ? &ids[i] : NULL);
    if (!added.ok && report) { /* as gpuCompileInto: the bundle's refusal is the record */
      PrunerRecord rec;
      prunerRecordInit(&rec);
      rec.status = PRUNER_RECORD_COMPILE_ERROR;
      snprintf(rec.error, sizeof rec.error, "%.*s", (int)sizeof rec.error - 1, added.message);
      st = sink->candidate(sink->user, i, &rec);
    }
    /* without `report` (an export) a candidate the bundle refuses is left out */
  }
  return st;
}

static PrunerStatus gpuExportAddBuilt(PrunerBackendState s, const PrunerBackendBatch *b,
                                      const void *blob, size_t size,
                                      const PrunerBackendSink *sink) {
  return gpuAddBuiltInto(s, b, s->export_bundle, NULL, false, blob, size, sink);
}

static PrunerStatus gpuExportClose(PrunerBackendState s, bool commit,
                                   const PrunerBackendSink *sink) {
  PrunerStatus st = prunerStatusOk();
  if (commit)
    st = prunerBundleWrite(s->export_bundle);
  size_t n = prunerBundleNumCandidates(s->export_bundle);
  if (commit && st.ok && s->export_failed > 0)
    prunerBackendNote(sink, true,
                      "warning: %zu candidate(s) did not compile and are not in the bundle "
                      "(first: %s)",
                      s->export_failed, s->export_first_error);
  if (commit && st.ok && n == 0) /* the tuner, or the line above, says why */
    prunerBackendNote(sink, true, "bundle with 0 candidates written to %s: nothing to measure",
                      s->export_path);
  else if (commit && st.ok)
    prunerBackendNote(sink, true,
                      "bundle with %zu candidate(s) written to %s; measure it on the GPU host with "
                      "`pruner-run %s -o results.jsonl`, then rerun with --ingest "
                      "results.jsonl",
                      n, s->export_path, s->export_path);
  prunerBundleDestroy(s->export_bundle);
  s->export_bundle = NULL;
  return st;
}

/* ---------------------------------------------------------------------------------- */

static const PrunerBackend gpuBackend = {
    .name = "gpu",
    .kind = PRUNER_TARGET_GPU,
    .device_measure = PRUNER_TUNE_MEASURE_GPU,
    .baseline_name = "cuBLAS",
    .codegen_version = PRUNER_GPU_CODEGEN_VERSION,
    .fuses_consumers = true,
    .top_level_forall = true, /* the GPU schedule's block mapping */
    .consumerRefusal = prunerScheduleConsumerRefusal,
    .measure_draws_seed = true, /* the bundle's input seed, one per batch */
    .canMeasure = gpuCanMeasure,
    .describeTarget = gpuDescribeTarget,
    .refuseMeasure = gpuRefuseMeasure,
    .describeMeasure = gpuDescribeMeasure,
    .spaceCreate = gpuSpaceCreate,
    .draftCreate = gpuDraftCreate,
    .create = gpuCreate,
    .destroy = gpuDestroy,
    .measure = gpuMeasure,
    .exportOpen = gpuExportOpen,
    .exportAdd = gpuExportAdd,
    .exportClose = gpuExportClose,
    .exportBuild = gpuExportBuild,
    .exportAddBuilt = gpuExportAddBuilt,
    .measureBuilt = gpuMeasureBuilt,
    .recheck = NULL,
};

const PrunerBackend *prunerGpuBackend(void) { return &gpuBackend; }

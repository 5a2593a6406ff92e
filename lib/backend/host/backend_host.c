/* lib/backend/host/backend_host.c: the host CPU backend's entry in the backend table
 * (pruner/backend/host.h): candidates JIT-compiled, checked and timed on this CPU by a
 * PrunerHost (its watchdog child), with one OpenBLAS baseline per matmul-like or 2-D conv
 * workload (docs/host.md, "Baseline: OpenBLAS"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pruner/backend/host.h"

_Static_assert(PRUNER_HOST_REMEASURE_MAX <= PRUNER_BACKEND_RECHECK_MAX,
               "a host final check fits the backend interface's");

struct PrunerBackendStateImpl {
  PrunerHost host;
};

static PrunerStatus hostDescribeTarget(const char *name, PrunerTargetDesc *out) {
  PrunerTargetDesc t;
  PrunerStatus st = prunerTargetLookup(name, &t);
  if (!st.ok)
    return st;
  if (t.kind != PRUNER_TARGET_HOST)
    return prunerStatusError("target '%s' is not the host CPU", name);
  *out = t;
  return prunerStatusOk();
}

static PrunerStatus hostRefuseMeasure(const PrunerTargetDesc *t, const char *mode) {
  if (strcmp(mode, "bundle") != 0)
    return prunerStatusError("--measure=%s: the host target (%s) measures on this CPU: use "
                             "--measure=host (its default), replay:FILE or none",
                             mode, t->name);
  return prunerStatusError("--measure=%s is for GPU targets (a bundle holds cubins for "
                           "pruner-run); the host target (%s) measures on this CPU: use "
                           "--measure=host (its default), replay:FILE or none",
                           mode, t->name);
}

static void hostDescribeMeasure(const PrunerTargetDesc *t, const char *export_path, char *buf,
                                size_t size) {
  (void)export_path; /* no export (exportOpen is NULL) */
  snprintf(buf, size,
           "host (JIT-compiled, checked and timed on this CPU: %s, %d core(s); baseline %s)",
           t->device[0] ? t->device : t->name, prunerHostTargetCores(t), "OpenBLAS");
}

static PrunerStatus hostSpaceCreate(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                    PrunerSpace *out) {
  return prunerSpaceCreate(w, t, NULL, out); /* host rules: prunerHostSpaceKnobs */
}

static PrunerStatus hostDraftCreate(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                    PrunerDraft *out) {
  return prunerDraftCreate(w, t, out); /* host terms: prunerHostDraftScore */
}

/* The measuring child starts here, on the first batch. */
static PrunerStatus hostCreate(const PrunerTargetDesc *t, const PrunerBackendOptions *opts,
                               PrunerBackendState *out) {
  (void)t; /* the child describes the machine itself */
  *out = NULL;
  PrunerBackendState s = calloc(1, sizeof *s);
  if (!s)
    return prunerStatusError("out of memory");
  PrunerHostOptions ho = prunerHostDefaultOptions();
  if (opts) {
    ho.target = opts->target; /* "host" or "host:<isa>" */
    ho.stop = opts->stop;     /* Ctrl-C kills the candidate in progress at once */
    if (opts->candidate_timeout_s > 0)
      ho.timeout_seconds = opts->candidate_timeout_s;
  }
  PrunerStatus st = prunerHostCreate(&ho, &s->host);
  if (!st.ok) {
    free(s);
    return st;
  }
  *out = s;
  return prunerStatusOk();
}

static void hostDestroy(PrunerBackendState s) {
  if (!s)
    return;
  prunerHostDestroy(s->host);
  free(s);
}

static PrunerStatus hostMeasure(PrunerBackendState s, const PrunerBackendBatch *b,
                                const PrunerBackendSink *sink) {
  PrunerHostResult *r = malloc(sizeof *r);
  if (!r)
    return prunerStatusError("out of memory");
  PrunerStatus st = prunerStatusOk();
  for (size_t i = 0; i < b->n && st.ok && !sink->stopRequested(sink->user); ++i) {
    prunerHostMeasure(s->host, b->workload, &b->configs[i], r);
    if (r->interrupted)
      break; /* not a measurement: no record, so a resumed run measures it */
    st = sink->candidate(sink->user, i, &r->record);
  }
  if (st.ok && !sink->stopRequested(sink->user) && prunerHostHasBlasBaseline(b->workload) &&
      !sink->hasBaseline(sink->user)) {
    prunerHostMeasureBaseline(s->host, b->workload, r);
    snprintf(r->record.target_key, sizeof r->record.target_key, "%s", sink->targetKey(sink->user));
    if (r->interrupted) {
      /* Ctrl-C during the baseline: nothing to keep */
    } else if (r->record.status == PRUNER_RECORD_OK) {
      st = sink->baseline(sink->user, &r->record);
      char copy[40] = "";
      if (r->baseline_copy_threads > 0)
        snprintf(copy, sizeof copy, ", im2col on %d thread(s)", r->baseline_copy_threads);
      prunerBackendNote(sink, false, "%s: OpenBLAS %s (core %s%s) %.2f us", b->workload->key,
                        prunerHostBlasBaselineMethod(b->workload),
                        r->baseline_core[0] ? r->baseline_core : "?", copy, r->record.median_us);
    } else {
      prunerBackendNote(sink, false, "%s: OpenBLAS baseline failed: %s", b->workload->key,
                        r->record.error);
    }
  }
  free(r);
  return st;
}

/* The final check (docs/measurement.md, "Host: the final check"): the configs and
 * OpenBLAS re-measured back to back in one child request (prunerHostRemeasure). */
static void hostRecheck(PrunerBackendState s, const PrunerWorkload *w,
                        const PrunerConfig *configs, int n, bool baseline,
                        PrunerBackendRecheck *out) {
  memset(out, 0, sizeof *out);
  PrunerHostRemeasure *rem = malloc(sizeof *rem);
  if (!rem) {
    for (int i = 0; i < n + (baseline ? 1 : 0); ++i) {
      out->entries[i].status = PRUNER_RECORD_LAUNCH_ERROR;
      snprintf(out->entries[i].error, sizeof out->entries[i].error, "out of memory");
    }
    return;
  }
  if (n > PRUNER_BACKEND_RECHECK_MAX)
    n = PRUNER_BACKEND_RECHECK_MAX;
  prunerHostRemeasure(s->host, w, configs, n, baseline, rem);
  out->rounds = rem->rounds;
  out->has_baseline = rem->has_baseline;
  for (int i = 0; i < rem->num_entries && i <= PRUNER_BACKEND_RECHECK_MAX; ++i) {
    const PrunerHostRemeasureEntry *e = &rem->entries[i];
    out->entries[i].status = e->status;
    snprintf(out->entries[i].error, sizeof out->entries[i].error, "%s", e->error);
    out->entries[i].median_us = e->median_us;
    out->entries[i].p25_us = e->p25_us;
    out->entries[i].p75_us = e->p75_us;
  }
  free(rem);
}

/* --strategy=auto on the host (docs/tune.md, "auto"): chosen leave-one-dataset-out on the
 * 22 host datasets, together with the draft's run cost (docs/quality.md, "The runs' fixed
 * cost"): in every fold the matmuls needed fewer trials with the verifier over random
 * samples of the space than over the draft's top 512 (the draft's pool misses their wide
 * spaces' best), and the batch_matmuls and convs the other way round. */
static PrunerTuneStrategy hostAutoStrategy(const PrunerWorkload *w) {
  return w->kind == PRUNER_OP_MATMUL ? PRUNER_TUNE_VERIFIER_ONLY : PRUNER_TUNE_DRAFT_VERIFIER;
}

static const PrunerBackend hostBackend = {
    .name = "host",
    .kind = PRUNER_TARGET_HOST,
    .device_measure = PRUNER_TUNE_MEASURE_HOST,
    .baseline_name = "OpenBLAS",
    .codegen_version = PRUNER_HOST_CODEGEN_VERSION,
    .codegenVersionOf = prunerHostCodegenVersionOf,
    .fuses_consumers = false, /* the host schedule has no consumer fusion */
    .describeTarget = hostDescribeTarget,
    .refuseMeasure = hostRefuseMeasure,
    .describeMeasure = hostDescribeMeasure,
    .spaceCreate = hostSpaceCreate,
    .draftCreate = hostDraftCreate,
    .create = hostCreate,
    .destroy = hostDestroy,
    .measure = hostMeasure,
    .exportOpen = NULL, /* no bundles: a CPU measures itself */
    .exportAdd = NULL,
    .exportClose = NULL,
    .recheck = hostRecheck,
    .measurable = prunerHostMeasurable,
    .autoStrategy = hostAutoStrategy,
    /* Half of draft+verifier's first batch on new register steps (thread tiles, a conv's
     * taps too): chosen leave-one-dataset-out on the 23 host datasets (docs/quality.md,
     * "A first batch of several thread tiles", "A first batch over taps per step"). The
     * GPU and IREE backends keep 0 (the draft's order). */
    .first_batch_tiles = 0.5,
};

const PrunerBackend *prunerHostBackend(void) { return &hostBackend; }

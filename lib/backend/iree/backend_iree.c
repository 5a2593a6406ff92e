/* lib/backend/iree/backend_iree.c: the IREE backend's entry in the backend table
 * (pruner/backend/iree.h): candidates compiled by iree-compile with a one-config tuning
 * spec, checked against IREE's default build and timed by iree-benchmark-module; the
 * baseline is IREE's own default config (docs/iree.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pruner/clock.h"
#include "pruner/backend/iree.h"

struct PrunerBackendStateImpl {
  PrunerIree iree;
};

static PrunerStatus describeKind(const char *name, PrunerTargetKind kind, PrunerTargetDesc *out) {
  PrunerTargetDesc t;
  PrunerStatus st = prunerTargetLookup(name, &t);
  if (!st.ok)
    return st;
  if (t.kind != kind)
    return prunerStatusError("target '%s' is not an %s target", name,
                             kind == PRUNER_TARGET_IREE_CPU ? "iree-cpu" : "iree-cuda");
  *out = t;
  return prunerStatusOk();
}

static PrunerStatus ireeDescribeTarget(const char *name, PrunerTargetDesc *out) {
  return describeKind(name, PRUNER_TARGET_IREE_CPU, out);
}

static PrunerStatus ireeCudaDescribeTarget(const char *name, PrunerTargetDesc *out) {
  return describeKind(name, PRUNER_TARGET_IREE_CUDA, out);
}

static PrunerStatus ireeRefuseMeasure(const PrunerTargetDesc *t, const char *mode) {
  return prunerStatusError("--measure=%s: --target=%s is measured by IREE's tools on this "
                           "machine: use --measure=host (its default), replay:FILE or none",
                           mode, t->arch);
}

static PrunerStatus ireeCudaRefuseMeasure(const PrunerTargetDesc *t, const char *mode) {
  return prunerStatusError("--measure=%s: iree-cuda:%s is built by iree-compile and run by "
                           "IREE's runtime on this machine's GPU: use --measure=gpu (its "
                           "default), replay:FILE or none",
                           mode, t->name);
}

static void ireeCudaDescribeMeasure(const PrunerTargetDesc *t, const char *export_path, char *buf,
                                    size_t size) {
  (void)export_path; /* no export */
  char device[128] = "";
  prunerIreeCudaDevice(device, sizeof device);
  const char *dir = prunerIreeToolsDir();
  snprintf(buf, size,
           "iree (iree-compile for CUDA %s with the config as the op's compilation_info, run, "
           "checked against and timed with IREE's default build on %s, described as %s; tools "
           "in %s)",
           prunerIreeCudaArch(t), device[0] ? device : "the CUDA device", t->device,
           dir[0] ? dir : "PATH");
}

static void ireeDescribeMeasure(const PrunerTargetDesc *t, const char *export_path, char *buf,
                                size_t size) {
  (void)export_path; /* no export */
  const char *dir = prunerIreeToolsDir();
  snprintf(buf, size,
           "iree (iree-compile with a one-config tuning spec, checked against and timed with "
           "IREE's default build on this CPU: %s; tools in %s)",
           t->device[0] ? t->device : t->name, dir[0] ? dir : "PATH");
}

static PrunerStatus ireeSpaceCreate(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                    PrunerSpace *out) {
  return prunerSpaceCreate(w, t, NULL, out); /* iree-cpu rules: prunerIreeCpuSpaceKnobs */
}

static PrunerStatus ireeDraftCreate(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                    PrunerDraft *out) {
  /* iree-cpu: the host terms (prunerIreeCpuDraftScore); iree-cuda: the GPU terms. */
  return prunerDraftCreate(w, t, out);
}

/* A farm rank without IREE's tools cannot serve this backend at all; it says so when
 * rank 0 sends it work (ireeCreate's error). */
static bool ireeCanMeasure(const PrunerTargetDesc *t) {
  (void)t;
  return prunerIreeCheckTools(NULL, 0).ok;
}

static bool ireeCudaCanMeasure(const PrunerTargetDesc *t) {
  (void)t;
  return prunerIreeCheckTools(NULL, 0).ok && prunerIreeCudaDevice(NULL, 0).ok;
}

static PrunerStatus ireeCreate(const PrunerTargetDesc *t, const PrunerBackendOptions *opts,
                               PrunerBackendState *out) {
  *out = NULL;
  PrunerStatus st = prunerIreeCheckTools(NULL, 0);
  if (!st.ok)
    return st;
  PrunerBackendState s = calloc(1, sizeof *s);
  if (!s)
    return prunerStatusError("out of memory");
  PrunerIreeOptions io = prunerIreeDefaultOptions();
  if (opts && opts->candidate_timeout_s > 0)
    io.timeout_seconds = opts->candidate_timeout_s;
  st = prunerIreeCreate(t, &io, &s->iree);
  if (!st.ok) {
    free(s);
    return st;
  }
  *out = s;
  return prunerStatusOk();
}

static void ireeDestroy(PrunerBackendState s) {
  if (!s)
    return;
  prunerIreeDestroy(s->iree);
  free(s);
}

static PrunerStatus ireeMeasure(PrunerBackendState s, const PrunerBackendBatch *b,
                                const PrunerBackendSink *sink) {
  /* The batch's candidates in one compile (prunerIreeMeasureBatch; about half the
   * compile time per candidate, docs/iree.md "Tuning cost"), in slices so that Ctrl-C
   * is seen between them. */
  enum { SLICE = 8 };
  /* Without IREE's own build of the op there is no reference to check outputs against:
   * a failure there says nothing about the configs (it was MPI's launcher variables once,
   * docs/hardening.md), so it ends the workload, not the candidates. */
  PrunerStatus prepared = prunerIreePrepare(s->iree, b->workload);
  if (!prepared.ok) {
    if (!sink->stopRequested(sink->user))
      sink->unmeasurable(sink->user, prepared.message);
    return prunerStatusOk();
  }
  PrunerRecord *recs = malloc(SLICE * sizeof *recs), *r = recs;
  if (!recs)
    return prunerStatusError("out of memory");
  PrunerStatus st = prunerStatusOk();
  for (size_t i0 = 0; i0 < b->n && st.ok && !sink->stopRequested(sink->user); i0 += SLICE) {
    int m = (int)(b->n - i0 < SLICE ? b->n - i0 : SLICE);
    double compile_s[SLICE] = {0}, t0 = prunerNowSeconds();
    prunerIreeMeasureBatch(s->iree, b->workload, &b->configs[i0], m, recs, compile_s);
    double slice_s = prunerNowSeconds() - t0;
    if (sink->stopRequested(sink->user))
      break; /* Ctrl-C reached the tools too: not a measurement, keep no record */
    for (int j = 0; j < m && st.ok; ++j) {
      /* The shared compile is split evenly; so is the slice's wall time. */
      recs[j].compile_s = compile_s[j];
      recs[j].measure_s = slice_s / m;
      st = sink->candidate(sink->user, i0 + (size_t)j, &recs[j]);
    }
  }
  if (st.ok && !sink->stopRequested(sink->user) && !sink->hasBaseline(sink->user)) {
    prunerIreeMeasure(s->iree, b->workload, NULL, r, NULL);
    snprintf(r->target_key, sizeof r->target_key, "%s", sink->targetKey(sink->user));
    if (sink->stopRequested(sink->user)) {
      /* nothing to keep */
    } else if (r->status == PRUNER_RECORD_OK) {
      st = sink->baseline(sink->user, r);
      prunerBackendNote(sink, false, "%s: IREE default config %.2f us", b->workload->key,
                        r->median_us);
    } else {
      prunerBackendNote(sink, false, "%s: IREE default build failed: %s", b->workload->key,
                        r->error);
    }
  }
  free(recs);
  return st;
}

static void ireeCopyRemeasured(const PrunerIreeRemeasured *from, PrunerBackendRecheckEntry *to) {
  to->status = from->status;
  snprintf(to->error, sizeof to->error, "%s", from->error);
  to->median_us = from->median_us;
  to->p25_us = from->p25_us;
  to->p75_us = from->p75_us;
}

/* The final check: the top configs and IREE's default build, each built once, timed in
 * interleaved rounds (docs/measurement.md, "Host: the final check"; docs/iree.md). */
#define IREE_RECHECK_ROUNDS 5
static void ireeRecheck(PrunerBackendState s, const PrunerWorkload *w, const PrunerConfig *configs,
                        int n, bool baseline, PrunerBackendRecheck *out) {
  memset(out, 0, sizeof *out);
  if (n > PRUNER_BACKEND_RECHECK_MAX)
    n = PRUNER_BACKEND_RECHECK_MAX;
  PrunerIreeRemeasured rem[PRUNER_BACKEND_RECHECK_MAX + 1];
  prunerIreeRemeasure(s->iree, w, configs, n, baseline, IREE_RECHECK_ROUNDS, rem);
  out->rounds = IREE_RECHECK_ROUNDS;
  out->has_baseline = baseline;
  for (int i = 0; i < n + (baseline ? 1 : 0); ++i)
    ireeCopyRemeasured(&rem[i], &out->entries[i]);
}

/* The module check on IREE's CPU target (prunerIreeModuleRemeasure): the user's module
 * built with the spec and with IREE's defaults, compared and timed in the final check's
 * rounds. IREE's CUDA target has no module timing here. */
static PrunerStatus ireeCheckModule(PrunerBackendState s, const char *module_path,
                                    const char *spec_path, const PrunerFunctionSignature *f,
                                    int64_t reduction_points, PrunerBackendModuleCheck *out) {
  memset(out, 0, sizeof *out);
  PrunerIreeTensor args[PRUNER_MAX_OPERANDS], results[PRUNER_MAX_OPERANDS];
  for (int i = 0; i < f->num_args + f->num_results; ++i) {
    const PrunerOperand *o = i < f->num_args ? &f->args[i] : &f->results[i - f->num_args];
    PrunerIreeTensor *t = i < f->num_args ? &args[i] : &results[i - f->num_args];
    t->dtype = o->dtype;
    t->rank = o->rank;
    memcpy(t->shape, o->shape, sizeof t->shape);
  }
  PrunerIreeModuleResult r;
  PrunerStatus st = prunerIreeModuleRemeasure(s->iree, module_path, f->name, args, f->num_args,
                                              results, f->num_results, reduction_points,
                                              spec_path, IREE_RECHECK_ROUNDS, &r);
  if (!st.ok)
    return st;
  ireeCopyRemeasured(&r.tuned, &out->tuned);
  ireeCopyRemeasured(&r.baseline, &out->baseline);
  out->rounds = IREE_RECHECK_ROUNDS;
  out->spec_configs = r.spec_configs;
  out->applied = r.applied;
  out->compile_seconds = r.compile_seconds[0] + r.compile_seconds[1];
  out->builds_shared = r.builds_shared;
  return prunerStatusOk();
}

static char *ireeSpecText(const PrunerTargetDesc *t, const PrunerWorkload *const *workloads,
                          const PrunerConfig *configs, size_t n, size_t *skipped) {
  char *text = NULL;
  PrunerStatus st = prunerIreeSpecText(t, workloads, configs, n, &text, skipped);
  return st.ok ? text : NULL;
}

/* The config as the op's compilation_info: what IREE reads besides a spec, and the only
 * way in for CUDA in IREE 3.13 (docs/iree.md, "CUDA"). */
static char *ireeOpAttribute(const PrunerTargetDesc *t, const PrunerWorkload *w,
                             const PrunerConfig *config, const char **name) {
  *name = "compilation_info";
  bool gpu = t->kind == PRUNER_TARGET_IREE_CUDA;
  PrunerStatus st = gpu ? prunerIreeGpuConfigCheck(w, t, config)
                        : prunerIreeCpuConfigCheck(w, t, NULL, config);
  if (!st.ok)
    return NULL;
  char info[2048];
  int n = gpu ? prunerIreeGpuCompilationInfo(w, t, config, info, sizeof info)
              : prunerIreeCpuCompilationInfo(w, config, info, sizeof info);
  return n > 0 && (size_t)n < sizeof info ? strdup(info) : NULL;
}

static const PrunerBackend ireeBackend = {
    .name = "iree",
    .kind = PRUNER_TARGET_IREE_CPU,
    .device_measure = PRUNER_TUNE_MEASURE_HOST,
    .baseline_name = "IREE-default",
    .baseline_is_default = true, /* a config-free build: leaving the op alone is writable */
    .codegen_version = PRUNER_IREE_CODEGEN_VERSION,
    .fuses_consumers = false, /* one dispatch per tuned op; IREE fuses on its own */
    .canMeasure = ireeCanMeasure,
    .describeTarget = ireeDescribeTarget,
    .refuseMeasure = ireeRefuseMeasure,
    .describeMeasure = ireeDescribeMeasure,
    .spaceCreate = ireeSpaceCreate,
    .draftCreate = ireeDraftCreate,
    .create = ireeCreate,
    .destroy = ireeDestroy,
    .measure = ireeMeasure,
    .exportOpen = NULL, /* IREE measures on this machine */
    .exportAdd = NULL,
    .exportClose = NULL,
    .recheck = ireeRecheck,
    .checkModule = ireeCheckModule,
    .specText = ireeSpecText,
    .opAttribute = ireeOpAttribute,
};

/* IREE's CUDA backend: the same measuring code (lib/backend/iree/iree.c) with the config
 * on the op (IREE 3.13's CUDA pipeline loads no tuning specs), on the machine's GPU. */
static const PrunerBackend ireeCudaBackend = {
    .name = "iree-cuda",
    .kind = PRUNER_TARGET_IREE_CUDA,
    .device_measure = PRUNER_TUNE_MEASURE_GPU,
    .baseline_name = "IREE-default",
    .baseline_is_default = true, /* a config-free build: leaving the op alone is writable */
    .codegen_version = PRUNER_IREE_CODEGEN_VERSION,
    .fuses_consumers = false,
    .canMeasure = ireeCudaCanMeasure,
    .describeTarget = ireeCudaDescribeTarget,
    .refuseMeasure = ireeCudaRefuseMeasure,
    .describeMeasure = ireeCudaDescribeMeasure,
    .spaceCreate = ireeSpaceCreate,
    .draftCreate = ireeDraftCreate,
    .create = ireeCreate,
    .destroy = ireeDestroy,
    .measure = ireeMeasure,
    .recheck = ireeRecheck,
    .specText = ireeSpecText,
    .opAttribute = ireeOpAttribute,
};

const PrunerBackend *prunerIreeBackend(void) { return &ireeBackend; }
const PrunerBackend *prunerIreeCudaBackend(void) { return &ireeCudaBackend; }

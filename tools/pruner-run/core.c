/* pruner-run's parent: walks the bundle, hands each step to a worker child under a
 * watchdog, writes one record per candidate at once, prints progress and the summary.
 * It never touches CUDA itself (CUDA state does not survive fork, and a poisoned context
 * must die with its child). */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "pruner/clock.h"
#include "runner.h"

typedef struct WorkloadSummary {
  int by_status[PRUNER_RECORD_STATUS_COUNT];
  int skipped; /* already in the records */
  double best_us;
  double baseline_us;
  bool has_baseline;
} WorkloadSummary;

typedef struct Runner {
  PrunerBundle bundle;
  const RunnerOptions *opts;
  PrunerWorker worker;
  RunRequest *req;
  RunReply *rep;
  PrunerRecords records;
  PrunerTargetDesc target;
  char target_key[96];
  RunDeviceInfo device;
  uint64_t seed;
  int prepared_workload;   /* workload the current child holds, -1 none */
  int prepared_generation; /* child generation it was prepared in        */
  bool prepared_baseline;
  int errors;              /* infrastructure failures (exit code 1)      */
} Runner;

static void logf_(Runner *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(Runner *r, const char *fmt, ...) {
  if (!r->opts->log)
    return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(r->opts->log, fmt, ap);
  va_end(ap);
  fflush(r->opts->log);
}

/* Target of the measuring device: the table entry for its name (else its arch), with the
 * values the runtime reported replacing the table's. */
static void buildTarget(Runner *r) {
  const RunDeviceInfo *d = &r->device;
  char arch[16];
  snprintf(arch, sizeof(arch), "sm_%d%d", d->cc_major, d->cc_minor);
  memset(&r->target, 0, sizeof(r->target));
  if (!prunerTargetLookup(d->name, &r->target).ok && !prunerTargetLookup(arch, &r->target).ok) {
    snprintf(r->target.name, sizeof(r->target.name), "unknown");
    snprintf(r->target.arch, sizeof(r->target.arch), "%s", arch);
    r->target.compute_capability = d->cc_major * 10 + d->cc_minor;
  }
  PrunerTargetDesc measured;
  memset(&measured, 0, sizeof(measured));
  snprintf(measured.device, sizeof(measured.device), "%.63s", d->name);
  measured.sm_count = d->sm_count;
  measured.boost_clock_mhz = d->clock_mhz;
  measured.l2_bytes = d->l2_bytes;
  measured.dram_bytes = d->dram_bytes;
  measured.smem_per_sm = d->smem_per_sm;
  measured.smem_per_block = d->smem_per_block;
  measured.smem_per_block_static = d->smem_per_block_static;
  measured.regs_per_sm = d->regs_per_sm;
  measured.regs_per_block = d->regs_per_block;
  measured.max_threads_per_block = d->max_threads_per_block;
  measured.max_threads_per_sm = d->max_threads_per_sm;
  measured.max_blocks_per_sm = d->max_blocks_per_sm;
  prunerTargetOverride(&r->target, &measured);
  prunerTargetKey(&r->target, r->target_key, sizeof(r->target_key));
}

static void baseRecord(Runner *r, const PrunerWorkload *w, PrunerRecord *rec) {
  prunerRecordInit(rec);
  rec->version = PRUNER_RECORDS_VERSION;
  snprintf(rec->workload_key, sizeof(rec->workload_key), "%s", w->key);
  rec->workload = *w;
  rec->has_workload = true;
  snprintf(rec->target_key, sizeof(rec->target_key), "%s", r->target_key);
  snprintf(rec->device_name, sizeof(rec->device_name), "%s", r->device.name);
  snprintf(rec->driver_version, sizeof(rec->driver_version), "%s", r->device.driver_version);
  snprintf(rec->toolchain_version, sizeof(rec->toolchain_version), "%s",
           r->device.runtime_version);
  rec->timestamp = prunerEpochSeconds();
}

static void fillTiming(PrunerRecord *rec, const RunReply *rep) {
  rec->num_samples = rep->num_samples;
  for (int i = 0; i < rep->num_samples && i < PRUNER_MAX_SAMPLES; i++)
    rec->samples_us[i] = rep->samples_us[i];
  rec->median_us = rep->median_us;
  rec->spread_us = rep->spread_us;
  rec->max_abs_error = rep->max_abs_error;
  rec->sm_clock_mhz = rep->sm_clock_mhz;
}

/* Makes sure the current child holds `workload`'s buffers and reference. */
static bool prepare(Runner *r, int workload) {
  PrunerStatus st = prunerWorkerEnsureStarted(r->worker);
  if (!st.ok) {
    logf_(r, "error: %s\n", st.message);
    return false;
  }
  int gen = prunerWorkerGeneration(r->worker);
  if (r->prepared_workload == workload && r->prepared_generation == gen)
    return true;
  memset(r->req, 0, sizeof(*r->req));
  r->req->kind = RUN_PREPARE;
  r->req->workload = workload;
  r->req->seed = r->seed;
  char why[256];
  PrunerWorkerOutcome out = prunerWorkerCall(r->worker, r->req, r->rep,
                                             r->opts->prepare_timeout_seconds, why, sizeof(why));
  const PrunerWorkload *w = prunerBundleGetWorkload(r->bundle, (size_t)workload);
  if (out != PRUNER_WORKER_DONE || !r->rep->ok) {
    logf_(r, "error: preparing workload %s: %s\n", w->key,
          out != PRUNER_WORKER_DONE ? why : r->rep->error);
    r->prepared_workload = -1;
    return false;
  }
  r->prepared_workload = workload;
  r->prepared_generation = prunerWorkerGeneration(r->worker);
  r->prepared_baseline = r->rep->has_baseline;
  return true;
}

/* Sends the current request; turns a hang or crash into the candidate's status. */
static void callMeasure(Runner *r, PrunerRecord *rec) {
  char why[256];
  PrunerWorkerOutcome out =
      prunerWorkerCall(r->worker, r->req, r->rep, r->opts->timeout_seconds, why, sizeof(why));
  switch (out) {
  case PRUNER_WORKER_DONE:
    rec->status = r->rep->status;
    snprintf(rec->error, sizeof(rec->error), "%s", r->rep->error);
    fillTiming(rec, r->rep);
    break;
  case PRUNER_WORKER_TIMEOUT:
    rec->status = PRUNER_RECORD_TIMEOUT;
    snprintf(rec->error, sizeof(rec->error), "%s", why);
    break;
  case PRUNER_WORKER_CRASHED:
    rec->status = PRUNER_RECORD_LAUNCH_ERROR;
    snprintf(rec->error, sizeof(rec->error), "%s", why);
    break;
  case PRUNER_WORKER_FAILED:
  case PRUNER_WORKER_PENDING:     /* prunerWorkerCall waits: never pending */
  case PRUNER_WORKER_INTERRUPTED: /* no stop flag is set on this worker */
    rec->status = PRUNER_RECORD_INVALID;
    snprintf(rec->error, sizeof(rec->error), "runner: %.200s", why);
    r->errors++;
    break;
  }
}

static bool append(Runner *r, const PrunerRecord *rec) {
  PrunerStatus st = prunerRecordsAppend(r->records, rec);
  if (!st.ok) {
    logf_(r, "error: %s\n", st.message);
    r->errors++;
    return false;
  }
  return true;
}

static void runCandidate(Runner *r, size_t index, WorkloadSummary *sum) {
  const PrunerBundleCandidate *c = prunerBundleGetCandidate(r->bundle, index);
  const PrunerWorkload *w = prunerBundleGetWorkload(r->bundle, (size_t)c->workload);
  if (prunerRecordsFind(r->records, w->key, r->target_key, &c->config)) {
    sum->skipped++;
    return;
  }
  PrunerRecord rec;
  baseRecord(r, w, &rec);
  rec.codegen_version = prunerBundleCodegenVersion(r->bundle);
  rec.config = c->config;
  rec.draft_score_us = c->draft_score_us;
  rec.verifier_score = c->verifier_score;
  rec.registers = c->launch.resources.registers;
  rec.spill_bytes = c->launch.resources.spill_store_bytes + c->launch.resources.spill_load_bytes;
  rec.shared_bytes = c->launch.resources.shared_bytes + (int)c->launch.dynamic_smem_bytes;
  if (!prepare(r, c->workload)) {
    r->errors++;
    return; /* no record: a rerun retries it */
  }
  memset(r->req, 0, sizeof(*r->req));
  r->req->kind = RUN_CANDIDATE;
  r->req->workload = c->workload;
  r->req->candidate = (int)index;
  r->req->samples = r->opts->samples;
  r->req->budget_seconds = 0.5 * r->opts->timeout_seconds;
  r->req->seed = r->seed;
  /* What the config cost, for the study's wall-clock figures (docs/records.md): its
   * compile on the build host plus this measurement (load, check, warm-up, samples). */
  double t0 = prunerNowSeconds();
  callMeasure(r, &rec);
  rec.compile_s = c->compile_s;
  rec.measure_s = c->compile_s + (prunerNowSeconds() - t0);
  if (!append(r, &rec))
    return;
  sum->by_status[rec.status]++;
  if (rec.status == PRUNER_RECORD_OK && (sum->best_us == 0 || rec.median_us < sum->best_us))
    sum->best_us = rec.median_us;
  char cfg[160];
  prunerConfigFormatShort(w, &c->config, cfg, sizeof(cfg));
  if (rec.status == PRUNER_RECORD_OK)
    logf_(r, "  [%d] %-28s ok %10.2f us  (spread %.2f, %d samples, err %.2g)\n", c->id, cfg,
          rec.median_us, rec.spread_us, rec.num_samples, rec.max_abs_error);
  else
    logf_(r, "  [%d] %-28s %s: %s\n", c->id, cfg, prunerRecordStatusName(rec.status),
          rec.error);
}

static void runBaseline(Runner *r, int workload, WorkloadSummary *sum) {
  const PrunerWorkload *w = prunerBundleGetWorkload(r->bundle, (size_t)workload);
  const PrunerRecord *old = prunerRecordsBaseline(r->records, w->key, r->target_key);
  if (old) {
    sum->has_baseline = old->status == PRUNER_RECORD_OK;
    sum->baseline_us = old->median_us;
    return;
  }
  if (!prepare(r, workload)) {
    r->errors++;
    return;
  }
  if (!r->prepared_baseline) {
    logf_(r, "  cublas: not applicable to %s (not a GEMM-shaped contraction)\n",
          prunerOpKindName(w->kind));
    return;
  }
  PrunerRecord rec;
  baseRecord(r, w, &rec);
  rec.is_baseline = true;
  snprintf(rec.baseline_name, sizeof(rec.baseline_name), "cublas");
  memset(r->req, 0, sizeof(*r->req));
  r->req->kind = RUN_BASELINE;
  r->req->workload = workload;
  r->req->samples = r->opts->samples;
  r->req->budget_seconds = 0.5 * r->opts->timeout_seconds;
  r->req->seed = r->seed;
  callMeasure(r, &rec);
  if (!append(r, &rec))
    return;
  sum->has_baseline = rec.status == PRUNER_RECORD_OK;
  sum->baseline_us = rec.median_us;
  if (rec.status == PRUNER_RECORD_OK)
    logf_(r, "  cublas %33s %10.2f us  (spread %.2f, %d samples)\n", "", rec.median_us,
          rec.spread_us, rec.num_samples);
  else
    logf_(r, "  cublas: %s: %s\n", prunerRecordStatusName(rec.status), rec.error);
}

/* Bundle index of the candidate of `workload` with `config`, or -1. */
static int candidateFor(Runner *r, int workload, const PrunerConfig *config) {
  for (size_t i = 0; i < prunerBundleNumCandidates(r->bundle); i++) {
    const PrunerBundleCandidate *c = prunerBundleGetCandidate(r->bundle, i);
    if (c->workload == workload && prunerConfigEqual(&c->config, config))
      return (int)i;
  }
  return -1;
}

/* The best RUN_FINAL_TOP ok candidates (from all records of this target), re-timed in
 * rounds that alternate them with cuBLAS so that clock and thermal drift hit all alike. */
static void runFinal(Runner *r, int workload, const WorkloadSummary *sum) {
  const PrunerWorkload *w = prunerBundleGetWorkload(r->bundle, (size_t)workload);
  int ids[RUN_FINAL_TOP];
  double best[RUN_FINAL_TOP];
  int n = 0;
  for (size_t i = 0; i < prunerRecordsCount(r->records); i++) {
    const PrunerRecord *rec = prunerRecordsGet(r->records, i);
    if (rec->is_baseline || rec->status != PRUNER_RECORD_OK ||
        strcmp(rec->workload_key, w->key) != 0 || strcmp(rec->target_key, r->target_key) != 0)
      continue;
    int idx = candidateFor(r, workload, &rec->config);
    if (idx < 0)
      continue;
    bool dup = false;
    for (int j = 0; j < n; j++)
      dup = dup || ids[j] == idx;
    if (dup)
      continue;
    /* insertion into a sorted top list */
    int pos = n < RUN_FINAL_TOP ? n : RUN_FINAL_TOP;
    while (pos > 0 && best[pos - 1] > rec->median_us)
      pos--;
    if (pos >= RUN_FINAL_TOP)
      continue;
    for (int j = (n < RUN_FINAL_TOP ? n : RUN_FINAL_TOP - 1); j > pos; j--) {
      ids[j] = ids[j - 1];
      best[j] = best[j - 1];
    }
    ids[pos] = idx;
    best[pos] = rec->median_us;
    if (n < RUN_FINAL_TOP)
      n++;
  }
  if (n == 0 || !prepare(r, workload))
    return;
  memset(r->req, 0, sizeof(*r->req));
  r->req->kind = RUN_FINAL;
  r->req->workload = workload;
  r->req->num_final = n;
  for (int j = 0; j < n; j++)
    r->req->final_ids[j] = ids[j];
  r->req->final_baseline = r->prepared_baseline && sum->has_baseline;
  r->req->rounds = r->opts->samples > 10 ? r->opts->samples : 10;
  r->req->seed = r->seed;
  char why[256];
  PrunerWorkerOutcome out = prunerWorkerCall(r->worker, r->req, r->rep,
                                             r->opts->timeout_seconds * (n + 1), why, sizeof(why));
  if (out != PRUNER_WORKER_DONE || !r->rep->ok) {
    logf_(r, "  final re-measurement failed: %s\n", out != PRUNER_WORKER_DONE ? why : r->rep->error);
    return;
  }
  logf_(r, "  final (interleaved, %d rounds):", r->req->rounds);
  for (int j = 0; j < n; j++)
    logf_(r, " [%d] %.2f us", prunerBundleGetCandidate(r->bundle, (size_t)ids[j])->id,
          r->rep->final_median_us[j]);
  if (r->req->final_baseline)
    logf_(r, "  cublas %.2f us  ratio %.3f", r->rep->final_median_us[n],
          r->rep->final_median_us[n] / r->rep->final_median_us[0]);
  logf_(r, "\n");
}

static void printSummary(Runner *r, const WorkloadSummary *sums) {
  logf_(r, "\n%-44s %5s %5s %5s %5s %5s %5s %10s %9s %10s %7s\n", "workload", "ok", "wrong",
        "launch", "tmout", "inval", "skip", "best_us", "GFLOP/s", "cublas_us", "ratio");
  for (size_t i = 0; i < prunerBundleNumWorkloads(r->bundle); i++) {
    const PrunerWorkload *w = prunerBundleGetWorkload(r->bundle, i);
    const WorkloadSummary *s = &sums[i];
    /* best over everything recorded for this target, including earlier runs */
    const PrunerRecord *best = prunerRecordsBest(r->records, w->key, r->target_key);
    double best_us = best ? best->median_us : s->best_us;
    double gflops = best_us > 0 ? prunerWorkloadFlops(w) / (best_us * 1e3) : 0;
    char bu[32] = "-", gf[32] = "-", cu[32] = "-", ra[32] = "-";
    if (best_us > 0) {
      snprintf(bu, sizeof(bu), "%.2f", best_us);
      snprintf(gf, sizeof(gf), "%.0f", gflops);
    }
    if (s->has_baseline) {
      snprintf(cu, sizeof(cu), "%.2f", s->baseline_us);
      if (best_us > 0)
        snprintf(ra, sizeof(ra), "%.3f", s->baseline_us / best_us);
    }
    logf_(r, "%-44.44s %5d %5d %5d %5d %5d %5d %10s %9s %10s %7s\n", w->key,
          s->by_status[PRUNER_RECORD_OK], s->by_status[PRUNER_RECORD_WRONG_RESULT],
          s->by_status[PRUNER_RECORD_LAUNCH_ERROR], s->by_status[PRUNER_RECORD_TIMEOUT],
          s->by_status[PRUNER_RECORD_INVALID], s->skipped, bu, gf, cu, ra);
  }
  logf_(r, "(ratio = cuBLAS time / best candidate time; > 1 means the candidate is faster)\n");
}

static int hello(Runner *r) {
  memset(r->req, 0, sizeof(*r->req));
  r->req->kind = RUN_HELLO;
  char why[256];
  PrunerWorkerOutcome out = prunerWorkerCall(r->worker, r->req, r->rep,
                                             r->opts->prepare_timeout_seconds, why, sizeof(why));
  if (out != PRUNER_WORKER_DONE) {
    logf_(r, "no CUDA device: probing the device failed: %s\n", why);
    return PRUNER_RUN_EXIT_NO_DEVICE;
  }
  if (r->rep->no_device || !r->rep->ok) {
    logf_(r, "no CUDA device: %s\n", r->rep->error);
    return PRUNER_RUN_EXIT_NO_DEVICE;
  }
  r->device = r->rep->device;
  buildTarget(r);
  logf_(r, "device: %s (sm_%d%d, %d SMs, %.0f MHz, L2 %" PRId64 " KiB), driver %s, runtime %s\n",
        r->device.name, r->device.cc_major, r->device.cc_minor, r->device.sm_count,
        r->device.clock_mhz, r->device.l2_bytes / 1024, r->device.driver_version,
        r->device.runtime_version);
  logf_(r, "target key: %s\n", r->target_key);
  if (strcmp(prunerBundleTargetArch(r->bundle), r->target.arch) != 0)
    logf_(r, "warning: the bundle was compiled for %s (%s); this device is %s: its cubins "
             "will not load and are recorded as invalid\n",
          prunerBundleTargetArch(r->bundle), prunerBundleTargetKey(r->bundle), r->target.arch);
  else if (strcmp(prunerBundleTargetKey(r->bundle), r->target_key) != 0)
    logf_(r, "warning: records go under target key %s, the bundle's tuner expects %s\n",
          r->target_key, prunerBundleTargetKey(r->bundle));
  return PRUNER_RUN_EXIT_OK;
}

int runnerExecute(PrunerBundle bundle, const RunnerOptions *opts, PrunerWorkerHandler handler,
                  void *handler_context) {
  Runner r;
  memset(&r, 0, sizeof(r));
  r.bundle = bundle;
  r.opts = opts;
  r.prepared_workload = -1;
  r.seed = opts->seed ? opts->seed : prunerBundleSeed(bundle);
  /* An empty bundle (the tuner had nothing left to build and said why): no device is
   * needed to measure nothing. */
  if (prunerBundleNumWorkloads(bundle) == 0) {
    logf_(&r, "the bundle holds no workload and no candidate: nothing to measure\n");
    return PRUNER_RUN_EXIT_OK;
  }
  if (prunerBundleNumCandidates(bundle) == 0 && !opts->only_baseline)
    logf_(&r, "note: the bundle holds no candidate: only the baselines are measured\n");
  PrunerWorkerSpec spec = {.handler = handler,
                           .context = handler_context,
                           .request_size = sizeof(RunRequest),
                           .reply_size = sizeof(RunReply)};
  PrunerStatus st = prunerWorkerCreate(&spec, &r.worker);
  if (!st.ok) {
    logf_(&r, "error: %s\n", st.message);
    return PRUNER_RUN_EXIT_ERROR;
  }
  r.req = calloc(1, sizeof(RunRequest));
  r.rep = calloc(1, sizeof(RunReply));
  size_t nw = prunerBundleNumWorkloads(bundle);
  WorkloadSummary *sums = calloc(nw ? nw : 1, sizeof(WorkloadSummary));
  int code = PRUNER_RUN_EXIT_ERROR;
  if (!r.req || !r.rep || !sums) {
    logf_(&r, "error: out of memory\n");
    goto done;
  }
  code = hello(&r);
  if (code != PRUNER_RUN_EXIT_OK)
    goto done;
  st = prunerRecordsCreate(opts->records_path, &r.records);
  if (!st.ok) {
    logf_(&r, "error: %s\n", st.message);
    code = PRUNER_RUN_EXIT_ERROR;
    goto done;
  }
  if (prunerRecordsSkippedLines(r.records))
    if (r.opts->log)
      prunerRecordsPrintWarnings(r.records, r.opts->log, "warning: ");
  /* A resumed record of this device's key from another code generator than the bundle's
   * did not time this bundle's kernel: dropped (in memory) so that its config runs again. */
  if (prunerRecordsFilterCodegen(r.records, r.target_key, prunerBundleCodegenVersion(bundle)) > 0)
    if (r.opts->log)
      prunerRecordsPrintWarnings(r.records, r.opts->log, "warning: ");

  for (size_t wi = 0; wi < nw; wi++) {
    const PrunerWorkload *w = prunerBundleGetWorkload(bundle, wi);
    logf_(&r, "workload %zu/%zu %s (%.3g GFLOP)\n", wi + 1, nw, w->key,
          prunerWorkloadFlops(w) * 1e-9);
    runBaseline(&r, (int)wi, &sums[wi]);
    if (opts->only_baseline)
      continue;
    for (size_t ci = 0; ci < prunerBundleNumCandidates(bundle); ci++)
      if (prunerBundleGetCandidate(bundle, ci)->workload == (int)wi)
        runCandidate(&r, ci, &sums[wi]);
    if (opts->final_remeasure)
      runFinal(&r, (int)wi, &sums[wi]);
  }
  printSummary(&r, sums);
  code = r.errors ? PRUNER_RUN_EXIT_ERROR : PRUNER_RUN_EXIT_OK;

done:
  if (r.records)
    prunerRecordsDestroy(r.records);
  prunerWorkerDestroy(r.worker);
  free(r.req);
  free(r.rep);
  free(sums);
  return code;
}

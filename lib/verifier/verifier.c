/* The learned verifier: XGBoost rank:pairwise over the features of features.c, trained
 * per target from the records log, with a draft fallback and a frozen prior
 * (docs/verifier.md). */
#include "verifier_internal.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <xgboost/c_api.h>

#include "pruner/file.h"
#include "pruner/random.h"
#include "pruner/text.h"

struct PrunerVerifierImpl {
  PrunerTargetDesc target;
  char target_key[96];
  PrunerVerifierOptions opts;
  BoosterHandle online; /* NULL: no online model */
  BoosterHandle prior;  /* NULL: no prior        */
  char prior_source[96]; /* the prior's "pruner_target" attribute ("" if none)       */
  char *prior_workloads; /* its "pruner_workloads": keys, one per line; NULL if none */
  size_t prior_num_workloads;
  bool prior_skips_unseen; /* its "pruner_unseen" is "skip" */
  size_t trained_records;
  size_t last_usable; /* usable records seen by the previous Train */
  int rounds;         /* Train calls that brought new records of this target */
  /* Usable records per workload at the last Train (keys sorted), for the draft blend. */
  char (*blend_keys)[PRUNER_WORKLOAD_KEY_SIZE];
  size_t *blend_counts;
  double *blend_scales; /* the draft's scale in the margin per workload (0: the pooled) */
  size_t blend_n;
  /* One cached draft (the last workload predicted), so repeated Predict calls for one
   * workload do not rebuild it. */
  PrunerDraft draft;
  char draft_key[PRUNER_WORKLOAD_KEY_SIZE];
  size_t draft_runs; /* prunerVerifierDraftRuns */
  /* The draft's scale in each model's margin (0: none; see draft_margin). */
  double online_draft_scale;
  double prior_draft_scale;
};

/* ---- helpers ------------------------------------------------------------------------ */

/* XGBoost's last error, first line only: its messages go on with a multi-line
 * "Stack trace:", and a PrunerStatus message is one line. */
static void xgbLastError(char *buf, size_t size) {
  snprintf(buf, size, "%s", XGBGetLastError());
  buf[strcspn(buf, "\n")] = '\0';
}

static PrunerStatus xgbError(const char *what) {
  char last[PRUNER_STATUS_MESSAGE_SIZE];
  xgbLastError(last, sizeof last);
  return prunerStatusError("verifier: XGBoost %s failed: %s", what, last);
}

static void freeBooster(BoosterHandle *b) {
  if (*b)
    XGBoosterFree(*b);
  *b = NULL;
}

/* The draft for `w`, created on first use and cached by workload key. */
static PrunerDraft draftFor(PrunerVerifier v, const PrunerWorkload *w) {
  if (v->opts.draft_free)
    return NULL;
  v->draft_runs++;
  if (v->draft && strcmp(v->draft_key, w->key) == 0)
    return v->draft;
  if (v->draft)
    prunerDraftDestroy(v->draft);
  v->draft = NULL;
  if (!prunerDraftCreate(w, &v->target, &v->draft).ok) {
    v->draft = NULL;
    return NULL;
  }
  snprintf(v->draft_key, sizeof(v->draft_key), "%s", w->key);
  return v->draft;
}

/* FNV-1a 64 over the config: decides which training records hide their ptxas figures
 * (see maskResources). */
static uint64_t configHash(const char *key, const PrunerConfig *c) {
  uint64_t h = 14695981039346656037ull;
  for (const char *p = key; *p; ++p)
    h = (h ^ (unsigned char)*p) * 1099511628211ull;
  const unsigned char *bytes = (const unsigned char *)c;
  for (size_t i = 0; i < sizeof(*c); ++i)
    h = (h ^ bytes[i]) * 1099511628211ull;
  return h;
}

/* Candidates are ranked before they are compiled, so prediction never sees ptxas
 * figures; training on records that always have them would leave the trees' missing
 * branches untrained. Half the training records (by a hash of the config, so the
 * choice is stable across rounds) are presented as uncompiled. */
static bool maskResources(const PrunerRecord *r) {
  return (configHash(r->workload_key, &r->config) >> 17) & 1u;
}

/* Fills the features of record `r` and returns -log of the draft's predicted µs for its
 * config (NaN when the draft cannot score it), the draft's side of the model's margin. */
static double fillRecordFeatures(PrunerDraft draft, const PrunerRecord *r, float *out) {
  PrunerKernelResources resources;
  memset(&resources, 0, sizeof(resources));
  bool compiled = r->registers > 0 && !maskResources(r);
  if (compiled) {
    resources.registers = r->registers;
    resources.spill_store_bytes = r->spill_bytes > 0 ? r->spill_bytes : 0;
    resources.shared_bytes = r->shared_bytes > 0 ? r->shared_bytes : 0;
  }
  PrunerDraftSymbols symbols;
  bool scored = draft && prunerDraftScore(draft, &r->config, compiled ? &resources : NULL,
                                          &symbols);
  /* ptxas figures the draft calls unlaunchable: keep the estimate-based symbols. */
  if (draft && !scored && compiled)
    scored = prunerDraftScore(draft, &r->config, NULL, &symbols);
  prunerVerifierFillFeatures(&r->workload, &r->config, scored ? &symbols : NULL,
                             compiled ? &resources : NULL, out);
  /* The margin is what prediction sees: the estimate-based latency (no ptxas figures). */
  if (draft && compiled)
    scored = prunerDraftScore(draft, &r->config, NULL, &symbols);
  return scored && isfinite(symbols.predicted_us) && symbols.predicted_us > 0
             ? -log(symbols.predicted_us)
             : NAN;
}

/* The draft's scale c in the pairwise logistic model P(i faster than j) =
 * sigmoid(c (d_i - d_j)), d = -log draft µs, by maximum likelihood (Newton's method) over
 * 8 partners per record drawn in its group (a fixed seed, so training is repeatable),
 * each group weighted equally. 0 when no pair disagrees in label; capped at 256 when the
 * draft orders every sampled pair right. */
static double fitDraftScale(const float *d, const float *labels, const unsigned *groups,
                            size_t num_groups) {
  double c = 1.0;
  for (int iter = 0; iter < 50; ++iter) {
    double grad = 0, hess = 0;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    size_t begin = 0;
    for (size_t g = 0; g < num_groups; begin += groups[g++]) {
      size_t m = groups[g];
      for (size_t i = 0; i < m; ++i) {
        for (int k = 0; k < 8; ++k) {
          size_t j = (size_t)(prunerRandomNext(&seed) % m);
          float li = labels[begin + i], lj = labels[begin + j];
          if (li == lj)
            continue;
          /* x > 0 when the draft agrees with the measurement on this pair. */
          double x = ((double)d[begin + i] - d[begin + j]) * (li > lj ? 1.0 : -1.0);
          double p = 1.0 / (1.0 + exp(-c * x));
          grad += (1.0 - p) * x / (double)m;
          hess += p * (1.0 - p) * x * x / (double)m;
        }
      }
    }
    if (!(hess > 0))
      return grad > 0 ? 256.0 : 0.0;
    double next = fmin(fmax(c + grad / hess, 0.0), 256.0);
    bool done = fabs(next - c) < 1e-6 * (1.0 + c);
    c = next;
    if (done)
      break;
  }
  return c;
}

/* The variance of the draft's errors over one group's records d[0..n) (labels alike),
 * and in *m how many could be scored (NaN d, unscorable, are left out); 0 when m < 2. */
static double groupErrorVariance(const float *d, const float *labels, size_t n, size_t *m) {
  double sum = 0, squares = 0;
  *m = 0;
  for (size_t i = 0; i < n; ++i) {
    if (isnan(d[i]) || !(labels[i] > 0))
      continue;
    /* label = best / measured, so log(measured / predicted) = d - log(label) + const. */
    double error = (double)d[i] - log((double)labels[i]);
    sum += error;
    squares += error * error;
    ++*m;
  }
  if (*m < 2)
    return 0.0;
  double mean = sum / (double)*m;
  return fmax(squares - (double)*m * mean * mean, 0.0) / (double)(*m - 1);
}

/* The same scale from the spread of the draft's errors, for when the likelihood has no
 * interior maximum. If the measured log latency is the draft's plus an error of deviation
 * s (within a group: each workload's own offset cancels in its pairs), then P(i faster
 * than j) = Phi((d_i - d_j) / (sqrt(2) s)), and sigmoid(1.702 x) is within 0.01 of Phi(x)
 * everywhere (the scaling constant of item response theory: Camilli, J. Educational and
 * Behavioral Statistics 19(3), 1994), so c = 1.702 / (sqrt(2) s). s is the records'
 * pooled within-group deviation of log(measured / predicted), each group weighted
 * equally; NaN d (unscorable) are left out. 0 when no group has two scorable records;
 * capped at 256 when the draft's errors are all alike. */
static double draftScaleFromErrors(const float *d, const float *labels,
                                   const unsigned *groups, size_t num_groups) {
  double variance = 0;
  size_t used = 0, begin = 0;
  for (size_t g = 0; g < num_groups; begin += groups[g++]) {
    size_t m;
    double v = groupErrorVariance(d + begin, labels + begin, groups[g], &m);
    if (m < 2)
      continue;
    variance += v;
    ++used;
  }
  if (!used)
    return 0.0;
  double deviation = sqrt(variance / (double)used);
  return deviation > 0 ? fmin(1.702 / (sqrt(2.0) * deviation), 256.0) : 256.0;
}

/* Each group's own scale (PrunerVerifierOptions.draft_scale_per_workload): the pooled
 * scale times how much tighter the draft's errors are on that group than on the pool,
 * deviation for deviation (c ~ 1 / s, as above), so that the trees' corrections, learned
 * mostly on other workloads, weigh less where the draft has been right. The group's
 * variance is shrunk towards the pooled one as an estimate from its m records towards a
 * prior worth k records (the blend's K). Groups of < 2 scorable records keep `pooled`. */
static void groupDraftScales(const float *d, const float *labels, const unsigned *groups,
                             size_t num_groups, double pooled, double k, double *out) {
  double total = 0;
  size_t used = 0, begin = 0;
  double *variance = calloc(num_groups ? num_groups : 1, sizeof *variance);
  size_t *count = calloc(num_groups ? num_groups : 1, sizeof *count);
  for (size_t g = 0; g < num_groups; begin += groups[g++]) {
    out[g] = pooled;
    size_t m;
    double v = groupErrorVariance(d + begin, labels + begin, groups[g], &m);
    if (m < 2 || !variance || !count)
      continue;
    variance[g] = v;
    count[g] = m;
    total += variance[g];
    ++used;
  }
  /* One workload with errors (a study's replay, a module of one op): its scale is the
   * pooled one, exactly (the ratio below would be 1 up to rounding). */
  if (k > 0 && used >= 2 && total > 0 && variance && count) {
    double pool = total / (double)used;
    for (size_t g = 0; g < num_groups; ++g) {
      if (count[g] < 2)
        continue;
      double shrunk = ((double)count[g] * variance[g] + k * pool) / ((double)count[g] + k);
      if (shrunk > 0)
        out[g] = fmin(pooled * sqrt(pool / shrunk), 256.0);
    }
  }
  free(variance);
  free(count);
}

/* margin[i] = scale x d[i], NaN (configs the draft cannot score) at the lowest d minus one,
 * so they stay last on the draft's side. */
static void draftMargins(const float *d, size_t n, double scale, float *margin) {
  float lowest = INFINITY;
  for (size_t i = 0; i < n; ++i)
    if (!isnan(d[i]))
      lowest = fminf(lowest, d[i]);
  for (size_t i = 0; i < n; ++i)
    margin[i] = (float)(scale * (isnan(d[i]) ? (isfinite(lowest) ? lowest - 1.0f : 0.0f) : d[i]));
}

/* The "pruner_draft_scale" a model file keeps (0 when absent or unreadable). */
static double boosterDraftScale(BoosterHandle b) {
  const char *value = NULL;
  int found = 0;
  if (XGBoosterGetAttr(b, "pruner_draft_scale", &value, &found) != 0 || !found || !value)
    return 0.0;
  double c = strtod(value, NULL);
  return isfinite(c) && c > 0 ? c : 0.0;
}

/* ---- lifecycle ---------------------------------------------------------------------- */

PrunerVerifierOptions prunerVerifierDefaultOptions(void) {
  PrunerVerifierOptions o;
  o.min_records = 8;
  o.draft_free = false;
  o.draft_margin = true;
  o.draft_scale_per_workload = true;
  o.eval_interval_resamples = 0;
  o.eval_tie_within = 0.0;
  o.eval_first_batch_tiles = 0.0;
  o.num_rounds = 60;
  o.max_depth = 6;
  o.eta = 0.3;
  o.prior_momentum = 0.5; /* docs/transfer.md: chosen by cross-validation over machine pairs */
  o.prior_floor = 0.75;
  o.prior_floor_unseen = 0.25;
  o.prior_unseen = PRUNER_PRIOR_UNSEEN_AS_FILE;
  /* One thread: on the shared 2-core build machine (load ~10) XGBoost's OpenMP threads
   * spin and 5,000-record training took 7-12 s wall with the default thread count
   * against 0.35-0.7 s with one (bench_verifier.cpp). Raise it on a dedicated host. */
  o.num_threads = 1;
  o.seed = 0;
  /* Chosen by leave-one-workload-out on the host datasets in the tuner's view (the
   * draft's top 512, the draft's best 0/16/48 configs as the workload's own records;
   * scripts/verifier-lowo.sh, docs/quality.md): K = 64 (four tuning batches to weigh as
   * much as the draft) and floor 0 (an unseen workload keeps the draft's order exactly)
   * scored best of K 16..1024 x floor 0/0.05; the old 16/0.05 pushed the conv's
   * near-best configs back after one batch (pairwise 0.860 vs the draft's 0.902). */
  o.blend_records = 64;
  o.blend_floor = 0.0;
  return o;
}

PrunerStatus prunerVerifierCreate(const PrunerTargetDesc *target,
                                  const PrunerVerifierOptions *opts, PrunerVerifier *out) {
  *out = NULL;
  if (!target)
    return prunerStatusError("verifier: no target");
  PrunerVerifierOptions o = opts ? *opts : prunerVerifierDefaultOptions();
  if (o.num_rounds < 1 || o.max_depth < 1 || !(o.eta > 0) || o.min_records < 2 ||
      !(o.prior_momentum >= 0 && o.prior_momentum <= 1) ||
      !(o.prior_floor >= 0 && o.prior_floor <= 1) ||
      !(o.prior_floor_unseen >= 0 && o.prior_floor_unseen <= 1) ||
      o.prior_unseen > PRUNER_PRIOR_UNSEEN_SKIP || o.blend_records < 0 ||
      !(o.blend_floor >= 0 && o.blend_floor <= 1) ||
      !(o.eval_first_batch_tiles >= 0 && o.eval_first_batch_tiles <= 1))
    return prunerStatusError("verifier: bad options (num_rounds %d, max_depth %d, eta %g, "
                             "min_records %d, prior_momentum %g, prior_floor %g, "
                             "prior_floor_unseen %g, prior_unseen %d, blend_records %d, "
                             "blend_floor %g, eval_first_batch_tiles %g)",
                             o.num_rounds, o.max_depth, o.eta, o.min_records, o.prior_momentum,
                             o.prior_floor, o.prior_floor_unseen, (int)o.prior_unseen,
                             o.blend_records, o.blend_floor, o.eval_first_batch_tiles);
  PrunerVerifier v = calloc(1, sizeof(*v));
  if (!v)
    return prunerStatusError("verifier: out of memory");
  v->target = *target;
  v->opts = o;
  prunerTargetKey(target, v->target_key, sizeof(v->target_key));
  *out = v;
  return prunerStatusOk();
}

void prunerVerifierDestroy(PrunerVerifier v) {
  if (!v)
    return;
  freeBooster(&v->online);
  freeBooster(&v->prior);
  free(v->prior_workloads);
  if (v->draft)
    prunerDraftDestroy(v->draft);
  free(v->blend_keys);
  free(v->blend_counts);
  free(v->blend_scales);
  free(v);
}

bool prunerVerifierHasPrior(PrunerVerifier v) { return v->prior != NULL; }

const char *prunerVerifierPriorSource(PrunerVerifier v) { return v->prior_source; }

size_t prunerVerifierPriorWorkloads(PrunerVerifier v) { return v->prior_num_workloads; }

bool prunerVerifierPriorKnows(PrunerVerifier v, const char *workload_key) {
  size_t len = strlen(workload_key);
  for (const char *p = v->prior_workloads; p && *p;) {
    size_t line = strcspn(p, "\n");
    if (line == len && strncmp(p, workload_key, len) == 0)
      return true;
    p += line + (p[line] == '\n');
  }
  return false;
}

PrunerStatus prunerPriorUnseenParse(const char *flag, const char *text, PrunerPriorUnseen *out) {
  static const char *const names[] = {"file", "use", "skip"};
  for (int i = 0; i < 3; ++i)
    if (strcmp(text, names[i]) == 0) {
      *out = (PrunerPriorUnseen)i;
      return prunerStatusOk();
    }
  return prunerStatusError("%s: '%s' is not one of file, use, skip", flag, text);
}

bool prunerVerifierPriorSkipsUnseen(PrunerVerifier v) {
  return v->prior && (v->opts.prior_unseen == PRUNER_PRIOR_UNSEEN_SKIP ||
                      (v->opts.prior_unseen == PRUNER_PRIOR_UNSEEN_AS_FILE &&
                       v->prior_skips_unseen));
}

bool prunerVerifierPriorApplies(PrunerVerifier v, const char *workload_key) {
  return v->prior &&
         (!prunerVerifierPriorSkipsUnseen(v) || prunerVerifierPriorKnows(v, workload_key));
}

bool prunerVerifierUsesDraft(PrunerVerifier v) {
  return !v->opts.draft_free && !v->online && !v->prior;
}

size_t prunerVerifierDraftRuns(PrunerVerifier v) { return v->draft_runs; }

double prunerVerifierDraftScale(PrunerVerifier v) {
  return v->online ? v->online_draft_scale : 0.0;
}

double prunerVerifierWorkloadDraftScale(PrunerVerifier v, const char *workload_key) {
  if (!v->online)
    return 0.0;
  for (size_t i = 0; v->blend_scales && i < v->blend_n; ++i)
    if (strcmp(v->blend_keys[i], workload_key) == 0)
      return v->blend_scales[i];
  return v->online_draft_scale;
}

size_t prunerVerifierTrainedRecords(PrunerVerifier v) {
  return v->online ? v->trained_records : 0;
}

double prunerVerifierPriorWeight(PrunerVerifier v) {
  if (!v->prior)
    return 0.0;
  if (!v->online)
    return 1.0;
  return pow(v->opts.prior_momentum, v->rounds);
}

double prunerVerifierModelWeight(PrunerVerifier v, const char *workload_key) {
  bool prior = prunerVerifierPriorApplies(v, workload_key);
  if (prunerVerifierUsesDraft(v) || (!v->online && !prior && !v->opts.draft_free))
    return 0.0; /* no model, or only a prior that does not apply here */
  if (v->opts.draft_free)
    return v->online || v->prior ? 1.0 : 0.0;
  if (v->opts.blend_records == 0)
    return 1.0;
  size_t own = 0;
  for (size_t i = 0; i < v->blend_n; ++i) {
    if (strcmp(v->blend_keys[i], workload_key) == 0) {
      own = v->blend_counts[i];
      break;
    }
  }
  /* A prior knows the workload from another machine's records (perhaps this very
   * shape): it keeps prior_floor (prior_floor_unseen for a shape it was not trained on)
   * of the weight before the first own record. */
  double k = (double)v->opts.blend_records, f = v->opts.blend_floor;
  if (prior)
    f = fmax(f, prunerVerifierPriorKnows(v, workload_key) ? v->opts.prior_floor
                                                          : v->opts.prior_floor_unseen);
  /* A frozen prior learns nothing from the own records, so they do not move it. */
  if (prior && v->opts.prior_momentum >= 1.0)
    return f;
  return f + (1.0 - f) * (double)own / ((double)own + k);
}

/* ---- training ----------------------------------------------------------------------- */

static bool usable(const PrunerRecord *r, const char *target_key) {
  return !r->is_baseline && r->status == PRUNER_RECORD_OK && r->has_workload &&
         r->median_us > 0 && isfinite(r->median_us) &&
         strcmp(r->target_key, target_key) == 0;
}

static int compareItems(const void *a, const void *b) {
  const VerifierItem *x = a, *y = b;
  int c = strcmp(x->record->workload_key, y->record->workload_key);
  if (c)
    return c;
  return x->index < y->index ? -1 : x->index > y->index;
}

PrunerStatus prunerVerifierCollect(PrunerRecords records, const char *target_key,
                                   VerifierItem **out, size_t *count) {
  size_t total = prunerRecordsCount(records);
  VerifierItem *items = malloc((total ? total : 1) * sizeof(*items));
  *out = NULL;
  *count = 0;
  if (!items)
    return prunerStatusError("verifier: out of memory for %zu records", total);
  size_t n = 0;
  for (size_t i = 0; i < total; ++i) {
    const PrunerRecord *r = prunerRecordsGet(records, i);
    if (usable(r, target_key))
      items[n++] = (VerifierItem){r, i};
  }
  qsort(items, n, sizeof(*items), compareItems);
  *out = items;
  *count = n;
  return prunerStatusOk();
}

static PrunerStatus setParams(PrunerVerifier v, BoosterHandle b) {
  char value[32];
  struct {
    const char *key;
    const char *value;
  } fixed[] = {
      {"objective", "rank:pairwise"},
      {"tree_method", "hist"},
      {"verbosity", "0"},
  };
  for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); ++i) {
    if (XGBoosterSetParam(b, fixed[i].key, fixed[i].value) != 0)
      return xgbError(fixed[i].key);
  }
  snprintf(value, sizeof(value), "%d", v->opts.max_depth);
  if (XGBoosterSetParam(b, "max_depth", value) != 0)
    return xgbError("max_depth");
  snprintf(value, sizeof(value), "%g", v->opts.eta);
  if (XGBoosterSetParam(b, "eta", value) != 0)
    return xgbError("eta");
  snprintf(value, sizeof(value), "%u", v->opts.seed);
  if (XGBoosterSetParam(b, "seed", value) != 0)
    return xgbError("seed");
  if (v->opts.num_threads > 0) {
    snprintf(value, sizeof(value), "%d", v->opts.num_threads);
    if (XGBoosterSetParam(b, "nthread", value) != 0)
      return xgbError("nthread");
  }
  return prunerStatusOk();
}

/* Trains a booster on rows grouped by workload. */
static PrunerStatus trainBooster(PrunerVerifier v, const float *x, const float *labels,
                                 const unsigned *groups, size_t num_groups, size_t n,
                                 const float *margins, BoosterHandle *out) {
  *out = NULL;
  int nf = prunerVerifierNumFeatures();
  DMatrixHandle dm = NULL;
  if (XGDMatrixCreateFromMat(x, (bst_ulong)n, (bst_ulong)nf, NAN, &dm) != 0)
    return xgbError("DMatrix creation");
  PrunerStatus status = prunerStatusOk();
  BoosterHandle b = NULL;
  if (XGDMatrixSetFloatInfo(dm, "label", labels, (bst_ulong)n) != 0)
    status = xgbError("setting labels");
  else if (XGDMatrixSetUIntInfo(dm, "group", groups, (bst_ulong)num_groups) != 0)
    status = xgbError("setting groups");
  else if (margins && XGDMatrixSetFloatInfo(dm, "base_margin", margins, (bst_ulong)n) != 0)
    status = xgbError("setting the draft's margins");
  else if (XGBoosterCreate(&dm, 1, &b) != 0)
    status = xgbError("booster creation");
  if (status.ok)
    status = setParams(v, b);
  for (int it = 0; status.ok && it < v->opts.num_rounds; ++it) {
    if (XGBoosterUpdateOneIter(b, it, dm) != 0)
      status = xgbError("training iteration");
  }
  XGDMatrixFree(dm);
  if (!status.ok) {
    freeBooster(&b);
    return status;
  }
  *out = b;
  return status;
}

PrunerStatus prunerVerifierTrain(PrunerVerifier v, PrunerRecords records,
                                 const char *target_key) {
  const char *key = target_key ? target_key : v->target_key;
  VerifierItem *items = NULL;
  size_t n = 0;
  PrunerStatus collected = prunerVerifierCollect(records, key, &items, &n);
  if (!collected.ok)
    return collected;

  /* Groups (one per workload) and whether any group has two distinct latencies, the
   * least a pairwise ranking can learn from. */
  size_t num_groups = 0;
  bool has_pairs = false;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    double lo = items[i].record->median_us, hi = lo;
    while (j < n && strcmp(items[j].record->workload_key, items[i].record->workload_key) == 0) {
      lo = fmin(lo, items[j].record->median_us);
      hi = fmax(hi, items[j].record->median_us);
      ++j;
    }
    has_pairs = has_pairs || hi > lo;
    ++num_groups;
    i = j;
  }
  if (n > v->last_usable) {
    v->rounds++;
    v->last_usable = n;
  }
  /* Own records per workload, for the draft blend (kept even without an online model:
   * a prior blends by them too). */
  free(v->blend_keys);
  free(v->blend_counts);
  free(v->blend_scales);
  v->blend_scales = NULL;
  v->blend_n = 0;
  v->blend_keys = malloc((num_groups ? num_groups : 1) * sizeof(*v->blend_keys));
  v->blend_counts = malloc((num_groups ? num_groups : 1) * sizeof(*v->blend_counts));
  if (!v->blend_keys || !v->blend_counts) {
    free(v->blend_keys);
    free(v->blend_counts);
    v->blend_keys = NULL;
    v->blend_counts = NULL;
    free(items);
    return prunerStatusError("verifier: out of memory for %zu workloads", num_groups);
  }
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && strcmp(items[j].record->workload_key, items[i].record->workload_key) == 0)
      ++j;
    memcpy(v->blend_keys[v->blend_n], items[i].record->workload_key, PRUNER_WORKLOAD_KEY_SIZE);
    v->blend_counts[v->blend_n++] = j - i;
    i = j;
  }
  /* A frozen prior (momentum 1) is never adapted: no online model is trained. */
  bool frozen = v->prior && v->opts.prior_momentum >= 1.0;
  if (n < (size_t)v->opts.min_records || !has_pairs || frozen) {
    /* Too little to learn from: the draft's order (or the prior) ranks. */
    freeBooster(&v->online);
    v->trained_records = 0;
    free(items);
    return prunerStatusOk();
  }

  int nf = prunerVerifierNumFeatures();
  float *x = malloc(n * (size_t)nf * sizeof(float));
  float *labels = malloc(n * sizeof(float));
  unsigned *groups = malloc(num_groups * sizeof(unsigned));
  /* -log draft µs per row, then the margins (the draft's side of the model). */
  bool margin = v->opts.draft_margin && !v->opts.draft_free;
  float *drafted = margin ? malloc(n * sizeof(float)) : NULL;
  float *unfilled = margin ? malloc(n * sizeof(float)) : NULL; /* d, NaN kept */
  if (!x || !labels || !groups || (margin && (!drafted || !unfilled))) {
    free(x);
    free(labels);
    free(groups);
    free(drafted);
    free(unfilled);
    free(items);
    return prunerStatusError("verifier: out of memory for %zu training rows", n);
  }
  size_t g = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    double best = INFINITY;
    while (j < n && strcmp(items[j].record->workload_key, items[i].record->workload_key) == 0) {
      best = fmin(best, items[j].record->median_us);
      ++j;
    }
    PrunerDraft draft = NULL;
    if (!v->opts.draft_free) {
      v->draft_runs++;
      if (!prunerDraftCreate(&items[i].record->workload, &v->target, &draft).ok)
        draft = NULL; /* draft features become missing for this workload */
    }
    for (size_t k = i; k < j; ++k) {
      const PrunerRecord *r = items[k].record;
      double d = fillRecordFeatures(draft, r, x + k * (size_t)nf);
      if (drafted)
        drafted[k] = (float)d;
      /* Normalized throughput (Pruner, TenSet): 1 for the best config of the workload. */
      labels[k] = (float)(best / r->median_us);
    }
    if (draft)
      prunerDraftDestroy(draft);
    groups[g++] = (unsigned)(j - i);
    i = j;
  }
  /* The draft's scale: the likelihood's, or, where that has no interior maximum, the
   * one its errors imply. The tuner's first batch is the draft's own top, whose pairs
   * the draft's errors decide: the fit fell to 0 there on 5 of the 23 host datasets
   * (about 40% of seeds), leaving the trees alone after one batch, and hit the cap on the
   * Xeon's 512^3 matmul under AVX2 (60%), leaving the draft alone (docs/quality.md, "The
   * draft's scale when the fit fails"). */
  double scale = 0.0;
  double *group_scales = NULL;
  if (drafted) {
    memcpy(unfilled, drafted, n * sizeof *unfilled);
    /* Each group's unscorable configs last on the draft's side. */
    for (size_t k = 0, begin = 0; k < num_groups; begin += groups[k++])
      draftMargins(drafted + begin, groups[k], 1.0, drafted + begin);
    scale = fitDraftScale(drafted, labels, groups, num_groups);
    if (scale <= 0.0 || scale >= 256.0)
      scale = draftScaleFromErrors(unfilled, labels, groups, num_groups);
    /* Per workload, parallel to blend_keys (same sort); NULL: the pooled scale. */
    bool per_workload = v->opts.draft_scale_per_workload && v->opts.blend_records > 0 &&
                        scale > 0 && v->blend_n == num_groups;
    group_scales = per_workload ? malloc(num_groups * sizeof *group_scales) : NULL;
    if (group_scales)
      groupDraftScales(unfilled, labels, groups, num_groups, scale, (double)v->opts.blend_records,
                       group_scales);
    for (size_t k = 0, begin = 0; k < num_groups; begin += groups[k++]) {
      double c = group_scales ? group_scales[k] : scale;
      for (size_t i = begin; i < begin + groups[k]; ++i)
        drafted[i] = (float)(c * drafted[i]);
    }
  }
  BoosterHandle booster = NULL;
  PrunerStatus status =
      trainBooster(v, x, labels, groups, num_groups, n, scale > 0 ? drafted : NULL, &booster);
  if (status.ok && scale > 0) {
    char value[32];
    snprintf(value, sizeof value, "%.17g", scale);
    if (XGBoosterSetAttr(booster, "pruner_draft_scale", value) != 0) {
      status = xgbError("setting the draft's scale");
      freeBooster(&booster);
    }
  }
  free(drafted);
  free(unfilled);
  free(x);
  free(labels);
  free(groups);
  free(items);
  if (!status.ok) {
    free(group_scales);
    return status;
  }
  freeBooster(&v->online);
  v->online = booster;
  v->blend_scales = group_scales;
  v->online_draft_scale = scale;
  v->trained_records = n;
  return prunerStatusOk();
}

/* ---- prediction --------------------------------------------------------------------- */

static PrunerStatus boosterPredict(BoosterHandle b, const float *x, size_t n, float *out) {
  int nf = prunerVerifierNumFeatures();
  /* Batches are a few hundred to a few thousand rows: OpenMP fork/join (and spinning
   * threads on a loaded machine) costs more than it saves, so predict on one thread. */
  if (XGBoosterSetParam(b, "nthread", "1") != 0)
    return xgbError("nthread");
  /* In-place prediction from the dense array (XGBoost's __array_interface__, version 3):
   * building a DMatrix copied the batch into a sparse page on all OpenMP threads and
   * took most of the prediction time. */
  char values[160];
  snprintf(values, sizeof values,
           "{\"data\": [%" PRIuPTR ", true], \"shape\": [%zu, %d], \"typestr\": \"<f4\", "
           "\"version\": 3}",
           (uintptr_t)x, n, nf);
  const char *config =
      "{\"type\": 0, \"training\": false, \"iteration_begin\": 0, \"iteration_end\": 0, "
      "\"strict_shape\": false, \"cache_id\": 0, \"missing\": NaN}";
  const bst_ulong *shape = NULL;
  bst_ulong dim = 0;
  const float *result = NULL;
  if (XGBoosterPredictFromDense(b, values, config, NULL, &shape, &dim, &result) != 0)
    return xgbError("prediction");
  memcpy(out, result, n * sizeof(float));
  return prunerStatusOk();
}

/* A model's scores: its trees plus, for a model trained on the draft's margin, the same
 * margin (scale x -log draft µs; `margin` is scratch of n floats). */
static PrunerStatus modelPredict(BoosterHandle b, double scale, const float *x,
                                 const float *draft_score, float *margin, size_t n,
                                 float *out) {
  PrunerStatus status = boosterPredict(b, x, n, out);
  if (status.ok && scale > 0) {
    draftMargins(draft_score, n, scale, margin);
    for (size_t i = 0; i < n; ++i)
      out[i] += margin[i];
  }
  return status;
}

/* Scores of one model rescaled to zero mean and unit deviation over the batch, so that
 * two models with different margins can be blended. */
static void standardize(float *s, size_t n) {
  double mean = 0, var = 0;
  for (size_t i = 0; i < n; ++i)
    mean += s[i];
  mean /= (double)n;
  for (size_t i = 0; i < n; ++i)
    var += (s[i] - mean) * (s[i] - mean);
  double sd = sqrt(var / (double)n);
  for (size_t i = 0; i < n; ++i)
    s[i] = sd > 0 ? (float)((s[i] - mean) / sd) : 0.0f;
}

/* scores = a z(scores) + (1 - a) z(draft), z over the batch. The draft's z is taken
 * over the configs it can score; the others get the lowest z minus one, so they rank
 * last on the draft's side, as in the draft's own order. */
static void blendWithDraft(float *scores, float *draft, size_t n, double a) {
  double mean = 0, var = 0;
  size_t valid = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!isnan(draft[i])) {
      mean += draft[i];
      ++valid;
    }
  }
  mean = valid ? mean / (double)valid : 0.0;
  for (size_t i = 0; i < n; ++i) {
    if (!isnan(draft[i]))
      var += (draft[i] - mean) * (draft[i] - mean);
  }
  double sd = valid ? sqrt(var / (double)valid) : 0.0;
  double lowest = 0.0;
  for (size_t i = 0; i < n; ++i) {
    if (!isnan(draft[i])) {
      draft[i] = sd > 0 ? (float)((draft[i] - mean) / sd) : 0.0f;
      lowest = fmin(lowest, draft[i]);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (isnan(draft[i]))
      draft[i] = (float)(lowest - 1.0);
  }
  standardize(scores, n);
  for (size_t i = 0; i < n; ++i)
    scores[i] = (float)(a * scores[i] + (1.0 - a) * draft[i]);
}

PrunerStatus prunerVerifierPredict(PrunerVerifier v, const PrunerWorkload *w,
                                   const PrunerConfig *configs,
                                   const struct PrunerDraftSymbols *symbols, size_t n,
                                   float *scores) {
  if (n == 0)
    return prunerStatusOk();
  if (v->opts.draft_free) {
    /* The model over the config's own features, or no order at all. */
    if (!v->online && !v->prior) {
      for (size_t i = 0; i < n; ++i)
        scores[i] = 0.0f;
      return prunerStatusOk();
    }
    int nf = prunerVerifierNumFeatures();
    float *x = malloc(n * (size_t)nf * sizeof(float));
    if (!x)
      return prunerStatusError("verifier: out of memory for %zu candidates", n);
    for (size_t i = 0; i < n; ++i)
      prunerVerifierFillFeatures(w, &configs[i], NULL, NULL, x + i * (size_t)nf);
    PrunerStatus status = boosterPredict(v->online ? v->online : v->prior, x, n, scores);
    free(x);
    return status;
  }
  PrunerDraft draft = symbols ? NULL : draftFor(v, w);
  if (!symbols && !draft)
    return prunerStatusError("verifier: workload '%s': the draft model cannot describe it "
                             "on target '%s'",
                             w->key, v->target_key);
  double a = prunerVerifierModelWeight(v, w->key);
  if (a == 0.0) {
    /* Fallback (or a workload the blend leaves to the draft): the draft's order;
     * invalid configs rank last. */
    for (size_t i = 0; i < n; ++i) {
      PrunerDraftSymbols s;
      bool ok = symbols ? true : prunerDraftScore(draft, &configs[i], NULL, &s);
      double us = symbols ? symbols[i].predicted_us : s.predicted_us;
      scores[i] = ok && isfinite(us) ? (float)-us : -FLT_MAX;
    }
    return prunerStatusOk();
  }
  int nf = prunerVerifierNumFeatures();
  float *x = malloc(n * (size_t)nf * sizeof(float));
  float *prior = v->prior && v->online ? malloc(n * sizeof(float)) : NULL;
  if (!x || (v->prior && v->online && !prior)) {
    free(x);
    free(prior);
    return prunerStatusError("verifier: out of memory for %zu candidates", n);
  }
  /* The draft's symbols of the whole batch at once (it memoizes across configs). */
  PrunerDraftSymbols *scored = symbols ? NULL : malloc(n * sizeof *scored);
  bool *valid = symbols ? NULL : malloc(n * sizeof *valid);
  if (!symbols && (!scored || !valid)) {
    free(x);
    free(prior);
    free(scored);
    free(valid);
    return prunerStatusError("verifier: out of memory for %zu candidates", n);
  }
  /* a > 0 here: a prior that does not apply to this workload leaves the online model. */
  bool prior_here = prunerVerifierPriorApplies(v, w->key);
  double online_scale = prunerVerifierWorkloadDraftScale(v, w->key);
  double prior_scale = prior_here ? v->prior_draft_scale : 0.0;
  /* -log of the draft's latency per candidate (NaN: invalid), for the models' margins
   * and the blend. */
  bool margins = online_scale > 0 || prior_scale > 0;
  float *draft_score = a < 1.0 || margins ? malloc(n * sizeof *draft_score) : NULL;
  float *margin = margins ? malloc(n * sizeof *margin) : NULL;
  if (!symbols)
    prunerDraftScoreBatch(draft, configs, n, scored, valid);
  for (size_t i = 0; i < n; ++i) {
    const PrunerDraftSymbols *sym = symbols ? &symbols[i] : valid[i] ? &scored[i] : NULL;
    prunerVerifierFillFeatures(w, &configs[i], sym, NULL, x + i * (size_t)nf);
    if (draft_score)
      draft_score[i] = sym && isfinite(sym->predicted_us) && sym->predicted_us > 0
                           ? (float)-log(sym->predicted_us)
                           : NAN;
  }
  free(scored);
  free(valid);
  if ((a < 1.0 || margins) && (!draft_score || (margins && !margin))) {
    free(x);
    free(prior);
    free(draft_score);
    free(margin);
    return prunerStatusError("verifier: out of memory for %zu candidates", n);
  }
  PrunerStatus status;
  if (v->online && prior_here) {
    status = modelPredict(v->online, online_scale, x, draft_score, margin, n, scores);
    if (status.ok)
      status = modelPredict(v->prior, prior_scale, x, draft_score, margin, n, prior);
    if (status.ok) {
      standardize(scores, n);
      standardize(prior, n);
      double wp = prunerVerifierPriorWeight(v);
      for (size_t i = 0; i < n; ++i)
        scores[i] = (float)(wp * prior[i] + (1.0 - wp) * scores[i]);
    }
  } else if (prior_here && !v->online) {
    status = modelPredict(v->prior, prior_scale, x, draft_score, margin, n, scores);
  } else {
    status = modelPredict(v->online, online_scale, x, draft_score, margin, n, scores);
  }
  if (status.ok && a < 1.0)
    blendWithDraft(scores, draft_score, n, a);
  free(x);
  free(prior);
  free(draft_score);
  free(margin);
  return status;
}

PrunerStatus prunerVerifierFeatures(PrunerVerifier v, const PrunerWorkload *w,
                                    const PrunerConfig *config,
                                    const struct PrunerDraftSymbols *symbols,
                                    const PrunerKernelResources *resources, float *out) {
  PrunerDraftSymbols s;
  if (!symbols && !v->opts.draft_free) {
    PrunerDraft draft = draftFor(v, w);
    if (draft && prunerDraftScore(draft, config, resources, &s))
      symbols = &s;
  }
  prunerVerifierFillFeatures(w, config, symbols, resources, out);
  return prunerStatusOk();
}

/* ---- persistence -------------------------------------------------------------------- */

static PrunerStatus loadBooster(const char *path, BoosterHandle *out) {
  *out = NULL;
  /* prunerReadFile caps the size (a device or a huge file is an error, not a huge
   * allocation); ftell on a non-seekable file said -1. */
  char *buf = NULL;
  size_t size = 0;
  PrunerStatus read = prunerReadFile(path, &buf, &size);
  if (!read.ok)
    return prunerStatusError("verifier: model file: %s", read.message);
  if (size == 0) {
    free(buf);
    return prunerStatusError("verifier: cannot read model file '%s' (empty or unreadable)",
                             path);
  }
  /* Only a complete JSON document reaches XGBoost: pruner writes JSON models, and
   * XGBoost 1.7's UBJSON (binary) reader trusts the lengths in the file, so a truncated
   * or corrupt binary model made it read far past the buffer (ASan, test_verifier). */
  const char *end = NULL;
  cJSON *json = cJSON_ParseWithLengthOpts(buf, (size_t)size, &end, false);
  bool complete = json != NULL;
  for (; complete && end < buf + size; ++end)
    complete = *end == ' ' || *end == '\n' || *end == '\t' || *end == '\r';
  cJSON_Delete(json);
  if (!complete) {
    free(buf);
    return prunerStatusError("verifier: model file '%s' is not a complete JSON XGBoost model "
                             "(pruner saves JSON models; binary ones are refused)",
                             path);
  }
  BoosterHandle b = NULL;
  if (XGBoosterCreate(NULL, 0, &b) != 0) {
    free(buf);
    return xgbError("booster creation");
  }
  int rc = XGBoosterLoadModelFromBuffer(b, buf, (bst_ulong)size);
  free(buf);
  if (rc != 0) {
    char last[PRUNER_STATUS_MESSAGE_SIZE];
    xgbLastError(last, sizeof last);
    PrunerStatus s = prunerStatusError("verifier: model file '%s' is not an XGBoost model: %s",
                                       path, last);
    XGBoosterFree(b);
    return s;
  }
  bst_ulong features = 0;
  if (XGBoosterGetNumFeature(b, &features) != 0 ||
      features != (bst_ulong)prunerVerifierNumFeatures()) {
    XGBoosterFree(b);
    return prunerStatusError("verifier: model file '%s' has %llu features, this verifier "
                             "uses %d (a different feature layout)",
                             path, (unsigned long long)features, prunerVerifierNumFeatures());
  }
  *out = b;
  return prunerStatusOk();
}

PrunerStatus prunerVerifierSave(PrunerVerifier v, const char *path) {
  if (!v->online)
    return prunerStatusError("verifier: no trained model to save to '%s' (too few records "
                             "so far; the draft ranks)",
                             path);
  bst_ulong len = 0;
  const char *data = NULL;
  if (XGBoosterSaveModelToBuffer(v->online, "{\"format\": \"json\"}", &len, &data) != 0)
    return xgbError("model serialization");
  FILE *f = fopen(path, "wb");
  if (!f)
    return prunerStatusError("verifier: cannot write model file '%s'", path);
  bool ok = fwrite(data, 1, (size_t)len, f) == (size_t)len;
  ok = fclose(f) == 0 && ok;
  if (!ok)
    return prunerStatusError("verifier: cannot write model file '%s'", path);
  return prunerStatusOk();
}

PrunerStatus prunerVerifierLoad(PrunerVerifier v, const char *path) {
  BoosterHandle b = NULL;
  PrunerStatus status = loadBooster(path, &b);
  if (!status.ok)
    return status;
  freeBooster(&v->online);
  v->online = b;
  v->online_draft_scale = boosterDraftScale(b);
  free(v->blend_scales); /* the loaded model's one scale for every workload */
  v->blend_scales = NULL;
  v->trained_records = 0;
  return status;
}

PrunerStatus prunerVerifierSetPriorFile(PrunerVerifier v, const char *path) {
  BoosterHandle b = NULL;
  PrunerStatus status = loadBooster(path, &b);
  if (!status.ok)
    return status;
  freeBooster(&v->prior);
  v->prior = b;
  v->prior_draft_scale = boosterDraftScale(b);
  /* What the file says of its training (absent in models saved by the tuner itself). */
  free(v->prior_workloads);
  v->prior_workloads = NULL;
  v->prior_num_workloads = 0;
  v->prior_source[0] = '\0';
  const char *value = NULL;
  int found = 0;
  if (XGBoosterGetAttr(b, "pruner_target", &value, &found) == 0 && found && value)
    snprintf(v->prior_source, sizeof v->prior_source, "%s", value);
  v->prior_skips_unseen = XGBoosterGetAttr(b, "pruner_unseen", &value, &found) == 0 &&
                          found && value && strcmp(value, "skip") == 0;
  if (XGBoosterGetAttr(b, "pruner_workloads", &value, &found) == 0 && found && value) {
    v->prior_workloads = strdup(value);
    for (const char *p = value; v->prior_workloads && *p; ++p)
      v->prior_num_workloads += *p == '\n';
  }
  return status;
}

PrunerStatus prunerVerifierTrainAndSave(PrunerRecords records, const PrunerTargetDesc *target,
                                        const char *target_key, const PrunerVerifierOptions *opts,
                                        const char *path, size_t *used, size_t *workloads) {
  /* A model file keeps one draft scale (pruner_draft_scale), which is all a prior
   * predicts with: trained with that one scale, so that training and use agree. */
  PrunerVerifierOptions o = opts ? *opts : prunerVerifierDefaultOptions();
  o.draft_scale_per_workload = false;
  PrunerVerifier v = NULL;
  PrunerStatus st = prunerVerifierCreate(target, &o, &v);
  if (!st.ok)
    return st;
  st = prunerVerifierTrain(v, records, target_key);
  if (st.ok && !v->online)
    st = prunerStatusError("verifier: %zu usable record(s) of %s: too few to train a model "
                           "(at least %d with two distinct latencies)",
                           v->last_usable, target_key ? target_key : v->target_key,
                           v->opts.min_records);
  /* The source and its workloads travel in the model file (XGBoost keeps attributes). */
  PrunerText keys = {0};
  for (size_t i = 0; st.ok && i < v->blend_n; ++i)
    prunerTextAppend(&keys, "%s\n", v->blend_keys[i]);
  if (st.ok && keys.failed)
    st = prunerStatusError("verifier: out of memory");
  if (st.ok &&
      (XGBoosterSetAttr(v->online, "pruner_target", target_key ? target_key : v->target_key) != 0 ||
       XGBoosterSetAttr(v->online, "pruner_workloads", keys.data ? keys.data : "") != 0 ||
       (v->opts.prior_unseen == PRUNER_PRIOR_UNSEEN_SKIP &&
        XGBoosterSetAttr(v->online, "pruner_unseen", "skip") != 0)))
    st = xgbError("setting model attributes");
  free(keys.data);
  if (st.ok)
    st = prunerVerifierSave(v, path);
  if (used)
    *used = v->trained_records;
  if (workloads)
    *workloads = v->blend_n;
  prunerVerifierDestroy(v);
  return st;
}

/* pruner/verifier.h: the learned ranking model that orders the draft's survivors.
 *
 * The verifier scores (workload, config) pairs; a higher score means a faster kernel.
 * Scores only rank configs of one workload against each other (they are not latencies).
 * It is an XGBoost `rank:pairwise` model over a fixed feature vector per candidate
 * (docs/verifier.md lists every feature): the config's knobs, the draft model's hardware
 * symbols (pruner/draft.h), the workload's shape and types, and the ptxas resources of
 * a compiled candidate (NaN, XGBoost's missing value, when it was not compiled).
 *
 * Online use: after every measurement round the tuner calls prunerVerifierTrain with the
 * whole records log; only ok records of the verifier's own target key train it, grouped
 * per workload, labelled with normalized throughput (best latency / latency). With too
 * few usable records (see PrunerVerifierOptions.min_records) or fewer than two distinct
 * latencies the verifier has no model and predicts -draft latency (the draft's order);
 * prunerVerifierUsesDraft says so.
 *
 * Transfer: a model saved on another machine can be attached as a frozen prior
 * (prunerVerifierSetPriorFile); predictions then blend prior and online model with a
 * momentum weight w = momentum^(measurement rounds on this target), in the spirit of
 * Pruner's MoA (docs/verifier.md). The other machine's records are never read as this
 * target's measurements.
 *
 * A PrunerVerifier owns its XGBoost boosters and its target description; it is not
 * thread-safe (one tuner thread uses it). */
#ifndef PRUNER_VERIFIER_H
#define PRUNER_VERIFIER_H

#include <stdbool.h>
#include <stddef.h>

#include "pruner/kernel.h"
#include "pruner/records.h"
#include "pruner/space.h"
#include "pruner/status.h"
#include "pruner/target.h"
#include "pruner/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The draft's symbols for one config (defined in pruner/draft.h). */
struct PrunerDraftSymbols;

typedef enum PrunerPriorUnseen {
  PRUNER_PRIOR_UNSEEN_AS_FILE = 0,
  PRUNER_PRIOR_UNSEEN_USE,
  PRUNER_PRIOR_UNSEEN_SKIP,
} PrunerPriorUnseen;

/* Parses "file" (AS_FILE), "use" or "skip"; an error names the flag and the choices. */
PrunerStatus prunerPriorUnseenParse(const char *flag, const char *text, PrunerPriorUnseen *out);

typedef struct PrunerVerifierOptions {
  int min_records;      /* fewer usable ok records: draft fallback; default 8          */
  int num_rounds;       /* boosting rounds per training; default 60                    */
  int max_depth;        /* tree depth; default 6                                       */
  double eta;           /* learning rate; default 0.3 (XGBoost's default)              */
  /* A prior (prunerVerifierSetPriorFile; docs/verifier.md, "Transfer"): its weight
   * against the online model is w = prior_momentum^rounds (1: frozen, no adaptation:
   * no online model is trained and the prior alone is the model). The model's weight
   * against the draft on a workload with no records of its own is prior_floor where
   * the prior was trained on that workload (on another machine) and
   * prior_floor_unseen where it was not (or the model file does not say). Defaults
   * chosen by cross-validation over machine pairs (docs/transfer.md).               */
  double prior_momentum;     /* default 0.5 */
  double prior_floor;        /* default 0.75 */
  double prior_floor_unseen; /* default 0.25 */
  /* Whether a prior applies at all to a workload it was not trained on (docs/transfer.md,
   * "Where a prior does not transfer"): where it does not, that workload is tuned exactly
   * as without a prior. Default AS_FILE: the prior's "pruner_unseen" attribute ("skip":
   * no; absent: yes). prunerVerifierTrainAndSave writes "skip" into the model for SKIP. */
  PrunerPriorUnseen prior_unseen;
  int num_threads;      /* XGBoost nthread for training; default 1; 0 = XGBoost's own   */
  unsigned seed;        /* XGBoost seed; default 0                                     */
  /* Draft blend (docs/verifier.md, "Blending with the draft"): for a workload with n
   * own training records, score = a z(model) + (1 - a) z(-log draft µs) with
   * a = floor + (1 - floor) n / (n + blend_records). blend_records 0: no blend.      */
  int blend_records;  /* default 64 (four tuning batches; docs/quality.md)           */
  double blend_floor; /* model weight on a workload it has no records of; default 0  */
  /* Draft-free (the Ansor/TVM baseline, --strategy=model-only; docs/verifier.md): never
   * runs the draft: draft features are missing, no blend, and without a model every
   * score is 0 (no order; the caller keeps its own). Default false.                  */
  bool draft_free;
  /* The model learns a correction to the draft (docs/verifier.md, "The draft as the
   * model's margin"): each training row's base margin is c x (-log draft µs), c the
   * draft's maximum-likelihood scale under the pairwise loss on the training records
   * (fitted, not chosen; where the fit has no interior maximum, the scale the spread of
   * the draft's errors implies), and predictions add the same. Default true; ignored when
   * draft_free. A model file keeps its c ("pruner_draft_scale"); one without it (older
   * files) predicts by its trees alone. */
  bool draft_margin;
  /* Each workload's margin takes its own draft scale (docs/verifier.md, "The draft's
   * scale per workload"): the pooled c times the ratio of the draft's error deviation
   * over all workloads to that on the workload's own records, its variance shrunk
   * towards the pooled one with the weight of blend_records records. Default true;
   * false (or blend_records 0) gives every workload the pooled c. */
  bool draft_scale_per_workload;
  /* Cross-validation only (prunerVerifierCrossValidate*, pruner-eval --interval): the
   * resamples of each held-out workload's verifier-minus-draft interval
   * (PrunerEvalWorkload.difference); 0, the default, computes none (it costs resamples x
   * n^2 comparisons per workload). The verifier itself ignores it. */
  int eval_interval_resamples;
  /* Cross-validation only (pruner-eval --ties-within): pairs of held-out configs whose
   * latencies differ by at most this fraction of the faster one are ties and do not count
   * towards pairwise accuracy (prunerRankMetricsWithin), so an order inside the
   * measurement noise is neither right nor wrong. 0, the default, counts every pair of
   * different latencies. */
  double eval_tie_within;
  /* Cross-validation only, in the tuner's view (prunerVerifierCrossValidateAsTuned,
   * pruner-eval --first-batch-tiles): the held-out workload's first 16 own records (the
   * tuner's default batch) are the draft's best, except that from slot 16 - round(16 x
   * share) on each takes the draft's best config of a register step (thread tile; a
   * conv's taps too; prunerConfigSameRegisterStep) not among the earlier ones, as the
   * tuner's first batch does on the host (PrunerTuneOptions.first_batch_tiles; host share
   * 0.5). 0, the default: the draft's best 16. In [0, 1]. */
  double eval_first_batch_tiles;
} PrunerVerifierOptions;

typedef struct PrunerVerifierImpl *PrunerVerifier;

PrunerVerifierOptions prunerVerifierDefaultOptions(void);

/* A verifier for `target` (copied). `opts` may be NULL for the defaults. Starts with no
 * model: predictions follow the draft until the first successful training. */
PrunerStatus prunerVerifierCreate(const PrunerTargetDesc *target,
                                  const PrunerVerifierOptions *opts, PrunerVerifier *out);
void prunerVerifierDestroy(PrunerVerifier verifier);

/* Retrains from scratch on the ok records of `target_key` (NULL: the key of the target
 * the verifier was created with) that carry a full workload description. Records of
 * other targets, baselines and failed candidates are ignored. Too few records is not an
 * error: the verifier drops its online model and falls back to the draft. Each call
 * counts as one measurement round for the prior's momentum weight. */
PrunerStatus prunerVerifierTrain(PrunerVerifier verifier, PrunerRecords records,
                                 const char *target_key);

/* Scores n configs of workload `w`: scores[i] higher = predicted faster. `symbols` holds
 * the draft's symbols for each config (n entries) or is NULL (the verifier runs the
 * draft itself). Candidates are treated as not compiled (ptxas features missing). */
PrunerStatus prunerVerifierPredict(PrunerVerifier verifier, const PrunerWorkload *w,
                                   const PrunerConfig *configs,
                                   const struct PrunerDraftSymbols *symbols, size_t n,
                                   float *scores);

/* True when predictions are the draft's order (-predicted µs): no online model and no
 * prior. */
bool prunerVerifierUsesDraft(PrunerVerifier verifier);
/* How many times the verifier ran the draft model (created a draft or scored configs
 * with one) since it was created; 0 forever in draft-free mode (tests check that). */
size_t prunerVerifierDraftRuns(PrunerVerifier verifier);
/* Number of records the current online model was trained on (0 if none). */
size_t prunerVerifierTrainedRecords(PrunerVerifier verifier);
/* The draft's fitted scale in the online model's margin (PrunerVerifierOptions.
 * draft_margin): 0 when there is no online model or it has no margin. */
double prunerVerifierDraftScale(PrunerVerifier verifier);
/* The draft's scale in the online model's margin for workload `workload_key`
 * (PrunerVerifierOptions.draft_scale_per_workload): that workload's own where it had
 * records at the last Train, else prunerVerifierDraftScale. */
double prunerVerifierWorkloadDraftScale(PrunerVerifier verifier, const char *workload_key);
/* Current weight of the prior in the blend with the online model (0 when there is no
 * prior, 1 while there is no online model or the prior is frozen). */
double prunerVerifierPriorWeight(PrunerVerifier verifier);
/* Weight `a` of the learned model(s) against the draft for workload `workload_key`
 * (see PrunerVerifierOptions.blend_records): 0 when predictions are the draft's. */
double prunerVerifierModelWeight(PrunerVerifier verifier, const char *workload_key);

/* Saves the online model (XGBoost's JSON model format; the file name should end in
 * .json). Fails if there is no online model. The file keeps the pooled draft scale only
 * (prunerVerifierDraftScale), not the per-workload ones: a model loaded from it predicts
 * every workload with that one scale. */
PrunerStatus prunerVerifierSave(PrunerVerifier verifier, const char *path);
/* Replaces the online model with one saved by prunerVerifierSave; fails, naming the
 * file, if it is unreadable or has another feature count. */
PrunerStatus prunerVerifierLoad(PrunerVerifier verifier, const char *path);
/* Attaches a model saved on another target as a frozen prior (replacing any prior). */
PrunerStatus prunerVerifierSetPriorFile(PrunerVerifier verifier, const char *path);
/* Whether a prior is attached. */
bool prunerVerifierHasPrior(PrunerVerifier verifier);
/* What the prior's model file says of its training (prunerVerifierTrainAndSave writes
 * it): the records' target key ("" when the file does not say; owned by the verifier)
 * and whether workload `workload_key` was among its training workloads. */
const char *prunerVerifierPriorSource(PrunerVerifier verifier);
size_t prunerVerifierPriorWorkloads(PrunerVerifier verifier);
bool prunerVerifierPriorKnows(PrunerVerifier verifier, const char *workload_key);
/* Whether the prior is kept away from workloads it was not trained on (options'
 * prior_unseen, or the file's "pruner_unseen"), and whether it applies to this one. */
bool prunerVerifierPriorSkipsUnseen(PrunerVerifier verifier);
bool prunerVerifierPriorApplies(PrunerVerifier verifier, const char *workload_key);

/* Builds a prior for other machines (pruner-eval --train; docs/transfer.md): trains a
 * verifier of `target` on every usable record of `target_key` in `records` (all its
 * workloads) and saves the model to `path`, with the key and the workload keys as model
 * attributes (prunerVerifierPriorSource / PriorKnows read them back), and "pruner_unseen"
 * "skip" when opts->prior_unseen is SKIP. `*used` and `*workloads`
 * (either may be NULL) get the training records and workloads. Fails, saying why, when they are too
 * few to train on (fewer than opts->min_records, or no two distinct latencies). Trained
 * with one draft scale for all workloads (opts->draft_scale_per_workload is ignored): the
 * file keeps one, and a prior predicts with it. */
PrunerStatus prunerVerifierTrainAndSave(PrunerRecords records, const PrunerTargetDesc *target,
                                        const char *target_key, const PrunerVerifierOptions *opts,
                                        const char *path, size_t *used, size_t *workloads);

/* The feature vector (docs/verifier.md). */
int prunerVerifierNumFeatures(void);
const char *prunerVerifierFeatureName(int i);
/* Fills out[prunerVerifierNumFeatures()] for one candidate. `symbols` may be NULL (the
 * draft is run), `resources` may be NULL (not compiled: NaN). */
PrunerStatus prunerVerifierFeatures(PrunerVerifier verifier, const PrunerWorkload *w,
                                    const PrunerConfig *config,
                                    const struct PrunerDraftSymbols *symbols,
                                    const PrunerKernelResources *resources, float *out);

/* ---- evaluation (pruner-eval) ---------------------------------------------------- */

/* Ranking quality of `scores` (higher = predicted faster) against measured latencies of
 * one workload: pairwise accuracy over pairs with different latencies (ties in score
 * count half), and TenSet's top-k score, best true throughput among the k best-scored
 * over the true best (1 = the best config is among them). */
typedef struct PrunerRankMetrics {
  size_t n;
  size_t pairs;
  double pairwise_accuracy; /* NaN when no pair has different latencies */
  double top1;
  double top5;
} PrunerRankMetrics;

PrunerRankMetrics prunerRankMetrics(const float *scores, const double *latency_us, size_t n);

/* prunerRankMetrics with pairs whose latencies differ by at most `tie_within` (a fraction,
 * >= 0) of the faster one left out as ties: the pairs a measurement of that resolution
 * cannot order. tie_within = 0 is prunerRankMetrics. Top-k is unchanged (a ratio). */
PrunerRankMetrics prunerRankMetricsWithin(const float *scores, const double *latency_us,
                                          size_t n, double tie_within);

/* A paired bootstrap over the configs of one workload (Efron and Tibshirani, "An
 * Introduction to the Bootstrap", 1993, percentile interval): the 2.5% and 97.5%
 * quantiles of (metric of ranking a) - (metric of ranking b) over `resamples` resamples
 * with replacement of the n configs, both rankings on the same resample. Where the
 * interval holds 0 the two rankings differ by less than the choice of configs explains:
 * a tie. resamples = 0 when not computed. */
typedef struct PrunerRankDifference {
  int resamples;
  double pairwise_low, pairwise_high;
  double top1_low, top1_high;
} PrunerRankDifference;

/* Fills `out` for scores a and b of the same n configs (latencies `latency_us`); seeded, so
 * reproducible; pairwise accuracy with ties as prunerRankMetricsWithin(tie_within). Costs
 * resamples x n^2 / 2 pair comparisons. False when out of memory. */
bool prunerRankDifferenceInterval(const float *a, const float *b, const double *latency_us,
                                  size_t n, int resamples, uint64_t seed, double tie_within,
                                  PrunerRankDifference *out);

/* Per-workload result of a leave-workload-out cross validation. */
typedef struct PrunerEvalWorkload {
  char workload_key[PRUNER_WORKLOAD_KEY_SIZE];
  int fold;
  PrunerRankMetrics verifier; /* model trained on the other folds' workloads */
  PrunerRankMetrics draft;    /* the draft's order alone                     */
  bool verifier_fell_back;    /* too few training records: verifier = draft  */
  /* verifier - draft on the scored configs (prunerRankDifferenceInterval with the
   * options' eval_interval_resamples); computed for workloads of at most 4,096 scored
   * configs when asked, else resamples = 0. */
  PrunerRankDifference difference;
} PrunerEvalWorkload;

/* Splits the workloads with ok records of `target_key` on `target` into `folds` folds
 * (round robin over workload keys in sorted order), trains on all other folds and scores
 * each held-out workload. `*out` (malloc'ed, free with free()) gets one entry per
 * workload with at least two ok records. */
PrunerStatus prunerVerifierCrossValidate(PrunerRecords records, const PrunerTargetDesc *target,
                                         const char *target_key,
                                         const PrunerVerifierOptions *opts, int folds,
                                         PrunerEvalWorkload **out, size_t *count);

/* As prunerVerifierCrossValidate, but each fold also trains on `own` records of every
 * held-out workload (every (count/own)-th in log order, a spread over the log) and scores
 * only that workload's other records, for the verifier and the draft alike: the tuner's
 * case of a workload with a few measurements of its own (docs/verifier.md). own = 0 is
 * prunerVerifierCrossValidate. */
PrunerStatus prunerVerifierCrossValidateOwn(PrunerRecords records,
                                            const PrunerTargetDesc *target,
                                            const char *target_key,
                                            const PrunerVerifierOptions *opts, int folds,
                                            size_t own, PrunerEvalWorkload **out,
                                            size_t *count);

/* The tuner's view after its first batches (docs/verifier.md, "As tuned"): each held-out
 * workload's records are put in the draft's order; its `own` draft-best records join
 * the training set (what the tuner measures first), and both the verifier and the draft
 * rank the next `pool - own` of the draft's order (the draft pool the tuner's verifier
 * ranks). own = 0 ranks the draft's top `pool`. pool 0: all records. */
PrunerStatus prunerVerifierCrossValidateAsTuned(PrunerRecords records,
                                                const PrunerTargetDesc *target,
                                                const char *target_key,
                                                const PrunerVerifierOptions *opts, int folds,
                                                size_t own, size_t pool, PrunerEvalWorkload **out,
                                                size_t *count);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_VERIFIER_H */

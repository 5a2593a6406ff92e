/* pruner-eval: how well the verifier (and the draft alone) rank measured configs.
 *
 *   pruner-eval RECORDS [--target KEY] [--folds=K] [--quiet]
 *   pruner-eval --synthetic=OUT [--workloads=N] [--per-workload=M] [--target NAME] [--seed=S]
 *   pruner-eval --train RECORDS... -o MODEL [--dataset-target=KEY]
 *
 * The first form cross-validates by workload (leave-workload-out) and prints pairwise
 * accuracy, top-1 and top-5 scores per workload and overall. The second writes synthetic
 * records with a known latency law (not measurements) for trying the first form without
 * a GPU. The third trains the verifier on all the records of one machine and saves it, a
 * prior for tuning on another (pruner-tune --pretrained; docs/transfer.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pruner/file.h"
#include "pruner/flags.h"
#include "pruner/records.h"
#include "pruner/target.h"
#include "pruner/verifier.h"
#include "synthetic.h"

static void usage(FILE *out) {
  fprintf(out, "usage: pruner-eval RECORDS [--target KEY] [--folds=K] [--blend-records=N] "
               "[--blend-floor=F] [--own=M] [--as-tuned=P] [--first-batch-tiles=S]\n"
               "                   [--draft-free]"
               " [--no-draft-margin] [--pooled-draft-scale] [--interval]\n"
               "                   [--ties-within=F] [--quiet]\n"
               "       pruner-eval --synthetic=OUT [--workloads=N] [--per-workload=M] "
               "[--target NAME] [--seed=S]\n"
               "       pruner-eval --train RECORDS... -o MODEL [--dataset-target=KEY] "
               "[--prior-unseen=skip]\n"
               "                   [--no-draft-margin]\n"
               "\n"
               "Cross-validates the verifier by workload (leave-workload-out, K folds, default 5)\n"
               "on the ok records of one target and prints, per workload and overall, pairwise\n"
               "accuracy and TenSet's top-1/top-5 scores for the verifier and the draft alone.\n"
               "--target KEY (or --dataset-target=KEY) picks the records' target key (default or\n"
               "'records': the key with the most ok records); the draft and verifier model that\n"
               "key's machine (host keys: its cores and ISA, and the caches and clock the\n"
               "records carry, else this machine's; the first line of the output says what\n"
               "was assumed).\n"
               "--blend-records/--blend-floor set the verifier's draft blend (docs/verifier.md;\n"
               "defaults 64 and 0; --blend-records=0 ranks by the model alone).\n"
               "--own=M also trains on M records of each held-out workload (spread over the\n"
               "log) and scores its other records (default 0).\n"
               "--as-tuned=P: the tuner's view instead: the held-out workload's M draft-best\n"
               "records are its own (the first batches) and both rank the rest of the draft's\n"
               "top P (the pool the tuner's verifier ranks; 0: all records).\n"
               "--first-batch-tiles=S: with --as-tuned, the first 16 own records are the\n"
               "tuner's first batch: from slot 16 - round(16 S) on, each is the draft's best\n"
               "config of a register step (thread tile; a conv's taps too) the earlier\n"
               "ones lack (pruner-tune --first-batch-tiles; the host tuner's share is\n"
               "0.5). Default 0: the draft's best 16.\n"
               "--draft-free: the verifier column is the draft-free model (model-only).\n"
               "--no-draft-margin: the model learns from its features alone, without the\n"
               "draft as its margin (the verifier before 2026-12-03; docs/verifier.md).\n"
               "--pooled-draft-scale: one draft scale in the margin for every workload (the\n"
               "verifier before 2026-12-07) instead of each workload's own.\n"
               "--interval: under each workload, the 95%% paired-bootstrap interval of verifier\n"
               "minus draft (1,000 resamples of its scored configs; up to 4,096 of them) for\n"
               "pairwise and top-1, and whether it holds 0 (a tie).\n"
               "--ties-within=F: pairs whose latencies differ by at most F (a fraction, e.g.\n"
               "0.02) of the faster one are ties and left out of pairwise accuracy (the order\n"
               "of configs inside the measurement noise is neither right nor wrong; default 0).\n"
               "--synthetic writes synthetic records (a known latency law, not measurements).\n"
               "--train trains the verifier on every ok record of one target key in the files\n"
               "(default: the key with the most ok records) and writes the model to MODEL: a\n"
               "prior for tuning another machine (pruner-tune --pretrained, docs/transfer.md).\n"
               "--prior-unseen=skip marks the model as one not to apply to shapes it was not\n"
               "trained on (a source that did not transfer there; docs/transfer.md).\n");
}

/* The target key with the most ok records. */
static const char *busiestTarget(PrunerRecords records) {
  size_t n = prunerRecordsCount(records), best_count = 0;
  const char *best = NULL;
  for (size_t i = 0; i < n; ++i) {
    const PrunerRecord *r = prunerRecordsGet(records, i);
    if (r->status != PRUNER_RECORD_OK || (best && !strcmp(best, r->target_key)))
      continue;
    size_t c = 0;
    for (size_t j = 0; j < n; ++j) {
      const PrunerRecord *q = prunerRecordsGet(records, j);
      c += q->status == PRUNER_RECORD_OK && !strcmp(q->target_key, r->target_key);
    }
    if (c > best_count) {
      best_count = c;
      best = r->target_key;
    }
  }
  return best;
}

static int writeSynthetic(const char *path, const char *target_name, int workloads,
                          int per_workload, unsigned long long seed) {
  PrunerTargetDesc target;
  PrunerStatus s = prunerTargetLookup(target_name, &target);
  if (!s.ok) {
    fprintf(stderr, "pruner-eval: %s\n", s.message);
    return 2;
  }
  /* Synthetic records carry a real target key: appended to a log of measurements, a later
   * tuning run would resume from them as if they had been measured. */
  struct stat st;
  if (stat(path, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_size > 0)) {
    fprintf(stderr,
            "pruner-eval: --synthetic=%s: %s; synthetic records (not measurements) are "
            "written to a new or empty file, never appended to a log\n",
            path, S_ISREG(st.st_mode) ? "the file exists and is not empty" : "not a regular file");
    return 2;
  }
  PrunerRecords records;
  s = prunerRecordsCreate(path, &records);
  if (s.ok)
    s = prunerSyntheticRecords(&target, workloads, per_workload, seed, records);
  if (!s.ok) {
    fprintf(stderr, "pruner-eval: %s\n", s.message);
    return 1;
  }
  printf("wrote %zu synthetic records (not measurements) to %s\n", prunerRecordsCount(records),
         path);
  prunerRecordsDestroy(records);
  return 0;
}

/* --train: the records of `paths` read as one log, the model saved to `model`. */
static int trainModel(const char *const *paths, int num_paths, const char *model,
                      const char *target_arg, const PrunerVerifierOptions *opts) {
  PrunerStatus out = prunerCheckOutputPath("-o", model);
  if (!out.ok) {
    fprintf(stderr, "pruner-eval: --train: %s\n", out.message);
    return 2;
  }
  for (int i = 0; i < num_paths; ++i) {
    if (prunerSameFile(paths[i], model)) { /* the model would replace the records */
      fprintf(stderr,
              "pruner-eval: --train: -o %s and the records file %s name the same file: "
              "writing the model would overwrite the records; give -o another file\n",
              model, paths[i]);
      return 2;
    }
  }
  PrunerRecords all = prunerRecordsCreateInMemory();
  PrunerRecords files[64] = {NULL}; /* kept open: filtered below with their paths and lines */
  if (!all) {
    fprintf(stderr, "pruner-eval: out of memory\n");
    return 1;
  }
  PrunerStatus s = prunerStatusOk();
  for (int i = 0; s.ok && i < num_paths; ++i) {
    s = prunerRecordsCreateReadOnly(paths[i], &files[i]);
    if (s.ok && prunerRecordsCount(files[i]) == 0)
      s = prunerRecordsRequireRecords(files[i]);
    else if (s.ok && prunerRecordsSkippedLines(files[i]))
      prunerRecordsPrintWarnings(files[i], stderr, "pruner-eval: warning: ");
    if (s.ok)
      s = prunerRecordsAppendAll(all, files[i]);
  }
  /* Copied: the busiest key points into `all`, which is rebuilt below. */
  char key_copy[96] = "";
  const char *busiest =
      target_arg && strcmp(target_arg, "records") != 0 ? target_arg : busiestTarget(all);
  const char *key = busiest ? (snprintf(key_copy, sizeof key_copy, "%s", busiest), key_copy) : NULL;
  PrunerTargetDesc target;
  char what[512] = "";
  if (s.ok)
    s = key ? prunerRecordsDatasetTarget(all, key, &target, what, sizeof what)
            : prunerStatusError("no ok record to train on");
  /* A prior ranks today's kernels: records of the key that timed another version of them
   * are left out, each named by file and line (docs/records.md, "Code-generator
   * version"); the log is then read again from what is left. */
  if (s.ok) {
    size_t dropped = 0;
    for (int i = 0; i < num_paths; ++i) {
      size_t d = prunerRecordsFilterCodegenOf(files[i], key, &target);
      if (d > 0)
        prunerRecordsPrintWarnings(files[i], stderr, "pruner-eval: warning: ");
      dropped += d;
    }
    if (dropped > 0) {
      prunerRecordsDestroy(all);
      all = prunerRecordsCreateInMemory();
      s = all ? prunerStatusOk() : prunerStatusError("out of memory");
      for (int i = 0; s.ok && i < num_paths; ++i)
        s = prunerRecordsAppendAll(all, files[i]);
    }
  }
  for (int i = 0; i < num_paths; ++i)
    prunerRecordsDestroy(files[i]);
  size_t used = 0, workloads = 0;
  if (s.ok)
    s = prunerVerifierTrainAndSave(all, &target, key, opts, model, &used, &workloads);
  prunerRecordsDestroy(all);
  if (!s.ok) {
    fprintf(stderr, "pruner-eval: --train: %s\n", s.message);
    return 1;
  }
  printf("%s\n", what);
  printf("wrote %s: verifier of %s trained on %zu records of %zu workload(s)\n", model, key, used,
         workloads);
  return 0;
}

static void printRow(const char *name, const PrunerRankMetrics *v, const PrunerRankMetrics *d,
                     size_t n, const char *note) {
  printf("%-48s %6zu  %6.3f %6.3f %6.3f   %6.3f %6.3f %6.3f%s\n", name, n,
         v->pairwise_accuracy, v->top1, v->top5, d->pairwise_accuracy, d->top1, d->top5, note);
}

static const char *verdict(double low, double high) {
  return low > 0 ? "verifier ahead" : high < 0 ? "draft ahead" : "tie";
}

/* The --interval line under a workload's row (one line, two leading spaces: the row
 * parsers of scripts/ read rows of 8 fields). */
static void printInterval(const PrunerRankDifference *d) {
  if (!d->resamples) {
    printf("  verifier - draft: no interval (more than 4,096 configs or one latency)\n");
    return;
  }
  printf("  verifier - draft, 95%% bootstrap (%d resamples): pair [%+.3f, %+.3f] %s; top1 "
         "[%+.3f, %+.3f] %s\n",
         d->resamples, d->pairwise_low, d->pairwise_high, verdict(d->pairwise_low, d->pairwise_high),
         d->top1_low, d->top1_high, verdict(d->top1_low, d->top1_high));
}

/* Which forms of the tool read a flag: a flag given to a form that does not read it is
 * refused rather than ignored (--seed with cross-validation used to do nothing). */
enum { FORM_EVAL = 1, FORM_SYNTHETIC = 2, FORM_TRAIN = 4 };
typedef struct GivenFlag {
  const char *name;
  unsigned forms;
} GivenFlag;

static void noteFlag(GivenFlag *given, int *n, const char *arg, unsigned forms) {
  if (*n < 64)
    given[(*n)++] = (GivenFlag){arg, forms};
}

int main(int argc, char **argv) {
  const char *path = NULL, *target_arg = NULL, *synthetic = NULL, *model = NULL;
  GivenFlag given[64];
  int num_given = 0;
  const char *train_paths[64];
  int num_train = 0;
  bool train = false;
  int folds = 5, workloads = 8, per_workload = 200, quiet = 0, interval = 0;
  uint64_t seed = 1;
  PrunerVerifierOptions opts = prunerVerifierDefaultOptions();
  long own = 0, as_tuned = -1;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    PrunerStatus fs = prunerStatusOk(); /* a numeric flag's parse (pruner/flags.h) */
    int64_t n = 0;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--target") && i + 1 < argc) {
      target_arg = argv[++i];
    } else if (!strncmp(a, "--target=", 9)) {
      target_arg = a + 9;
    } else if (!strncmp(a, "--dataset-target=", 17)) {
      target_arg = a + 17; /* the same: records are always studied as their key's machine */
    } else if (!strncmp(a, "--folds=", 8)) {
      noteFlag(given, &num_given, a, FORM_EVAL);
      fs = prunerParseInt("--folds", a + 8, 2, 1000, &n), folds = (int)n;
    } else if (!strncmp(a, "--synthetic=", 12)) {
      synthetic = a + 12;
    } else if (!strncmp(a, "--workloads=", 12)) {
      noteFlag(given, &num_given, a, FORM_SYNTHETIC);
      fs = prunerParseInt("--workloads", a + 12, 1, 100000, &n), workloads = (int)n;
    } else if (!strncmp(a, "--per-workload=", 15)) {
      noteFlag(given, &num_given, a, FORM_SYNTHETIC);
      fs = prunerParseInt("--per-workload", a + 15, 1, 1000000, &n), per_workload = (int)n;
    } else if (!strncmp(a, "--seed=", 7)) {
      noteFlag(given, &num_given, a, FORM_SYNTHETIC);
      fs = prunerParseUint64("--seed", a + 7, &seed);
    } else if (!strncmp(a, "--blend-records=", 16)) {
      noteFlag(given, &num_given, a, FORM_EVAL);
      fs = prunerParseInt("--blend-records", a + 16, 0, 1000000, &n);
      opts.blend_records = (int)n;
    } else if (!strncmp(a, "--blend-floor=", 14)) {
      noteFlag(given, &num_given, a, FORM_EVAL);
      fs = prunerParseDouble("--blend-floor", a + 14, 0, 1, &opts.blend_floor);
    } else if (!strncmp(a, "--own=", 6)) {
      noteFlag(given, &num_given, a, FORM_EVAL);
      fs = prunerParseInt("--own", a + 6, 0, 1000000, &n), own = (long)n;
    } else if (!strncmp(a, "--as-tuned=", 11)) {
      noteFlag(given, &num_given, a, FORM_EVAL);
      fs = prunerParseInt("--as-tuned", a + 11, 0, 100000000, &n), as_tuned = (long)n;
    } else if (!strncmp(a, "--first-batch-tiles=", 20)) {
      noteFlag(given, &num_given, a, FORM_EVAL);
      fs = prunerParseDouble("--first-batch-tiles", a + 20, 0, 1, &opts.eval_first_batch_tiles);
    } else if (!strncmp(a, "--prior-unseen=", 15)) {
      noteFlag(given, &num_given, a, FORM_TRAIN);
      fs = prunerPriorUnseenParse("--prior-unseen", a + 15, &opts.prior_unseen);
    } else if (!strcmp(a, "--draft-free")) {
      noteFlag(given, &num_given, a, FORM_EVAL | FORM_TRAIN);
      opts.draft_free = true;
    } else if (!strcmp(a, "--pooled-draft-scale")) {
      noteFlag(given, &num_given, a, FORM_EVAL | FORM_TRAIN);
      opts.draft_scale_per_workload = false;
    } else if (!strcmp(a, "--no-draft-margin")) {
      noteFlag(given, &num_given, a, FORM_EVAL | FORM_TRAIN);
      opts.draft_margin = false;
    } else if (!strcmp(a, "--quiet")) {
      noteFlag(given, &num_given, a, FORM_EVAL);
      quiet = 1;
    } else if (!strcmp(a, "--interval")) {
      noteFlag(given, &num_given, a, FORM_EVAL);
      interval = 1;
      opts.eval_interval_resamples = 1000;
    } else if (!strncmp(a, "--ties-within=", 14)) {
      noteFlag(given, &num_given, a, FORM_EVAL);
      fs = prunerParseDouble("--ties-within", a + 14, 0, 0.99, &opts.eval_tie_within);
    } else if (!strcmp(a, "--train")) {
      train = true;
    } else if (!strcmp(a, "-o") && i + 1 < argc) {
      model = argv[++i];
    } else if (train && a[0] != '-') {
      if (num_train == (int)(sizeof train_paths / sizeof *train_paths)) {
        fprintf(stderr, "pruner-eval: --train takes at most %d files\n", num_train);
        return 2;
      }
      train_paths[num_train++] = a;
    } else if (a[0] == '-' || path) {
      fprintf(stderr, "pruner-eval: unexpected argument '%s'\n", a);
      usage(stderr);
      return 2;
    } else {
      path = a;
    }
    if (!fs.ok) {
      fprintf(stderr, "pruner-eval: %s\n", fs.message);
      return 2;
    }
  }
  unsigned form = train ? FORM_TRAIN : synthetic ? FORM_SYNTHETIC : FORM_EVAL;
  for (int i = 0; i < num_given; ++i)
    if (!(given[i].forms & form)) {
      fprintf(stderr, "pruner-eval: %s is not read %s\n", given[i].name,
              form == FORM_TRAIN       ? "by --train"
              : form == FORM_SYNTHETIC ? "by --synthetic"
                                       : "when evaluating records (see --help for its form)");
      return 2;
    }
  if (train) {
    if (path || num_train == 0 || !model) {
      fprintf(stderr, "pruner-eval: --train needs records files and -o MODEL\n");
      usage(stderr);
      return 2;
    }
    return trainModel(train_paths, num_train, model, target_arg, &opts);
  }
  if (model) {
    fprintf(stderr, "pruner-eval: -o is for --train\n");
    return 2;
  }
  if (synthetic)
    return writeSynthetic(synthetic, target_arg ? target_arg : "sm_90", workloads,
                          per_workload, seed);
  if (!path) {
    usage(stderr);
    return 2;
  }
  if (opts.eval_first_batch_tiles > 0 && as_tuned < 0) {
    fprintf(stderr, "pruner-eval: --first-batch-tiles is for --as-tuned (the tuner's view)\n");
    return 2;
  }
  PrunerRecords records;
  PrunerStatus s = prunerRecordsCreateReadOnly(path, &records);
  if (!s.ok) {
    fprintf(stderr, "pruner-eval: %s\n", s.message);
    return 1;
  }
  if (prunerRecordsSkippedLines(records))
    prunerRecordsPrintWarnings(records, stderr, "pruner-eval: warning: ");
  const char *key = target_arg && strcmp(target_arg, "records") != 0 ? target_arg
                                                                    : busiestTarget(records);
  PrunerTargetDesc target;
  char what[512] = "";
  PrunerStatus ts = key ? prunerRecordsDatasetTarget(records, key, &target, what, sizeof what)
                        : prunerStatusError("no ok records to evaluate");
  if (!ts.ok) {
    fprintf(stderr, "pruner-eval: %s: %s\n", path, ts.message);
    prunerRecordsDestroy(records);
    return 1;
  }
  /* The verifier and the draft model the records' machine, which need not be this one. */
  printf("%s\n", what);
  PrunerEvalWorkload *results = NULL;
  size_t count = 0;
  if (own < 0) {
    fprintf(stderr, "pruner-eval: --own must be >= 0 (got %ld)\n", own);
    prunerRecordsDestroy(records);
    return 2;
  }
  s = as_tuned >= 0 ? prunerVerifierCrossValidateAsTuned(records, &target, key, &opts, folds,
                                                         (size_t)own, (size_t)as_tuned,
                                                         &results, &count)
                    : prunerVerifierCrossValidateOwn(records, &target, key, &opts, folds,
                                                     (size_t)own, &results, &count);
  if (!s.ok) {
    fprintf(stderr, "pruner-eval: %s: %s\n", path, s.message);
    prunerRecordsDestroy(records);
    return 1;
  }
  /* Workloads are dealt round robin into the folds: more folds than workloads are as many
   * as there are workloads. */
  int used_folds = (size_t)folds > count ? (int)count : folds;
  printf("target %s, %d folds%s, leave-workload-out, %zu workloads, %ld own records each\n",
         key, used_folds, used_folds < folds ? " (fewer workloads than --folds)" : "", count,
         own);
  size_t other = 0, num_workloads = 0;
  const char *seen[256]; /* the target's workload keys (a dataset has a few) */
  for (size_t i = 0; i < prunerRecordsCount(records); ++i) {
    const PrunerRecord *r = prunerRecordsGet(records, i);
    other += r->status == PRUNER_RECORD_OK && strcmp(r->target_key, key) != 0;
    if (r->status != PRUNER_RECORD_OK || r->is_baseline || strcmp(r->target_key, key) != 0)
      continue;
    bool known = false;
    for (size_t j = 0; j < num_workloads && j < 256 && !known; ++j)
      known = strcmp(seen[j], r->workload_key) == 0;
    if (!known && num_workloads < 256)
      seen[num_workloads++] = r->workload_key;
  }
  if (count < num_workloads)
    printf("note: %zu of the %zu workload(s) left out: fewer than 2 of their records remain "
           "to score after the %ld own record(s)\n",
           num_workloads - count, num_workloads, own);
  if (other > 0)
    printf("note: %zu ok record(s) of other targets not used (--dataset-target=KEY picks "
           "another)\n", other);
  if (as_tuned >= 0 && opts.eval_first_batch_tiles > 0)
    printf("as tuned: own = the tuner's first batch of 16 (from slot %ld on, the draft's best "
           "of each new register step), then the draft's order, %ld in all; ranked: the next "
           "%s%ld\n",
           16 - lround(16 * opts.eval_first_batch_tiles), own, as_tuned ? "" : "all but ",
           as_tuned ? as_tuned - own : own);
  else if (as_tuned >= 0)
    printf("as tuned: own = the draft's best %ld; ranked: the draft's next %s%ld\n", own,
           as_tuned ? "" : "all but ", as_tuned ? as_tuned - own : own);
  if (opts.draft_free)
    printf("verifier: draft-free (model-only: the configs' own features, no blend)\n");
  if (opts.eval_tie_within > 0)
    printf("pairwise: pairs within %.4g%% of each other are ties, not counted\n",
           100.0 * opts.eval_tie_within);
  printf("%-48s %6s  %-20s   %-20s\n", "", "", "verifier", "draft alone");
  printf("%-48s %6s  %6s %6s %6s   %6s %6s %6s\n", "workload", "n", "pair", "top1", "top5",
         "pair", "top1", "top5");
  PrunerRankMetrics vsum = {0, 0, 0, 0, 0}, dsum = {0, 0, 0, 0, 0};
  size_t pairs = 0, n = 0;
  double vpair = 0, dpair = 0;
  for (size_t i = 0; i < count; ++i) {
    const PrunerEvalWorkload *e = &results[i];
    if (!quiet)
      printRow(e->workload_key, &e->verifier, &e->draft, e->verifier.n,
               !e->verifier_fell_back ? ""
               : e->verifier.pairs    ? "  (verifier = draft: too few records)"
                                      : "  (verifier = draft: no two latencies differ)");
    if (!quiet && interval)
      printInterval(&e->difference);
    n += e->verifier.n;
    vsum.top1 += e->verifier.top1 / (double)count;
    vsum.top5 += e->verifier.top5 / (double)count;
    dsum.top1 += e->draft.top1 / (double)count;
    dsum.top5 += e->draft.top5 / (double)count;
    if (e->verifier.pairs) {
      /* pairwise accuracy pooled over all pairs of all workloads */
      vpair += e->verifier.pairwise_accuracy * (double)e->verifier.pairs;
      dpair += e->draft.pairwise_accuracy * (double)e->draft.pairs;
      pairs += e->verifier.pairs;
    }
  }
  /* No pair to order is no accuracy (NaN, as on each workload's row), not 0. */
  vsum.pairwise_accuracy = pairs ? vpair / (double)pairs : NAN;
  dsum.pairwise_accuracy = pairs ? dpair / (double)pairs : NAN;
  printRow("overall (pairs pooled, top-k averaged)", &vsum, &dsum, n, "");
  free(results);
  prunerRecordsDestroy(records);
  return 0;
}

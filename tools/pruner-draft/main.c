/* pruner-draft: the draft model's view of a module's tunable ops, and its quality
 * against measured records (docs/draft.md).
 *
 *   pruner-draft model.mlir [--target=sm_90] [--top=10] [--json]
 *   pruner-draft --eval RECORDS [--target=sm_90] [--top=512] [--per-config=OUT.jsonl] */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <mlir-c/IR.h>

#include "eval.h"
#include "pruner/clock.h"
#include "pruner/draft.h"
#include "pruner/file.h"
#include "pruner/flags.h"
#include "pruner/ir.h"
#include "pruner/ir_context.h"
#include "pruner/records.h"

typedef struct Options {
  const char *input;
  const char *eval;
  const char *target;
  const char *dataset_target; /* --eval: records key or "records" (docs/quality.md) */
  const char *per_config;     /* --eval: one JSON line per ranked record to this file */
  long top;
  int json;
} Options;

static void usage(FILE *f) {
  fprintf(f, "usage: pruner-draft MODEL.mlir [--target=NAME] [--top=N] [--json]\n"
             "       pruner-draft --eval RECORDS [--target=NAME | --dataset-target=KEY] "
             "[--top=N] [--per-config=OUT]\n"
             "Prints, per tunable linalg op, the space size and the draft's best configs\n"
             "(predicted µs, GFLOP/s, occupancy, waves, DRAM MB, registers, bound).\n"
             "--eval: per workload, Spearman of predicted vs measured latency and whether\n"
             "the measured best is in the draft's top N (default 512); best_rank is its\n"
             "position in the draft's order of the whole space, configs the file lacks\n"
             "counted too (a space that grew a knob after the measurement ranks them),\n"
             "-1 when it is not in the top N;\n"
             "regret@16 / @64 and first_2%% order the file's configs only: the best measured\n"
             "config among the first 16 / 64 in predicted order over the best, and the\n"
             "position in that order of the first config within 2%%.\n"
             "--dataset-target=KEY evaluates records measured elsewhere: KEY is their target\n"
             "key (host keys: that CPU's cores and ISA, the records' caches and clock, else\n"
             "this machine's) or 'records' for the file's own key; the first line says what\n"
             "was assumed.\n"
             "--per-config=OUT writes one JSON line per ranked record: its config, the\n"
             "measured and predicted microseconds, the draft's terms and its symbols\n"
             "(scripts/draft-residuals.py reads it).\n");
}

static int parseArgs(int argc, char **argv, Options *o) {
  *o = (Options){NULL, NULL, "sm_90", NULL, NULL, -1, 0};
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (strncmp(a, "--target=", 9) == 0) o->target = a + 9;
    else if (strncmp(a, "--dataset-target=", 17) == 0) o->dataset_target = a + 17;
    else if (strncmp(a, "--per-config=", 13) == 0) {
      if (!a[13]) {
        fprintf(stderr, "pruner-draft: --per-config= needs a file name\n");
        return 2;
      }
      o->per_config = a + 13;
    }
    else if (strncmp(a, "--top=", 6) == 0) {
      int64_t top = 0;
      PrunerStatus st = prunerParseInt("--top", a + 6, 1, 1000000, &top);
      if (!st.ok) {
        fprintf(stderr, "pruner-draft: %s\n", st.message);
        return 2;
      }
      o->top = (long)top;
    } else if (strcmp(a, "--json") == 0) o->json = 1;
    else if (strcmp(a, "--eval") == 0 && i + 1 < argc) o->eval = argv[++i];
    else if (strncmp(a, "--eval=", 7) == 0) o->eval = a + 7;
    else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 1;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "pruner-draft: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    } else if (!o->input) o->input = a;
    else {
      fprintf(stderr, "pruner-draft: more than one input ('%s' and '%s')\n", o->input, a);
      return 2;
    }
  }
  if (!o->input && !o->eval) {
    usage(stderr);
    return 2;
  }
  if (o->per_config && !o->eval) {
    fprintf(stderr, "pruner-draft: --per-config needs --eval RECORDS\n");
    return 2;
  }
  return 0;
}

/* ---- model mode ------------------------------------------------------------------------ */

typedef struct Walk {
  const Options *opts;
  const PrunerTargetDesc *target;
  cJSON *json_ops;
  int index;
  int failures;
} Walk;

static cJSON *candidateJson(const PrunerWorkload *w, const PrunerDraftCandidate *c,
                            const PrunerDraftSymbols *s) {
  char buf[512];
  cJSON *o = cJSON_CreateObject();
  prunerConfigFormat(w, &c->config, buf, sizeof buf);
  cJSON_AddStringToObject(o, "config", buf);
  cJSON_AddNumberToObject(o, "index", (double)c->index);
  cJSON_AddNumberToObject(o, "predicted_us", s->predicted_us);
  cJSON_AddNumberToObject(o, "gflops", s->flops / s->predicted_us * 1e-3);
  cJSON_AddNumberToObject(o, "occupancy", s->occupancy);
  cJSON_AddNumberToObject(o, "blocks_per_sm", s->blocks_per_sm);
  cJSON_AddNumberToObject(o, "waves", s->waves);
  cJSON_AddNumberToObject(o, "dram_mb", s->dram_bytes / 1e6);
  cJSON_AddNumberToObject(o, "registers", s->registers);
  cJSON_AddNumberToObject(o, "smem_bytes", (double)s->smem_per_block);
  cJSON_AddStringToObject(o, "bound", prunerDraftBoundName(s->bound));
  draftAddFeaturesJson(o, s);
  return o;
}

static void reportOp(Walk *wk, const PrunerWorkload *w, const char *loc) {
  const Options *o = wk->opts;
  PrunerSpace space;
  PrunerStatus st = prunerSpaceCreate(w, wk->target, NULL, &space);
  PrunerDraft draft = NULL;
  if (st.ok) st = prunerDraftCreate(w, wk->target, &draft);
  if (!st.ok) {
    fprintf(stderr, "pruner-draft: %s: op %d (%s): %s\n", loc, wk->index, w->op_name,
            st.message);
    if (draft) prunerDraftDestroy(draft);
    ++wk->failures;
    return;
  }
  size_t top = o->top > 0 ? (size_t)o->top : 10;
  PrunerDraftCandidate *cand = calloc(top, sizeof *cand);
  double t0 = prunerNowSeconds();
  uint64_t count = prunerSpaceCount(space);
  size_t got = cand ? prunerDraftTopN(draft, space, top, cand) : 0;
  double elapsed = prunerNowSeconds() - t0;
  if (o->json) {
    cJSON *op = cJSON_CreateObject();
    cJSON_AddNumberToObject(op, "op", wk->index);
    cJSON_AddStringToObject(op, "op_name", w->op_name);
    cJSON_AddStringToObject(op, "workload", w->key);
    cJSON_AddNumberToObject(op, "space_size", (double)count);
    cJSON *arr = cJSON_AddArrayToObject(op, "top");
    for (size_t i = 0; i < got; ++i) {
      PrunerDraftSymbols s;
      prunerDraftScore(draft, &cand[i].config, NULL, &s);
      cJSON_AddItemToArray(arr, candidateJson(w, &cand[i], &s));
    }
    cJSON_AddItemToArray(wk->json_ops, op);
  } else {
    printf("op %d: %s %s\n", wk->index, w->op_name, w->key);
    printf("  space: %llu valid configs, scanned in %.3f s\n", (unsigned long long)count,
           elapsed);
    printf("  %4s  %-34s %10s %9s %5s %6s %9s %5s %7s  %s\n", "rank", "config", "pred_us",
           "GFLOP/s", "occ", "waves", "dram_MB", "regs", "smem_B", "bound");
    for (size_t i = 0; i < got; ++i) {
      PrunerDraftSymbols s;
      char buf[128];
      prunerDraftScore(draft, &cand[i].config, NULL, &s);
      prunerConfigFormatShort(w, &cand[i].config, buf, sizeof buf);
      printf("  %4zu  %-34s %10.2f %9.0f %5.2f %6.2f %9.2f %5d %7lld  %s\n", i + 1, buf,
             s.predicted_us, s.flops / s.predicted_us * 1e-3, s.occupancy, s.waves,
             s.dram_bytes / 1e6, s.registers, (long long)s.smem_per_block,
             prunerDraftBoundName(s.bound));
    }
  }
  free(cand);
  prunerDraftDestroy(draft);
  prunerSpaceDestroy(space);
}

static MlirWalkResult visit(MlirOperation op, const PrunerWorkload *w, const PrunerStatus *why,
                            void *user) {
  Walk *wk = user;
  if (!w) {
    /* A linalg op that cannot be tuned (dynamic or empty shapes, unsupported op) is named
     * with its location; fills and copies never reach here (they fuse into a neighbour). */
    char loc[256];
    prunerOperationLocationString(op, loc, sizeof loc);
    fprintf(stderr, "pruner-draft: remark: %s: skipped: %s\n", loc, why->message);
    return MlirWalkResultAdvance;
  }
  /* As pruner-tune: ops the target's schedule cannot build (a full reduction to a rank-0
   * result on a GPU) and sizes no kernel can index are skipped with a remark. */
  char loc[256];
  prunerOperationLocationString(op, loc, sizeof loc);
  PrunerStatus size = prunerWorkloadCheckSchedulable(w, wk->target);
  if (size.ok)
    size = prunerWorkloadCheckSize(w, wk->target);
  if (!size.ok) {
    fprintf(stderr, "pruner-draft: remark: %s: skipped: %s\n", loc, size.message);
    return MlirWalkResultAdvance;
  }
  reportOp(wk, w, loc);
  ++wk->index;
  return MlirWalkResultAdvance;
}

static int runModel(const Options *o, const PrunerTargetDesc *t) {
  char *text = NULL;
  size_t text_size = 0;
  PrunerStatus read = prunerReadFile(o->input, &text, &text_size);
  if (!read.ok) {
    fprintf(stderr, "pruner-draft: %s\n", read.message);
    return 1;
  }
  PrunerStatus crashed = prunerIrCheckParseIsolated(text, text_size, o->input);
  if (!crashed.ok) {
    fprintf(stderr, "pruner-draft: %s\n", crashed.message);
    free(text);
    return 1;
  }
  MlirContext ctx = prunerIrContextCreate();
  /* Parsed from the file (not "-") so that locations and parse errors name it. */
  MlirModule module = strcmp(o->input, "-") == 0
                          ? mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text))
                          : mlirModuleCreateParseFromFile(ctx, mlirStringRefCreateFromCString(o->input));
  free(text);
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "pruner-draft: '%s' does not parse (see MLIR's message above)\n",
            o->input);
    mlirContextDestroy(ctx);
    return 1;
  }
  Walk wk = {o, t, o->json ? cJSON_CreateArray() : NULL, 0, 0};
  if (!o->json) {
    char key[96];
    prunerTargetKey(t, key, sizeof key);
    printf("target: %s (%s)\n", key, t->device);
  }
  prunerWalkTunableOps(mlirModuleGetOperation(module), visit, &wk);
  if (o->json) {
    cJSON *root = cJSON_CreateObject();
    char key[96];
    prunerTargetKey(t, key, sizeof key);
    cJSON_AddStringToObject(root, "target", key);
    cJSON_AddItemToObject(root, "ops", wk.json_ops);
    char *s = cJSON_Print(root);
    if (s) puts(s);
    free(s);
    cJSON_Delete(root);
  } else if (wk.index == 0) {
    printf("no tunable linalg ops\n");
  }
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return wk.failures ? 1 : 0;
}

/* ---- eval mode ------------------------------------------------------------------------- */

static int runEval(const Options *o, const PrunerTargetDesc *named) {
  PrunerRecords records;
  PrunerStatus st = prunerRecordsCreateReadOnly(o->eval, &records);
  if (!st.ok) {
    fprintf(stderr, "pruner-draft: %s\n", st.message);
    return 1;
  }
  PrunerTargetDesc dataset;
  const PrunerTargetDesc *t = named;
  if (o->dataset_target) {
    char what[512];
    st = prunerRecordsDatasetTarget(records, o->dataset_target, &dataset, what, sizeof what);
    if (!st.ok) {
      fprintf(stderr, "pruner-draft: %s: %s\n", o->eval, st.message);
      prunerRecordsDestroy(records);
      return 2;
    }
    printf("%s\n", what);
    t = &dataset;
  } else {
    /* The records' own kernels (a file of this machine may predate today's). */
    char key[96];
    dataset = *named;
    prunerTargetKey(&dataset, key, sizeof key);
    dataset.codegen_version = prunerRecordsKernelVersion(records, key);
    t = &dataset;
  }
  if (prunerRecordsSkippedLines(records))
    prunerRecordsPrintWarnings(records, stderr, "pruner-draft: warning: ");
  FILE *per_config = NULL;
  if (o->per_config && prunerSameFile(o->per_config, o->eval)) {
    fprintf(stderr,
            "pruner-draft: --per-config=%s and --eval %s name the same file: writing it would "
            "overwrite the records; give --per-config another file\n",
            o->per_config, o->eval);
    prunerRecordsDestroy(records);
    return 2;
  }
  if (o->per_config) {
    per_config = fopen(o->per_config, "w");
    if (!per_config) {
      fprintf(stderr, "pruner-draft: --per-config=%s: %s\n", o->per_config, strerror(errno));
      prunerRecordsDestroy(records);
      return 2;
    }
  }
  enum { kMaxRows = 4096 };
  DraftEvalRow *rows = calloc(kMaxRows, sizeof *rows);
  size_t n = 0, skipped = 0;
  size_t top = o->top > 0 ? (size_t)o->top : PRUNER_DRAFT_DEFAULT_TOP;
  st = rows ? draftEvalRecords(records, t, top, per_config, rows, kMaxRows, &n, &skipped)
            : prunerStatusError("out of memory");
  prunerRecordsDestroy(records);
  if (per_config && fclose(per_config) != 0 && st.ok)
    st = prunerStatusError("--per-config=%s: %s", o->per_config, strerror(errno));
  if (!st.ok) {
    fprintf(stderr, "pruner-draft: %s\n", st.message);
    free(rows);
    return 1;
  }
  char key[96];
  prunerTargetKey(t, key, sizeof key);
  /* A workload none of whose configs the draft can score (records of another space, a
   * shape the space refuses) has no row: a row of NaNs would read as a result. */
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    const DraftEvalRow *r = &rows[i];
    if (r->invalid > 0)
      fprintf(stderr,
              "pruner-draft: warning: %s: %zu of its %zu ok record(s) hold a config that is "
              "not valid for the workload (not in its space); %s\n",
              r->workload_key, r->invalid, r->invalid + r->measured,
              r->measured ? "left out of the ranking" : "the workload is left out");
    if (r->measured > 0)
      rows[kept++] = *r;
  }
  printf("target: %s; %zu workloads; %zu records of other targets skipped\n", key, kept,
         skipped);
  if (kept == 0) {
    if (n == 0 && skipped > 0)
      fprintf(stderr, "pruner-draft: no records of target %s; records measured on another "
                      "machine: --dataset-target=records (or =KEY)\n", key);
    else
      fprintf(stderr, "pruner-draft: %s: no ok record of target %s that the draft can rank\n",
              o->eval, key);
    free(rows);
    return 1;
  }
  n = kept;
  printf("%-60s %8s %9s %10s %9s %8s %9s %9s %s\n", "workload", "measured", "spearman",
         "best_us", "best_rank", "recall@N", "regret@16", "regret@64", "first_2%");
  double sum_rho = 0, sum_recall = 0;
  size_t n_rho = 0;
  for (size_t i = 0; i < n; ++i) {
    const DraftEvalRow *r = &rows[i];
    printf("%-60s %8zu %9.3f %10.2f %9ld %8d %9.3f %9.3f %ld\n", r->workload_key, r->measured,
           r->spearman, r->best_us, r->best_rank >= 0 ? r->best_rank + 1 : -1, r->recall,
           r->regret16, r->regret64,
           r->first_within_2pct >= 0 ? r->first_within_2pct + 1 : -1);
    if (!isnan(r->spearman)) sum_rho += r->spearman, ++n_rho;
    sum_recall += r->recall;
  }
  if (n)
    printf("mean: spearman %.3f over %zu workloads, recall of the measured best in top %zu: "
           "%.3f\n",
           n_rho ? sum_rho / n_rho : NAN, n_rho, top, sum_recall / n);
  free(rows);
  return 0;
}

int main(int argc, char **argv) {
  Options o;
  int rc = parseArgs(argc, argv, &o);
  if (rc) return rc == 1 ? 0 : rc;
  PrunerTargetDesc t;
  PrunerStatus st = prunerTargetLookup(o.target, &t);
  if (!st.ok) {
    fprintf(stderr, "pruner-draft: %s\n", st.message);
    return 2;
  }
  return o.eval ? runEval(&o, &t) : runModel(&o, &t);
}

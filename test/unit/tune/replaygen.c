/* pruner-tune-replaygen: test helper for the replay backend (no real GPU data exists).
 *
 *   pruner-tune-replaygen gen MODULE.mlir --target=T -o FILE [--baseline-us=X]
 *     Writes one ok record per valid config of every tunable op of MODULE (the complete
 *     space) whose latency is a known synthetic function of the config (below), plus a
 *     cuBLAS baseline record when --baseline-us is given. Prints, per workload, the
 *     space size and the function's minimum: "min <key> <config> <us> (<us, 4 digits>)".
 *   pruner-tune-replaygen check RECORDS
 *     Prints "records N duplicates D best <config>" over the file (one workload), so a
 *     test can assert that nothing was measured twice.
 *
 * The function: 10 us x (1 + 0.25 x distance), where distance sums |log2| distances of
 * each workgroup tile to 32, each thread tile to 2, each reduction step to 8, plus 0.5
 * if the vector width is not 4, 0.5 per promoted operand, plus 1e-6 x (dense index mod 997) to make the minimum
 * unique. It is smooth in the knobs (learnable) and independent of the draft model. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mlir-c/IR.h>

#include "pruner/file.h"
#include "pruner/flags.h"
#include "pruner/ir.h"
#include "pruner/ir_context.h"
#include "pruner/records.h"
#include "pruner/space.h"
#include "pruner/target.h"

static double syntheticUs(const PrunerWorkload *w, const PrunerConfig *c, uint64_t index) {
  double d = 0;
  for (int l = 0; l < w->num_loops; ++l) {
    if (w->loop_kinds[l] == PRUNER_LOOP_PARALLEL) {
      d += fabs(log2((double)c->workgroup[l]) - 5.0);
      d += fabs(log2((double)c->thread[l]) - 1.0);
    } else {
      d += fabs(log2((double)c->reduction[l]) - 3.0);
    }
  }
  if (c->vector_width != 4)
    d += 0.5;
  d += 0.5 * __builtin_popcount(c->promote_operands);
  return 10.0 * (1.0 + 0.25 * d) + 1e-6 * (double)(index % 997);
}

typedef struct Gen {
  PrunerTargetDesc target;
  char key[96];
  PrunerRecords out;
  double baseline_us;
  char seen[64][PRUNER_WORKLOAD_KEY_SIZE];
  int num_seen;
  int failed;
} Gen;

static void genWorkload(Gen *g, const PrunerWorkload *w) {
  for (int i = 0; i < g->num_seen; ++i)
    if (strcmp(g->seen[i], w->key) == 0)
      return;
  if (g->num_seen < 64)
    snprintf(g->seen[g->num_seen++], PRUNER_WORKLOAD_KEY_SIZE, "%s", w->key);
  PrunerSpace space;
  PrunerStatus st = prunerSpaceCreate(w, &g->target, NULL, &space);
  if (!st.ok) {
    fprintf(stderr, "replaygen: %s\n", st.message);
    g->failed = 1;
    return;
  }
  uint64_t raw = 0, index = 0;
  PrunerConfig c, best;
  double best_us = INFINITY;
  PrunerRecord r;
  while (prunerSpaceNext(space, &raw, &c)) {
    prunerRecordInit(&r);
    snprintf(r.workload_key, sizeof r.workload_key, "%s", w->key);
    r.workload = *w;
    r.has_workload = true;
    snprintf(r.target_key, sizeof r.target_key, "%s", g->key);
    snprintf(r.device_name, sizeof r.device_name, "synthetic (test)");
    r.config = c;
    r.status = PRUNER_RECORD_OK;
    r.num_samples = 1;
    r.samples_us[0] = r.median_us = syntheticUs(w, &c, index);
    if (r.median_us < best_us) {
      best_us = r.median_us;
      best = c;
    }
    if (!prunerRecordsAppend(g->out, &r).ok)
      g->failed = 1;
    ++index;
  }
  if (g->baseline_us > 0) {
    prunerRecordInit(&r);
    snprintf(r.workload_key, sizeof r.workload_key, "%s", w->key);
    r.workload = *w;
    r.has_workload = true;
    snprintf(r.target_key, sizeof r.target_key, "%s", g->key);
    r.is_baseline = true;
    snprintf(r.baseline_name, sizeof r.baseline_name, "cublas");
    r.status = PRUNER_RECORD_OK;
    r.num_samples = 1;
    r.samples_us[0] = r.median_us = g->baseline_us;
    if (!prunerRecordsAppend(g->out, &r).ok)
      g->failed = 1;
  }
  char text[128] = "-";
  if (index > 0)
    prunerConfigFormatShort(w, &best, text, sizeof text);
  printf("space %s %llu\nmin %s %s %.2f (%.4f)\n", w->key, (unsigned long long)index, w->key,
         text, best_us, best_us);
  prunerSpaceDestroy(space);
}

static MlirWalkResult visit(MlirOperation op, void *user) {
  PrunerWorkload w;
  if (prunerIsLinalgOp(op) && prunerWorkloadFromOperation(op, &w).ok)
    genWorkload(user, &w);
  return MlirWalkResultAdvance;
}

static int gen(int argc, char **argv) {
  const char *module_path = NULL, *out_path = NULL, *target = "sm_90";
  Gen *g = calloc(1, sizeof *g);
  for (int i = 2; i < argc; ++i) {
    if (strncmp(argv[i], "--target=", 9) == 0) target = argv[i] + 9;
    else if (strncmp(argv[i], "--baseline-us=", 14) == 0) {
      PrunerStatus fs = prunerParseDouble("--baseline-us", argv[i] + 14, 0, 1e9, &g->baseline_us);
      if (!fs.ok) {
        fprintf(stderr, "replaygen: %s\n", fs.message);
        free(g);
        return 2;
      }
    }
    else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) out_path = argv[++i];
    else module_path = argv[i];
  }
  if (!module_path || !out_path) {
    fprintf(stderr, "usage: replaygen gen MODULE --target=T -o FILE [--baseline-us=X]\n");
    return 2;
  }
  PrunerStatus st = prunerTargetLookup(target, &g->target);
  if (st.ok) {
    prunerTargetKey(&g->target, g->key, sizeof g->key);
    remove(out_path);
    st = prunerRecordsCreate(out_path, &g->out);
  }
  if (!st.ok) {
    fprintf(stderr, "replaygen: %s\n", st.message);
    return 1;
  }
  char *text = NULL;
  size_t n = 0;
  st = prunerReadFile(module_path, &text, &n);
  if (!st.ok) {
    fprintf(stderr, "replaygen: %s\n", st.message);
    return 1;
  }
  MlirContext ctx = prunerIrContextCreate();
  MlirModule m = mlirModuleCreateParse(ctx, mlirStringRefCreate(text, n));
  free(text);
  if (mlirModuleIsNull(m)) {
    fprintf(stderr, "replaygen: cannot parse %s\n", module_path);
    mlirContextDestroy(ctx);
    return 1;
  }
  mlirOperationWalk(mlirModuleGetOperation(m), visit, g, MlirWalkPreOrder);
  mlirModuleDestroy(m);
  mlirContextDestroy(ctx);
  prunerRecordsDestroy(g->out);
  int rc = g->failed;
  free(g);
  return rc;
}

static int check(const char *path) {
  PrunerRecords r;
  PrunerStatus st = prunerRecordsCreate(path, &r);
  if (!st.ok) {
    fprintf(stderr, "replaygen: %s\n", st.message);
    return 1;
  }
  size_t n = prunerRecordsCount(r), dup = 0, measured = 0;
  const PrunerRecord *best = NULL;
  for (size_t i = 0; i < n; ++i) {
    const PrunerRecord *a = prunerRecordsGet(r, i);
    if (a->is_baseline)
      continue;
    ++measured;
    for (size_t j = 0; j < i; ++j) {
      const PrunerRecord *b = prunerRecordsGet(r, j);
      if (!b->is_baseline && strcmp(a->workload_key, b->workload_key) == 0 &&
          strcmp(a->target_key, b->target_key) == 0 && prunerConfigEqual(&a->config, &b->config))
        ++dup;
    }
    if (a->status == PRUNER_RECORD_OK && (!best || a->median_us < best->median_us))
      best = a;
  }
  char text[128] = "-";
  if (best && best->has_workload)
    prunerConfigFormatShort(&best->workload, &best->config, text, sizeof text);
  printf("records %zu duplicates %zu best %s\n", measured, dup, text);
  prunerRecordsDestroy(r);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "gen") == 0)
    return gen(argc, argv);
  if (argc == 3 && strcmp(argv[1], "check") == 0)
    return check(argv[2]);
  fprintf(stderr, "usage: pruner-tune-replaygen gen|check ...\n");
  return 2;
}

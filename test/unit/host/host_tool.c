/* pruner-host-tool: a test helper over the host library (the lit tests of test/lit/host
 * and manual debugging). It reads the first tunable linalg op of an MLIR file and prints
 * one stage of its host compilation, or measures it.
 *
 *   pruner-host-tool FILE.mlir [--config='{workgroup = [..], ...}'] [--print=STAGE]
 *                    [--threads=N] [--opt-level=N] [--baseline] [--target=NAME] [-o FILE]
 *   STAGE: schedule (the transform module), bufferized, scheduled, llvm, measure (default),
 *          target (the host description), object (the JIT's machine code for the config,
 *          written to -o FILE, for llvm-objdump).
 *   --target=NAME: host (default; PRUNER_HOST_ISA applies) or host:avx512|avx2|sse.
 *   pruner-host-tool FILE.mlir --measure-space=RECORDS.jsonl [--threads=N]
 *                    [--order-seed=S]
 *          measures every valid config of the op's host space (and the OpenBLAS baseline
 *          when there is one) into a records file; resumes, skipping configs already in
 *          it. This is how data/ was made (data/README.md). --order-seed=S (S > 0) visits
 *          the configs in a seeded random order instead of index order, so that a period
 *          of contention on a shared machine slows random configs instead of a whole
 *          block of similar ones; passes with different seeds are independent.
 *          --configs=LIST measures only the configs LIST names, one pruner.config
 *          attribute per line, in that order, or in the order --order-seed=S gives (a
 *          sampled dataset's passes: data/host-attn-scores-wide.jsonl; how
 *          data/host-pack-pairs-amd.jsonl was made: docs/host.md, "Packing B").
 *   pruner-host-tool --merge-faster A.jsonl B.jsonl [C.jsonl ...] OUT.jsonl
 *          per record of A (only A's: a later file's other records are left out, with a
 *          warning), with every ok pass's median (passes_us), the fastest ok
 *          measurement of all passes (same workload,
 *          target and config; or the baseline): contention from other users of a shared
 *          machine only slows a run down, so the fastest pass is the best estimate.
 *          Prints how much the passes disagreed (slowest / fastest pass per config).
 *   pruner-host-tool --merge-costs COSTS.jsonl DATASET.jsonl OUT.jsonl
 *          per record of DATASET, its times unchanged, the compile_s and measure_s of the
 *          same config (or baseline) in COSTS, a later pass: what each candidate costs a
 *          tuner, for the study's wall-clock tuning time (data/README.md).
 * Without --config the op's own pruner.config is used; without either, the untiled
 * lowering. Exit status 1 on any failure (the message names what failed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/IR.h>

#include "pruner/file.h"
#include "pruner/flags.h"
#include "pruner/backend/host.h"
#include "pruner/ir.h"
#include "pruner/random.h"
#include "pruner/ir_context.h"

typedef struct Found {
  MlirOperation op;
} Found;

static MlirWalkResult findOp(MlirOperation op, void *user) {
  Found *f = user;
  if (mlirOperationIsNull(f->op) && prunerIsLinalgOp(op) && !prunerIsFusedLinalgOp(op)) {
    f->op = op;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

/* Shuffles configs[0..n) (Fisher-Yates) in the order seed `seed` gives (0: left as they
 * are). */
static void shuffleConfigs(PrunerConfig *configs, size_t n, uint64_t seed) {
  for (size_t i = n; seed && configs && i > 1; --i) {
    size_t j = (size_t)(prunerRandomNext(&seed) % i);
    PrunerConfig tmp = configs[i - 1];
    configs[i - 1] = configs[j];
    configs[j] = tmp;
  }
}

/* The valid configs of `space` in index order, or shuffled when seed > 0. Returns a
 * malloc'ed array of *count configs, NULL when out of memory. */
static PrunerConfig *spaceConfigs(PrunerSpace space, uint64_t seed, size_t *count) {
  size_t n = (size_t)prunerSpaceCount(space), k = 0;
  PrunerConfig *all = malloc((n ? n : 1) * sizeof *all);
  uint64_t raw = 0;
  while (all && k < n && prunerSpaceNext(space, &raw, &all[k]))
    ++k;
  shuffleConfigs(all, k, seed);
  *count = k;
  return all;
}

/* The whole host space of `w` (or the listed configs) into a records file (resumable). */
static int measureSpace(const PrunerWorkload *w, const PrunerTargetDesc *t, const char *target,
                        const char *path, int threads, uint64_t order_seed,
                        const PrunerConfig *listed, size_t num_listed) {
  PrunerRecords records;
  PrunerStatus st = prunerRecordsCreate(path, &records);
  PrunerSpace space = NULL;
  if (st.ok)
    st = prunerSpaceCreate(w, t, NULL, &space);
  PrunerHost host = NULL;
  PrunerHostOptions o = prunerHostDefaultOptions();
  o.target = target;
  o.threads = threads;
  o.min_samples = 5;
  o.max_samples = 10;
  o.min_sample_seconds = 0.05;
  if (st.ok)
    st = prunerHostCreate(&o, &host);
  if (!st.ok) {
    fprintf(stderr, "pruner-host-tool: %s\n", st.message);
    return 1;
  }
  char key[96];
  prunerTargetKey(t, key, sizeof key);
  size_t count = 0;
  PrunerConfig *order = NULL;
  if (listed) {
    order = malloc((num_listed ? num_listed : 1) * sizeof *order);
    if (order)
      memcpy(order, listed, num_listed * sizeof *order);
    count = num_listed;
    /* A sampled dataset's passes visit the same list, each in its own order. */
    shuffleConfigs(order, count, order_seed);
  } else {
    order = spaceConfigs(space, order_seed, &count);
  }
  if (!order)
    st = prunerStatusError("out of memory listing the %llu configs of %s",
                           (unsigned long long)prunerSpaceCount(space), w->key);
  uint64_t done = 0, ok = 0;
  PrunerHostResult r;
  if (st.ok && prunerHostHasBlasBaseline(w) && !prunerRecordsBaseline(records, w->key, key)) {
    prunerHostMeasureBaseline(host, w, &r);
    st = prunerRecordsAppend(records, &r.record);
    printf("openblas (core %s): %s %.1f us\n", r.baseline_core,
           prunerRecordStatusName(r.record.status), r.record.median_us);
  }
  for (size_t i = 0; st.ok && i < count; ++i) {
    const PrunerConfig *c = &order[i];
    ++done;
    if (prunerRecordsFind(records, w->key, key, c))
      continue;
    prunerHostMeasure(host, w, c, &r);
    ok += r.record.status == PRUNER_RECORD_OK;
    st = prunerRecordsAppend(records, &r.record);
    if (done % 100 == 0)
      printf("%llu/%zu measured\n", (unsigned long long)done, count);
    fflush(stdout);
  }
  printf("%s: %zu configs, %llu newly measured ok\n", w->key, count, (unsigned long long)ok);
  free(order);
  prunerHostDestroy(host);
  prunerSpaceDestroy(space);
  prunerRecordsDestroy(records);
  if (!st.ok)
    fprintf(stderr, "pruner-host-tool: %s\n", st.message);
  return st.ok ? 0 : 1;
}

static int cmpDouble(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* A merge's output, which must not exist yet: a records file appends, so merging into an
 * existing one would add a second copy of every record. */
static PrunerStatus createMergeOutput(const char *flag, const char *path, PrunerRecords *out) {
  FILE *existing = fopen(path, "r");
  if (existing) {
    fclose(existing);
    return prunerStatusError("%s: %s exists (records append to it); remove it first", flag, path);
  }
  return prunerRecordsCreate(path, out);
}

/* The record of pass `p` for the first pass's record `first`, or NULL. */
static const PrunerRecord *passRecord(PrunerRecords pass, const PrunerRecord *first) {
  return first->is_baseline ? prunerRecordsBaseline(pass, first->workload_key, first->target_key)
                            : prunerRecordsFind(pass, first->workload_key, first->target_key,
                                                &first->config);
}

/* Each later pass must hold the first pass's records under the same keys: a pass of
 * another machine (another target key) or workload matches none of them, and the merge
 * used to write the first pass unchanged and say nothing. Partial passes are named. */
static PrunerStatus checkPasses(PrunerRecords *passes, char **paths, int n) {
  size_t total = prunerRecordsCount(passes[0]);
  const char *key = total ? prunerRecordsGet(passes[0], 0)->target_key : "";
  for (int p = 1; p < n; ++p) {
    size_t found = 0;
    for (size_t i = 0; i < total; ++i)
      found += passRecord(passes[p], prunerRecordsGet(passes[0], i)) != NULL;
    if (total > 0 && found == 0) {
      size_t m = prunerRecordsCount(passes[p]);
      return prunerStatusError("--merge-faster: %s holds none of the %zu configs of %s under "
                               "their keys (%s's first record: target %s; %s's: %s): passes "
                               "of another machine or workload are not merged",
                               paths[p], total, paths[0], paths[0], key, paths[p],
                               m ? prunerRecordsGet(passes[p], 0)->target_key : "none");
    }
    if (found < total)
      fprintf(stderr, "pruner-host-tool: warning: %s holds %zu of the %zu records of %s; the "
                      "others are merged from the passes that hold them\n",
              paths[p], found, total, paths[0]);
    /* The output holds the first pass's configs only: a later pass's own configs (a
     * pass 1 measured in halves and not concatenated) would vanish without a word. */
    size_t m = prunerRecordsCount(passes[p]), extra = 0;
    for (size_t j = 0; j < m; ++j)
      extra += passRecord(passes[0], prunerRecordsGet(passes[p], j)) == NULL;
    if (extra > 0)
      fprintf(stderr,
              "pruner-host-tool: warning: %zu of the %zu records of %s are not in %s "
              "and are left out (the merge keeps the first file's configs; "
              "concatenate a pass measured in parts into one file first)\n",
              extra, m, paths[p], paths[0]);
  }
  return prunerStatusOk();
}

/* Per record of the first pass, the fastest ok measurement over all `n` passes, with each
 * ok pass's median (`passes_us`). */
static int mergeFaster(char **paths, int n, const char *out_path) {
  PrunerRecords passes[16], out = NULL;
  PrunerStatus st = prunerStatusOk();
  int opened = 0;
  if (n < 2 || n > 16)
    st = prunerStatusError("--merge-faster takes 2 to 16 passes, got %d", n);
  for (; st.ok && opened < n; ++opened) {
    st = prunerRecordsCreateReadOnly(paths[opened], &passes[opened]);
    if (!st.ok)
      break;
  }
  if (st.ok)
    st = checkPasses(passes, paths, n);
  if (st.ok)
    st = createMergeOutput("--merge-faster", out_path, &out);
  size_t total = st.ok ? prunerRecordsCount(passes[0]) : 0, compared = 0;
  size_t from_later = 0, over_1_5 = 0;
  /* slowest / fastest pass, and second fastest / fastest: how far contention spread the
   * passes, and how well a second pass confirms the fastest. */
  double *ratios = malloc((total ? total : 1) * sizeof *ratios);
  double *seconds = malloc((total ? total : 1) * sizeof *seconds);
  if (!ratios || !seconds)
    st = prunerStatusError("out of memory");
  for (size_t i = 0; st.ok && i < total; ++i) {
    const PrunerRecord *first = prunerRecordsGet(passes[0], i), *pick = first;
    double lo = 0, hi = 0, second = 0, pass_us[PRUNER_MAX_PASSES];
    int ok_passes = 0;
    for (int p = 0; p < n; ++p) {
      const PrunerRecord *r = p == 0 ? first : passRecord(passes[p], first);
      if (!r || r->status != PRUNER_RECORD_OK)
        continue;
      pass_us[ok_passes] = r->median_us;
      if (!ok_passes++ || r->median_us < lo) {
        second = ok_passes > 1 ? lo : 0;
        lo = r->median_us;
      } else if (second == 0 || r->median_us < second) {
        second = r->median_us;
      }
      if (r->median_us > hi)
        hi = r->median_us;
      if (pick->status != PRUNER_RECORD_OK || r->median_us < pick->median_us)
        pick = r;
    }
    from_later += pick != first;
    if (ok_passes == n && lo > 0) {
      seconds[compared] = second / lo;
      ratios[compared++] = hi / lo;
      over_1_5 += hi / lo > 1.5;
    }
    /* The kept record carries every ok pass's median: its own pass-to-pass spread. */
    PrunerRecord merged = *pick;
    merged.num_passes = ok_passes > 1 ? ok_passes : 0;
    memcpy(merged.passes_us, pass_us, (size_t)merged.num_passes * sizeof *pass_us);
    st = prunerRecordsAppend(out, &merged);
  }
  if (st.ok && compared) {
    qsort(ratios, compared, sizeof *ratios, cmpDouble);
    qsort(seconds, compared, sizeof *seconds, cmpDouble);
    printf("%zu records, %zu fastest in a later pass; over %zu configs: slowest/fastest pass "
           "median %.3fx, p90 %.3fx, max %.3fx, %zu over 1.5x; second fastest/fastest "
           "median %.3fx, p90 %.3fx\n",
           total, from_later, compared, ratios[compared / 2], ratios[compared * 9 / 10],
           ratios[compared - 1], over_1_5, seconds[compared / 2], seconds[compared * 9 / 10]);
  }
  free(ratios);
  free(seconds);
  for (int p = 0; p < opened; ++p)
    prunerRecordsDestroy(passes[p]);
  if (out)
    prunerRecordsDestroy(out);
  if (!st.ok)
    fprintf(stderr, "pruner-host-tool: %s\n", st.message);
  return st.ok ? 0 : 1;
}

/* Per record of `dataset`, the costs (compile_s, measure_s) of the same config in `costs`. */
static int mergeCosts(const char *costs_path, const char *dataset_path, const char *out_path) {
  PrunerRecords costs = NULL, dataset = NULL, out = NULL;
  PrunerStatus st = prunerRecordsCreateReadOnly(costs_path, &costs);
  if (st.ok)
    st = prunerRecordsCreateReadOnly(dataset_path, &dataset);
  if (st.ok)
    st = createMergeOutput("--merge-costs", out_path, &out);
  size_t total = st.ok ? prunerRecordsCount(dataset) : 0, found = 0;
  for (size_t i = 0; st.ok && i < total; ++i) {
    PrunerRecord r = *prunerRecordsGet(dataset, i);
    const PrunerRecord *c =
        r.is_baseline ? prunerRecordsBaseline(costs, r.workload_key, r.target_key)
                      : prunerRecordsFind(costs, r.workload_key, r.target_key, &r.config);
    if (c && c->measure_s > 0) {
      r.compile_s = c->compile_s;
      r.measure_s = c->measure_s;
      ++found;
    }
    st = prunerRecordsAppend(out, &r);
  }
  if (st.ok)
    printf("%zu records, %zu with costs from %s\n", total, found, costs_path);
  if (st.ok && found < total)
    st = prunerStatusError("%zu record(s) of %s have no measured cost in %s", total - found,
                           dataset_path, costs_path);
  if (costs)
    prunerRecordsDestroy(costs);
  if (dataset)
    prunerRecordsDestroy(dataset);
  if (out)
    prunerRecordsDestroy(out);
  if (!st.ok)
    fprintf(stderr, "pruner-host-tool: %s\n", st.message);
  return st.ok ? 0 : 1;
}

static void usage(FILE *f) {
  fputs("usage: pruner-host-tool FILE.mlir [--config='{workgroup = [..], ...}'] "
        "[--print=STAGE]\n"
        "                        [--threads=N] [--opt-level=N] [--baseline] [--target=NAME] "
        "[-o FILE]\n"
        "       pruner-host-tool FILE.mlir --measure-space=RECORDS.jsonl [--threads=N] "
        "[--order-seed=S] [--configs=LIST]\n"
        "       pruner-host-tool --print=target [--target=NAME]\n"
        "       pruner-host-tool --merge-faster A.jsonl B.jsonl [C.jsonl ...] OUT.jsonl\n"
        "       pruner-host-tool --merge-costs COSTS.jsonl DATASET.jsonl OUT.jsonl\n"
        "STAGE: schedule, bufferized, scheduled, llvm, measure (default), target, object "
        "(to -o FILE).\n"
        "--target: host (default; PRUNER_HOST_ISA applies) or host:avx512|avx2|sse.\n"
        "A test and data helper over the host library (docs/host.md, data/README.md).\n",
        f);
}

int main(int argc, char **argv) {
  if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    usage(stdout);
    return 0;
  }
  if (argc == 1) {
    usage(stderr);
    return 2;
  }
  if (argc == 5 && strcmp(argv[1], "--merge-costs") == 0)
    return mergeCosts(argv[2], argv[3], argv[4]);
  if (argc >= 5 && strcmp(argv[1], "--merge-faster") == 0)
    return mergeFaster(argv + 2, argc - 3, argv[argc - 1]);
  const char *input = NULL, *config_text = NULL, *print = "measure", *space_path = NULL;
  const char *target = "host", *output = NULL, *configs_path = NULL;
  int threads = 1, opt_level = -1; /* -1: the library's default */
  uint64_t order_seed = 0;
  bool baseline = false;
  for (int i = 1; i < argc; ++i) {
    PrunerStatus fs = prunerStatusOk(); /* a numeric flag's parse (pruner/flags.h) */
    int64_t n = 0;
    if (strncmp(argv[i], "--config=", 9) == 0)
      config_text = argv[i] + 9;
    else if (strncmp(argv[i], "--print=", 8) == 0)
      print = argv[i] + 8;
    else if (strncmp(argv[i], "--threads=", 10) == 0)
      fs = prunerParseInt("--threads", argv[i] + 10, 1, 1024, &n), threads = (int)n;
    else if (strncmp(argv[i], "--opt-level=", 12) == 0)
      fs = prunerParseInt("--opt-level", argv[i] + 12, 0, 3, &n), opt_level = (int)n;
    else if (strncmp(argv[i], "--measure-space=", 16) == 0)
      space_path = argv[i] + 16;
    else if (strncmp(argv[i], "--configs=", 10) == 0)
      configs_path = argv[i] + 10;
    else if (strncmp(argv[i], "--order-seed=", 13) == 0)
      fs = prunerParseUint64("--order-seed", argv[i] + 13, &order_seed);
    else if (strcmp(argv[i], "--baseline") == 0)
      baseline = true;
    else if (strncmp(argv[i], "--target=", 9) == 0)
      target = argv[i] + 9;
    else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
      output = argv[++i];
    else if (strcmp(argv[i], "-o") == 0) {
      fprintf(stderr, "pruner-host-tool: -o needs a file name\n");
      return 2;
    } else if (argv[i][0] != '-')
      input = argv[i];
    else {
      fprintf(stderr, "pruner-host-tool: unknown option %s (--help lists them)\n", argv[i]);
      return 2;
    }
    if (!fs.ok) {
      fprintf(stderr, "pruner-host-tool: %s\n", fs.message);
      return 2;
    }
  }
  PrunerTargetDesc t;
  PrunerStatus st = prunerTargetLookup(target, &t);
  if (st.ok && t.kind != PRUNER_TARGET_HOST)
    st = prunerStatusError("--target=%s is not the host CPU", target);
  if (!st.ok) {
    fprintf(stderr, "pruner-host-tool: %s\n", st.message);
    return 1;
  }
  if (strcmp(print, "target") == 0) {
    char key[96];
    prunerTargetKey(&t, key, sizeof key);
    PrunerHostInfo native;
    prunerHostDescribe(&native);
    const char *features = prunerHostTargetFeatures(&t);
    printf("key %s\ndevice %s\ncores %d\nlanes %d\nvector_registers %d\nclock_mhz %.0f\n"
           "peak_fp32_gflops %.1f\nl1d %d\nl2 %lld\nllc %d\nnative_isa %s\n"
           "llvm_features %s\n",
           key, t.device, t.sm_count, t.warp_size, t.regs_per_sm, t.boost_clock_mhz,
           t.peak_fp32_gflops, t.smem_per_sm, (long long)t.l2_bytes, t.smem_per_block,
           native.native_isa, features[0] ? features : "(native)");
    return 0;
  }
  if (!input) {
    fprintf(stderr, "pruner-host-tool: no input file\n");
    return 1;
  }
  char *text = NULL;
  PrunerStatus read = prunerReadFile(input, &text, NULL);
  if (!read.ok) {
    fprintf(stderr, "pruner-host-tool: %s\n", read.message);
    return 1;
  }
  MlirContext ctx = prunerIrContextCreate();
  mlirContextLoadAllAvailableDialects(ctx);
  free(text); /* read for its size limit; parsed from the file for its locations */
  MlirModule m = mlirModuleCreateParseFromFile(ctx, mlirStringRefCreateFromCString(input));
  if (mlirModuleIsNull(m)) {
    fprintf(stderr, "pruner-host-tool: %s does not parse\n", input);
    mlirContextDestroy(ctx);
    return 1;
  }
  Found found = {{NULL}};
  mlirOperationWalk(mlirModuleGetOperation(m), findOp, &found, MlirWalkPreOrder);
  PrunerWorkload w;
  if (mlirOperationIsNull(found.op)) {
    fprintf(stderr, "pruner-host-tool: no tunable linalg op in %s\n", input);
    mlirModuleDestroy(m);
    mlirContextDestroy(ctx);
    return 1;
  }
  st = prunerWorkloadFromOperation(found.op, &w);
  PrunerConfig config;
  bool has_config = false;
  if (st.ok) {
    /* LANES in --config stands for this CPU's f32 SIMD lanes, so that lit tests are
     * valid on AVX-512 and AVX2 machines alike. */
    char expanded[1024] = "";
    if (config_text) {
      size_t n = 0;
      for (const char *p = config_text; *p && n + 16 < sizeof expanded;) {
        if (strncmp(p, "LANES", 5) == 0) {
          n += (size_t)snprintf(expanded + n, sizeof expanded - n, "%d", t.warp_size);
          p += 5;
        } else {
          expanded[n++] = *p++;
        }
      }
      expanded[n] = '\0';
    }
    MlirAttribute attr =
        config_text ? mlirAttributeParseGet(ctx, mlirStringRefCreateFromCString(expanded))
                    : mlirOperationGetDiscardableAttributeByName(
                          found.op, mlirStringRefCreateFromCString(PRUNER_CONFIG_ATTR));
    if (config_text && mlirAttributeIsNull(attr))
      st = prunerStatusError("--config does not parse as an attribute");
    else if (!mlirAttributeIsNull(attr)) {
      st = prunerConfigFromAttribute(&w, attr, &config);
      has_config = st.ok;
    }
  }
  /* --configs: one attribute per line. */
  PrunerConfig *listed = NULL;
  size_t num_listed = 0;
  char *list_text = NULL;
  if (st.ok && configs_path)
    st = prunerReadFile(configs_path, &list_text, NULL);
  for (char *line = list_text, *next; st.ok && line && *line; line = next) {
    next = strchr(line, '\n');
    if (next)
      *next++ = '\0';
    else
      next = line + strlen(line);
    if (!*line)
      continue;
    PrunerConfig *grown = realloc(listed, (num_listed + 1) * sizeof *listed);
    if (!grown) {
      st = prunerStatusError("out of memory reading %s", configs_path);
      break;
    }
    listed = grown;
    MlirAttribute attr = mlirAttributeParseGet(ctx, mlirStringRefCreateFromCString(line));
    st = mlirAttributeIsNull(attr)
             ? prunerStatusError("%s: '%s' does not parse as an attribute", configs_path, line)
             : prunerConfigFromAttribute(&w, attr, &listed[num_listed]);
    num_listed += st.ok;
  }
  free(list_text);
  mlirModuleDestroy(m);
  mlirContextDestroy(ctx);
  if (!st.ok) {
    free(listed);
    fprintf(stderr, "pruner-host-tool: %s\n", st.message);
    return 1;
  }
  const PrunerConfig *c = has_config ? &config : NULL;
  if (space_path) {
    int rc = measureSpace(&w, &t, target, space_path, threads, order_seed,
                          configs_path ? listed : NULL, num_listed);
    free(listed);
    return rc;
  }
  free(listed);
  char *out = NULL;
  if (strcmp(print, "schedule") == 0) {
    st = prunerHostScheduleBuild(&w, c, &t, &out);
  } else if (strcmp(print, "bufferized") == 0 || strcmp(print, "scheduled") == 0 ||
             strcmp(print, "llvm") == 0) {
    int stage = print[0] == 'b' ? 0 : print[0] == 's' ? 1 : 2;
    st = prunerHostLowerText(&w, c, &t, stage, &out);
  } else if (strcmp(print, "object") == 0) {
    st = output ? prunerHostWriteObject(&w, c, &t, opt_level >= 0 ? opt_level : 0, output)
                : prunerStatusError("--print=object needs -o FILE");
  } else if (strcmp(print, "measure") == 0) {
    PrunerHostOptions o = prunerHostDefaultOptions();
    o.target = target;
    o.threads = threads;
    if (opt_level >= 0)
      o.opt_level = o.scalar_opt_level = opt_level;
    PrunerHost host;
    st = prunerHostCreate(&o, &host);
    if (st.ok) {
      PrunerHostResult r;
      if (baseline)
        prunerHostMeasureBaseline(host, &w, &r);
      else
        prunerHostMeasure(host, &w, c, &r);
      double gflops = r.record.median_us > 0 ? prunerWorkloadFlops(&w) / r.record.median_us / 1e3 : 0;
      printf("%s %s median_us %.1f gflops %.2f samples %d max_abs_error %g jit_s %.3f%s%s%s%s\n",
             baseline ? "openblas" : c ? "tuned" : "untiled",
             prunerRecordStatusName(r.record.status), r.record.median_us, gflops,
             r.record.num_samples, r.record.max_abs_error, r.compile_seconds,
             r.baseline_core[0] ? " core " : "", r.baseline_core,
             r.record.error[0] ? " error: " : "", r.record.error);
      st = r.record.status == PRUNER_RECORD_OK ? prunerStatusOk()
                                               : prunerStatusError("measurement failed");
      prunerHostDestroy(host);
    }
  } else {
    st = prunerStatusError("unknown --print=%s", print);
  }
  if (out) {
    fputs(out, stdout);
    free(out);
  }
  if (!st.ok) {
    fprintf(stderr, "pruner-host-tool: %s\n", st.message);
    return 1;
  }
  return 0;
}

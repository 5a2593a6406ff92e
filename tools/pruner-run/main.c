/* pruner-run: measures a bundle of compiled candidates on the local GPU.
 *
 *   pruner-run BUNDLE [-o records.jsonl] [--timeout=S] [--samples=N] [--seed=S]
 *              [--only-baseline] [--no-final]
 *
 * One record per candidate is appended (and flushed) to the records file; a rerun skips
 * what is already there. Exit codes: 0 done, 1 error, 3 no CUDA device. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pruner/file.h"
#include "pruner/flags.h"
#include "runner.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: pruner-run BUNDLE [-o RECORDS] [--timeout=S] [--samples=N] [--seed=S]\n"
          "                  [--only-baseline] [--no-final]\n"
          "Checks and times every candidate of BUNDLE (a folder with manifest.json and\n"
          "cubins) on CUDA device 0, plus cuBLAS per GEMM-shaped workload, and appends one\n"
          "JSON record per measurement to RECORDS (default BUNDLE/records.jsonl).\n"
          "  --timeout=S      per-candidate watchdog in seconds (default 10)\n"
          "  --samples=N      minimum timed samples per candidate (default 10, max %d)\n"
          "  --seed=S         input seed (default: the bundle's)\n"
          "  --only-baseline  measure cuBLAS only\n"
          "  --no-final       skip the interleaved re-measurement of the top %d\n"
          "Exit codes: 0 done, 1 error, 3 no CUDA device.\n",
          PRUNER_MAX_SAMPLES, RUN_FINAL_TOP);
}

/* The longest watchdog a flag may ask for: a day (a kernel that runs longer is hung). */
#define MAX_TIMEOUT_S 86400.0

static int badFlag(PrunerStatus st) {
  fprintf(stderr, "pruner-run: %s\n", st.message);
  return PRUNER_RUN_EXIT_ERROR;
}

int main(int argc, char **argv) {
  const char *bundle_dir = NULL, *records = NULL;
  PrunerRunOptions ro = prunerRunDefaultOptions();
  bool final_remeasure = true;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int64_t n;
    PrunerStatus st;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return PRUNER_RUN_EXIT_OK;
    } else if (!strcmp(a, "-o") && i + 1 < argc) {
      records = argv[++i];
    } else if (!strncmp(a, "--timeout=", 10)) {
      st = prunerParsePositiveDouble("--timeout", a + 10, MAX_TIMEOUT_S, &ro.timeout_seconds);
      if (!st.ok)
        return badFlag(st);
    } else if (!strncmp(a, "--samples=", 10)) {
      st = prunerParseInt("--samples", a + 10, 1, PRUNER_MAX_SAMPLES, &n);
      if (!st.ok)
        return badFlag(st);
      ro.samples = (int)n;
    } else if (!strncmp(a, "--seed=", 7)) {
      st = prunerParseUint64("--seed", a + 7, &ro.seed);
      if (!st.ok)
        return badFlag(st);
    } else if (!strcmp(a, "--only-baseline")) {
      ro.only_baseline = true;
    } else if (!strcmp(a, "--no-final")) {
      final_remeasure = false;
    } else if (a[0] == '-') {
      fprintf(stderr, "pruner-run: unknown option '%s'\n", a);
      usage(stderr);
      return PRUNER_RUN_EXIT_ERROR;
    } else if (!bundle_dir) {
      bundle_dir = a;
    } else {
      fprintf(stderr, "pruner-run: more than one bundle given ('%s', '%s')\n", bundle_dir, a);
      return PRUNER_RUN_EXIT_ERROR;
    }
  }
  if (!bundle_dir) {
    usage(stderr);
    return PRUNER_RUN_EXIT_ERROR;
  }
  PrunerBundle bundle;
  PrunerStatus st = prunerBundleRead(bundle_dir, &bundle);
  if (!st.ok) {
    fprintf(stderr, "pruner-run: %s\n", st.message);
    return PRUNER_RUN_EXIT_ERROR;
  }
  char default_records[4200];
  if (!records) {
    snprintf(default_records, sizeof(default_records), "%s/records.jsonl", bundle_dir);
    records = default_records;
  }
  /* Checked before the device is probed: the records file must be a file that can be
   * written, and not one of the bundle's own (its manifest, a cubin). */
  char manifest[4200], inside[8448]; /* the bundle folder, then the -o name */
  const char *base = strrchr(records, '/');
  snprintf(manifest, sizeof manifest, "%s/manifest.json", bundle_dir);
  snprintf(inside, sizeof inside, "%s/%s", bundle_dir, base ? base + 1 : records);
  const char *dot = strrchr(records, '.');
  bool cubin = dot && !strcmp(dot, ".cubin") && prunerSameFile(records, inside);
  st = prunerCheckOutputPath("-o", records);
  if (st.ok && (prunerSameFile(records, manifest) || cubin))
    st = prunerStatusError("-o %s: names the bundle's %s; the records go to a file of their "
                           "own (default: %s/records.jsonl)",
                           records, cubin ? "cubin" : "manifest", bundle_dir);
  if (!st.ok) {
    fprintf(stderr, "pruner-run: %s\n", st.message);
    prunerBundleDestroy(bundle);
    return PRUNER_RUN_EXIT_ERROR;
  }
  RunnerOptions opts = {
      .records_path = records,
      .timeout_seconds = ro.timeout_seconds,
      .prepare_timeout_seconds = 300,
      .samples = ro.samples,
      .seed = ro.seed,
      .only_baseline = ro.only_baseline,
      .final_remeasure = final_remeasure,
      .log = stdout,
  };
  printf("bundle %s: %zu workloads, %zu candidates, compiled for %s; records -> %s\n",
         bundle_dir, prunerBundleNumWorkloads(bundle), prunerBundleNumCandidates(bundle),
         prunerBundleTargetKey(bundle), records);
  void *ctx = runnerGpuContextCreate(bundle);
  int code = ctx ? runnerExecute(bundle, &opts, runnerGpuHandler, ctx) : PRUNER_RUN_EXIT_ERROR;
  runnerGpuContextDestroy(ctx);
  prunerBundleDestroy(bundle);
  if (code == PRUNER_RUN_EXIT_NO_DEVICE)
    fprintf(stderr, "pruner-run: no CUDA device; nothing measured\n");
  return code;
}

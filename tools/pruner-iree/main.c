/* pruner-iree: IREE backend checks and the rejection study (docs/iree.md).
 *
 *   pruner-iree --op=KIND --shape=AxBx... [--dtype=f32] [--random=N] [--seed=S]
 *               [--target=iree-cpu|sm_80|...] [--full] [--reps=R] [--spec=FILE]
 *               [--annotated=FILE] [--quiet]
 *
 * For N random valid configs of the workload's iree-cpu space (prunerSpaceSample): writes
 * the one-config tuning spec, runs iree-compile --compile-to=executable-configurations
 * with it and checks that the configured IR shows the config's lowering_config; with
 * --full, also compiles the module, runs it and compares its outputs with IREE's default
 * build (prunerIreeMeasure; R benchmark repetitions, default 1). Prints one line per config
 * and a summary (accepted, rejected, rate); exits 1 if any config was rejected or wrong,
 * 2 on bad usage or when IREE cannot run. --spec writes the last config's spec to FILE.
 * --target=ARCH (a GPU-table name such as sm_80): configs of the GPU space written as
 * IREE's GPU compilation info on the op (IREE 3.13's CUDA pipeline does not load tuning
 * specs, so --spec is refused there); --full then compiles to a .vmfb without running it
 * (no GPU needed). --annotated=FILE writes the last config's annotated module. --mma
 * (GPU targets) draws tensor-core configs only (f16 matmul / batch_matmul; docs/iree.md).
 * Kinds and shapes as pruner-compile's (prunerWorkloadBuild). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pruner/backend/iree.h"
#include "pruner/clock.h"
#include "pruner/file.h"
#include "pruner/random.h"
#include "pruner/space.h"

#define MAX_DIMS 10

static void usage(FILE *f) {
  fprintf(f, "usage: pruner-iree --op=KIND --shape=AxBx... [--dtype=f32] [--random=N] "
             "[--seed=S]\n"
             "                   [--target=iree-cpu|sm_80|...] [--full] [--reps=R]\n"
             "                   [--spec=FILE] [--annotated=FILE] [--mma] [--quiet]\n"
             "kinds: matmul (MxNxK), batch_matmul (BxMxNxK), conv_2d_nhwc_hwcf\n"
             "       (NxIHxIWxCxKHxKWxF[xSTRIDE[xDILATION]]), reduction (D0x..xDn: sum over "
             "the last)\n");
}

static bool parseShape(const char *s, int64_t *dims, int *n) {
  *n = 0;
  while (*s) {
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || v < 1 || *n == MAX_DIMS)
      return false;
    dims[(*n)++] = v;
    if (*end == 'x')
      ++end;
    else if (*end)
      return false;
    s = end;
  }
  return *n > 0;
}

/* The GPU configs IREE can state (prunerIreeGpuExpressible): FMA ones, or with --mma
 * tensor-core ones only. */
static bool oneReductionThread(const PrunerConfig *c, void *user) {
  (void)user;
  return prunerConfigReductionThreads(c) == 1 && !c->mma;
}
static bool tensorCore(const PrunerConfig *c, void *user) {
  (void)user;
  return c->mma != 0;
}

static bool putText(FILE *f, void *user) { return fputs(user, f) >= 0; }

/* Writes `text` (made with status `made`) to `path` atomically; false and a message
 * naming `flag` when it was not made or not written. */
static bool writeOutput(const char *flag, const char *path, PrunerStatus made, char *text) {
  PrunerStatus st = made.ok ? prunerWriteFileAtomic(path, putText, text) : made;
  if (!st.ok)
    fprintf(stderr, "pruner-iree: %s=%s: %s\n", flag, path, st.message);
  return st.ok;
}

int main(int argc, char **argv) {
  const char *op = NULL, *shape = NULL, *dtype = "f32", *spec_out = NULL, *target = "iree-cpu";
  const char *annotated_out = NULL;
  long n = 1, reps = 1;
  unsigned long long seed = 1;
  int full = 0, quiet = 0, mma = 0;
  static const struct option longopts[] = {{"op", required_argument, NULL, 'o'},
                                           {"shape", required_argument, NULL, 's'},
                                           {"dtype", required_argument, NULL, 'd'},
                                           {"random", required_argument, NULL, 'n'},
                                           {"seed", required_argument, NULL, 'S'},
                                           {"full", no_argument, NULL, 'f'},
                                           {"reps", required_argument, NULL, 'r'},
                                           {"spec", required_argument, NULL, 'p'},
                                           {"quiet", no_argument, NULL, 'q'},
                                           {"help", no_argument, NULL, 'h'},
                                           {"target", required_argument, NULL, 't'},
                                           {"annotated", required_argument, NULL, 'a'},
                                           {"mma", no_argument, NULL, 'm'},
                                           {NULL, 0, NULL, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    char *end = NULL;
    switch (c) {
    case 'o':
      op = optarg;
      break;
    case 'm':
      mma = 1;
      break;
    case 's':
      shape = optarg;
      break;
    case 'd':
      dtype = optarg;
      break;
    case 'n':
      n = strtol(optarg, &end, 10);
      if (*end || n < 1 || n > 100000) {
        fprintf(stderr, "pruner-iree: --random=%s: expected 1..100000\n", optarg);
        return 2;
      }
      break;
    case 'S':
      seed = strtoull(optarg, &end, 10);
      if (*end) {
        fprintf(stderr, "pruner-iree: --seed=%s: expected an integer\n", optarg);
        return 2;
      }
      break;
    case 'r':
      reps = strtol(optarg, &end, 10);
      if (*end || reps < 1 || reps > PRUNER_MAX_SAMPLES) {
        fprintf(stderr, "pruner-iree: --reps=%s: expected 1..%d\n", optarg, PRUNER_MAX_SAMPLES);
        return 2;
      }
      break;
    case 'f':
      full = 1;
      break;
    case 'p':
      spec_out = optarg;
      break;
    case 'q':
      quiet = 1;
      break;
    case 't':
      target = optarg;
      break;
    case 'a':
      annotated_out = optarg;
      break;
    case 'h':
      usage(stdout);
      return 0;
    default:
      usage(stderr);
      return 2;
    }
  }
  if (!op || !shape || optind != argc) {
    usage(stderr);
    return 2;
  }
  /* The outputs are written after the IREE work: paths that cannot be are refused now. */
  const struct {
    const char *flag, *path;
  } outs[] = {{"--spec", spec_out}, {"--annotated", annotated_out}};
  for (int i = 0; i < 2; ++i) {
    PrunerStatus ok = outs[i].path ? prunerCheckOutputPath(outs[i].flag, outs[i].path)
                                   : prunerStatusOk();
    if (!ok.ok) {
      fprintf(stderr, "pruner-iree: %s\n", ok.message);
      return 2;
    }
  }
  if (spec_out && annotated_out && prunerSameFile(spec_out, annotated_out)) {
    fprintf(stderr, "pruner-iree: --spec and --annotated name the same file (%s): one would "
                    "overwrite the other\n", spec_out);
    return 2;
  }
  int64_t dims[MAX_DIMS];
  int ndims;
  if (!parseShape(shape, dims, &ndims)) {
    fprintf(stderr, "pruner-iree: --shape=%s: expected positive sizes like 64x64x64\n", shape);
    return 2;
  }
  PrunerDType dt;
  if (!prunerDTypeParse(dtype, &dt)) {
    fprintf(stderr, "pruner-iree: --dtype=%s: unknown\n", dtype);
    return 2;
  }
  PrunerWorkload w;
  PrunerStatus st = prunerWorkloadBuild(op, dims, ndims, dt, &w);
  PrunerTargetDesc t;
  if (st.ok)
    st = prunerTargetLookup(target, &t);
  if (st.ok && t.kind != PRUNER_TARGET_IREE_CPU && t.kind != PRUNER_TARGET_GPU)
    st = prunerStatusError("--target=%s: expected iree-cpu or a GPU (sm_80, a100-40gb, ...)",
                           target);
  if (st.ok && spec_out && t.kind == PRUNER_TARGET_GPU)
    st = prunerStatusError("--spec with --target=%s: IREE 3.13's CUDA pipeline does not load "
                           "tuning specs; use --annotated=FILE (the config as the op's "
                           "compilation_info)",
                           target);
  if (st.ok && mma && t.kind != PRUNER_TARGET_GPU)
    st = prunerStatusError("--mma with --target=%s: tensor-core configs are for GPU targets "
                           "(sm_80, a100-40gb, ...)",
                           target);
  PrunerSpace space = NULL;
  if (st.ok)
    st = prunerSpaceCreate(&w, &t, NULL, &space);
  /* Tensor-core configs are a small share of a GPU space: list them first, then draw. */
  if (st.ok && mma) {
    st = prunerSpaceRestrict(space, tensorCore, NULL);
    if (st.ok && prunerSpaceCount(space) == 0)
      st = prunerStatusError("--mma: the space of %s on %s holds no tensor-core config (they "
                             "take f16 x f16 -> f32 matmul and batch_matmul, A[m, k] x B[k, n], "
                             "on sm_80 and later, with M, N and K of at least one m16n8k16 "
                             "intrinsic; docs/config.md, \"mma\")",
                             w.key, t.name);
  }
  char version[256] = "";
  if (st.ok)
    st = prunerIreeCheckTools(version, sizeof version);
  if (!st.ok) {
    fprintf(stderr, "pruner-iree: %s\n", st.message);
    prunerSpaceDestroy(space);
    return 2;
  }
  PrunerConfig *configs = calloc((size_t)n, sizeof *configs);
  uint64_t rng = seed ? seed : 1;
  /* IREE's GPU configs cannot express reduction_threads > 1 (prunerIreeGpuConfigCheck). */
  size_t got = configs ? prunerSpaceSample(space, (size_t)n, &rng,
                                           t.kind != PRUNER_TARGET_GPU || mma ? NULL
                                                                              : oneReductionThread,
                                           NULL, configs, NULL)
                       : 0;
  printf("workload %s on %s (%s): %llu valid configs, %zu drawn\n", w.key, t.name, version,
         (unsigned long long)prunerSpaceCount(space), got);
  PrunerIreeOptions io = prunerIreeDefaultOptions();
  io.repetitions = (int)reps;
  PrunerIree iree = NULL;
  st = prunerIreeCreate(&t, &io, &iree);
  if (!st.ok) {
    fprintf(stderr, "pruner-iree: %s\n", st.message);
    free(configs);
    prunerSpaceDestroy(space);
    return 2;
  }
  size_t accepted = 0, rejected = 0, wrong = 0;
  double t0 = prunerNowSeconds();
  for (size_t i = 0; i < got; ++i) {
    char lowering[1024];
    if (t.kind == PRUNER_TARGET_GPU)
      prunerIreeGpuLoweringConfig(&w, &configs[i], lowering, sizeof lowering);
    else
      prunerIreeCpuLoweringConfig(&w, &configs[i], lowering, sizeof lowering);
    char *text = NULL;
    st = prunerIreeConfigsText(iree, &w, &configs[i], &text);
    bool shown = st.ok && strstr(text, lowering) != NULL;
    free(text);
    const char *verdict = "ok";
    char detail[600] = "";
    if (!st.ok) {
      verdict = "rejected";
      snprintf(detail, sizeof detail, ": %s", st.message);
    } else if (!shown) {
      verdict = "not-applied";
      snprintf(detail, sizeof detail, ": the configured IR does not show the config");
    } else if (full) {
      PrunerRecord r;
      double compile_s = 0;
      prunerIreeMeasure(iree, &w, &configs[i], &r, &compile_s);
      if (r.status == PRUNER_RECORD_OK && t.kind == PRUNER_TARGET_GPU)
        snprintf(detail, sizeof detail, ": compiled for CUDA %s in %.2f s (not run)", t.arch,
                 compile_s);
      else if (r.status == PRUNER_RECORD_OK)
        snprintf(detail, sizeof detail,
                 ": compiled in %.2f s, results equal IREE's default "
                 "build (max abs error %.3g), %.2f us",
                 compile_s, r.max_abs_error, r.median_us);
      else {
        verdict = r.status == PRUNER_RECORD_WRONG_RESULT ? "wrong" : "rejected";
        snprintf(detail, sizeof detail, ": %s: %s", prunerRecordStatusName(r.status), r.error);
      }
    }
    if (strcmp(verdict, "ok") == 0)
      ++accepted;
    else if (strcmp(verdict, "wrong") == 0)
      ++wrong;
    else
      ++rejected;
    if (!quiet || strcmp(verdict, "ok") != 0)
      printf("config %zu: %s: %s%s\n", i, lowering, verdict, detail);
  }
  double seconds = prunerNowSeconds() - t0;
  printf("summary: %zu configs, %zu accepted, %zu rejected, %zu wrong (rejection rate %.1f%%), "
         "%s, %.1f s\n",
         got, accepted, rejected, wrong,
         got ? 100.0 * (double)(rejected + wrong) / (double)got : 0.0,
         !full                         ? "executable-configurations"
         : t.kind == PRUNER_TARGET_GPU ? "full compile (CUDA, not run)"
                                       : "full compile + run",
         seconds);
  bool written = true; /* an output asked for and not written fails the command */
  if (spec_out && got) {
    char *text = NULL;
    const PrunerWorkload *wp = &w;
    st = prunerIreeSpecText(&t, &wp, &configs[got - 1], 1, &text, NULL);
    written = writeOutput("--spec", spec_out, st, text) && written;
    free(text);
  }
  if (annotated_out && got) {
    char *text = NULL;
    st = prunerIreeAnnotatedModuleText(&w, &t, &configs[got - 1], &text);
    written = writeOutput("--annotated", annotated_out, st, text) && written;
    free(text);
  }
  prunerIreeDestroy(iree);
  free(configs);
  prunerSpaceDestroy(space);
  return got > 0 && rejected == 0 && wrong == 0 && written ? 0 : 1;
}

/* pruner-compile: compiles one config, or N random valid configs of a workload's space,
 * to cubins and reports per candidate status, registers, spills, shared memory and time,
 * then a summary (compiled, rejected by reason, timeouts, rate, MLIR vs ptxas split).
 *
 *   pruner-compile --op=matmul --shape=1024x1024x1024 [--dtype=f32]
 *                  [--config='{workgroup = [...], ...}' | --random=N --seed=S]
 *                  [--target=sm_90] [--jobs=2] [--timeout=S] [--memory-mb=MB]
 *                  [--format=cubin|ptx]
 *                  [--out=DIR] [--quiet]
 *   pruner-compile --input=FILE.mlir [--op-index=I] ...     (a linalg op of a module)
 *
 * Shapes: matmul MxNxK; batch_matmul BxMxNxK; conv_2d_nhwc_hwcf NxIHxIWxCxKHxKWxF[xSTRIDE
 * [xDILATION]]; conv_2d_nchw_fchw NxCxIHxIWxFxKHxKW[xSTRIDE[xDILATION]]; elementwise
 * D0x..xDn (out = a + b); reduction D0x..xDn (sum over the last dimension); the workloads
 * come from prunerWorkloadBuild, random configs from prunerSpaceSample. With --out, compiled candidates form a bundle (manifest.json
 * + cubins) that pruner-run measures. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/IR.h>

#include "pruner/clock.h"
#include "pruner/compile.h"
#include "pruner/draft.h"
#include "pruner/file.h"
#include "pruner/flags.h"
#include "pruner/ir.h"
#include "pruner/ir_context.h"
#include "pruner/random.h"
#include "pruner/space.h"
#ifdef PRUNER_HAVE_MEASURE
#include "pruner/measure.h"
#endif

#define MAX_DIMS 10

typedef struct Args {
  const char *op, *shape, *config, *target, *out, *input, *format;
  const char *dtype;
  long random, jobs, op_index, memory_mb, min_reduction_threads, vector_width;
  uint64_t seed;
  double timeout;
  int quiet, study_registers, mma, igemm, split_k;
} Args;

/* The space's listed configs a --random draw may be restricted to. */
typedef enum ListedKind { LISTED_IGEMM = 0, LISTED_MMA, LISTED_SPLIT_K } ListedKind;

/* --mma, --implicit-gemm and --split-k draws: the tensor-core, implicit-GEMM and split-K
 * configs are the space's listed tail, too rare for the sampler's bounded redraws, so they
 * are listed (index order) and shuffled. Returns how many of them land in configs /
 * indices (at most n). */
static size_t sampleListed(PrunerSpace space, ListedKind kind, size_t n, uint64_t *rng,
                           PrunerConfig *configs, uint64_t *indices) {
  size_t cap = 256, count = 0;
  PrunerConfig *all = malloc(cap * sizeof *all);
  uint64_t *idx = malloc(cap * sizeof *idx);
  uint64_t raw = 0, index = 0;
  PrunerConfig c;
  /* Implicit GEMM: promote_operands on a conv_2d_nhwc_hwcf (on a matmul it is promotion). */
  bool conv = prunerSpaceGetWorkload(space)->kind == PRUNER_OP_CONV_2D_NHWC_HWCF;
  while (all && idx && prunerSpaceNext(space, &raw, &c)) {
    bool pick = kind == LISTED_MMA       ? c.mma != 0
                : kind == LISTED_SPLIT_K ? prunerConfigSplitK(&c) > 1
                                         : conv && c.promote_operands != 0;
    if (pick) {
      if (count == cap) {
        cap *= 2;
        PrunerConfig *a2 = realloc(all, cap * sizeof *all);
        uint64_t *i2 = a2 ? realloc(idx, cap * sizeof *idx) : NULL;
        if (a2)
          all = a2;
        if (!i2)
          break;
        idx = i2;
      }
      all[count] = c;
      idx[count++] = index;
    }
    ++index;
  }
  size_t take = count < n ? count : n;
  for (size_t i = 0; i < take; ++i) { /* partial Fisher-Yates */
    size_t j = i + (size_t)(prunerRandomNext(rng) % (count - i));
    configs[i] = all[j], indices[i] = idx[j];
    all[j] = all[i], idx[j] = idx[i];
  }
  free(all);
  free(idx);
  return take;
}

/* --min-reduction-threads: keep configs whose reduction_threads is at least *user. */
static bool enoughReductionThreads(const PrunerConfig *c, void *user) {
  return prunerConfigReductionThreads(c) >= *(const long *)user;
}

/* --vector-width: keep configs of exactly that width. */
static bool hasVectorWidth(const PrunerConfig *c, void *user) {
  return c->vector_width == *(const long *)user;
}

static void usage(FILE *f) {
  fprintf(f, "usage: pruner-compile (--op=KIND --shape=AxBx... | --input=FILE.mlir "
             "[--op-index=I])\n"
             "         [--dtype=f32] [--config='{...}' | --random=N [--seed=S]] [--target=sm_90]\n"
             "         [--jobs=N] [--timeout=SECONDS] [--memory-mb=MB] [--format=cubin|ptx]\n"
             "         [--min-reduction-threads=R | --mma | --implicit-gemm | --split-k |\n"
             "          --vector-width=W]\n"
             "         [--study-registers]\n"
             "         [--out=DIR] [--quiet]\n"
             "kinds: matmul (MxNxK), batch_matmul (BxMxNxK),\n"
             "       conv_2d_nhwc_hwcf (NxIHxIWxCxKHxKWxF[xSTRIDE[xDILATION]]),\n"
             "       conv_2d_nchw_fchw (NxCxIHxIWxFxKHxKW[xSTRIDE[xDILATION]]),\n"
             "       elementwise (D0x..xDn: a + b), reduction (D0x..xDn: sum over the last)\n");
}

/* Flag ranges (docs/compile.md): --random and --op-index count configs and ops, --jobs
 * workers, --memory-mb a worker's address space. */
#define MAX_COUNT 100000000L
#define MAX_JOBS 1024L
#define MAX_MEMORY_MB (1L << 24)
#define MAX_TIMEOUT_S 86400.0

static int parseArgs(int argc, char **argv, Args *a) {
  memset(a, 0, sizeof(*a));
  a->target = "sm_90";
  a->dtype = "f32";
  a->format = "cubin";
  a->seed = 1;
  a->timeout = -1;
  for (int i = 1; i < argc; ++i) {
    const char *s = argv[i];
    const char *v = strchr(s, '=');
    v = v ? v + 1 : "";
    PrunerStatus fs = prunerStatusOk(); /* a numeric flag's parse (pruner/flags.h) */
    int64_t n = 0;
#define OPT(name) (strncmp(s, "--" name "=", strlen(name) + 3) == 0)
    if (OPT("op"))
      a->op = v;
    else if (OPT("shape"))
      a->shape = v;
    else if (OPT("dtype"))
      a->dtype = v;
    else if (OPT("config") && a->config) /* one config per run: a second replaced it */
      fs = prunerStatusError("--config given twice; compile several with --random=N or one "
                             "command each");
    else if (OPT("config"))
      a->config = v;
    else if (OPT("random"))
      fs = prunerParseInt("--random", v, 0, MAX_COUNT, &n), a->random = (long)n;
    else if (OPT("seed"))
      fs = prunerParseUint64("--seed", v, &a->seed);
    else if (OPT("target"))
      a->target = v;
    else if (OPT("jobs"))
      fs = prunerParseInt("--jobs", v, 0, MAX_JOBS, &n), a->jobs = (long)n;
    else if (OPT("timeout"))
      fs = prunerParsePositiveDouble("--timeout", v, MAX_TIMEOUT_S, &a->timeout);
    else if (OPT("format"))
      a->format = v;
    else if (OPT("out"))
      a->out = v;
    else if (OPT("input"))
      a->input = v;
    else if (OPT("op-index"))
      fs = prunerParseInt("--op-index", v, 0, MAX_COUNT, &n), a->op_index = (long)n;
    else if (OPT("vector-width"))
      fs = prunerParseInt("--vector-width", v, 1, 8, &n), a->vector_width = (long)n;
    else if (OPT("min-reduction-threads"))
      fs = prunerParseInt("--min-reduction-threads", v, 1, 1024, &n),
      a->min_reduction_threads = (long)n;
    else if (OPT("memory-mb"))
      fs = prunerParseInt("--memory-mb", v, 0, MAX_MEMORY_MB, &n), a->memory_mb = (long)n;
    else if (strcmp(s, "--quiet") == 0)
      a->quiet = 1;
    else if (strcmp(s, "--study-registers") == 0)
      a->study_registers = 1;
    else if (strcmp(s, "--mma") == 0)
      a->mma = 1;
    else if (strcmp(s, "--implicit-gemm") == 0)
      a->igemm = 1;
    else if (strcmp(s, "--split-k") == 0)
      a->split_k = 1;
    else if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
      usage(stdout);
      exit(0);
    } else {
      fprintf(stderr, "pruner-compile: unknown argument '%s'\n", s);
      return 2;
    }
#undef OPT
    if (!fs.ok) {
      fprintf(stderr, "pruner-compile: %s\n", fs.message);
      return 2;
    }
  }
  if (!a->op == !a->input || (a->op && !a->shape)) {
    fprintf(stderr, "pruner-compile: give --op with --shape, or --input\n");
    usage(stderr);
    return 2;
  }
  if ((a->min_reduction_threads || a->mma || a->igemm || a->split_k || a->vector_width) &&
      !a->random) {
    fprintf(stderr, "pruner-compile: %s filters --random draws\n",
            a->mma ? "--mma" : a->igemm ? "--implicit-gemm" : a->split_k ? "--split-k"
            : a->vector_width ? "--vector-width" : "--min-reduction-threads");
    return 2;
  }
  if ((a->min_reduction_threads != 0) + a->mma + a->igemm + a->split_k + (a->vector_width != 0) >
      1) {
    fprintf(stderr, "pruner-compile: --min-reduction-threads, --mma, --implicit-gemm, "
                    "--split-k and --vector-width exclude each other\n");
    return 2;
  }
  if (a->config && a->random) {
    fprintf(stderr, "pruner-compile: --config and --random exclude each other\n");
    return 2;
  }
  if (strcmp(a->format, "cubin") != 0 && strcmp(a->format, "ptx") != 0) {
    fprintf(stderr, "pruner-compile: --format must be cubin or ptx, not '%s'\n", a->format);
    return 2;
  }
  if (a->out && strcmp(a->format, "ptx") == 0) {
    fprintf(stderr, "pruner-compile: --out writes a bundle of cubins; drop --format=ptx\n");
    return 2;
  }
  /* Checked before compiling: a bundle folder that cannot be one is known now. */
  struct stat st;
  if (a->out && (!a->out[0] || (stat(a->out, &st) == 0 && !S_ISDIR(st.st_mode)))) {
    fprintf(stderr, "pruner-compile: --out=%s: %s\n", a->out,
            a->out[0] ? "exists and is not a folder (a bundle is a folder)" : "empty path");
    return 2;
  }
  return 0;
}

static int parseShape(const char *text, int64_t *dims) {
  int n = 0;
  const char *p = text;
  while (*p && n < MAX_DIMS) {
    char *end;
    errno = 0;
    long long v = strtoll(p, &end, 10);
    if (end == p || v <= 0 || errno)
      return -1;
    dims[n++] = v;
    if (*end == '\0')
      return n;
    if (*end != 'x')
      return -1;
    p = end + 1;
  }
  return -1;
}

/* ---- workloads written as MLIR text (generics, --input) ---------------------------- */

typedef struct OpSearch {
  long wanted, seen;
  PrunerWorkload *out;
  PrunerStatus status;
  bool found;
} OpSearch;

static MlirWalkResult findTunableOp(MlirOperation op, const PrunerWorkload *w,
                                    const PrunerStatus *why, void *userData) {
  OpSearch *s = userData;
  if (!w) {
    /* Not tunable (dynamic or empty shapes, an unsupported op): said with its location,
     * as pruner-draft and pruner-tune do, so "0 tunable ops" has its reasons. */
    char loc[256];
    prunerOperationLocationString(op, loc, sizeof loc);
    fprintf(stderr, "pruner-compile: remark: %s: skipped: %s\n", loc,
            why ? why->message : "not tunable");
    return MlirWalkResultAdvance;
  }
  if (s->seen++ == s->wanted) {
    *s->out = *w;
    s->found = true;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

/* `text` (`size` bytes) is the content of `path`. A file is parsed from its path, so that
 * locations and errors name it and MLIR bytecode is read too; standard input ("-") from
 * the bytes read, all of them (a NUL inside the text does not end it). */
static PrunerStatus workloadFromText(MlirContext ctx, const char *path, const char *text,
                                     size_t size, long index, PrunerWorkload *w) {
  PrunerStatus crashed = prunerIrCheckParseIsolated(text, size, path);
  if (!crashed.ok)
    return crashed;
  MlirModule module =
      strcmp(path, "-") == 0
          ? mlirModuleCreateParse(ctx, mlirStringRefCreate(text, size))
          : mlirModuleCreateParseFromFile(ctx, mlirStringRefCreateFromCString(path));
  if (mlirModuleIsNull(module))
    return prunerStatusError("'%s' does not parse (see MLIR's message above)", path);
  OpSearch s = {.wanted = index, .seen = 0, .out = w, .found = false};
  prunerWalkTunableOps(mlirModuleGetOperation(module), findTunableOp, &s);
  mlirModuleDestroy(module);
  if (!s.found)
    return prunerStatusError("op index %ld: '%s' has %ld tunable linalg ops", index, path, s.seen);
  return prunerStatusOk();
}

static PrunerStatus buildWorkload(const Args *a, MlirContext ctx, PrunerWorkload *w) {
  if (a->input) {
    char *text = NULL;
    size_t size = 0;
    PrunerStatus read = prunerReadFile(a->input, &text, &size);
    if (!read.ok)
      return read;
    PrunerStatus s = workloadFromText(ctx, a->input, text, size, a->op_index, w);
    free(text);
    return s;
  }
  PrunerDType dt;
  if (!prunerDTypeParse(a->dtype, &dt))
    return prunerStatusError("--dtype: unknown element type '%s'", a->dtype);
  int64_t d[MAX_DIMS];
  int n = parseShape(a->shape, d);
  if (n < 0)
    return prunerStatusError("--shape: '%s' is not a list of positive sizes like 64x64x64",
                             a->shape);
  PrunerStatus s = prunerWorkloadBuild(a->op, d, n, dt, w);
  if (!s.ok)
    return prunerStatusError("--op=%s --shape=%s: %s", a->op, a->shape, s.message);
  return s;
}

/* ---- candidates ---------------------------------------------------------------------- */

/* CPU seconds of reaped children (the workers and their ptxas runs). */
static double childCpuSeconds(void) {
  struct rusage u;
  getrusage(RUSAGE_CHILDREN, &u);
  return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

/* ---- report -------------------------------------------------------------------------- */

typedef struct Reason {
  char text[PRUNER_STATUS_MESSAGE_SIZE]; /* whole messages: a cut one read "... at le" */
  int count;
} Reason;

/* Groups messages by their text with numbers replaced by N. */
static void addReason(Reason *reasons, int *num, int max, const char *message) {
  char key[PRUNER_STATUS_MESSAGE_SIZE];
  size_t k = 0;
  for (const char *p = message; *p && k + 2 < sizeof(key); ++p) {
    if (*p >= '0' && *p <= '9') {
      if (k == 0 || key[k - 1] != 'N')
        key[k++] = 'N';
      while (p[1] >= '0' && p[1] <= '9')
        ++p;
    } else {
      key[k++] = *p;
    }
  }
  key[k] = '\0';
  for (int i = 0; i < *num; ++i)
    if (strcmp(reasons[i].text, key) == 0) {
      reasons[i].count++;
      return;
    }
  if (*num < max) {
    snprintf(reasons[*num].text, sizeof(reasons[*num].text), "%s", key);
    reasons[(*num)++].count = 1;
  }
}

static bool isTimeout(const PrunerCompileResult *r) {
  return strncmp(r->status.message, "timeout after", 13) == 0 ||
         strstr(r->status.message, ": timeout after") != NULL;
}

/* The grid and block MLIR produced must be what the config implies (docs/config.md):
 * the draft model and the space reason with prunerConfigLaunchShape. */
static bool launchMatches(const PrunerWorkload *w, const PrunerConfig *c,
                          const PrunerCompileResult *r) {
  PrunerLaunchShape shape;
  prunerConfigLaunchShape(w, c, &shape);
  for (int i = 0; i < 3; ++i)
    if (shape.grid[i] != r->launch.grid[i] || shape.block[i] != r->launch.block[i])
      return false;
  return true;
}

/* Shared memory as ptxas counts it (static + dynamic) against the promoted tiles' bytes
 * the space budgets for (prunerConfigLaunchShape's smem_bytes). */
static bool smemMatches(const PrunerWorkload *w, const PrunerConfig *c,
                        const PrunerCompileResult *r) {
  PrunerLaunchShape shape;
  prunerConfigLaunchShape(w, c, &shape);
  return shape.smem_bytes == r->launch.resources.shared_bytes + r->launch.dynamic_smem_bytes;
}

static void printCandidate(const PrunerWorkload *w, const PrunerConfig *c, size_t i, uint64_t index,
                           const PrunerCompileResult *r) {
  char shortForm[160];
  prunerConfigFormatShort(w, c, shortForm, sizeof(shortForm));
  printf("[%zu] #%llu %-28s ", i, (unsigned long long)index, shortForm);
  if (r->status.ok && !launchMatches(w, c, r))
    printf("LAUNCH MISMATCH (config implies another grid/block)  ");
  if (r->status.ok && !smemMatches(w, c, r))
    printf("SMEM MISMATCH (config implies another size)  ");
  if (r->status.ok)
    printf("ok  regs %3d spill %d/%d stack %d smem %d grid %lldx%lldx%lld block "
           "%lldx%lldx%lld  mlir %.2fs ptxas %.2fs\n",
           r->launch.resources.registers, r->launch.resources.spill_store_bytes,
           r->launch.resources.spill_load_bytes, r->launch.resources.stack_bytes,
           r->launch.resources.shared_bytes, (long long)r->launch.grid[0],
           (long long)r->launch.grid[1], (long long)r->launch.grid[2],
           (long long)r->launch.block[0], (long long)r->launch.block[1],
           (long long)r->launch.block[2], r->mlir_seconds, r->ptxas_seconds);
  else
    printf("REJECTED  %s\n", r->status.message);
}

static void printSummary(const PrunerWorkload *w, const PrunerConfig *c,
                         const PrunerCompileResult *r, size_t n, double wall, double cpu,
                         int jobs) {
  size_t ok = 0, timeouts = 0, crashes = 0, spills = 0, mismatched = 0, smem = 0;
  double mlir = 0, ptxas = 0;
  Reason reasons[64];
  int numReasons = 0;
  for (size_t i = 0; i < n; ++i) {
    mlir += r[i].mlir_seconds;
    ptxas += r[i].ptxas_seconds;
    if (r[i].status.ok) {
      ok++;
      spills +=
          r[i].launch.resources.spill_store_bytes > 0 || r[i].launch.resources.stack_bytes > 0;
      mismatched += !launchMatches(w, &c[i], &r[i]);
      smem += !smemMatches(w, &c[i], &r[i]);
    } else {
      if (isTimeout(&r[i]))
        timeouts++;
      else if (strstr(r[i].status.message, "compiler crashed"))
        crashes++;
      addReason(reasons, &numReasons, 64, r[i].status.message);
    }
  }
  size_t rejected = n - ok - timeouts - crashes;
  printf("\nsummary: %zu candidates: compiled %zu, rejected %zu (%.1f%%), timeouts %zu, "
         "crashed %zu\n",
         n, ok, rejected, n ? 100.0 * (double)rejected / (double)n : 0.0, timeouts, crashes);
  for (int i = 0; i < numReasons; ++i)
    printf("  %5d x %s\n", reasons[i].count, reasons[i].text);
  printf("compiled with spills or a stack frame: %zu; launch differing from the config's "
         "launch shape: %zu; shared memory differing from it: %zu\n",
         spills, mismatched, smem);
  printf("rate: %.2f candidates/s (%zu in %.2f s wall, %d jobs); CPU %.3f s per candidate "
         "(workers + ptxas)\n",
         wall > 0 ? n / wall : 0.0, n, wall, jobs, n ? cpu / (double)n : 0.0);
  double total = mlir + ptxas;
  printf("time (summed over candidates): MLIR %.2f s (%.0f%%), ptxas %.2f s (%.0f%%); per "
         "candidate MLIR %.3f s, ptxas %.3f s\n",
         mlir, total > 0 ? 100 * mlir / total : 0.0, ptxas, total > 0 ? 100 * ptxas / total : 0.0,
         n ? mlir / (double)n : 0.0, n ? ptxas / (double)n : 0.0);
}

/* --study-registers: the draft's register estimate against ptxas' count per compiled
 * candidate, then the error summary (docs/draft.md, "Registers"). */
static int studyRegisters(const PrunerWorkload *w, const PrunerTargetDesc *t,
                          const PrunerConfig *c, const PrunerCompileResult *r, size_t n,
                          bool quiet) {
  PrunerDraft draft = NULL;
  PrunerStatus s = prunerDraftCreate(w, t, &draft);
  PrunerConfig *ok = calloc(n ? n : 1, sizeof *ok);
  PrunerKernelResources *res = calloc(n ? n : 1, sizeof *res);
  int *est = calloc(n ? n : 1, sizeof *est);
  size_t m = 0;
  if (s.ok && (!ok || !res || !est))
    s = prunerStatusError("out of memory for %zu candidates", n);
  for (size_t i = 0; s.ok && i < n; ++i)
    if (r[i].status.ok) {
      ok[m] = c[i];
      res[m++] = r[i].launch.resources;
    }
  PrunerRegisterStudy st;
  if (s.ok)
    s = prunerDraftRegisterStudy(draft, ok, res, m, est, &st);
  if (s.ok) {
    for (size_t i = 0; i < m && !quiet; ++i) {
      char shortForm[160];
      prunerConfigFormatShort(w, &ok[i], shortForm, sizeof shortForm);
      printf("registers %-28s est %3d ptxas %3d\n", shortForm, est[i], res[i].registers);
    }
    printf("registers: %zu candidates: |est - ptxas| mean %.1f median %.1f max %.0f; "
           "est - ptxas mean %+.1f; est/ptxas mean %.2f (%.2f .. %.2f); within 25%%: "
           "%.0f%%\n",
           st.n, st.mean_abs, st.median_abs, st.max_abs, st.mean_signed, st.mean_ratio,
           st.min_ratio, st.max_ratio, 100.0 * st.within_25pct);
  } else {
    fprintf(stderr, "pruner-compile: --study-registers: %s\n", s.message);
  }
  if (draft)
    prunerDraftDestroy(draft);
  free(ok), free(res), free(est);
  return s.ok ? 0 : 1;
}

#ifdef PRUNER_HAVE_MEASURE
/* False (and a message) when the bundle was not written. */
static bool writeBundle(const char *dir, const PrunerTargetDesc *t, uint64_t seed,
                        const PrunerWorkload *w, const PrunerConfig *c,
                        const PrunerCompileResult *r, size_t n) {
  PrunerBundle bundle = NULL;
  PrunerStatus s = prunerBundleCreate(dir, t, seed, &bundle);
  size_t added = 0;
  for (size_t i = 0; s.ok && i < n; ++i)
    if (r[i].status.ok && r[i].binary) {
      /* No draft or verifier ran here: scores are 0. */
      s = prunerBundleAddCandidate(bundle, w, &c[i], &r[i], 0.0, 0.0, NULL);
      added += s.ok;
    }
  if (s.ok)
    s = prunerBundleWrite(bundle);
  if (!s.ok)
    fprintf(stderr, "pruner-compile: bundle %s: %s\n", dir, s.message);
  else
    printf("bundle: %zu candidates in %s\n", added, dir);
  prunerBundleDestroy(bundle);
  return s.ok;
}
#endif

int main(int argc, char **argv) {
  Args a;
  int rc = parseArgs(argc, argv, &a);
  if (rc)
    return rc;
  PrunerTargetDesc t;
  PrunerStatus s = prunerTargetLookup(a.target, &t);
  if (!s.ok) {
    fprintf(stderr, "pruner-compile: --target: %s\n", s.message);
    return 2;
  }
  if (t.kind != PRUNER_TARGET_GPU) { /* said once, not once per candidate */
    fprintf(stderr,
            "pruner-compile: --target: %s is not a GPU; pruner-compile builds GPU kernels "
            "(the host's are compiled and timed by pruner-tune --target=host)\n",
            t.name);
    return 2;
  }
  /* The context parses generics, --input and --config; it is gone before the workers
   * fork, which build their own. */
  MlirContext ctx = prunerIrContextCreate();
  PrunerWorkload w;
  s = buildWorkload(&a, ctx, &w);
  size_t n = a.config ? 1 : (size_t)(a.random > 0 ? a.random : 1);
  PrunerConfig *configs = calloc(n, sizeof(PrunerConfig));
  uint64_t *indices = calloc(n, sizeof(uint64_t));
  if (s.ok && a.config) {
    MlirAttribute attr = mlirAttributeParseGet(ctx, mlirStringRefCreateFromCString(a.config));
    s = mlirAttributeIsNull(attr)
            ? prunerStatusError("--config does not parse as an attribute: %s", a.config)
            : prunerConfigFromAttribute(&w, attr, &configs[0]);
  }
  mlirContextDestroy(ctx);
  if (s.ok && (!configs || !indices))
    s = prunerStatusError("out of memory for %zu candidates", n);
  if (!s.ok) {
    fprintf(stderr, "pruner-compile: %s\n", s.message);
    free(configs), free(indices); /* the sanitizer build's leak check runs at exit */
    return 1;
  }
  PrunerSpace space = NULL;
  if (!a.config) {
    s = prunerSpaceCreate(&w, &t, NULL, &space);
    if (!s.ok) {
      fprintf(stderr, "pruner-compile: space of %s: %s\n", w.key, s.message);
      free(configs), free(indices);
      return 1;
    }
    printf("workload %s on %s: %llu valid configs\n", w.key, t.name,
           (unsigned long long)prunerSpaceCount(space));
    if (prunerSpaceCount(space) == 0) { /* nothing to draw: say why, as a failed command */
      char why[PRUNER_STATUS_MESSAGE_SIZE];
      prunerSpaceExplainEmpty(space, why, sizeof why);
      fprintf(stderr, "pruner-compile: the space of %s on %s has no valid config: %s\n", w.key,
              t.name, why);
      prunerSpaceDestroy(space);
      free(configs), free(indices);
      return 1;
    }
    uint64_t rng = a.seed;
    if (a.mma || a.igemm || a.split_k) {
      ListedKind kind = a.mma ? LISTED_MMA : a.split_k ? LISTED_SPLIT_K : LISTED_IGEMM;
      n = sampleListed(space, kind, n, &rng, configs, indices);
      if (n == 0) {
        fprintf(stderr, "pruner-compile: the space of %s has no %s configs\n", w.key,
                a.mma ? "tensor-core" : a.split_k ? "split-K" : "implicit-GEMM");
        prunerSpaceDestroy(space);
        free(configs), free(indices);
        return 1;
      }
    }
    else
      n = prunerSpaceSample(space, n, &rng,
                            a.vector_width            ? hasVectorWidth
                            : a.min_reduction_threads ? enoughReductionThreads
                                                      : NULL,
                            a.vector_width ? (void *)&a.vector_width : &a.min_reduction_threads,
                            configs, indices);
    if (n == 0 && a.vector_width) {
      fprintf(stderr, "pruner-compile: the space of %s has no config of vector width %ld\n",
              w.key, a.vector_width);
      prunerSpaceDestroy(space);
      free(configs), free(indices);
      return 1;
    }
  } else {
    printf("workload %s on %s\n", w.key, t.name);
  }
  PrunerCompileOptions opts = prunerCompileDefaultOptions();
  opts.jobs = (int)a.jobs;
  if (a.timeout > 0)
    opts.timeout_seconds = a.timeout;
  if (a.memory_mb > 0)
    opts.memory_limit_mb = a.memory_mb;
  opts.format = strcmp(a.format, "ptx") == 0 ? PRUNER_BINARY_PTX : PRUNER_BINARY_CUBIN;
  PrunerCompileResult *results = calloc(n ? n : 1, sizeof(PrunerCompileResult));
  double start = prunerNowSeconds(), cpuStart = childCpuSeconds();
  prunerCompileMany(&w, configs, n, &t, &opts, results);
  double wall = prunerNowSeconds() - start, cpu = childCpuSeconds() - cpuStart;
  for (size_t i = 0; i < n && !a.quiet; ++i)
    printCandidate(&w, &configs[i], i, indices[i], &results[i]);
  int jobs = opts.jobs > 0 ? opts.jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
  printSummary(&w, configs, results, n, wall, cpu, jobs < (int)n ? jobs : (int)n);
  int study_rc = a.study_registers ? studyRegisters(&w, &t, configs, results, n, a.quiet) : 0;
  bool bundle_failed = false; /* a bundle asked for and not written fails the command */
  if (a.out) {
#ifdef PRUNER_HAVE_MEASURE
    bundle_failed = !writeBundle(a.out, &t, a.seed, &w, configs, results, n);
#else
    fprintf(stderr, "pruner-compile: --out needs lib/measure, which this build lacks\n");
    bundle_failed = true;
#endif
  }
  size_t ok = 0;
  for (size_t i = 0; i < n; ++i) {
    ok += results[i].status.ok;
    prunerCompileResultRelease(&results[i]);
  }
  free(results);
  free(configs);
  free(indices);
  if (space)
    prunerSpaceDestroy(space);
  /* A single --config that fails is a failed command; a random sweep reports and succeeds
   * when some of its candidates compiled, and fails when none did. */
  if (!a.config && n > 0 && ok == 0)
    fprintf(stderr, "pruner-compile: none of the %zu candidates compiled\n", n);
  return ok == 0 || study_rc || bundle_failed ? 1 : 0;
}

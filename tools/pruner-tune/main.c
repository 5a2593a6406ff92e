/* pruner-tune: tunes the linalg ops of an MLIR module and writes the winners back.
 * Arguments, progress, signals and tables only; the tuning lives in lib/tune. */
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pruner/backend.h"
#include "pruner/farm.h"
#include "pruner/file.h"
#include "pruner/flags.h"
#include "pruner/ir_context.h"
#include "pruner/target.h"
#include "pruner/tune.h"

/* 0, or the number of the first SIGINT/SIGTERM received. */
static volatile sig_atomic_t g_stop = 0;
/* Signals received so far. The count is taken atomically: two signals pending together
 * can be handled by two threads at once (XGBoost's and MLIR's pools take process signals
 * too), and both handlers reading g_stop as 0 made neither of them the second. */
static atomic_int g_signals = 0;

/* The first Ctrl-C asks the session to stop (it kills the candidate in progress, keeps
 * the records and writes the best-so-far output); a second one ends the process at once.
 * Records are flushed per line, so nothing measured is lost either way, and the workers
 * die with the process (PR_SET_PDEATHSIG). */
/* The first signal's number, sender and time (CLOCK_MONOTONIC, ns): `timeout` sends its
 * signal to the child and again to its own process group, so one `timeout` delivered two
 * SIGTERMs and the second ended the run without its output. The same signal sent by the
 * same process (kill(2), not a terminal's Ctrl-C) within 200 ms is that one interrupt. */
static volatile sig_atomic_t g_first_sig = 0;
static volatile pid_t g_first_pid = 0;
static atomic_llong g_first_ns = 0;
#define REPEAT_WINDOW_NS 200000000LL

static long long nowNs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts); /* async-signal-safe */
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void onSignal(int sig, siginfo_t *info, void *context) {
  (void)context;
  bool sent = info && info->si_code == SI_USER;
  if (atomic_load(&g_signals) > 0 && sent && sig == g_first_sig &&
      info->si_pid == g_first_pid && nowNs() - atomic_load(&g_first_ns) < REPEAT_WINDOW_NS)
    return; /* the same interrupt, delivered twice */
  if (atomic_fetch_add(&g_signals, 1) > 0) {
    static const char msg[] = "\npruner-tune: second interrupt: exiting now\n";
    ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    prunerRemoveStagedFiles(); /* an output half written stays as it was */
    _exit(128 + sig);
  }
  g_first_sig = sig;
  g_first_pid = sent ? info->si_pid : 0;
  atomic_store(&g_first_ns, nowNs());
  g_stop = sig;
}

typedef struct Cli {
  const char *input;
  const char *output;
  const char *spec;
  bool verbose;
  bool quiet;
  bool tty;
  bool draft_only;
  int top;
  const char *study;
  bool pretrained_none;    /* --pretrained=none: no shipped prior either */
  bool module_check;       /* the whole-module check after tuning (IREE CPU; default on) */
  int64_t interrupt_after; /* testing: raise SIGINT after this many new trials (0: before
                              the first; -1: never) */
  int64_t new_trials;
  size_t num_tasks;
  PrunerTuneSession session;
} Cli;

static void usage(FILE *f) {
  char targets[512];
  prunerTargetListNames(targets, sizeof targets);
  fprintf(f,
          "usage: pruner-tune INPUT.mlir -o OUTPUT.mlir [options]\n"
          "       pruner-tune INPUT.mlir --draft-only [--top=N] [--target=T]\n"
          "       pruner-tune --study=REPLAY.jsonl [--seeds=N] [--target=T]\n"
          "\n"
          "Tunes every tunable linalg op of INPUT (identical workloads once, weighted by their\n"
          "count): the draft model keeps the best N configs, the verifier ranks them, K per\n"
          "round are measured, the verifier retrains. Writes `pruner.config` and\n"
          "`pruner.tuning` on each tuned op (docs/tune.md).\n"
          "\n"
          "Output:\n"
          "  -o, --output=FILE        tuned module (required unless --draft-only/--study)\n"
          "      --spec=FILE          also write a transform-dialect tuning spec\n"
          "                           (docs/tuning-spec.md)\n"
          "Search:\n"
          "      --target=NAME        what to tune for (default sm_90); one of:\n"
          "                           %s\n"
          "                           host: this machine's CPU, measured for real here (no GPU\n"
          "                           needed): JIT-compiled kernels vs OpenBLAS (docs/host.md);\n"
          "                           host:avx2, host:sse: as if the CPU had only that ISA\n"
          "                           (PRUNER_HOST_ISA=ISA does the same for plain host)\n"
          "                           iree-cpu: IREE's CPU code generator, built and timed\n"
          "                           by IREE's tools against IREE's default config; --spec\n"
          "                           writes IREE's tuning spec (docs/iree.md)\n"
          "                           iree-cuda:GPU (a GPU name above): IREE's CUDA code\n"
          "                           generator, built, run and timed on this machine's GPU\n"
          "                           against IREE's default; -o's ops carry IREE's\n"
          "                           compilation_info (docs/iree.md, \"CUDA\")\n"
          "      --trials=N           measurement budget over all workloads, counting records\n"
          "                           already in --records (default 200)\n"
          "      --draft-size=N       draft survivors per round (default 512)\n"
          "      --neighbours=M       draft+verifier: mutations of the best measured configs\n"
          "                           ranked beside the draft's N per round (default %d)\n"
          "      --first-batch-tiles=F\n"
          "                           draft+verifier: this share of a workload's first batch,\n"
          "                           its last slots, take the best-ranked config of each\n"
          "                           register step (thread tile; a conv's taps too) not\n"
          "                           yet in it; 0: the ranking's order\n"
          "                           (default 0.5 on host targets, 0 on the others)\n"
          "      --batch=K            candidates measured per round (default 16)\n"
          "      --epsilon=E          share of each batch drawn at random (default 0.1)\n"
          "      --time=SECONDS       start no tuning round after this wall time (default:\n"
          "                           no limit); the final check (--final) still follows\n"
          "      --early-stop=R       stop a workload after R rounds without improvement\n"
          "      --scheduler=S        gradient (default) or round-robin\n"
          "      --warmup-rounds=N    round-robin rounds per workload before the gradient\n"
          "                           scheduler takes over (default 1)\n"
          "      --strategy=S         auto (default: per op, verifier-only for host matmuls,\n"
          "                           draft+verifier for the rest),\n"
          "                           draft+verifier, draft-only, verifier-only,\n"
          "                           model-only (draft-free, Ansor-style), random\n"
          "      --pretrained=MODEL   the verifier starts from MODEL (pruner-eval --train), a\n"
          "                           model of another machine's records, as its prior\n"
          "                           (docs/transfer.md); default: the shipped model of the\n"
          "                           target's family when --records has no record of this\n"
          "                           target; none: no prior\n"
          "      --prior-momentum=M   the prior's weight after r rounds is M^r (1: frozen)\n"
          "      --prior-floor=F      the prior's weight against the draft before own records,\n"
          "                           on a workload the prior was trained on\n"
          "      --prior-floor-unseen=F the same on a workload it was not trained on\n"
          "      --prior-unseen=W     file (default: as the model says), use or skip: whether\n"
          "                           the prior applies to workloads it was not trained on\n"
          "      --seed=N             exploration seed (default 1)\n"
          "      --schedules=K[,K..]  search only these schedule kinds: direct, promoted,\n"
          "                           cross-thread, tensor-core, tensor-core-staged,\n"
          "                           implicit-gemm, split-k (default: all; docs/tune.md)\n"
          "      --no-conv1x1-as-matmul  tune 1x1 stride-1 convs (NHWC, or NCHW of one\n"
          "                           image) as convs (--conv1x1-as-matmul: the default,\n"
          "                           said explicitly);\n"
          "                           by default each is tuned as the linalg.matmul it is\n"
          "                           (reshapes, no copy; -o and the spec hold the matmul):\n"
          "                           GEMM tiles, tensor cores for f16/bf16 on GPUs\n"
          "Measurement:\n"
          "      --measure=MODE       where latencies come from; default: the target's device\n"
          "                           gpu (GPU targets' default): compile, run pruner-run on the\n"
          "                             local GPU, cuBLAS baseline; with --target=iree-cuda:GPU:\n"
          "                             iree-compile, IREE's runtime on the GPU\n"
          "                           host (--target=host's default): JIT-compile with MLIR's\n"
          "                             ExecutionEngine, check and time on this CPU in a child\n"
          "                             process, OpenBLAS baseline; with --target=iree-cpu:\n"
          "                             iree-compile, iree-run-module, iree-benchmark-module\n"
          "                           bundle:DIR: compile, write a bundle for a GPU host, stop\n"
          "                           replay:FILE: latencies from a records file of the space\n"
          "                           none: rank by the models only (results say unmeasured)\n"
          "      --records=FILE       tuning log: appended per measurement, resumed on rerun;\n"
          "                           locked while tuning (one tuner per file)\n"
          "      --ingest=FILE        read a GPU host's results (pruner-run records) first\n"
          "      --runner=PATH        pruner-run (default: next to pruner-tune)\n"
          "      --timeout=SECONDS    watchdog per candidate: a candidate still compiling or\n"
          "                           running after this long is killed and recorded as a\n"
          "                           timeout (default 60; pruner-run's default 10)\n"
          "      --jobs=N             parallel compile workers (default: cores)\n"
          "      --final=N            host, IREE: re-measure the best N configs per op back\n"
          "                           to back with the baseline (OpenBLAS, IREE's default) at\n"
          "                           the end; the fastest median wins and is reported with\n"
          "                           its IQR (default 4, at most 8; 0: off)\n"
          "      --module-check=on|off\n"
          "                           iree-cpu: after tuning, build the whole input with the\n"
          "                           spec and without it, compare their results on random\n"
          "                           inputs and time both (default on)\n"
          "      --keep-default=WHEN  IREE: leave an op without a config when IREE's default\n"
          "                           measured faster than its best config: if-faster\n"
          "                           (default) or never (write the winner anyway)\n"
          "Farming out (mpirun -n N pruner-tune ..., docs/distributed.md):\n"
          "      --rank-role=ROLE     what this rank does for rank 0: compile, measure, both\n"
          "                           (default: both where the backend can measure here,\n"
          "                           else compile)\n"
          "      --rank-timeout=S     a rank silent this long is lost; its candidates go to\n"
          "                           another rank (default 30, at least 3)\n"
          "Inspection and studies:\n"
          "      --draft-only         print the draft's best configs per op and exit\n"
          "      --top=N              how many for --draft-only (default 10)\n"
          "      --study=FILE         trials every strategy needs to come within 5%% / 2%% /\n"
          "                           the noise of the best, on a complete-space replay file\n"
          "                           (median, IQR, mean, min-max over seeds)\n"
          "      --seeds=N            seeds per strategy for --study (default 5)\n"
          "      --study-first-seed=S --study's seeds are S..S+N-1 (default 1): another\n"
          "                           range confirms a choice on fresh seeds\n"
          "      --max-trials=N       cap per study run (default: the space size)\n"
          "      --within=F           --study's first goal: within F of the best (default 0.05)\n"
          "      --within-tight=F     --study's second goal (default 0.02)\n"
          "      --study-methods=LIST the study's methods, comma-separated (default: every\n"
          "                           strategy but auto, and pretrained,pretrained-frozen\n"
          "                           with --pretrained)\n"
          "      --study-trace=FILE   --study also writes every run's measurements in order,\n"
          "                           one JSON line each (method, seed, trial, config,\n"
          "                           median_us, of_best)\n"
          "      --study-one-pass     --study answers each measurement with one of the\n"
          "                           config's recorded passes (passes_us), drawn per seed,\n"
          "                           as a run on that noisy machine would have timed it;\n"
          "                           the goals stay on the file's kept times\n"
          "      --study-context      --study starts each run's log with the file's other\n"
          "                           workloads' records (a records file of ops tuned\n"
          "                           before): the verifier learns from them from round 1\n"
          "      --dataset-target=KEY --study records measured elsewhere: KEY is their target\n"
          "                           key (host: that CPU's cores and ISA, the records'\n"
          "                           caches and clock, else this machine's), or 'records'\n"
          "                           for the file's own key;\n"
          "                           the table's first line says what was assumed\n"
          "Other:\n"
          "  -v, --verbose            one line per measured candidate\n"
          "  -q, --quiet              no progress lines\n"
          "      --interrupt-after=N  (testing) raise SIGINT after N new measurements\n"
          "                           (0: before the first)\n"
          "  -h, --help               this text\n"
          "\n"
          "Outputs are written to a temporary file and renamed; an output naming the same file\n"
          "as another output or an input is refused (docs/tune.md, \"Files\").\n"
          "Ctrl-C (SIGINT) or SIGTERM stops within a second: the candidate in progress is\n"
          "killed (and not recorded), the records are kept, the best-so-far output is written\n"
          "and the exit status is 130 (SIGINT) or 143 (SIGTERM). A second Ctrl-C exits at\n"
          "once.\n",
          targets, PRUNER_TUNE_NEIGHBOURS);
}

/* Flag ranges: large enough for any real run, small enough that no count overflows the
 * int it is stored in or the allocation it sizes (docs/tune.md, "Flags"). */
#define MAX_TRIALS 1000000000LL
#define MAX_SECONDS 1e9
#define MAX_DRAFT 1048576
#define MAX_BATCH 65536
#define MAX_ROUNDS 1000000
#define MAX_JOBS 1024
#define MAX_TOP 100000

/* A file flag's value: "--records=" named no file, and the open that failed said ": No
 * such file or directory" about an empty name. */
/* A file flag given twice is refused: the last one silently won, and the first file
 * named (an output the user meant to get) was never written. */
static PrunerStatus pathArg(const char *flag, const char *value, const char **out) {
  if (!value[0])
    return prunerStatusError("%s: empty path", flag);
  if (*out)
    return prunerStatusError("%s given twice (%s, %s): give it once", flag, *out, value);
  *out = value;
  return prunerStatusOk();
}

/* Two outputs, or an output and an input, naming one file lose data with exit status 0
 * (the records overwritten by the module, the module by the spec, JSON appended to the
 * source): refused before anything runs, as are outputs that are not files (docs/tune.md,
 * "Files"). */
static bool checkFiles(const Cli *cli, const PrunerTuneOptions *o) {
  const char *replay = o->measure == PRUNER_TUNE_MEASURE_REPLAY ? o->measure_path : NULL;
  const struct {
    const char *flag;
    const char *path;
    bool output;
  } files[] = {{"the input module", cli->input, false}, {"-o", cli->output, true},
               {"--spec", cli->spec, true},           {"--records", o->records_path, true},
               {"--ingest", o->ingest_path, false},   {"--measure=replay", replay, false}};
  const size_t n = sizeof files / sizeof *files;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      if (!files[i].path || !files[j].path || !(files[i].output || files[j].output) ||
          !prunerSameFile(files[i].path, files[j].path))
        continue;
      size_t out = files[j].output ? j : i, in = out == j ? i : j;
      fprintf(stderr, "pruner-tune: error: %s and %s name the same file (%s): ", files[i].flag,
              files[j].flag, files[j].path);
      if (files[in].output)
        fprintf(stderr, "one would overwrite the other");
      else
        fprintf(stderr, "writing %s would change %s", files[out].flag, files[in].flag);
      fprintf(stderr, "; give %s another file\n", files[out].flag);
      return false;
    }
  }
  for (size_t i = 1; i < 3; ++i) { /* -o and --spec: written at the end, checked now */
    if (!files[i].path)
      continue;
    PrunerStatus st = prunerCheckOutputPath(files[i].flag, files[i].path);
    if (!st.ok) {
      fprintf(stderr, "pruner-tune: error: %s\n", st.message);
      return false;
    }
  }
  return true;
}

static void onEvent(const PrunerTuneEvent *ev, void *user) {
  Cli *cli = user;
  switch (ev->kind) {
  case PRUNER_TUNE_EVENT_NOTE:
    if (cli->tty)
      fputs("\r\033[K", stderr);
    fprintf(stderr, "pruner-tune: %s\n", ev->message);
    break;
  case PRUNER_TUNE_EVENT_CANDIDATE: {
    ++cli->new_trials;
    if (cli->verbose && cli->session) {
      PrunerTuneTaskInfo info;
      prunerTuneSessionGetTask(cli->session, (size_t)ev->task, &info);
      char cfg[128];
      prunerConfigFormatShort(info.workload, ev->config, cfg, sizeof cfg);
      if (cli->tty)
        fputs("\r\033[K", stderr);
      fprintf(stderr, "  [%d] %-32s %-14s", ev->task, cfg, prunerRecordStatusName(ev->status));
      if (ev->status == PRUNER_RECORD_OK)
        fprintf(stderr, " %10.2f us", ev->measured_us);
      fprintf(stderr, "  draft %.2f us  verifier %.3f%s%s\n", ev->draft_us, ev->verifier_score,
              ev->message ? "  " : "", ev->message ? ev->message : "");
    }
    if (cli->interrupt_after > 0 && cli->new_trials == cli->interrupt_after)
      raise(SIGINT);
    break;
  }
  case PRUNER_TUNE_EVENT_ROUND:
    if (cli->quiet)
      break;
    if (cli->tty)
      fputs("\r\033[K", stderr);
    fprintf(stderr, "task %d/%zu round %d: trials %lld (all %lld/%lld) best %s", ev->task + 1,
            cli->num_tasks, ev->round, (long long)ev->task_trials,
            (long long)ev->total_trials, (long long)ev->budget, ev->best_us > 0 ? "" : "-");
    if (ev->best_us > 0)
      fprintf(stderr, "%.2f us", ev->best_us);
    fputs(cli->tty ? "" : "\n", stderr);
    fflush(stderr);
    break;
  }
}

static int runStudy(Cli *cli, PrunerTuneStudyOptions *so) {
  so->replay_path = cli->study;
  so->stop = &g_stop;
  so->on_event = cli->verbose ? onEvent : NULL;
  so->user = cli;
  PrunerTuneStudyRow *rows = NULL;
  size_t n = 0;
  PrunerStatus st = prunerTuneStudy(so, &rows, &n);
  if (!st.ok) {
    fprintf(stderr, "pruner-tune: error: %s\n", st.message);
    /* An interrupted study ends as --help says interrupted runs do: 128 + the signal. */
    return g_stop ? 128 + (int)g_stop : 1;
  }
  char *table = prunerTuneStudyFormat(rows, n, so);
  if (table)
    fputs(table, stdout);
  free(table);
  free(rows);
  if (g_stop) {
    fprintf(stderr, "pruner-tune: interrupted: the table holds the seeds that had ended\n");
    return 128 + (int)g_stop;
  }
  return 0;
}

static int runDraftOnly(Cli *cli) {
  PrunerConfig *cfgs = calloc((size_t)cli->top, sizeof *cfgs);
  double *us = calloc((size_t)cli->top, sizeof *us);
  if (!cfgs || !us) {
    free(cfgs);
    free(us);
    fprintf(stderr, "pruner-tune: error: out of memory\n");
    return 1;
  }
  for (size_t i = 0; i < prunerTuneSessionNumTasks(cli->session); ++i) {
    PrunerTuneTaskInfo info;
    prunerTuneSessionGetTask(cli->session, i, &info);
    printf("%s (x%d, %llu valid configs)\n", info.workload->key, info.occurrences,
           (unsigned long long)info.space_size);
    size_t got = prunerTuneSessionDraftTop(cli->session, i, (size_t)cli->top, cfgs, us);
    for (size_t j = 0; j < got; ++j) {
      char text[256];
      prunerConfigFormat(info.workload, &cfgs[j], text, sizeof text);
      printf("  %2zu  %10.2f us (predicted)  %s\n", j + 1, us[j], text);
    }
  }
  free(cfgs);
  free(us);
  return 0;
}

/* The folder of this executable in `buf` (no trailing slash); NULL when it cannot be
 * told or `room` more bytes would not fit after it. */
static char *toolFolder(char *buf, size_t size, size_t room) {
  if (size <= room)
    return NULL;
  ssize_t n = readlink("/proc/self/exe", buf, size - room);
  if (n <= 0 || (size_t)n >= size - room)
    return NULL;
  buf[n] = '\0';
  char *slash = strrchr(buf, '/');
  if (!slash)
    return NULL;
  *slash = '\0';
  return buf;
}

/* pruner-run next to this executable, in `buf`; NULL when it cannot be told. */
static const char *runnerNextToTool(char *buf, size_t size) {
  if (!toolFolder(buf, size, 16))
    return NULL;
  strcat(buf, "/pruner-run");
  return buf;
}

/* The shipped verifier priors: share/pruner-mlir/models beside the tool's bin folder
 * (the build tree and an install alike), in `buf`; NULL when it cannot be told. */
static const char *modelsBesideTool(char *buf, size_t size) {
  if (!toolFolder(buf, size, 40))
    return NULL;
  char *slash = strrchr(buf, '/');
  if (!slash)
    return NULL;
  strcpy(slash, "/share/pruner-mlir/models");
  return buf;
}

/* A worker rank of `mpirun -n N pruner-tune ...`: the backend of --target, serving rank 0
 * (pruner/farm.h); it reads no module and writes no file. */
static int serveFarm(PrunerFarm farm, const PrunerTuneOptions *o) {
  char runner[PATH_MAX] = "";
  const char *target = o->target ? o->target : "sm_90";
  const PrunerBackend *backend = NULL;
  PrunerTargetDesc desc;
  PrunerStatus st = prunerBackendLookup(target, &backend, &desc);
  if (st.ok) {
    PrunerBackendOptions bo = {.compile_jobs = o->compile_jobs,
                               .runner_path = o->runner_path ? o->runner_path
                                                             : runnerNextToTool(runner, sizeof runner),
                               .candidate_timeout_s = o->candidate_timeout_s,
                               .stop = &g_stop,
                               .target = target};
    st = prunerFarmServe(farm, backend, &desc, &bo);
  }
  if (!st.ok) {
    fprintf(stderr, "pruner-tune: rank %d: error: %s\n", prunerFarmRank(farm), st.message);
    return 1;
  }
  return g_stop ? 128 + (int)g_stop : 0;
}

/* Rank 0 (or a plain run): the session from start to end; returns the exit status. */
static int tuneMain(Cli *cli_, PrunerTuneOptions *o_, PrunerTuneStudyOptions *so_,
                    bool measure_set, int argc, char **argv) {
  char runner[PATH_MAX] = "";
  Cli cli = *cli_;
  PrunerTuneOptions o = *o_;
  PrunerTuneStudyOptions so = *so_;
  if (o.farm && prunerFarmSize(o.farm) > 1) {
    const char *alone = cli.study                                 ? "--study"
                        : cli.draft_only                          ? "--draft-only"
                        : o.measure == PRUNER_TUNE_MEASURE_NONE   ? "--measure=none"
                        : o.measure == PRUNER_TUNE_MEASURE_REPLAY ? "--measure=replay"
                                                                  : NULL;
    if (alone)
      fprintf(stderr,
              "pruner-tune: %s builds and measures nothing: it runs on rank 0 alone; the other "
              "%d rank(s) wait for the end\n",
              alone, prunerFarmSize(o.farm) - 1);
  }
  if (cli.study)
    return runStudy(&cli, &so);
  if (optind != argc - 1) {
    fprintf(stderr, "pruner-tune: error: expected one input module (see --help)\n");
    return 2;
  }
  cli.input = argv[optind];
  if (!cli.output && !cli.draft_only) {
    fprintf(stderr, "pruner-tune: error: no output: pass -o OUTPUT.mlir (see --help)\n");
    return 2;
  }
  if (!o.runner_path)
    o.runner_path = runnerNextToTool(runner, sizeof runner);
  char models[PATH_MAX] = "";
  if (!o.prior_path && !cli.pretrained_none)
    o.prior_dir = modelsBesideTool(models, sizeof models);
  /* An explicit --measure=gpu on the host target is a contradiction, not a default. */
  PrunerTargetDesc named;
  if (measure_set && o.measure == PRUNER_TUNE_MEASURE_GPU && o.target &&
      prunerTargetLookup(o.target, &named).ok && named.kind == PRUNER_TARGET_HOST) {
    fprintf(stderr, "pruner-tune: error: --measure=gpu with --target=%s: the host target is "
                    "measured on this CPU (--measure=host, its default)\n", o.target);
    return 2;
  }
  if (!checkFiles(&cli, &o))
    return 2;
  if (cli.draft_only)
    o.measure = PRUNER_TUNE_MEASURE_NONE;
  o.stop = &g_stop;
  o.on_event = onEvent;
  o.user = &cli;

  PrunerStatus st = prunerTuneSessionCreate(cli.input, &o, &cli.session);
  if (!st.ok) {
    fprintf(stderr, "pruner-tune: error: %s\n", st.message);
    return 1;
  }
  cli.num_tasks = prunerTuneSessionNumTasks(cli.session);
  if (cli.draft_only) {
    int rc = runDraftOnly(&cli);
    prunerTuneSessionDestroy(cli.session);
    return rc;
  }
  if (!cli.quiet)
    fprintf(stderr, "pruner-tune: %zu workload(s) on %s, budget %lld trials, measure=%s\n",
            cli.num_tasks, o.target, (long long)o.trials,
            prunerTuneSessionMeasureDescription(cli.session));
  if (cli.interrupt_after == 0)
    raise(SIGINT); /* a Ctrl-C before the first measurement */
  st = prunerTuneSessionRun(cli.session);
  if (cli.tty && !cli.quiet)
    fputs("\n", stderr);
  int rc = 0;
  if (!st.ok) {
    fprintf(stderr, "pruner-tune: error: %s\n", st.message);
    rc = 1;
  }
  bool interrupted = prunerTuneSessionInterrupted(cli.session);
  /* A run stopped by an error after measuring (a records file that cannot take another
   * line: a full disk, a file made read-only) keeps what it measured, as Ctrl-C does: the
   * best so far, of this run or of the records it resumed, is written and the command
   * still fails. An error with nothing measured at all (no GPU driver, a fresh log)
   * writes nothing. */
  bool measured = false; /* anything measured, in this run or in the records it resumed */
  for (size_t i = 0; i < cli.num_tasks; ++i) {
    PrunerTuneTaskInfo info;
    prunerTuneSessionGetTask(cli.session, i, &info);
    measured = measured || info.new_trials > 0 || (info.has_best && info.measured);
  }
  bool stopped = !st.ok && measured;
  /* Interrupted before any measurement: the outputs would be the input without a config,
   * written over the results of an earlier run; they are left as they are. */
  bool write = interrupted ? measured : rc == 0 || stopped;
  bool written = false, write_failed = false;
  if (write) {
    PrunerStatus w = prunerTuneSessionWriteOutputs(cli.session, cli.output, cli.spec);
    written = w.ok;
    write_failed = !w.ok;
    if (!w.ok) {
      fprintf(stderr, "pruner-tune: error: %s\n", w.message);
      rc = 1;
    }
  }
  /* Ctrl-C while the outputs were written: they are whole (all or nothing), and the run
   * ends as interrupted, so that a shell loop over modules stops too. */
  interrupted = interrupted || g_stop;
  /* The module as the user compiles it, with the spec just written (docs/iree.md). */
  char *module_report = NULL;
  if (rc == 0 && !interrupted && cli.module_check &&
      prunerTuneSessionCanCheckModule(cli.session)) {
    if (!cli.quiet)
      fprintf(stderr, "pruner-tune: module check: building %s with the tuning spec and "
                      "without it (--module-check=off skips this)\n", cli.input);
    PrunerStatus mc = prunerTuneSessionCheckModule(cli.session, cli.spec, &module_report);
    if (!mc.ok) {
      fprintf(stderr, "pruner-tune: error: %s\n", mc.message);
      rc = 1;
    }
    /* Ctrl-C during the check ends it early: the run counts as interrupted (it exited 0
     * with the check silently cut short). The outputs are written already. */
    interrupted = interrupted || g_stop;
  }
  /* The table also after outputs that could not be written: the final check's choice
   * and medians are nowhere else. */
  if (cli.num_tasks > 0 && (rc == 0 || interrupted || stopped || module_report || st.ok)) {
    char *table = prunerTuneSessionSummary(cli.session);
    if (table)
      fputs(table, stdout);
    free(table);
  }
  if (module_report)
    fputs(module_report, stdout);
  free(module_report);
  if (o.measure == PRUNER_TUNE_MEASURE_NONE) {
    /* Results from --records or --ingest are measurements even when this run made none. */
    size_t from_log = 0;
    for (size_t i = 0; i < cli.num_tasks; ++i) {
      PrunerTuneTaskInfo info;
      prunerTuneSessionGetTask(cli.session, i, &info);
      from_log += info.has_best && info.measured;
    }
    if (from_log == 0)
      fprintf(stderr, "pruner-tune: measure=none: nothing was measured; every result is a "
                      "model prediction (unmeasured)\n");
    else if (from_log == cli.num_tasks)
      fprintf(stderr, "pruner-tune: measure=none: nothing was measured in this run; every "
                      "result is a measurement from the records\n");
    else
      fprintf(stderr, "pruner-tune: measure=none: nothing was measured in this run; %zu of "
                      "%zu result(s) are measurements from the records, the rest model "
                      "predictions (unmeasured)\n", from_log, cli.num_tasks);
  }
  if (rc == 0 && written)
    fprintf(stderr, "pruner-tune: wrote %s%s%s\n", cli.output, cli.spec ? " and " : "",
            cli.spec ? cli.spec : "");
  prunerTuneSessionDestroy(cli.session);
  if (stopped && !interrupted && written)
    fprintf(stderr, "pruner-tune: the run stopped on the error above: best-so-far written to "
                    "%s%s%s\n", cli.output, cli.spec ? " and " : "", cli.spec ? cli.spec : "");
  if (interrupted && write_failed) {
    fprintf(stderr, "pruner-tune: interrupted: records kept; the outputs could not be written "
                    "(the error above)\n");
    return rc; /* 1: a script must not take them as written */
  }
  if (interrupted && written)
    fprintf(stderr, "pruner-tune: interrupted: records kept, best-so-far written to %s\n",
            cli.output);
  else if (interrupted)
    fprintf(stderr,
            "pruner-tune: interrupted before anything was measured: nothing recorded "
            "or written (%s%s%s left as %s)\n",
            cli.output, cli.spec ? " and " : "", cli.spec ? cli.spec : "",
            cli.spec ? "they were" : "it was");
  if (interrupted)
    return 128 + (g_stop ? (int)g_stop : SIGINT); /* 130 for SIGINT, 143 for SIGTERM */
  return rc;
}

static bool g_farm_created; /* a failure after it is the farm's to report */

static int tuneCommand(int argc, char **argv);

int main(int argc, char **argv) {
  int rc = tuneCommand(argc, argv);
  /* A rank that failed before its farm started (a flag error, an input that does not
   * parse) ends the whole MPI job: the other ranks would wait in MPI's start-up for it. */
  if (rc != 0 && !g_farm_created)
    prunerFarmAbortLaunch(rc);
  return rc;
}

static int tuneCommand(int argc, char **argv) {
  Cli cli = {
      .top = 10, .tty = isatty(STDERR_FILENO) != 0, .module_check = true, .interrupt_after = -1};
  PrunerTuneOptions o = prunerTuneDefaultOptions();
  /* The tool rewrites 1x1 convs as GEMMs unless told not to (docs/tune.md); the library
   * leaves that to its caller. */
  o.conv1x1_as_matmul = true;
  PrunerTuneStudyOptions so = prunerTuneStudyDefaultOptions();
  PrunerFarmOptions fo = prunerFarmDefaultOptions();
  enum {
    O_SPEC = 256,
    O_TARGET,
    O_TRIALS,
    O_DRAFT,
    O_NEIGHBOURS,
    O_FIRST_BATCH_TILES,
    O_BATCH,
    O_EPS,
    O_TIME,
    O_EARLY,
    O_SCHED,
    O_STRATEGY,
    O_SEED,
    O_MEASURE,
    O_RECORDS,
    O_INGEST,
    O_RUNNER,
    O_JOBS,
    O_DRAFT_ONLY,
    O_TOP,
    O_STUDY,
    O_SEEDS,
    O_STUDY_FIRST_SEED,
    O_MAX_TRIALS,
    O_INTERRUPT,
    O_WARMUP,
    O_WITHIN,
    O_WITHIN_TIGHT,
    O_DATASET_TARGET,
    O_TIMEOUT,
    O_FINAL,
    O_KEEP_DEFAULT,
    O_MODULE_CHECK,
    O_RANK_ROLE,
    O_RANK_TIMEOUT,
    O_PRETRAINED,
    O_PRIOR_MOMENTUM,
    O_PRIOR_FLOOR,
    O_PRIOR_FLOOR_UNSEEN,
    O_PRIOR_UNSEEN,
    O_STUDY_METHODS,
    O_STUDY_TRACE,
    O_STUDY_ONE_PASS,
    O_STUDY_CONTEXT,
    O_SCHEDULES,
    O_CONV1X1,
    O_NO_CONV1X1
  };
  static const struct option longs[] = {
      {"output", required_argument, 0, 'o'},
      {"spec", required_argument, 0, O_SPEC},
      {"target", required_argument, 0, O_TARGET},
      {"trials", required_argument, 0, O_TRIALS},
      {"draft-size", required_argument, 0, O_DRAFT},
      {"neighbours", required_argument, 0, O_NEIGHBOURS},
      {"first-batch-tiles", required_argument, 0, O_FIRST_BATCH_TILES},
      {"batch", required_argument, 0, O_BATCH},
      {"epsilon", required_argument, 0, O_EPS},
      {"time", required_argument, 0, O_TIME},
      {"early-stop", required_argument, 0, O_EARLY},
      {"scheduler", required_argument, 0, O_SCHED},
      {"warmup-rounds", required_argument, 0, O_WARMUP},
      {"strategy", required_argument, 0, O_STRATEGY},
      {"seed", required_argument, 0, O_SEED},
      {"schedules", required_argument, 0, O_SCHEDULES},
      {"conv1x1-as-matmul", no_argument, 0, O_CONV1X1},
      {"no-conv1x1-as-matmul", no_argument, 0, O_NO_CONV1X1},
      {"measure", required_argument, 0, O_MEASURE},
      {"records", required_argument, 0, O_RECORDS},
      {"ingest", required_argument, 0, O_INGEST},
      {"runner", required_argument, 0, O_RUNNER},
      {"jobs", required_argument, 0, O_JOBS},
      {"draft-only", no_argument, 0, O_DRAFT_ONLY},
      {"top", required_argument, 0, O_TOP},
      {"study", required_argument, 0, O_STUDY},
      {"seeds", required_argument, 0, O_SEEDS},
      {"study-first-seed", required_argument, 0, O_STUDY_FIRST_SEED},
      {"max-trials", required_argument, 0, O_MAX_TRIALS},
      {"within", required_argument, 0, O_WITHIN},
      {"within-tight", required_argument, 0, O_WITHIN_TIGHT},
      {"dataset-target", required_argument, 0, O_DATASET_TARGET},
      {"interrupt-after", required_argument, 0, O_INTERRUPT},
      {"timeout", required_argument, 0, O_TIMEOUT},
      {"final", required_argument, 0, O_FINAL},
      {"keep-default", required_argument, 0, O_KEEP_DEFAULT},
      {"module-check", required_argument, 0, O_MODULE_CHECK},
      {"rank-role", required_argument, 0, O_RANK_ROLE},
      {"rank-timeout", required_argument, 0, O_RANK_TIMEOUT},
      {"pretrained", required_argument, 0, O_PRETRAINED},
      {"prior-momentum", required_argument, 0, O_PRIOR_MOMENTUM},
      {"prior-floor", required_argument, 0, O_PRIOR_FLOOR},
      {"prior-floor-unseen", required_argument, 0, O_PRIOR_FLOOR_UNSEEN},
      {"prior-unseen", required_argument, 0, O_PRIOR_UNSEEN},
      {"study-methods", required_argument, 0, O_STUDY_METHODS},
      {"study-trace", required_argument, 0, O_STUDY_TRACE},
      {"study-one-pass", no_argument, 0, O_STUDY_ONE_PASS},
      {"study-context", no_argument, 0, O_STUDY_CONTEXT},
      {"verbose", no_argument, 0, 'v'},
      {"quiet", no_argument, 0, 'q'},
      {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  bool measure_set = false;
  const char *study_only = NULL; /* the first flag given that only --study reads */
  bool target_given = false;
  const char *run_only = NULL;   /* the first flag given that --study does not read */
  bool top_given = false;
  int c;
  int64_t v = 0;
  double d = 0;
  while ((c = getopt_long(argc, argv, "o:vqh", longs, NULL)) != -1) {
    bool bad = false;
    PrunerStatus fs = prunerStatusOk(); /* a numeric flag's parse (pruner/flags.h) */
    switch (c) {
    case 'o':
      fs = pathArg("-o", optarg, &cli.output);
      break;
    case O_SPEC:
      fs = pathArg("--spec", optarg, &cli.spec);
      break;
    case O_TARGET:
      o.target = so.target = optarg;
      target_given = true;
      break;
    case O_TRIALS: fs = prunerParseInt("--trials", optarg, 0, MAX_TRIALS, &o.trials); break;
    case O_DRAFT:
      fs = prunerParseInt("--draft-size", optarg, 1, MAX_DRAFT, &v);
      o.draft_size = so.draft_size = (int)v;
      break;
    case O_NEIGHBOURS:
      fs = prunerParseInt("--neighbours", optarg, 0, PRUNER_TUNE_NEIGHBOURS_MAX, &v);
      o.neighbours = so.neighbours = (int)v;
      break;
    case O_FIRST_BATCH_TILES:
      fs = prunerParseDouble("--first-batch-tiles", optarg, 0.0, 1.0,
                             &o.first_batch_tiles);
      so.first_batch_tiles = o.first_batch_tiles;
      break;
    case O_BATCH:
      fs = prunerParseInt("--batch", optarg, 1, MAX_BATCH, &v);
      o.batch = so.batch = (int)v;
      break;
    case O_EPS:
      fs = prunerParseDouble("--epsilon", optarg, 0, 1, &d);
      o.epsilon = so.epsilon = d;
      break;
    case O_TIME: fs = prunerParseDouble("--time", optarg, 0, MAX_SECONDS, &o.time_limit_s); break;
    case O_EARLY:
      fs = prunerParseInt("--early-stop", optarg, 0, MAX_ROUNDS, &v);
      o.early_stop = (int)v;
      break;
    case O_WARMUP:
      fs = prunerParseInt("--warmup-rounds", optarg, 1, 1000, &v);
      o.warmup_rounds = (int)v;
      break;
    case O_SCHED:
      if (strcmp(optarg, "gradient") == 0) o.gradient_scheduler = true;
      else if (strcmp(optarg, "round-robin") == 0) o.gradient_scheduler = false;
      else bad = true;
      break;
    case O_STRATEGY:
      bad = true;
      for (int s = 0; s < PRUNER_TUNE_STRATEGY_COUNT; ++s)
        if (strcmp(optarg, prunerTuneStrategyName((PrunerTuneStrategy)s)) == 0) {
          o.strategy = (PrunerTuneStrategy)s;
          bad = false;
        }
      break;
    case O_SEED: fs = prunerParseUint64("--seed", optarg, &o.seed); break;
    case O_SCHEDULES:
      fs = prunerScheduleKindsParse(optarg, &o.schedule_kinds);
      break;
    case O_CONV1X1: o.conv1x1_as_matmul = true; break;
    case O_NO_CONV1X1: o.conv1x1_as_matmul = false; break;
    case O_MEASURE:
      measure_set = true;
      if (strcmp(optarg, "gpu") == 0) o.measure = PRUNER_TUNE_MEASURE_GPU;
      else if (strcmp(optarg, "host") == 0) o.measure = PRUNER_TUNE_MEASURE_HOST;
      else if (strcmp(optarg, "none") == 0) o.measure = PRUNER_TUNE_MEASURE_NONE;
      else if (strncmp(optarg, "bundle:", 7) == 0 && optarg[7]) {
        o.measure = PRUNER_TUNE_MEASURE_BUNDLE;
        o.measure_path = optarg + 7;
      } else if (strncmp(optarg, "replay:", 7) == 0 && optarg[7]) {
        o.measure = PRUNER_TUNE_MEASURE_REPLAY;
        o.measure_path = optarg + 7;
      } else bad = true;
      break;
    case O_RECORDS: fs = pathArg("--records", optarg, &o.records_path); break;
    case O_INGEST: /* one file: a second would have replaced the first unread */
      fs = o.ingest_path ? prunerStatusError("--ingest given twice (%s, %s): ingest one "
                                             "results file per run",
                                             o.ingest_path, optarg)
                         : pathArg("--ingest", optarg, &o.ingest_path);
      break;
    case O_RUNNER: fs = pathArg("--runner", optarg, &o.runner_path); break;
    case O_JOBS:
      fs = prunerParseInt("--jobs", optarg, 0, MAX_JOBS, &v);
      o.compile_jobs = (int)v;
      break;
    case O_FINAL:
      fs = prunerParseInt("--final", optarg, 0, PRUNER_TUNE_FINAL_MAX, &v);
      o.final_candidates = (int)v;
      break;
    case O_KEEP_DEFAULT:
      fs = prunerParseChoice("--keep-default", optarg, "if-faster", "never",
                             &o.keep_faster_default);
      break;
    case O_MODULE_CHECK:
      fs = prunerParseChoice("--module-check", optarg, "on", "off", &cli.module_check);
      break;
    case O_RANK_ROLE: bad = !prunerFarmRoleParse(optarg, &fo.role); break;
    case O_RANK_TIMEOUT:
      /* At least three of the farm's 1 s heartbeats: below, a healthy rank is lost. */
      fs = prunerParseDouble("--rank-timeout", optarg, 3, 86400, &fo.rank_timeout_s);
      break;
    case O_DRAFT_ONLY: cli.draft_only = true; break;
    case O_TOP: fs = prunerParseInt("--top", optarg, 1, MAX_TOP, &v); cli.top = (int)v; break;
    case O_STUDY: fs = pathArg("--study", optarg, &cli.study); break;
    case O_SEEDS: fs = prunerParseInt("--seeds", optarg, 1, 1000, &v); so.seeds = (int)v; break;
    case O_STUDY_FIRST_SEED:
      fs = prunerParseInt("--study-first-seed", optarg, 1, 1000000, &v);
      so.first_seed = (int)v;
      break;
    case O_MAX_TRIALS:
      fs = prunerParseInt("--max-trials", optarg, 0, MAX_TRIALS, &so.max_trials);
      break;
    case O_WITHIN: fs = prunerParsePositiveDouble("--within", optarg, 1, &so.within); break;
    case O_WITHIN_TIGHT:
      fs = prunerParsePositiveDouble("--within-tight", optarg, 1, &so.within_tight);
      break;
    case O_DATASET_TARGET: so.dataset_target = optarg; break;
    case O_PRETRAINED:
      cli.pretrained_none = strcmp(optarg, "none") == 0;
      o.prior_path = so.prior_path = cli.pretrained_none ? NULL : optarg;
      break;
    case O_PRIOR_MOMENTUM:
      fs = prunerParseDouble("--prior-momentum", optarg, 0, 1, &d);
      o.prior_momentum = so.prior_momentum = d;
      break;
    case O_PRIOR_FLOOR:
      fs = prunerParseDouble("--prior-floor", optarg, 0, 1, &d);
      o.prior_floor = so.prior_floor = d;
      break;
    case O_PRIOR_FLOOR_UNSEEN:
      fs = prunerParseDouble("--prior-floor-unseen", optarg, 0, 1, &d);
      o.prior_floor_unseen = so.prior_floor_unseen = d;
      break;
    case O_PRIOR_UNSEEN:
      fs = prunerPriorUnseenParse("--prior-unseen", optarg, &o.prior_unseen);
      so.prior_unseen = o.prior_unseen;
      break;
    case O_STUDY_METHODS:
      fs = prunerTuneStudyParseMethods(optarg, &so.methods);
      break;
    case O_STUDY_TRACE: fs = pathArg("--study-trace", optarg, &so.trace_path); break;
    case O_STUDY_ONE_PASS:
      so.replay_one_pass = true;
      break;
    case O_STUDY_CONTEXT:
      so.context = true;
      break;
    case O_INTERRUPT:
      fs = prunerParseInt("--interrupt-after", optarg, 0, MAX_TRIALS, &cli.interrupt_after);
      break;
    case O_TIMEOUT: /* finite, positive, at most a day */
      fs = prunerParsePositiveDouble("--timeout", optarg, 86400, &o.candidate_timeout_s);
      break;
    case 'v': cli.verbose = true; break;
    case 'q': cli.quiet = true; break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
    /* Flags only a study reads, and flags of a tuning run a study does not read (a study
     * replays a dataset with each method and seed of its own): the first of each kind
     * given is kept, to refuse it in the other mode. */
    static const struct {
      int code;
      const char *name;
      bool study;
    } roles[] = {{O_SEEDS, "--seeds", true},
                 {O_STUDY_FIRST_SEED, "--study-first-seed", true},
                 {O_MAX_TRIALS, "--max-trials", true},
                 {O_WITHIN, "--within", true},
                 {O_WITHIN_TIGHT, "--within-tight", true},
                 {O_DATASET_TARGET, "--dataset-target", true},
                 {O_STUDY_METHODS, "--study-methods", true},
                 {O_STUDY_TRACE, "--study-trace", true},
                 {O_STUDY_ONE_PASS, "--study-one-pass", true},
                 {O_STUDY_CONTEXT, "--study-context", true},
                 {'o', "-o", false},
                 {O_SPEC, "--spec", false},
                 {O_TRIALS, "--trials", false},
                 {O_TIME, "--time", false},
                 {O_EARLY, "--early-stop", false},
                 {O_SCHED, "--scheduler", false},
                 {O_STRATEGY, "--strategy (--study-methods)", false},
                 {O_SEED, "--seed (--seeds)", false},
                 {O_MEASURE, "--measure", false},
                 {O_RECORDS, "--records", false},
                 {O_INGEST, "--ingest", false},
                 {O_RUNNER, "--runner", false},
                 {O_JOBS, "--jobs", false},
                 {O_DRAFT_ONLY, "--draft-only", false},
                 {O_TIMEOUT, "--timeout", false},
                 {O_FINAL, "--final", false},
                 {O_KEEP_DEFAULT, "--keep-default", false},
                 {O_MODULE_CHECK, "--module-check", false},
                 {O_SCHEDULES, "--schedules", false},
                 {O_CONV1X1, "--conv1x1-as-matmul", false},
                 {O_NO_CONV1X1, "--no-conv1x1-as-matmul", false}};
    for (size_t r = 0; r < sizeof roles / sizeof roles[0]; ++r) {
      const char **first = roles[r].study ? &study_only : &run_only;
      if (roles[r].code == c && !*first)
        *first = roles[r].name;
    }
    if (c == O_TOP)
      top_given = true;
    if (!fs.ok) {
      fprintf(stderr, "pruner-tune: error: %s (see --help)\n", fs.message);
      return 2;
    }
    if (bad && c == O_STRATEGY) {
      fprintf(stderr, "pruner-tune: error: unknown --strategy '%s'; accepted:", optarg);
      for (int s = 0; s < PRUNER_TUNE_STRATEGY_COUNT; ++s)
        fprintf(stderr, "%s %s", s ? "," : "", prunerTuneStrategyName((PrunerTuneStrategy)s));
      fprintf(stderr, "\n");
      return 2;
    }
    if (bad) {
      fprintf(stderr, "pruner-tune: error: invalid value '%s' for %s (see --help)\n", optarg,
              argv[optind - 1]);
      return 2;
    }
  }
  /* Study-only flags do nothing in a tuning run, nor --top outside --draft-only: refused
   * rather than ignored. */
  if (!cli.study && study_only) {
    fprintf(stderr, "pruner-tune: error: %s is for --study (see --help)\n", study_only);
    return 2;
  }
  if (cli.study && run_only) {
    fprintf(stderr, "pruner-tune: error: %s is for a tuning run; --study does not read it "
                    "(see --help)\n", run_only);
    return 2;
  }
  /* The dataset's target replaces --target's: both given, one would be ignored. */
  if (cli.study && so.dataset_target && target_given) {
    fprintf(stderr, "pruner-tune: error: --target=%s and --dataset-target=%s: the study "
                    "takes the dataset's target from --dataset-target; give one of them\n",
            so.target, so.dataset_target);
    return 2;
  }
  if (cli.study && optind < argc) {
    fprintf(stderr, "pruner-tune: error: --study takes no input module ('%s'): it replays "
                    "the dataset\n", argv[optind]);
    return 2;
  }
  if (top_given && !cli.draft_only) {
    fprintf(stderr, "pruner-tune: error: --top is for --draft-only (see --help)\n");
    return 2;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = onSignal;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT); /* one handler at a time: the second sees the first */
  sigaddset(&sa.sa_mask, SIGTERM);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  /* A file-size limit (ulimit -f) then fails the write with EFBIG, which the records
   * writer reports and survives, instead of killing the process mid-line. */
  signal(SIGXFSZ, SIG_IGN);

  PrunerFarm farm = NULL;
  if (prunerFarmLaunched()) {
    /* Rank 0 checks its input in a forked child now, before MPI starts: forked from a
     * process with MPI's threads (and the farm's heartbeat) the child could hang. */
    struct stat in;
    if (prunerFarmLauncherRank() <= 0 && !cli.study && optind == argc - 1 &&
        stat(argv[optind], &in) == 0 && S_ISREG(in.st_mode)) { /* not stdin or a pipe */
      char *text = NULL;
      size_t size = 0;
      PrunerStatus pst = prunerReadFile(argv[optind], &text, &size);
      if (pst.ok)
        pst = prunerIrCheckParseIsolated(text, size, argv[optind]);
      free(text);
      if (!pst.ok) {
        fprintf(stderr, "pruner-tune: error: %s\n", pst.message);
        return 1;
      }
      o.input_parse_checked = true;
    }
    PrunerStatus fst = prunerFarmCreate(NULL, NULL, &fo, &farm);
    if (!fst.ok) {
      fprintf(stderr, "pruner-tune: error: %s\n", fst.message);
      return 1;
    }
    g_farm_created = true;
    if (prunerFarmRank(farm) > 0) {
      int rc = serveFarm(farm, &o);
      prunerFarmDestroy(farm, rc);
      return rc;
    }
    o.farm = farm;
  }
  int rc = tuneMain(&cli, &o, &so, measure_set, argc, argv);
  if (farm) {
    char *lines = prunerFarmSummary(farm);
    if (lines && !cli.quiet)
      fputs(lines, stderr);
    free(lines);
    if (prunerFarmLostRanks(farm) > 0)
      fprintf(stderr, "pruner-tune: %d rank(s) lost during the run; their unfinished candidates "
                      "were built or measured by the other ranks, no record is missing\n",
              prunerFarmLostRanks(farm));
    prunerFarmDestroy(farm, rc);
  }
  return rc;
}

// Host backend: tuned f32 matmuls (1024^3 and the BERT FFN shapes) against OpenBLAS and
// BLIS (same child process, same inputs, re-measured back to back in rotating rounds:
// prunerHostRemeasureBaselines) with one thread and with every core, and 1024^3 against
// the untiled lowering. "Tuned" is the tuner's own pick: a pruner-tune session through
// the C API (pruner/tune.h) with kTrials trials, the default strategy and its final check,
// run with the process pinned to `threads` cores, so that it tunes for the machine the
// pick is then timed on (a 1-core target when threads is 1). Counters: tuned, OpenBLAS
// and BLIS GFLOP/s, medians and interquartile ranges (ms), the ratios vs_openblas and
// vs_blis (BLIS columns absent without libblis), and tune_s, the tuning session's wall
// time; the untiled benchmark reports tuned/untiled speedup. The machine is shared and
// noisy: read the ratios, not the absolute numbers (docs/host.md).
#include <benchmark/benchmark.h>

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "pruner/backend/host.h"
#include "pruner/clock.h"
#include "pruner/tune.h"

namespace {

constexpr int kSize = 1024;
constexpr int kTrials = 64;

// Plain data: it crosses a pipe from the tuning child.
struct Tuned {
  PrunerConfig config{};
  double us = 0;
  double tune_s = 0;
  bool ok = false;
  char error[600] = "";
};

PrunerHostOptions options(int threads) {
  PrunerHostOptions o = prunerHostDefaultOptions();
  o.threads = threads;
  o.min_samples = 5;
  o.max_samples = 10;
  o.min_sample_seconds = 0.3;
  o.timeout_seconds = 300;
  return o;
}

// The shipped verifier priors beside this binary (build/share/pruner-mlir/models), as
// pruner-tune finds them; "" when the link cannot be read.
std::string modelsDir() {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0)
    return "";
  exe[n] = '\0';
  std::string dir(exe);
  dir = dir.substr(0, dir.rfind('/'));
  return dir + "/../share/pruner-mlir/models";
}

// The matmul as an MLIR file for the session (removed after).
std::string writeMatmul(int64_t m, int64_t n, int64_t k) {
  char path[] = "/tmp/pruner-bench-XXXXXX.mlir";
  int fd = mkstemps(path, 5);
  if (fd < 0)
    return "";
  FILE *f = fdopen(fd, "w");
  std::string a = std::to_string(m) + "x" + std::to_string(k) + "xf32";
  std::string b = std::to_string(k) + "x" + std::to_string(n) + "xf32";
  std::string c = std::to_string(m) + "x" + std::to_string(n) + "xf32";
  std::fprintf(f,
               "func.func @mm(%%a: tensor<%s>, %%b: tensor<%s>, %%c: tensor<%s>) -> tensor<%s> {\n"
               "  %%r = linalg.matmul ins(%%a, %%b : tensor<%s>, tensor<%s>) outs(%%c : "
               "tensor<%s>) -> tensor<%s>\n  return %%r : tensor<%s>\n}\n",
               a.c_str(), b.c_str(), c.c_str(), c.c_str(), a.c_str(), b.c_str(), c.c_str(),
               c.c_str(), c.c_str());
  std::fclose(f);
  return path;
}

// The tuner's pick for `threads` cores: a session of kTrials trials with the process's
// affinity narrowed to the first `threads` CPUs it may use (the host target's cores come
// from the affinity mask, docs/host.md), restored after.
Tuned tuneHere(int64_t m, int64_t n, int64_t k, int threads) {
  Tuned best;
  cpu_set_t all, some;
  CPU_ZERO(&some);
  if (sched_getaffinity(0, sizeof all, &all) != 0) {
    std::snprintf(best.error, sizeof best.error, "sched_getaffinity failed");
    return best;
  }
  for (int c = 0, taken = 0; c < CPU_SETSIZE && taken < threads; ++c)
    if (CPU_ISSET(c, &all)) {
      CPU_SET(c, &some);
      ++taken;
    }
  std::string input = writeMatmul(m, n, k), models = modelsDir();
  if (input.empty()) {
    std::snprintf(best.error, sizeof best.error, "cannot write the input module");
    return best;
  }
  sched_setaffinity(0, sizeof some, &some);
  PrunerTuneOptions o = prunerTuneDefaultOptions();
  o.target = "host";
  o.trials = kTrials;
  o.prior_dir = models.empty() ? nullptr : models.c_str();
  PrunerTuneSession session = nullptr;
  double t0 = prunerNowSeconds();
  PrunerStatus st = prunerTuneSessionCreate(input.c_str(), &o, &session);
  if (st.ok)
    st = prunerTuneSessionRun(session);
  best.tune_s = prunerNowSeconds() - t0;
  if (st.ok && prunerTuneSessionNumTasks(session) == 1) {
    PrunerTuneTaskInfo info;
    prunerTuneSessionGetTask(session, 0, &info);
    best.ok = info.has_best && info.measured;
    best.config = info.best;
    best.us = info.best_us;
    if (!best.ok)
      std::snprintf(best.error, sizeof best.error, "the session measured no config ok");
  } else {
    std::snprintf(best.error, sizeof best.error, "%s",
                  st.ok ? "no task in the module" : st.message);
  }
  prunerTuneSessionDestroy(session);
  sched_setaffinity(0, sizeof all, &all);
  std::remove(input.c_str());
  return best;
}

// tuneHere in a child process. The session trains the verifier (XGBoost, which runs a
// libgomp thread pool); a process forked after that inherits a libgomp that believes its
// pool threads exist, and BLIS' GOMP_parallel in the measuring child forked later by
// this process then waits for them forever (seen: a 2-thread BLIS sgemm spinning in
// bli_thrcomm_bcast). Tuning in a child keeps this process free of any thread pool.
Tuned tune(int64_t m, int64_t n, int64_t k, int threads) {
  Tuned best;
  int fds[2];
  if (pipe(fds) != 0) {
    std::snprintf(best.error, sizeof best.error, "pipe failed");
    return best;
  }
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    Tuned t = tuneHere(m, n, k, threads);
    ssize_t w = write(fds[1], &t, sizeof t);
    _exit(w == (ssize_t)sizeof t ? 0 : 1);
  }
  close(fds[1]);
  ssize_t got = pid > 0 ? read(fds[0], &best, sizeof best) : -1;
  close(fds[0]);
  int status = 0;
  if (pid > 0)
    waitpid(pid, &status, 0);
  if (got != (ssize_t)sizeof best) {
    best = Tuned();
    if (pid < 0)
      std::snprintf(best.error, sizeof best.error, "fork failed");
    else
      std::snprintf(best.error, sizeof best.error,
                    "the tuning child ended without a result (wait status %d)", status);
  }
  return best;
}

// Shapes: 1024^3, the two BERT-base FFN matmuls at 128 tokens (M x N x K), and two
// shapes whose loops are split.
void BM_HostMatmulVsOpenBLAS(benchmark::State &state) {
  int threads = static_cast<int>(state.range(0));
  int64_t m = state.range(1), n = state.range(2), k = state.range(3);
  PrunerHost host = nullptr;
  PrunerHostOptions o = options(threads);
  if (!prunerHostCreate(&o, &host).ok) {
    state.SkipWithError("prunerHostCreate failed");
    return;
  }
  if (threads == 0)
    threads = prunerHostTargetCores(prunerHostGetTarget(host));
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, m, n, k, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  double flops = prunerWorkloadFlops(&w);
  Tuned best = tune(m, n, k, threads);
  PrunerHostRemeasure rem;
  std::memset(&rem, 0, sizeof rem);
  std::string blis_note;
  for (auto _ : state) {
    if (!best.ok) {
      state.SkipWithError((std::string("tuning failed: ") + best.error).c_str());
      break;
    }
    // The pick, OpenBLAS and BLIS back to back in the same rounds (rotating order), so
    // load on the shared machine hits all three alike (docs/measurement.md).
    prunerHostRemeasureBaselines(host, &w, &best.config, 1, true, true, &rem);
    const PrunerHostRemeasureEntry &t = rem.entries[0], &ob = rem.entries[1],
                                   &bl = rem.entries[2];
    if (t.status != PRUNER_RECORD_OK || ob.status != PRUNER_RECORD_OK) {
      state.SkipWithError(t.status != PRUNER_RECORD_OK ? t.error : ob.error);
      break;
    }
    state.SetIterationTime(t.median_us * 1e-6);
    state.counters["tuned_gflops"] = flops / t.median_us * 1e-3;
    state.counters["tuned_ms"] = t.median_us * 1e-3;
    state.counters["tuned_iqr_ms"] = (t.p75_us - t.p25_us) * 1e-3;
    state.counters["openblas_gflops"] = flops / ob.median_us * 1e-3;
    state.counters["openblas_ms"] = ob.median_us * 1e-3;
    state.counters["openblas_iqr_ms"] = (ob.p75_us - ob.p25_us) * 1e-3;
    state.counters["vs_openblas"] = ob.median_us / t.median_us;
    if (bl.status == PRUNER_RECORD_OK) {
      state.counters["blis_gflops"] = flops / bl.median_us * 1e-3;
      state.counters["blis_ms"] = bl.median_us * 1e-3;
      state.counters["blis_iqr_ms"] = (bl.p75_us - bl.p25_us) * 1e-3;
      state.counters["vs_blis"] = bl.median_us / t.median_us;
    } else {
      // No BLIS here (libblis.so.4 missing): its columns are left out, with why.
      blis_note = std::string(", no BLIS: ") + bl.error;
    }
    state.counters["rounds"] = rem.rounds;
    state.counters["threads"] = threads;
    state.counters["tune_s"] = best.tune_s;
    state.counters["trials"] = kTrials;
  }
  char cfg[256];
  prunerConfigFormatShort(&w, &best.config, cfg, sizeof cfg);
  state.SetLabel(std::string("openblas core ") + rem.baseline_core +
                 (blis_note.empty() ? ", blis core " + std::string(rem.blis_core) : blis_note) +
                 ", tuned " + cfg);
  prunerHostDestroy(host);
}

// The tuned pick against the untiled lowering (linalg to plain loops), one run each,
// alternating for kUntiledRounds rounds in this run: both medians and ranges are this
// run's, so the ratio compares kernels, not moments (the tuned time used to come from the
// tuning child, at another moment).
constexpr int kUntiledRounds = 3;

double medianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void BM_HostMatmulVsUntiled(benchmark::State &state) {
  PrunerHost host = nullptr;
  PrunerHostOptions o = options(1);
  o.min_samples = 1;
  o.max_samples = 1;
  o.min_sample_seconds = 0;
  if (!prunerHostCreate(&o, &host).ok) {
    state.SkipWithError("prunerHostCreate failed");
    return;
  }
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, kSize, kSize, kSize, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  Tuned best = tune(kSize, kSize, kSize, 1);
  for (auto _ : state) {
    if (!best.ok) {
      state.SkipWithError((std::string("tuning failed: ") + best.error).c_str());
      break;
    }
    std::vector<double> untiled, tuned;
    const char *failed = nullptr;
    for (int r = 0; r < kUntiledRounds && !failed; ++r) {
      PrunerHostResult u, t;
      prunerHostMeasure(host, &w, nullptr, &u);
      prunerHostMeasure(host, &w, &best.config, &t);
      if (u.record.status != PRUNER_RECORD_OK)
        failed = "the untiled kernel's measurement failed";
      else if (t.record.status != PRUNER_RECORD_OK)
        failed = "the tuned kernel's measurement failed";
      else {
        untiled.push_back(u.record.median_us);
        tuned.push_back(t.record.median_us);
      }
    }
    if (failed) {
      state.SkipWithError(failed);
      break;
    }
    double um = medianOf(untiled), tm = medianOf(tuned);
    state.SetIterationTime(um * 1e-6);
    state.counters["untiled_gflops"] = prunerWorkloadFlops(&w) / um * 1e-3;
    state.counters["untiled_ms"] = um * 1e-3;
    state.counters["untiled_min_ms"] = *std::min_element(untiled.begin(), untiled.end()) * 1e-3;
    state.counters["untiled_max_ms"] = *std::max_element(untiled.begin(), untiled.end()) * 1e-3;
    state.counters["tuned_ms"] = tm * 1e-3;
    state.counters["tuned_min_ms"] = *std::min_element(tuned.begin(), tuned.end()) * 1e-3;
    state.counters["tuned_max_ms"] = *std::max_element(tuned.begin(), tuned.end()) * 1e-3;
    state.counters["tuned_speedup"] = um / tm;
    state.counters["rounds"] = kUntiledRounds;
  }
  prunerHostDestroy(host);
}

}  // namespace

// 1 thread and all cores (0); one iteration each: every iteration is a full measurement.
BENCHMARK(BM_HostMatmulVsOpenBLAS)
    ->ArgNames({"threads", "m", "n", "k"})
    ->ArgsProduct({{1, 0}, {kSize}, {kSize}, {kSize}})
    ->Args({1, 128, 3072, 768})
    ->Args({0, 128, 3072, 768})
    ->Args({1, 128, 768, 3072})
    ->Args({0, 128, 768, 3072})
    // Bounds with no useful divisor, whose loops the host schedule splits (docs/host.md,
    // "Split loops"): a prime cube, and an output width no vector divides.
    ->Args({0, 521, 521, 521})
    ->Args({0, 32, 5094, 256})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HostMatmulVsUntiled)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

// Host backend: tuned f32 matmuls (1024^3 and the BERT FFN shapes) and ResNet-50's convs
// against OpenBLAS and BLIS (a conv: im2col, then their sgemm) and oneDNN (convs; and
// MobileNet-V2's depthwise convs, against oneDNN alone), in the same child process
// on the same inputs, re-measured back to back in rotating rounds
// (prunerHostRemeasureBaselines), with one thread and with every core, and 1024^3 against
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
#include <initializer_list>
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

// `text` as an MLIR file for the session (removed after); "" when it cannot be written.
std::string writeModule(const std::string &text) {
  char path[] = "/tmp/pruner-bench-XXXXXX.mlir";
  int fd = mkstemps(path, 5);
  if (fd < 0)
    return "";
  FILE *f = fdopen(fd, "w");
  bool ok = f && std::fputs(text.c_str(), f) >= 0;
  if (f)
    ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    std::remove(path);
    return "";
  }
  return path;
}

std::string tensor(std::initializer_list<int64_t> dims) {
  std::string t = "tensor<";
  for (int64_t d : dims)
    t += std::to_string(d) + "x";
  return t + "f32>";
}

std::string matmulModule(int64_t m, int64_t n, int64_t k) {
  std::string a = tensor({m, k}), b = tensor({k, n}), c = tensor({m, n});
  return "func.func @mm(%a: " + a + ", %b: " + b + ", %c: " + c + ") -> " + c + " {\n" +
         "  %r = linalg.matmul ins(%a, %b : " + a + ", " + b + ") outs(%c : " + c + ") -> " + c +
         "\n  return %r : " + c + "\n}\n";
}

// An NHWC conv at batch 1, stride 1, on an input already padded to (oh + kh - 1) x
// (ow + kw - 1): ResNet's layout and shapes (data/workloads/resnet50_conv3x3.mlir).
std::string convModule(int64_t oh, int64_t ow, int64_t c, int64_t kh, int64_t kw, int64_t f) {
  std::string in = tensor({1, oh + kh - 1, ow + kw - 1, c}), fl = tensor({kh, kw, c, f}),
              out = tensor({1, oh, ow, f});
  return "func.func @conv(%i: " + in + ", %f: " + fl + ", %o: " + out + ") -> " + out +
         " {\n  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = "
         "dense<1> : tensor<2xi64>} ins(%i, %f : " +
         in + ", " + fl + ") outs(%o : " + out + ") -> " + out + "\n  return %r : " + out +
         "\n}\n";
}

// A depthwise conv at batch 1, NHWC, stride 1, on an input already padded: oh x oh x c,
// a k x k filter per channel (HWC).
std::string depthwiseModule(int64_t oh, int64_t c, int64_t k) {
  std::string in = tensor({1, oh + k - 1, oh + k - 1, c}), fl = tensor({k, k, c}),
              out = tensor({1, oh, oh, c});
  return "func.func @dw(%i: " + in + ", %f: " + fl + ", %o: " + out + ") -> " + out +
         " {\n  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, "
         "strides = dense<1> : tensor<2xi64>} ins(%i, %f : " +
         in + ", " + fl + ") outs(%o : " + out + ") -> " + out + "\n  return %r : " + out + "\n}\n";
}

// An NCHW conv at batch 1 on an input already padded: n x c x ih x iw, filter f x c x k x
// k, `stride` both ways (ResNet's stem is 3 x 230 x 230, 64 x 3 x 7 x 7, stride 2).
std::string nchwConvModule(int64_t c, int64_t ih, int64_t k, int64_t f, int64_t stride) {
  int64_t oh = (ih - k) / stride + 1;
  std::string in = tensor({1, c, ih, ih}), fl = tensor({f, c, k, k}), out = tensor({1, f, oh, oh});
  std::string s = std::to_string(stride);
  return "func.func @conv(%i: " + in + ", %f: " + fl + ", %o: " + out + ") -> " + out +
         " {\n  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = "
         "dense<" + s + "> : tensor<2xi64>} ins(%i, %f : " +
         in + ", " + fl + ") outs(%o : " + out + ") -> " + out + "\n  return %r : " + out +
         "\n}\n";
}

// The tuner's pick for `threads` cores: a session of kTrials trials with the process's
// affinity narrowed to the first `threads` CPUs it may use (the host target's cores come
// from the affinity mask, docs/host.md), restored after.
Tuned tuneHere(const std::string &module, int threads) {
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
  std::string input = writeModule(module), models = modelsDir();
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
Tuned tune(const std::string &module, int threads) {
  Tuned best;
  int fds[2];
  if (pipe(fds) != 0) {
    std::snprintf(best.error, sizeof best.error, "pipe failed");
    return best;
  }
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    Tuned t = tuneHere(module, threads);
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

// The tuner's pick for `module` (whose one op is `w`) against the BLAS baseline and BLIS,
// back to back: the matmul and conv benchmarks' shared body. A workload with no sgemm form
// (a depthwise conv) is compared with oneDNN alone.
void tunedVsBlas(benchmark::State &state, const PrunerWorkload &w, const std::string &module,
                 int threads, bool onednn) {
  PrunerHost host = nullptr;
  PrunerHostOptions o = options(threads);
  if (!prunerHostCreate(&o, &host).ok) {
    state.SkipWithError("prunerHostCreate failed");
    return;
  }
  if (threads == 0)
    threads = prunerHostTargetCores(prunerHostGetTarget(host));
  double flops = prunerWorkloadFlops(&w);
  Tuned best = tune(module, threads);
  PrunerHostRemeasure rem;
  std::memset(&rem, 0, sizeof rem);
  std::string blis_note, onednn_note;
  const bool blas = prunerHostHasBlasBaseline(&w);
  for (auto _ : state) {
    if (!best.ok) {
      state.SkipWithError((std::string("tuning failed: ") + best.error).c_str());
      break;
    }
    // The pick, OpenBLAS and BLIS back to back in the same rounds (rotating order), so
    // load on the shared machine hits all three alike (docs/measurement.md).
    prunerHostRemeasureBaselines(host, &w, &best.config, 1, blas, blas, onednn, &rem);
    // oneDNN's entry is the last one, when the request has it (rem.has_onednn).
    const PrunerHostRemeasureEntry &t = rem.entries[0], &ob = rem.entries[1], &bl = rem.entries[2],
                                   &dn = rem.entries[rem.num_entries - 1];
    if (t.status != PRUNER_RECORD_OK || (blas && ob.status != PRUNER_RECORD_OK)) {
      state.SkipWithError(t.status != PRUNER_RECORD_OK ? t.error : ob.error);
      break;
    }
    state.SetIterationTime(t.median_us * 1e-6);
    state.counters["tuned_gflops"] = flops / t.median_us * 1e-3;
    state.counters["tuned_ms"] = t.median_us * 1e-3;
    state.counters["tuned_iqr_ms"] = (t.p75_us - t.p25_us) * 1e-3;
    if (blas) { // without a BLAS form (a depthwise conv) only oneDNN's counters follow
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
    }
    if (rem.has_onednn && dn.status == PRUNER_RECORD_OK) {
      state.counters["onednn_gflops"] = flops / dn.median_us * 1e-3;
      state.counters["onednn_ms"] = dn.median_us * 1e-3;
      state.counters["onednn_iqr_ms"] = (dn.p75_us - dn.p25_us) * 1e-3;
      state.counters["vs_onednn"] = dn.median_us / t.median_us;
      onednn_note = std::string(", onednn ") + rem.onednn_impl;
    } else if (rem.has_onednn) {
      onednn_note = std::string(", no oneDNN: ") + dn.error;
    }
    state.counters["rounds"] = rem.rounds;
    state.counters["threads"] = threads;
    state.counters["tune_s"] = best.tune_s;
    state.counters["trials"] = kTrials;
  }
  char cfg[256];
  prunerConfigFormatShort(&w, &best.config, cfg, sizeof cfg);
  const char *method = prunerHostBlasBaselineMethod(&w);
  std::string blas_label =
      blas ? std::string(method ? method : "no baseline") + ", openblas core " + rem.baseline_core +
                 (blis_note.empty() ? ", blis core " + std::string(rem.blis_core) : blis_note)
           : std::string("no BLAS form");
  state.SetLabel(blas_label + onednn_note + ", tuned " + cfg);
  prunerHostDestroy(host);
}

// Shapes: 1024^3, the two BERT-base FFN matmuls at 128 tokens (M x N x K), two shapes
// whose loops are split, and two output widths the lanes do not divide.
void BM_HostMatmulVsOpenBLAS(benchmark::State &state) {
  int64_t m = state.range(1), n = state.range(2), k = state.range(3);
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, m, n, k, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  tunedVsBlas(state, w, matmulModule(m, n, k), static_cast<int>(state.range(0)), false);
}

// ResNet-50's convs at batch 1 (NHWC, f32, stride 1, input padded) against im2col +
// OpenBLAS sgemm, or sgemm on the input for the 1x1 conv (docs/host.md, "The OpenBLAS
// baseline of a convolution"; im2col's copy is part of its time), and against oneDNN's
// direct convolution, the conv library a framework calls ("oneDNN: a conv library
// baseline"; counters onednn_ms, vs_onednn).
void BM_HostConvVsOpenBLAS(benchmark::State &state) {
  int64_t oh = state.range(1), c = state.range(2), k = state.range(3), f = state.range(4);
  PrunerWorkload w;
  prunerWorkloadConv2dNhwcHwcf(&w, 1, oh + k - 1, oh + k - 1, c, k, k, f, 1, 1,
                               PRUNER_DTYPE_F32);
  tunedVsBlas(state, w, convModule(oh, oh, c, k, k, f), static_cast<int>(state.range(0)), true);
}

// NCHW convs (docs/host.md, "NCHW convolutions run channels-last": transposes around the
// NHWC twin): ResNet-50's stem and two of its 3x3 convs in NCHW, against im2col + OpenBLAS
// (one sgemm per image) and oneDNN's direct conv, its reorders from and to the NCHW
// buffers timed with it ("oneDNN: a conv library baseline").
void BM_HostConvNchwVsOpenBLAS(benchmark::State &state) {
  int64_t c = state.range(1), ih = state.range(2), k = state.range(3), f = state.range(4),
          stride = state.range(5);
  PrunerWorkload w;
  prunerWorkloadConv2dNchwFchw(&w, 1, c, ih, ih, f, k, k, stride, 1, PRUNER_DTYPE_F32);
  tunedVsBlas(state, w, nchwConvModule(c, ih, k, f, stride), static_cast<int>(state.range(0)),
              true);
}

// MobileNet-V2's stride-1 depthwise 3x3 convs at batch 1 (NHWC, f32, input padded: its
// 112x112x32, 56x56x144, 28x28x192, 14x14x384 and 7x7x960 blocks) against oneDNN's
// depthwise convolution (grouped, `brdgmm_dw` on AVX-512), the only library baseline a
// depthwise conv has here (docs/host.md, "oneDNN: a conv library baseline").
void BM_HostDepthwiseVsOneDNN(benchmark::State &state) {
  int64_t oh = state.range(1), c = state.range(2), k = state.range(3);
  PrunerWorkload w;
  prunerWorkloadDepthwiseConv2dNhwcHwc(&w, 1, oh + k - 1, oh + k - 1, c, k, k, 1, 1,
                                       PRUNER_DTYPE_F32);
  tunedVsBlas(state, w, depthwiseModule(oh, c, k), static_cast<int>(state.range(0)), true);
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
  Tuned best = tune(matmulModule(kSize, kSize, kSize), 1);
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
    // Output widths the lanes do not divide: 196 (ResNet-50's stage-3 conv as a GEMM; a
    // 4-lane vector divides it, the full lanes split it) and 8, below the lanes
    // (docs/host.md, "Narrow vectors or the full lanes").
    ->Args({1, 256, 196, 2304})
    ->Args({1, 512, 8, 512})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
// The 3x3 convs of ResNet-50's four stages and its first stage's 1x1 expansion, on one
// core and on all.
BENCHMARK(BM_HostConvVsOpenBLAS)
    ->ArgNames({"threads", "oh", "c", "k", "f"})
    ->Args({1, 56, 64, 3, 64})
    ->Args({0, 56, 64, 3, 64})
    ->Args({1, 28, 128, 3, 128})
    ->Args({1, 14, 256, 3, 256})
    ->Args({1, 7, 512, 3, 512})
    ->Args({1, 56, 64, 1, 256})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HostDepthwiseVsOneDNN)
    ->ArgNames({"threads", "oh", "c", "k"})
    ->Args({1, 112, 32, 3})
    ->Args({1, 56, 144, 3})
    ->Args({1, 28, 192, 3})
    ->Args({0, 28, 192, 3})
    ->Args({1, 14, 384, 3})
    ->Args({1, 7, 960, 3})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
// ResNet-50's stem (7x7, stride 2) and its stage-1 and stage-4 3x3 convs, NCHW, one core
// (stage 4: the largest filter, 9.4 MB, transposed on every call).
BENCHMARK(BM_HostConvNchwVsOpenBLAS)
    ->ArgNames({"threads", "c", "ih", "k", "f", "stride"})
    ->Args({1, 3, 230, 7, 64, 2})
    ->Args({1, 64, 58, 3, 64, 1})
    ->Args({1, 512, 9, 3, 512, 1})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HostMatmulVsUntiled)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

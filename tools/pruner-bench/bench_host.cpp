// Host backend: a tuned 1024^3 f32 matmul against OpenBLAS (same process, same inputs,
// same timing protocol: warm-up, samples, median) with one thread and with every core,
// and against the untiled lowering. "Tuned" is a small real tuning run through the C API:
// the draft's top 8 configs of the host space are JIT-compiled and measured, the fastest
// is kept. Counters: tuned and OpenBLAS GFLOP/s and their ratio (vs_openblas); the
// untiled benchmark reports tuned/untiled speedup. The machine is shared and noisy: read
// the ratios, not the absolute numbers (docs/host.md).
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "pruner/draft.h"
#include "pruner/backend/host.h"

namespace {

constexpr int kSize = 1024;
constexpr int kTop = 8;

struct Tuned {
  PrunerConfig config{};
  double us = 0;
  bool ok = false;
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

// The draft's top kTop for `threads` cores, each measured; the fastest ok one.
Tuned tune(PrunerHost host, const PrunerWorkload &w, int threads) {
  Tuned best;
  PrunerTargetDesc t = *prunerHostGetTarget(host);
  t.peak_fp32_gflops *= static_cast<double>(threads) / prunerHostTargetCores(&t);
  t.sm_count = threads; // the cores the host draft and space plan for
  PrunerSpace space = nullptr;
  PrunerDraft draft = nullptr;
  if (!prunerSpaceCreate(&w, &t, nullptr, &space).ok || !prunerDraftCreate(&w, &t, &draft).ok)
    return best;
  std::vector<PrunerDraftCandidate> top(kTop);
  size_t n = prunerDraftTopN(draft, space, top.size(), top.data());
  for (size_t i = 0; i < n; ++i) {
    PrunerHostResult r;
    prunerHostMeasure(host, &w, &top[i].config, &r);
    if (r.record.status == PRUNER_RECORD_OK && (!best.ok || r.record.median_us < best.us)) {
      best.ok = true;
      best.us = r.record.median_us;
      best.config = top[i].config;
    }
  }
  prunerDraftDestroy(draft);
  prunerSpaceDestroy(space);
  return best;
}

void BM_HostMatmulVsOpenBLAS(benchmark::State &state) {
  int threads = static_cast<int>(state.range(0));
  PrunerHost host = nullptr;
  PrunerHostOptions o = options(threads);
  if (!prunerHostCreate(&o, &host).ok) {
    state.SkipWithError("prunerHostCreate failed");
    return;
  }
  if (threads == 0)
    threads = prunerHostTargetCores(prunerHostGetTarget(host));
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, kSize, kSize, kSize, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  double flops = prunerWorkloadFlops(&w);
  Tuned best = tune(host, w, threads);
  PrunerHostResult base;
  for (auto _ : state) {
    if (!best.ok) {
      state.SkipWithError("no tuned config measured ok");
      break;
    }
    // Re-measure the winner right after OpenBLAS so both see the same machine load.
    prunerHostMeasureBaseline(host, &w, &base);
    PrunerHostResult r;
    prunerHostMeasure(host, &w, &best.config, &r);
    if (r.record.status != PRUNER_RECORD_OK || base.record.status != PRUNER_RECORD_OK) {
      state.SkipWithError("measurement failed");
      break;
    }
    state.SetIterationTime(r.record.median_us * 1e-6);
    state.counters["tuned_gflops"] = flops / r.record.median_us * 1e-3;
    state.counters["openblas_gflops"] = flops / base.record.median_us * 1e-3;
    state.counters["vs_openblas"] = base.record.median_us / r.record.median_us;
    state.counters["threads"] = threads;
  }
  char cfg[256];
  prunerConfigFormatShort(&w, &best.config, cfg, sizeof cfg);
  state.SetLabel(std::string("openblas core ") + base.baseline_core + ", tuned " + cfg);
  prunerHostDestroy(host);
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
  Tuned best = tune(host, w, 1);
  for (auto _ : state) {
    PrunerHostResult untiled;
    prunerHostMeasure(host, &w, nullptr, &untiled);
    if (!best.ok || untiled.record.status != PRUNER_RECORD_OK) {
      state.SkipWithError("measurement failed");
      break;
    }
    state.SetIterationTime(untiled.record.median_us * 1e-6);
    state.counters["untiled_gflops"] = prunerWorkloadFlops(&w) / untiled.record.median_us * 1e-3;
    state.counters["tuned_speedup"] = untiled.record.median_us / best.us;
  }
  prunerHostDestroy(host);
}

}  // namespace

// 1 thread and all cores (0); one iteration each: every iteration is a full measurement.
BENCHMARK(BM_HostMatmulVsOpenBLAS)->Arg(1)->Arg(0)->UseManualTime()->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HostMatmulVsUntiled)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

// Host backend: tuned f32 matmuls (1024^3 and the BERT FFN shapes) against OpenBLAS and
// BLIS (same child process, same inputs, re-measured back to back in rotating rounds:
// prunerHostRemeasureBaselines) with one thread and with every core, and 1024^3 against
// the untiled lowering. "Tuned" is a small real tuning run through the C API:
// the draft's top 8 configs of the host space are JIT-compiled and measured, the fastest
// is kept. Counters: tuned, OpenBLAS and BLIS GFLOP/s, medians and interquartile ranges
// (ms), and the ratios vs_openblas and vs_blis (BLIS columns absent without libblis); the
// untiled benchmark reports tuned/untiled speedup. The machine is shared and noisy: read
// the ratios, not the absolute numbers (docs/host.md).
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
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

// Shapes: 1024^3 and the two BERT-base FFN matmuls at 128 tokens (M x N x K).
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
  Tuned best = tune(host, w, threads);
  PrunerHostRemeasure rem;
  std::string blis_note;
  for (auto _ : state) {
    if (!best.ok) {
      state.SkipWithError("no tuned config measured ok");
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
  }
  char cfg[256];
  prunerConfigFormatShort(&w, &best.config, cfg, sizeof cfg);
  state.SetLabel(std::string("openblas core ") + rem.baseline_core +
                 (blis_note.empty() ? ", blis core " + std::string(rem.blis_core) : blis_note) +
                 ", tuned " + cfg);
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
BENCHMARK(BM_HostMatmulVsOpenBLAS)
    ->ArgNames({"threads", "m", "n", "k"})
    ->ArgsProduct({{1, 0}, {kSize}, {kSize}, {kSize}})
    ->Args({1, 128, 3072, 768})
    ->Args({0, 128, 3072, 768})
    ->Args({1, 128, 768, 3072})
    ->Args({0, 128, 768, 3072})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HostMatmulVsUntiled)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

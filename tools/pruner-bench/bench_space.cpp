// Space enumeration speed: valid configs enumerated (prunerSpaceNext, which checks every
// raw candidate it passes) per second, and raw candidates scanned per second, on the
// ResNet-50 3x3 conv (NHWC input 1x58x58x64 padded, filter 3x3x64x64, output 56x56) and a
// 1024^3 matmul, both on the H200; plus index <-> config lookups.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "pruner/space.h"

namespace {

enum Workload { kConv = 0, kMatmul = 1 };

PrunerSpace makeSpace(int which) {
  PrunerWorkload w;
  if (which == kConv)
    prunerWorkloadConv2dNhwcHwcf(&w, 1, 58, 58, 64, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
  else
    prunerWorkloadMatmul(&w, 1024, 1024, 1024, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerTargetDesc t;
  PrunerSpace s = nullptr;
  if (!prunerTargetLookup("h200", &t).ok || !prunerSpaceCreate(&w, &t, nullptr, &s).ok)
    return nullptr;
  return s;
}

// One full scan per iteration: items = raw candidates checked; counters report valid ones.
void BM_SpaceEnumerate(benchmark::State &state) {
  PrunerSpace s = makeSpace(static_cast<int>(state.range(0)));
  if (!s) {
    state.SkipWithError("could not build the space");
    return;
  }
  uint64_t valid = 0;
  for (auto _ : state) {
    uint64_t raw = 0;
    PrunerConfig c;
    while (prunerSpaceNext(s, &raw, &c)) {
      benchmark::DoNotOptimize(c);
      ++valid;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * prunerSpaceRawSize(s)));
  state.counters["valid_per_s"] =
      benchmark::Counter(static_cast<double>(valid), benchmark::Counter::kIsRate);
  state.counters["raw"] = static_cast<double>(prunerSpaceRawSize(s));
  state.counters["valid"] = static_cast<double>(prunerSpaceCount(s));
  state.SetLabel(prunerSpaceGetWorkload(s)->key);
  prunerSpaceDestroy(s);
}
BENCHMARK(BM_SpaceEnumerate)->Arg(kConv)->Arg(kMatmul)->Unit(benchmark::kMillisecond);

// The same rules through prunerConfigIsValid on every raw candidate (no subtree skips):
// the cost of checking a config that did not come from the scan.
void BM_ConfigIsValid(benchmark::State &state) {
  PrunerSpace s = makeSpace(static_cast<int>(state.range(0)));
  if (!s) {
    state.SkipWithError("could not build the space");
    return;
  }
  const PrunerWorkload *w = prunerSpaceGetWorkload(s);
  const PrunerTargetDesc *t = prunerSpaceGetTarget(s);
  uint64_t raw_size = prunerSpaceRawSize(s), raw = 0;
  for (auto _ : state) {
    PrunerConfig c;
    prunerSpaceDecodeRaw(s, raw, &c);
    benchmark::DoNotOptimize(prunerConfigIsValid(w, t, &c));
    raw = raw + 1 == raw_size ? 0 : raw + 1;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  prunerSpaceDestroy(s);
}
BENCHMARK(BM_ConfigIsValid)->Arg(kConv)->Arg(kMatmul);

// Dense index -> config and back, at pseudo-random indices (index built beforehand).
void BM_SpaceIndexRoundTrip(benchmark::State &state) {
  PrunerSpace s = makeSpace(static_cast<int>(state.range(0)));
  if (!s) {
    state.SkipWithError("could not build the space");
    return;
  }
  uint64_t count = prunerSpaceCount(s), seed = 1;
  for (auto _ : state) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    PrunerConfig c;
    uint64_t index = 0;
    prunerSpaceGetConfig(s, (seed >> 17) % count, &c);
    prunerSpaceGetIndex(s, &c, &index);
    benchmark::DoNotOptimize(index);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  prunerSpaceDestroy(s);
}
BENCHMARK(BM_SpaceIndexRoundTrip)->Arg(kConv)->Arg(kMatmul);

// Building the chunked index from scratch (what the first Count costs).
void BM_SpaceCount(benchmark::State &state) {
  for (auto _ : state) {
    PrunerSpace s = makeSpace(static_cast<int>(state.range(0)));
    if (!s) {
      state.SkipWithError("could not build the space");
      return;
    }
    benchmark::DoNotOptimize(prunerSpaceCount(s));
    prunerSpaceDestroy(s);
  }
}
BENCHMARK(BM_SpaceCount)->Arg(kConv)->Arg(kMatmul)->Unit(benchmark::kMillisecond);

} // namespace

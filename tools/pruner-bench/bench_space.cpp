// Space enumeration speed: valid configs enumerated (prunerSpaceNext, which checks every
// raw candidate it passes) per second, and raw candidates scanned per second, on the
// ResNet-50 3x3 conv (NHWC input 1x58x58x64 padded, filter 3x3x64x64, output 56x56) and a
// 1024^3 matmul, both on the H200; plus index <-> config lookups, and lookups in a
// restricted space.
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


// prunerSpaceContains on FMA configs of an f16 1024^3 matmul on the H200, in the whole
// space (Arg 0, the baseline) and in the space restricted to its tensor-core configs
// (Arg 1; --schedules=tensor-core, or a study of tensor-core records), where none of them
// is kept. The restricted lookup is a binary search over the kept configs; it used to
// walk every valid config after the one asked, seconds per call.
bool keepTensorCore(const PrunerConfig *c, void *) { return c->mma != 0; }

void BM_SpaceContainsRestricted(benchmark::State &state) {
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 1024, 1024, 1024, PRUNER_DTYPE_F16, PRUNER_DTYPE_F32);
  PrunerTargetDesc t;
  PrunerSpace s = nullptr;
  if (!prunerTargetLookup("h200", &t).ok || !prunerSpaceCreate(&w, &t, nullptr, &s).ok) {
    state.SkipWithError("could not build the space");
    return;
  }
  // FMA configs (mma 0) at pseudo-random raw positions, taken before any restriction.
  PrunerConfig asked[64];
  uint64_t raw_size = prunerSpaceRawSize(s), seed = 1;
  int n = 0;
  for (int tries = 0; n < 64 && tries < 100000; ++tries) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    uint64_t raw = (seed >> 17) % raw_size;
    PrunerConfig c;
    if (prunerSpaceNext(s, &raw, &c) && c.mma == 0)
      asked[n++] = c;
  }
  if (n == 0) {
    state.SkipWithError("no FMA config found");
    prunerSpaceDestroy(s);
    return;
  }
  if (state.range(0) == 1 && !prunerSpaceRestrict(s, keepTensorCore, nullptr).ok) {
    state.SkipWithError("out of memory restricting the space");
    prunerSpaceDestroy(s);
    return;
  }
  int i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(prunerSpaceContains(s, &asked[i]));
    i = i + 1 == n ? 0 : i + 1;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.SetLabel(state.range(0) == 1 ? "restricted to tensor-core configs" : "whole space");
  prunerSpaceDestroy(s);
}
BENCHMARK(BM_SpaceContainsRestricted)->Arg(0)->Arg(1);

} // namespace

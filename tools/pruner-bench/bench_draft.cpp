// Draft speed: configs scored per second per core by prunerDraftTopN (a full scan of the
// space, top 512 kept) on the ResNet-50 3x3 conv (1x58x58x64 * 3x3x64x64) and a 1024^3
// matmul on the H200, plus one prunerDraftScore in isolation. The resident set before and
// after the timed scans and this benchmark's own peak (the process's high-water mark is
// reset first) show that memory does not grow with the space: the heap lives in the
// caller's 512 entries and nothing is allocated per config. (getrusage's ru_maxrss is the
// whole process's peak, so it said what ran before; a growth counter that is always 0
// made Google Benchmark write a NaN coefficient of variation into the JSON.)
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "pruner/draft.h"

namespace {

struct Setup {
  PrunerSpace space = nullptr;
  PrunerDraft draft = nullptr;
  ~Setup() {
    if (draft) prunerDraftDestroy(draft);
    if (space) prunerSpaceDestroy(space);
  }
};

bool makeSetup(int which, Setup &s) {
  PrunerWorkload w;
  if (which == 0)
    prunerWorkloadConv2dNhwcHwcf(&w, 1, 58, 58, 64, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
  else
    prunerWorkloadMatmul(&w, 1024, 1024, 1024, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerTargetDesc t;
  return prunerTargetLookup("h200", &t).ok && prunerSpaceCreate(&w, &t, nullptr, &s.space).ok &&
         prunerDraftCreate(&w, &t, &s.draft).ok;
}

// A "Vm...:  N kB" line of /proc/self/status in MiB; -1 when it cannot be read.
double statusMiB(const char *field) {
  std::FILE *f = std::fopen("/proc/self/status", "r");
  if (!f)
    return -1;
  char line[256];
  double kib = -1;
  size_t n = std::strlen(field);
  while (std::fgets(line, sizeof line, f))
    if (!std::strncmp(line, field, n) && line[n] == ':' &&
        std::sscanf(line + n + 1, "%lf", &kib) == 1)
      break;
  std::fclose(f);
  return kib < 0 ? -1 : kib / 1024.0;
}

// Resets the process's peak resident set to the current one (Linux 4.0+).
bool resetPeakRss() {
  std::FILE *f = std::fopen("/proc/self/clear_refs", "w");
  if (!f)
    return false;
  bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

// Items = valid configs scored (the whole space per iteration).
void BM_DraftTopN(benchmark::State &state) {
  Setup s;
  if (!makeSetup(static_cast<int>(state.range(0)), s)) {
    state.SkipWithError("could not build the space or draft");
    return;
  }
  std::vector<PrunerDraftCandidate> out(PRUNER_DRAFT_DEFAULT_TOP);
  uint64_t count = prunerSpaceCount(s.space);
  (void)prunerDraftTopN(s.draft, s.space, out.size(), out.data()); // warm, first-use index
  double rss_before = statusMiB("VmRSS");
  bool peak_reset = resetPeakRss();
  for (auto _ : state) {
    size_t got = prunerDraftTopN(s.draft, s.space, out.size(), out.data());
    benchmark::DoNotOptimize(got);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * count));
  state.counters["space"] = static_cast<double>(count);
  state.counters["rss_before_MiB"] = rss_before;
  state.counters["rss_after_MiB"] = statusMiB("VmRSS");
  if (peak_reset) // else the process's peak, which says what ran before
    state.counters["peak_rss_MiB"] = statusMiB("VmHWM");
  state.counters["best_us"] = out[0].predicted_us;
}
BENCHMARK(BM_DraftTopN)->Arg(0)->Arg(1)->ArgNames({"conv0_matmul1"})->Unit(benchmark::kMillisecond);

// One score of a fixed valid config (no space iteration).
void BM_DraftScore(benchmark::State &state) {
  Setup s;
  if (!makeSetup(static_cast<int>(state.range(0)), s)) {
    state.SkipWithError("could not build the space or draft");
    return;
  }
  PrunerConfig c;
  if (!prunerSpaceGetConfig(s.space, prunerSpaceCount(s.space) / 2, &c).ok) {
    state.SkipWithError("no config");
    return;
  }
  PrunerDraftSymbols sym;
  for (auto _ : state) benchmark::DoNotOptimize(prunerDraftScore(s.draft, &c, nullptr, &sym));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_DraftScore)->Arg(0)->Arg(1)->ArgNames({"conv0_matmul1"});

} // namespace

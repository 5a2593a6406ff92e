// bench_compile.cpp: candidates -> cubins per second through prunerCompileMany with two
// worker processes, on a 1024^3 f32 matmul and the ResNet-50 3x3 conv (NHWC 1x56x56x64,
// 3x3x64x64). Each iteration compiles the same 16 valid configs, spread evenly over the
// space's dense indices and limited to configs lib/schedule can express (so that the
// rate is one of cubins, not of instant rejections, while schedules grow); counters:
// candidates/s, cubins/s and the MLIR / ptxas seconds per candidate. Thin C++ over the
// C API.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/resource.h>
#include <string>
#include <vector>

extern "C" {
#include "pruner/compile.h"
#include "pruner/schedule.h"
#include "pruner/space.h"
#include "pruner/target.h"
#include "pruner/workload.h"
}

namespace {

constexpr size_t kCandidates = 16;

// Schedulable valid configs at evenly spread dense indices (deterministic across runs).
std::vector<PrunerConfig> spreadConfigs(PrunerSpace space, const PrunerWorkload &w,
                                        const PrunerTargetDesc &t, size_t n) {
  std::vector<PrunerConfig> out;
  uint64_t count = prunerSpaceCount(space);
  PrunerScheduleOptions sopts = prunerScheduleDefaultOptions();
  const size_t probes = 8 * n;
  for (size_t i = 0; i < probes && out.size() < n && count > 0; ++i) {
    PrunerConfig c;
    uint64_t index = (count * (2 * i + 1)) / (2 * probes);
    char *text = nullptr;
    if (prunerSpaceGetConfig(space, index, &c).ok &&
        prunerScheduleBuild(&w, &c, &t, &sopts, &text).ok)
      out.push_back(c);
    free(text);
  }
  return out;
}

double childCpuSeconds() {
  struct rusage u;
  getrusage(RUSAGE_CHILDREN, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

void runCompile(benchmark::State &state, const PrunerWorkload &w) {
  PrunerTargetDesc t;
  if (!prunerTargetLookup("sm_90", &t).ok) {
    state.SkipWithError("no sm_90 target in the table");
    return;
  }
  PrunerSpace space = nullptr;
  PrunerStatus s = prunerSpaceCreate(&w, &t, nullptr, &space);
  if (!s.ok) {
    state.SkipWithError(s.message);
    return;
  }
  std::vector<PrunerConfig> configs = spreadConfigs(space, w, t, kCandidates);
  prunerSpaceDestroy(space);
  if (configs.empty()) {
    state.SkipWithError("no config of the space had a schedule to compile");
    return;
  }
  PrunerCompileOptions opts = prunerCompileDefaultOptions();
  opts.jobs = 2;
  std::vector<PrunerCompileResult> results(configs.size());
  double mlir = 0, ptxas = 0, compiled = 0, candidates = 0;
  double cpuBefore = childCpuSeconds();
  std::string first_error;
  for (auto _ : state) {
    prunerCompileMany(&w, configs.data(), configs.size(), &t, &opts, results.data());
    for (auto &r : results) {
      mlir += r.mlir_seconds;
      ptxas += r.ptxas_seconds;
      compiled += r.status.ok ? 1 : 0;
      candidates += 1;
      if (!r.status.ok && first_error.empty())
        first_error = r.status.message;
      prunerCompileResultRelease(&r);
    }
  }
  if (compiled == 0) { // a rate of 0 cubins/s would read as a measurement
    state.SkipWithError(("no candidate compiled; the first: " + first_error).c_str());
    return;
  }
  // CPU of the reaped workers and their ptxas runs: on a shared machine wall time
  // depends on the load, CPU seconds per candidate much less (2 idle cores would give
  // about 2 / cpu_s_per_candidate candidates per second).
  double cpu = childCpuSeconds() - cpuBefore;
  state.SetItemsProcessed(static_cast<int64_t>(candidates));
  state.counters["cpu_s_per_candidate"] = candidates > 0 ? cpu / candidates : 0;
  state.counters["cubins_per_s"] = benchmark::Counter(compiled, benchmark::Counter::kIsRate);
  state.counters["compiled_fraction"] = candidates > 0 ? compiled / candidates : 0;
  state.counters["mlir_s_per_candidate"] = candidates > 0 ? mlir / candidates : 0;
  state.counters["ptxas_s_per_candidate"] = candidates > 0 ? ptxas / candidates : 0;
}

void BM_CompileMatmul1024(benchmark::State &state) {
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 1024, 1024, 1024, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  runCompile(state, w);
}

void BM_CompileResNet50Conv3x3(benchmark::State &state) {
  PrunerWorkload w;
  // Input 58x58 (56 + the 3x3 halo, padding made explicit), 64 -> 64 channels.
  prunerWorkloadConv2dNhwcHwcf(&w, 1, 58, 58, 64, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
  runCompile(state, w);
}

} // namespace

// The work runs in child processes: wall time is the measure, not this process' CPU.
BENCHMARK(BM_CompileMatmul1024)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(2);
BENCHMARK(BM_CompileResNet50Conv3x3)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(2);

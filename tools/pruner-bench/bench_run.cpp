// bench_run: the chosen kernels of a bundle against cuBLAS, per workload. Thin C++ over
// the C API: runs pruner-run on $PRUNER_BENCH_BUNDLE (records into a temporary file) and
// reports, per workload, the best candidate's median, cuBLAS's median and their ratio as
// counters. Skips with a message when no bundle is given or no CUDA device answers.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

#include "pruner/measure.h"
#include "pruner/records.h"

namespace {

std::string runnerPath() {
  if (const char *p = std::getenv("PRUNER_RUN"))
    return p;
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0)
    return "pruner-run";
  exe[n] = '\0';
  std::string dir(exe);
  return dir.substr(0, dir.rfind('/')) + "/pruner-run";
}

void BM_RunBundleVsCublas(benchmark::State &state) {
  const char *bundle_dir = std::getenv("PRUNER_BENCH_BUNDLE");
  if (!bundle_dir) {
    state.SkipWithError("set PRUNER_BENCH_BUNDLE=<bundle dir> to measure a bundle on a GPU");
    return;
  }
  PrunerBundle bundle;
  PrunerStatus st = prunerBundleRead(bundle_dir, &bundle);
  if (!st.ok) {
    state.SkipWithError(st.message);
    return;
  }
  char records_path[] = "/tmp/pruner-bench-run-XXXXXX";
  int fd = mkstemp(records_path);
  if (fd >= 0)
    close(fd);
  for (auto _ : state) {
    std::remove(records_path);
    PrunerRunOptions opts = prunerRunDefaultOptions();
    st = prunerMeasureRunBundle(runnerPath().c_str(), bundle_dir, records_path, &opts);
    if (!st.ok) {
      state.SkipWithError(st.message); // includes "no CUDA device" on machines without one
      break;
    }
  }
  PrunerRecords records;
  if (st.ok && prunerRecordsCreate(records_path, &records).ok) {
    for (size_t i = 0; i < prunerRecordsCount(records); i++) {
      const PrunerRecord *any = prunerRecordsGet(records, i);
      const char *target = any->target_key;
      for (size_t w = 0; w < prunerBundleNumWorkloads(bundle); w++) {
        const char *key = prunerBundleGetWorkload(bundle, w)->key;
        const PrunerRecord *best = prunerRecordsBest(records, key, target);
        const PrunerRecord *base = prunerRecordsBaseline(records, key, target);
        std::string tag = "w" + std::to_string(w);
        if (best)
          state.counters[tag + "_best_us"] = best->median_us;
        if (base && base->status == PRUNER_RECORD_OK)
          state.counters[tag + "_cublas_us"] = base->median_us;
        if (best && base && base->status == PRUNER_RECORD_OK)
          state.counters[tag + "_cublas_over_best"] = base->median_us / best->median_us;
      }
      break; // one target per run
    }
    prunerRecordsDestroy(records);
  }
  std::remove(records_path);
  prunerBundleDestroy(bundle);
}

} // namespace

BENCHMARK(BM_RunBundleVsCublas)->Iterations(1)->Unit(benchmark::kMillisecond);

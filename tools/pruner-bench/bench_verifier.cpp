// Verifier speed: training on 5,000 synthetic records (8 workloads x 625 configs, target
// < 2 s on 2 cores) and prediction rate on 512- and 4096-candidate batches of one
// workload with the draft run inside (target >= 200,000 candidates/s). Records come from
// pruner-eval's synthetic generator (a known latency law; not measurements).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <vector>

#include "pruner/records.h"
#include "pruner/verifier.h"

// The generator is C shared with pruner-eval and the unit tests; compiled in here because
// pruner-bench's build globs only bench_*.cpp. Its header declares it extern "C".
#include "../pruner-eval/synthetic.c"

namespace {

PrunerRecords makeRecords(PrunerTargetDesc *t, int per_workload) {
  PrunerRecords r = prunerRecordsCreateInMemory();
  if (!prunerTargetLookup("h200", t).ok || !prunerSyntheticRecords(t, 8, per_workload, 1, r).ok) {
    prunerRecordsDestroy(r);
    return nullptr;
  }
  return r;
}

void BM_VerifierTrain5000(benchmark::State &state) {
  PrunerTargetDesc t;
  PrunerRecords records = makeRecords(&t, 625);
  PrunerVerifier v = nullptr;
  if (!records || !prunerVerifierCreate(&t, nullptr, &v).ok) {
    state.SkipWithError("could not build synthetic records");
    return;
  }
  for (auto _ : state) {
    PrunerStatus s = prunerVerifierTrain(v, records, nullptr);
    if (!s.ok || prunerVerifierUsesDraft(v)) {
      state.SkipWithError(s.message);
      break;
    }
  }
  state.counters["records"] = static_cast<double>(prunerRecordsCount(records));
  prunerVerifierDestroy(v);
  prunerRecordsDestroy(records);
}
BENCHMARK(BM_VerifierTrain5000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_VerifierPredict(benchmark::State &state) {
  PrunerTargetDesc t;
  PrunerRecords records = makeRecords(&t, 625);
  PrunerVerifier v = nullptr;
  if (!records || !prunerVerifierCreate(&t, nullptr, &v).ok ||
      !prunerVerifierTrain(v, records, nullptr).ok) {
    state.SkipWithError("could not train on synthetic records");
    return;
  }
  // Candidates: the configs of workload 0, repeated up to the batch size.
  size_t batch = static_cast<size_t>(state.range(0));
  const PrunerWorkload *w = &prunerRecordsGet(records, 0)->workload;
  std::vector<PrunerConfig> configs(batch);
  for (size_t i = 0; i < batch; ++i)
    configs[i] = prunerRecordsGet(records, i % 625)->config;
  std::vector<float> scores(batch);
  for (auto _ : state) {
    PrunerStatus s = prunerVerifierPredict(v, w, configs.data(), nullptr, batch, scores.data());
    if (!s.ok) {
      state.SkipWithError(s.message);
      break;
    }
    benchmark::DoNotOptimize(scores.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(batch));
  prunerVerifierDestroy(v);
  prunerRecordsDestroy(records);
}
BENCHMARK(BM_VerifierPredict)->Arg(512)->Arg(4096)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

// IREE backend (iree-cpu, docs/iree.md "Benchmarks"): model shapes tuned for IREE's
// llvm-cpu code generator against IREE's own default config, back to back in the same run.
// "Tuned" is a small real tuning run through the C API: the draft's top kTop configs of
// the iree-cpu space, each built by iree-compile with its one-config spec, checked against
// the default build's outputs and timed by iree-benchmark-module; the best kFinal and the
// default are then re-timed in kRounds interleaved rounds, and the fastest median wins.
// Counters (µs; the machine is shared and noisy, read the ratios): tuned_us and default_us
// (medians of the rounds' medians) with their quartiles, speedup = default / tuned, and
// the tuning cost per candidate (cand_wall_s: build + check + timing; cand_compile_s: the
// two iree-compile calls). One thread (threads:1) and every core (threads:0).
//
// BM_IreeModule: a whole BERT-base FFN block (matmul, relu, matmul: several dispatches),
// IREE's default against the tuning spec of the two tuned matmuls, back to back.
// BM_IreeCompileCost: the iree-compile wall time per candidate with one compile per
// candidate (a one-config spec each) and with all candidates in one module.
// Needs the IREE tools (scripts/setup.sh, PRUNER_IREE_DIR); skipped with a message if
// they do not run.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "pruner/backend/host_rules.h"
#include "pruner/backend/iree.h"
#include "pruner/clock.h"
#include "pruner/draft.h"

namespace {

constexpr int kTop = 8;
constexpr int kFinal = 3;
constexpr int kRounds = 5;

enum Shape { kFfnUp, kFfnDown, kAttention, kResNetConv, kGemv, kNumShapes };
const char *const kShapeNames[kNumShapes] = {
    "bert_ffn_up_128x3072x768", "bert_ffn_down_128x768x3072", "attention_bmm_12x128x128x64",
    "resnet50_conv3x3_1x56x56x64", "gpt2_gemv_1x2304x768"};

PrunerWorkload workload(int shape) {
  PrunerWorkload w;
  switch (shape) {
  case kFfnUp:
    prunerWorkloadMatmul(&w, 128, 3072, 768, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
    break;
  case kFfnDown:
    prunerWorkloadMatmul(&w, 128, 768, 3072, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
    break;
  case kAttention:
    prunerWorkloadBatchMatmul(&w, 12, 128, 128, 64, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
    break;
  case kResNetConv: // 56x56 output of a padded 58x58 input
    prunerWorkloadConv2dNhwcHwcf(&w, 1, 58, 58, 64, 3, 3, 64, 1, 1, PRUNER_DTYPE_F32);
    break;
  default:
    prunerWorkloadMatmul(&w, 1, 2304, 768, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
    break;
  }
  return w;
}

int allCores() {
  PrunerTargetDesc t;
  prunerIreeCpuTargetDesc(&t);
  return prunerHostTargetCores(&t);
}

struct Tuned {
  std::string error; // why nothing was tuned
  PrunerConfig config{};
  PrunerIreeRemeasured tuned{}, base{};
  double cand_wall_s = 0, cand_compile_s = 0;
  int measured = 0;
};

PrunerIree makeIree(int threads, std::string *error) {
  PrunerIreeOptions o = prunerIreeDefaultOptions();
  o.threads = threads;
  o.timeout_seconds = 300;
  PrunerTargetDesc t;
  prunerIreeCpuTargetDesc(&t);
  PrunerIree iree = nullptr;
  char version[256];
  PrunerStatus st = prunerIreeCheckTools(version, sizeof version);
  if (st.ok)
    st = prunerIreeCreate(&t, &o, &iree);
  if (!st.ok)
    *error = st.message;
  return iree;
}

// The draft's top kTop for `threads` cores, each measured; the best kFinal and IREE's
// default re-timed back to back. Memoized: the module benchmark reuses the matmuls.
const Tuned &tune(int shape, int threads) {
  static std::map<std::pair<int, int>, Tuned> cache;
  auto key = std::make_pair(shape, threads);
  auto it = cache.find(key);
  if (it != cache.end())
    return it->second;
  Tuned &out = cache[key];
  PrunerWorkload w = workload(shape);
  PrunerTargetDesc t;
  prunerIreeCpuTargetDesc(&t);
  t.peak_fp32_gflops *= static_cast<double>(threads) / prunerHostTargetCores(&t);
  t.sm_count = threads; // the cores the draft plans for
  PrunerSpace space = nullptr;
  PrunerDraft draft = nullptr;
  PrunerStatus st = prunerSpaceCreate(&w, &t, nullptr, &space);
  if (st.ok)
    st = prunerDraftCreate(&w, &t, &draft);
  PrunerIree iree = st.ok ? makeIree(threads, &out.error) : nullptr;
  if (!st.ok)
    out.error = st.message;
  if (!iree) {
    prunerDraftDestroy(draft);
    prunerSpaceDestroy(space);
    return out;
  }
  std::vector<PrunerDraftCandidate> top(kTop);
  size_t n = prunerDraftTopN(draft, space, top.size(), top.data());
  std::vector<std::pair<double, PrunerConfig>> ok;
  double t0 = prunerNowSeconds();
  for (size_t i = 0; i < n; ++i) {
    PrunerRecord r;
    double compile_s = 0;
    prunerIreeMeasure(iree, &w, &top[i].config, &r, &compile_s);
    out.cand_compile_s += compile_s;
    if (r.status == PRUNER_RECORD_OK)
      ok.emplace_back(r.median_us, top[i].config);
  }
  out.measured = static_cast<int>(n);
  if (n > 0) {
    out.cand_wall_s = (prunerNowSeconds() - t0) / n;
    out.cand_compile_s /= n;
  }
  std::sort(ok.begin(), ok.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
  if (ok.empty()) {
    out.error = "no candidate built, ran and agreed with IREE's default build";
  } else {
    int m = std::min<int>(kFinal, static_cast<int>(ok.size()));
    std::vector<PrunerConfig> finals;
    for (int i = 0; i < m; ++i)
      finals.push_back(ok[i].second);
    std::vector<PrunerIreeRemeasured> re(m + 1);
    prunerIreeRemeasure(iree, &w, finals.data(), m, true, kRounds, re.data());
    out.base = re[m];
    int best = -1;
    for (int i = 0; i < m; ++i)
      if (re[i].status == PRUNER_RECORD_OK && (best < 0 || re[i].median_us < re[best].median_us))
        best = i;
    if (best < 0 || out.base.status != PRUNER_RECORD_OK) {
      out.error = best < 0 ? re[0].error : out.base.error;
    } else {
      out.tuned = re[best];
      out.config = finals[best];
    }
  }
  prunerIreeDestroy(iree);
  prunerDraftDestroy(draft);
  prunerSpaceDestroy(space);
  return out;
}

void report(benchmark::State &state, const PrunerIreeRemeasured &tuned,
            const PrunerIreeRemeasured &base) {
  state.counters["tuned_us"] = tuned.median_us;
  state.counters["tuned_p25_us"] = tuned.p25_us;
  state.counters["tuned_p75_us"] = tuned.p75_us;
  state.counters["default_us"] = base.median_us;
  state.counters["default_p25_us"] = base.p25_us;
  state.counters["default_p75_us"] = base.p75_us;
  state.counters["speedup"] = base.median_us / tuned.median_us;
}

// The tuned config (chosen once, tune()) and IREE's default timed back to back again on
// every run, so that repetitions sample the machine, not a replay of the first run.
void BM_IreeDispatch(benchmark::State &state) {
  int shape = static_cast<int>(state.range(0));
  int threads = state.range(1) > 0 ? static_cast<int>(state.range(1)) : allCores();
  const Tuned &t = tune(shape, threads);
  std::string error = t.error;
  PrunerIreeRemeasured re[2] = {};
  if (error.empty()) {
    PrunerIree iree = makeIree(threads, &error);
    PrunerWorkload w = workload(shape);
    if (iree)
      prunerIreeRemeasure(iree, &w, &t.config, 1, true, kRounds, re);
    prunerIreeDestroy(iree);
    if (iree && re[0].status != PRUNER_RECORD_OK)
      error = std::string("tuned config: ") + re[0].error;
    else if (iree && re[1].status != PRUNER_RECORD_OK)
      error = std::string("IREE's default: ") + re[1].error;
  }
  for (auto _ : state) {
    if (!error.empty()) {
      state.SkipWithError(error.c_str());
      return;
    }
    state.SetIterationTime(re[0].median_us * 1e-6);
  }
  report(state, re[0], re[1]);
  state.counters["threads"] = threads;
  state.counters["cand_wall_s"] = t.cand_wall_s;
  state.counters["cand_compile_s"] = t.cand_compile_s;
  state.counters["candidates"] = t.measured;
  char buf[512];
  PrunerWorkload w = workload(shape);
  prunerIreeCpuLoweringConfig(&w, &t.config, buf, sizeof buf);
  state.SetLabel(std::string(kShapeNames[shape]) + " " + buf);
}

void dispatchArgs(benchmark::internal::Benchmark *b) {
  for (int shape = 0; shape < kNumShapes; ++shape)
    for (int threads : {1, 0})
      b->Args({shape, threads});
}
BENCHMARK(BM_IreeDispatch)
    ->Apply(dispatchArgs)
    ->ArgNames({"shape", "threads"})
    ->Iterations(1)
    ->UseManualTime();

const char kFfnModule[] =
    R"(func.func @ffn(%x: tensor<128x768xf32>, %w1: tensor<768x3072xf32>, %w2: tensor<3072x768xf32>) -> tensor<128x768xf32> {
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<128x3072xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<128x768xf32>, tensor<768x3072xf32>) outs(%f1 : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  %e2 = tensor.empty() : tensor<128x3072xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<128x3072xf32>) outs(%e2 : tensor<128x3072xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %z : f32
    linalg.yield %m : f32
  } -> tensor<128x3072xf32>
  %e3 = tensor.empty() : tensor<128x768xf32>
  %f3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<128x768xf32>) -> tensor<128x768xf32>
  %y = linalg.matmul ins(%a, %w2 : tensor<128x3072xf32>, tensor<3072x768xf32>) outs(%f3 : tensor<128x768xf32>) -> tensor<128x768xf32>
  return %y : tensor<128x768xf32>
}
)";

bool writeFile(const std::string &path, const char *text) {
  FILE *f = std::fopen(path.c_str(), "w");
  bool ok = f && std::fputs(text, f) >= 0;
  if (f && std::fclose(f) != 0)
    ok = false;
  return ok;
}

PrunerIreeTensor tensor(int64_t a, int64_t b) {
  PrunerIreeTensor t{};
  t.dtype = PRUNER_DTYPE_F32;
  t.rank = 2;
  t.shape[0] = a;
  t.shape[1] = b;
  return t;
}

void BM_IreeModule(benchmark::State &state) {
  int threads = state.range(0) > 0 ? static_cast<int>(state.range(0)) : allCores();
  const Tuned &up = tune(kFfnUp, threads), &down = tune(kFfnDown, threads);
  std::string error = !up.error.empty() ? up.error : down.error;
  PrunerIreeModuleResult r{};
  if (error.empty()) {
    PrunerIree iree = makeIree(threads, &error);
    PrunerWorkload w[2] = {workload(kFfnUp), workload(kFfnDown)};
    const PrunerWorkload *ws[2] = {&w[0], &w[1]};
    PrunerConfig configs[2] = {up.config, down.config};
    PrunerTargetDesc t;
    prunerIreeCpuTargetDesc(&t);
    char *spec = nullptr;
    PrunerStatus st = prunerStatusOk();
    if (iree)
      st = prunerIreeSpecText(&t, ws, configs, 2, &spec, nullptr);
    char dir[] = "/tmp/pruner-bench-iree-XXXXXX";
    std::string base = mkdtemp(dir) ? dir : "/tmp";
    std::string module = base + "/ffn.mlir", spec_path = base + "/ffn.spec.mlir";
    if (iree && st.ok && (!writeFile(module, kFfnModule) || !writeFile(spec_path, spec)))
      st = prunerStatusError("cannot write %s", base.c_str());
    if (iree && st.ok) {
      PrunerIreeTensor args[3] = {tensor(128, 768), tensor(768, 3072), tensor(3072, 768)};
      PrunerIreeTensor res = tensor(128, 768);
      st = prunerIreeModuleRemeasure(iree, module.c_str(), "ffn", args, 3, &res, 1, 3072,
                                     spec_path.c_str(), kRounds, &r);
    }
    if (iree && !st.ok)
      error = st.message;
    else if (iree && r.tuned.status != PRUNER_RECORD_OK)
      error = std::string("tuned build: ") + r.tuned.error;
    else if (iree && r.applied != r.spec_configs)
      error = "IREE applied " + std::to_string(r.applied) + " of the spec's " +
              std::to_string(r.spec_configs) + " configs";
    std::free(spec);
    std::remove(module.c_str());
    std::remove(spec_path.c_str());
    std::remove(base.c_str());
    prunerIreeDestroy(iree);
  }
  for (auto _ : state) {
    if (!error.empty()) {
      state.SkipWithError(error.c_str());
      return;
    }
    state.SetIterationTime(r.tuned.median_us * 1e-6);
  }
  report(state, r.tuned, r.baseline);
  state.counters["threads"] = threads;
  state.counters["configs_applied"] = r.applied;
  state.SetLabel("bert_ffn_block matmul+relu+matmul");
}
BENCHMARK(BM_IreeModule)->Arg(1)->Arg(0)->Iterations(1)->UseManualTime();

// kCost configs from the draft's ranking of the FFN-up space, compiled one per
// iree-compile pair or all in one module: iree-compile seconds per candidate.
void BM_IreeCompileCost(benchmark::State &state) {
  constexpr int kCost = 8;
  bool one_module = state.range(0) != 0;
  std::string error;
  PrunerWorkload w = workload(kFfnUp);
  PrunerTargetDesc t;
  prunerIreeCpuTargetDesc(&t);
  PrunerSpace space = nullptr;
  PrunerDraft draft = nullptr;
  PrunerStatus st = prunerSpaceCreate(&w, &t, nullptr, &space);
  if (st.ok)
    st = prunerDraftCreate(&w, &t, &draft);
  std::vector<PrunerDraftCandidate> top(kCost);
  size_t n = st.ok ? prunerDraftTopN(draft, space, top.size(), top.data()) : 0;
  std::vector<PrunerConfig> configs;
  for (size_t i = 0; i < n; ++i)
    configs.push_back(top[i].config);
  PrunerIree iree = st.ok ? makeIree(1, &error) : nullptr;
  if (!st.ok)
    error = st.message;
  double seconds = 0;
  int applied = 0;
  if (iree && configs.empty())
    error = "the draft ranked no config of the FFN-up space";
  if (iree && !configs.empty()) {
    st = prunerIreeCompileCost(iree, &w, configs.data(), static_cast<int>(configs.size()),
                               one_module, &seconds, &applied);
    if (!st.ok)
      error = st.message;
    else if (applied != static_cast<int>(configs.size()))
      error = "IREE applied " + std::to_string(applied) + " of " + std::to_string(configs.size()) +
              " configs";
  }
  prunerIreeDestroy(iree);
  prunerDraftDestroy(draft);
  prunerSpaceDestroy(space);
  for (auto _ : state) {
    if (!error.empty()) {
      state.SkipWithError(error.c_str());
      return;
    }
    state.SetIterationTime(seconds);
  }
  state.counters["candidates"] = static_cast<double>(configs.size());
  state.counters["compile_s_per_candidate"] = seconds / configs.size();
  state.SetLabel(one_module ? "all candidates in one module" : "one compile per candidate");
}
BENCHMARK(BM_IreeCompileCost)
    ->Arg(0)
    ->Arg(1)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);

// The whole candidate (build, run and compare, time) of kCost draft configs of the FFN-up
// space, one by one (prunerIreeMeasure) or with one compile for all
// (prunerIreeMeasureBatch, what pruner-tune does): wall seconds per candidate.
void BM_IreeMeasureCost(benchmark::State &state) {
  constexpr int kCost = 8;
  bool together = state.range(0) != 0;
  std::string error;
  PrunerWorkload w = workload(kFfnUp);
  PrunerTargetDesc t;
  prunerIreeCpuTargetDesc(&t);
  PrunerSpace space = nullptr;
  PrunerDraft draft = nullptr;
  PrunerStatus st = prunerSpaceCreate(&w, &t, nullptr, &space);
  if (st.ok)
    st = prunerDraftCreate(&w, &t, &draft);
  std::vector<PrunerDraftCandidate> top(kCost);
  size_t n = st.ok ? prunerDraftTopN(draft, space, top.size(), top.data()) : 0;
  std::vector<PrunerConfig> configs;
  for (size_t i = 0; i < n; ++i)
    configs.push_back(top[i].config);
  PrunerIree iree = st.ok ? makeIree(1, &error) : nullptr;
  if (!st.ok)
    error = st.message;
  double seconds = 0;
  int ok = 0;
  if (iree && configs.empty())
    error = "the draft ranked no config of the FFN-up space";
  if (iree && !configs.empty()) {
    std::vector<PrunerRecord> recs(configs.size());
    PrunerRecord warm;
    prunerIreeMeasure(iree, &w, nullptr, &warm, nullptr); // the default build, not timed here
    double t0 = prunerNowSeconds();
    if (together)
      prunerIreeMeasureBatch(iree, &w, configs.data(), static_cast<int>(configs.size()),
                             recs.data(), nullptr);
    else
      for (size_t i = 0; i < configs.size(); ++i)
        prunerIreeMeasure(iree, &w, &configs[i], &recs[i], nullptr);
    seconds = prunerNowSeconds() - t0;
    for (const PrunerRecord &r : recs)
      ok += r.status == PRUNER_RECORD_OK;
    if (ok != static_cast<int>(configs.size()))
      error = std::to_string(ok) + " of " + std::to_string(configs.size()) + " candidates ok";
  }
  prunerIreeDestroy(iree);
  prunerDraftDestroy(draft);
  prunerSpaceDestroy(space);
  for (auto _ : state) {
    if (!error.empty()) {
      state.SkipWithError(error.c_str());
      return;
    }
    state.SetIterationTime(seconds);
  }
  state.counters["candidates"] = static_cast<double>(configs.size());
  state.counters["wall_s_per_candidate"] = seconds / configs.size();
  state.SetLabel(together ? "one compile for all" : "one compile per candidate");
}
BENCHMARK(BM_IreeMeasureCost)
    ->Arg(0)
    ->Arg(1)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);

} // namespace

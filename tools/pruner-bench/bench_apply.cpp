// bench_apply.cpp: how prunerApplyConfig (pruner-apply-config) scales with the number of
// configured ops, for an sm_90 target. Each iteration applies a module of kSmall and one
// of kLarge promoted 64x48x96 matmuls back to back, laid out either as one function
// holding every op (an imported model) or as one function per op; the counter `growth`
// is the per-op time at kLarge over the per-op time at kSmall (1 = linear). Measured
// back to back in the same process, so machine load moves both sides alike. Thin C++
// over the C API.
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>

extern "C" {
#include "pruner/apply.h"
#include "pruner/ir_context.h"
}

namespace {

constexpr int kSmall = 10;
constexpr int kLarge = 160;

const char *kConfig =
    "{pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], "
    "promote_operands = [0, 1], vector_width = 4}}";

std::string matmul(int i) {
  std::string k = std::to_string(i);
  return "  %f" + k + " = linalg.fill ins(%z : f32) outs(%C : tensor<64x96xf32>) -> tensor<64x96xf32>\n" +
         "  %r" + k + " = linalg.matmul " + kConfig + " ins(%A" + k +
         ", %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%f" + k +
         " : tensor<64x96xf32>) -> tensor<64x96xf32>\n";
}

// n matmuls in one function (one_function) or one function each.
std::string moduleText(int n, bool one_function) {
  std::string t;
  if (one_function) {
    std::string args, results, types;
    for (int i = 0; i < n; ++i) {
      args += "%A" + std::to_string(i) + ": tensor<64x48xf32>, ";
      results += std::string(i ? ", " : "") + "%r" + std::to_string(i);
      types += std::string(i ? ", " : "") + "tensor<64x96xf32>";
    }
    t += "func.func @model(" + args + "%B: tensor<48x96xf32>, %C: tensor<64x96xf32>) -> (" +
         types + ") {\n  %z = arith.constant 0.0 : f32\n";
    for (int i = 0; i < n; ++i)
      t += matmul(i);
    t += "  return " + results + " : " + types + "\n}\n";
    return t;
  }
  for (int i = 0; i < n; ++i) {
    std::string k = std::to_string(i);
    t += "func.func @mm" + k + "(%A" + k +
         ": tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>) -> "
         "tensor<64x96xf32> {\n  %z = arith.constant 0.0 : f32\n" +
         matmul(i) + "  return %r" + k + " : tensor<64x96xf32>\n}\n";
  }
  return t;
}

// Seconds to apply the configs of a freshly parsed module; < 0 on failure.
double applySeconds(MlirContext ctx, const std::string &text) {
  MlirModule m = mlirModuleCreateParse(ctx, mlirStringRefCreate(text.data(), text.size()));
  if (mlirModuleIsNull(m))
    return -1;
  auto start = std::chrono::steady_clock::now();
  PrunerStatus s = prunerApplyConfig(mlirModuleGetOperation(m), "sm_90", nullptr);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  mlirModuleDestroy(m);
  return s.ok ? seconds : -1;
}

void runApply(benchmark::State &state, bool one_function) {
  MlirContext ctx = prunerIrContextCreate();
  const std::string small = moduleText(kSmall, one_function);
  const std::string large = moduleText(kLarge, one_function);
  double small_s = 0, large_s = 0;
  for (auto _ : state) {
    double a = applySeconds(ctx, small), b = applySeconds(ctx, large);
    if (a < 0 || b < 0) {
      state.SkipWithError("prunerApplyConfig failed on the generated module");
      break;
    }
    small_s += a;
    large_s += b;
    state.SetIterationTime(a + b);
  }
  mlirContextDestroy(ctx);
  double iters = static_cast<double>(state.iterations());
  if (iters > 0 && small_s > 0) {
    state.counters["s_per_op_small"] = small_s / iters / kSmall;
    state.counters["s_per_op_large"] = large_s / iters / kLarge;
    state.counters["growth"] = (large_s / kLarge) / (small_s / kSmall);
  }
}

void BM_ApplyOneFunction(benchmark::State &state) { runApply(state, true); }
void BM_ApplyFunctionPerOp(benchmark::State &state) { runApply(state, false); }

} // namespace

BENCHMARK(BM_ApplyOneFunction)->UseManualTime()->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK(BM_ApplyFunctionPerOp)->UseManualTime()->Iterations(1)->Unit(benchmark::kSecond);

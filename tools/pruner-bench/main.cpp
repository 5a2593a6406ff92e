// pruner-bench: the benchmarks are registered by the bench_*.cpp files next to this one.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <unistd.h>

#include "pruner/backend/host.h"

int main(int argc, char **argv) {
  // Idle OpenMP threads must sleep, not spin: the host benchmarks time kernels (LLVM's
  // libomp), OpenBLAS and BLIS (GNU libgomp) in one measuring child, and a pool that
  // spins after its call takes a core from the next library's (docs/measurement.md,
  // "Host: thread pools"). libgomp is loaded with this binary (XGBoost) and reads
  // OMP_WAIT_POLICY once, when it loads, so the variable has to be in the environment
  // the process starts with: set it and start again. A user's own setting is kept.
  // Not OMP_PROC_BIND: libgomp binds the initial thread to the first place when it loads
  // with it, so this process and every child it forks (the measuring worker, the tuning
  // child) ran on one CPU, and the all-core rows timed one core. The measuring child
  // binds its own pools (lib/backend/host/host.c).
  // The spin before sleeping (GOMP_SPINCOUNT for libgomp, ...: the measuring child's own
  // settings, prunerHostSetThreadPoolEnvironment) comes with it: libgomp is loaded here
  // already, so the child's setting would come too late. Without it a 2-thread oneDNN
  // call paid its threads' wake-up, 131 us against 69 us on a KVM guest, while the tuned
  // kernel's pool was awake.
  if (!std::getenv("OMP_WAIT_POLICY")) {
    prunerHostSetThreadPoolEnvironment();
    execv("/proc/self/exe", argv);
    // Not re-executed (no /proc): run as is; the spinning only costs accuracy.
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// pruner-bench: the benchmarks are registered by the bench_*.cpp files next to this one.
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();

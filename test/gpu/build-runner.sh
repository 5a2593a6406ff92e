#!/usr/bin/env bash
# Configures and builds the MLIR-free runner (PRUNER_RUNNER_ONLY: pruner-run, lib/measure
# and their unit tests) for a GPU host that has cmake, nvcc and cuBLAS but no MLIR.
#
#   test/gpu/build-runner.sh BUILD_DIR
#
# PRUNER_DEPS_PREFIX: a prefix with include/ and lib/ for cJSON and cmocka
# (test/gpu/make-prefix.sh makes one on a Debian machine); searched before the system.
# Uses Ninja when it is installed. Logs: BUILD_DIR/runner-configure.log and
# BUILD_DIR/runner-build.log; on failure their last 30 lines are printed and the exit
# status is 1.
set -euo pipefail
build=${1:?usage: build-runner.sh BUILD_DIR}
src=$(cd "$(dirname "$0")/../.." && pwd)
jobs=$(nproc 2>/dev/null || echo 4)

cmake_args=(-S "$src" -B "$build" -DPRUNER_RUNNER_ONLY=ON -DCMAKE_BUILD_TYPE=Release)
if [[ ! -f $build/CMakeCache.txt ]] && command -v ninja > /dev/null 2>&1; then
  cmake_args+=(-G Ninja)
fi
if [[ -n "${PRUNER_DEPS_PREFIX:-}" ]]; then
  prefix=$(cd "$PRUNER_DEPS_PREFIX" && pwd)
  cmake_args+=(-DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_RPATH="$prefix/lib")
fi
# nvcc is often not on PATH on GPU hosts; CMake's CUDAToolkit search wants it or CUDAToolkit_ROOT.
if ! command -v nvcc > /dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
echo "== configure + build (runner only) in $build"
mkdir -p "$build"
timeout 300 cmake "${cmake_args[@]}" > "$build/runner-configure.log" 2>&1 ||
  { tail -30 "$build/runner-configure.log"; exit 1; }
grep -E "^-- pruner:" "$build/runner-configure.log" || true
timeout 400 cmake --build "$build" -j "$jobs" > "$build/runner-build.log" 2>&1 ||
  { tail -30 "$build/runner-build.log"; exit 1; }
test -x "$build/bin/pruner-run" || { echo "build-runner.sh: no $build/bin/pruner-run"; exit 1; }
echo "built $build/bin/pruner-run"

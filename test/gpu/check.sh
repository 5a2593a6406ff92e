#!/usr/bin/env bash
# GPU-host check: builds the MLIR-free runner (PRUNER_RUNNER_ONLY), runs its unit tests,
# measures a bundle with pruner-run and prints the summary table (candidates by status,
# best us and GFLOP/s per workload, cuBLAS us, ratio).
#
#   test/gpu/check.sh BUNDLE_DIR [BUILD_DIR]
#
# The GPU host has cmake, nvcc and cuBLAS but maybe not cJSON or cmocka: set
# PRUNER_DEPS_PREFIX to a prefix holding include/ and lib/ for them (make one on a Debian
# machine with test/gpu/make-prefix.sh). Everything runs under `timeout`, well within
# 10 minutes for a few hundred candidates.
set -euo pipefail
bundle=${1:?usage: check.sh BUNDLE_DIR [BUILD_DIR]}
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${2:-$src/build-gpu-check}
records=${RECORDS:-$build/check-records.jsonl}
jobs=$(nproc 2>/dev/null || echo 4)

cmake_args=(-S "$src" -B "$build" -DPRUNER_RUNNER_ONLY=ON -DCMAKE_BUILD_TYPE=Release)
if [[ -n "${PRUNER_DEPS_PREFIX:-}" ]]; then
  cmake_args+=(-DCMAKE_PREFIX_PATH="$PRUNER_DEPS_PREFIX"
               -DCMAKE_BUILD_RPATH="$PRUNER_DEPS_PREFIX/lib")
  export LD_LIBRARY_PATH="$PRUNER_DEPS_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
echo "== configure + build (runner only)"
timeout 300 cmake "${cmake_args[@]}" > "$build.configure.log" 2>&1 ||
  { tail -30 "$build.configure.log"; exit 1; }
timeout 400 cmake --build "$build" -j "$jobs" > "$build.build.log" 2>&1 ||
  { tail -30 "$build.build.log"; exit 1; }

echo "== unit tests"
timeout 200 ctest --test-dir "$build" --output-on-failure -j "$jobs" | tail -15

echo "== pruner-run $bundle"
rm -f "$records"
set +e
timeout 420 "$build/bin/pruner-run" "$bundle" -o "$records" --timeout=5 --samples=10 \
  > "$build/run.log" 2>&1
code=$?
set -e
grep -E "^(bundle|device|target key|warning)" "$build/run.log" || true
# Summary table (printed by pruner-run after the per-candidate lines).
sed -n '/^workload  *ok  *wrong/,$p' "$build/run.log"
grep -E "final \(interleaved" "$build/run.log" | head -40 || true
echo "records: $(wc -l < "$records" 2>/dev/null || echo 0) lines in $records; full log $build/run.log"
case $code in
  0) echo "pruner-run: done" ;;
  3) echo "pruner-run: no CUDA device"; exit 3 ;;
  124) echo "pruner-run: stopped by the 420 s limit (records so far are kept)"; exit 124 ;;
  *) echo "pruner-run: exit $code"; tail -20 "$build/run.log"; exit "$code" ;;
esac

#!/usr/bin/env bash
# GPU-host check of one bundle: builds the MLIR-free runner (PRUNER_RUNNER_ONLY), runs its
# unit tests, measures the bundle with pruner-run and prints the summary table (candidates
# by status, best us and GFLOP/s per workload, cuBLAS us, ratio).
#
#   test/gpu/check.sh BUNDLE_DIR [BUILD_DIR]
#
# Environment:
#   PRUNER_DEPS_PREFIX  prefix with cJSON and cmocka for hosts without them
#                       (test/gpu/make-prefix.sh makes one on a Debian machine)
#   RECORDS             records file (default BUILD_DIR/check-records.jsonl; appended, and a
#                       rerun skips what it holds)
#   RUN_LIMIT           wall-clock seconds for pruner-run (default 420); records measured
#                       before the limit are kept
#   RUN_ARGS            extra pruner-run options (default "--timeout=5 --samples=10")
#   SKIP_BUILD=1        reuse BUILD_DIR as it is; SKIP_TESTS=1: no unit tests
# The whole-session script (one command on a lent GPU host) is test/gpu/session.sh.
#
# Exit status: 0 when pruner-run ran the bundle to the end (failing candidates are data:
# they are records with their status), 3 no CUDA device, 124 stopped by RUN_LIMIT, 1 a
# build error or a runner error (the log's tail is printed).
set -euo pipefail
bundle=${1:?usage: check.sh BUNDLE_DIR [BUILD_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${2:-$src/build-gpu-check}
records=${RECORDS:-$build/check-records.jsonl}
limit=${RUN_LIMIT:-420}
read -r -a run_args <<< "${RUN_ARGS:---timeout=5 --samples=10}"
jobs=$(nproc 2>/dev/null || echo 4)
if [[ -n "${PRUNER_DEPS_PREFIX:-}" ]]; then
  export LD_LIBRARY_PATH="$PRUNER_DEPS_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  "$here/build-runner.sh" "$build"
fi
if [[ "${SKIP_TESTS:-0}" != 1 ]]; then
  echo "== unit tests"
  # A failing unit test is reported, not fatal: the measurements are still wanted.
  if timeout 200 ctest --test-dir "$build" --output-on-failure -j "$jobs" > "$build/ctest.log" 2>&1; then
    tail -3 "$build/ctest.log"
  else
    echo "unit tests FAILED (exit $?):"; tail -25 "$build/ctest.log"
  fi
fi

echo "== pruner-run $bundle (limit ${limit}s, ${run_args[*]})"
log="$build/run-$(basename "$bundle").log"
set +e
timeout "$limit" "$build/bin/pruner-run" "$bundle" -o "$records" "${run_args[@]}" > "$log" 2>&1
code=$?
set -e
grep -E "^(bundle|device|target key|warning|no CUDA device|error)" "$log" || true
# pruner-run's own table (printed when it finishes), then the one from the records.
sed -n '/^workload  *ok  *wrong/,$p' "$log"
grep -E "final \(interleaved|final re-measurement" "$log" | head -40 || true
echo "-- from the records ($records):"
"$here/summarize.sh" --bundle="$bundle" "$records" || true
echo "records: $(cat "$records" 2>/dev/null | wc -l) lines in $records; full log $log"
case $code in
  0) echo "pruner-run: done" ;;
  3) echo "pruner-run: no CUDA device (nothing measured)"; exit 3 ;;
  124|137) echo "pruner-run: stopped by the ${limit} s limit (records so far are kept)"; exit 124 ;;
  *) echo "pruner-run: exit $code"; tail -20 "$log"; exit 1 ;;
esac

#!/usr/bin/env bash
# The one command of a lent GPU session (docs/gpu-session.md). Run in the repository root
# of the copy on the GPU host, with the folder made by `scripts/gpu-session.sh prepare`
# carried along (default out/gpu-session):
#
#   bash test/gpu/session.sh
#
# Everything it writes goes under $OUT (the run tool brings that folder back), records
# directly, so that what was measured before a kill is not lost (lib/records fsyncs each
# line):
#   session.log              this script's output (the tables are at its end)
#   env.txt                  date, nvidia-smi, nvcc, cmake, the prepared bundles' origin
#   build.*.log, ctest.log   the runner-only build and its unit tests
#   check-records.jsonl      pruner-run on the check bundle (+ cuBLAS baselines)
#   check-run.log            its per-candidate lines, table and interleaved finals
#   dataset-<w>-records.jsonl, dataset-<w>-run.log   the dataset bundles (no finals)
#   summary.txt              the tables from the records (test/gpu/summarize.sh)
#
# Time: BUDGET seconds in all (default 480: the run tool allows 600 s per command and the
# session's device time includes the machine's start). The check bundle gets at most
# CHECK_LIMIT (default 180) s; the dataset bundles share what is left minus RESERVE (30 s
# for the summaries): each in turn gets the remaining time divided by the bundles still to
# run, so time one leaves unused goes to the next. pruner-run is stopped at its limit and
# the candidates it did not reach are counted as "left" in the summary. Bundles list their
# candidates in the tuner's pick order (draft ranking and random picks interleaved, ε-greedy),
# so a cut keeps a mix of both.
#
# Exit status: 0 when the runner was built and the bundles were run (failing candidates and
# time limits are data), 3 when there is no CUDA device (nothing measured), 1 when the
# prepared folder is missing or the build fails (see $OUT/build.*.log).
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
cd "$src"
prep=${GPU_SESSION_DIR:-out/gpu-session}
OUT=${OUT:-$src/out/gpu-session-results}
budget=${BUDGET:-480}
check_limit=${CHECK_LIMIT:-180}
reserve=${RESERVE:-30}
build=${BUILD_DIR:-$src/build-gpu}
# Per candidate: a watchdog of 3 s (pruner-run samples for at most half of it past the
# minimum), at least 10 samples, each after an L2 flush (docs/measurement.md).
run_args=(--timeout=3 --samples=10)
mkdir -p "$OUT"
exec > >(tee -a "$OUT/session.log") 2>&1
start=$SECONDS
left() { echo $((budget - (SECONDS - start))); }
say() { echo "[$((SECONDS - start))s] $*"; }

say "gpu session: budget ${budget}s, prepared folder $prep, results in $OUT"
if [[ ! -f $prep/PREPARED ]]; then
  echo "error: $prep/PREPARED is missing: carry the folder made by"
  echo "  scripts/gpu-session.sh prepare $prep   (on the build host)"
  exit 1
fi
if [[ -f $prep/bundles.tar.xz && ! -f $prep/bundles/UNPACKED ]]; then
  say "unpacking $prep/bundles.tar.xz"
  mkdir -p "$prep/bundles"
  tar -xJf "$prep/bundles.tar.xz" -C "$prep/bundles" || { echo "error: cannot unpack"; exit 1; }
  touch "$prep/bundles/UNPACKED"
fi

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname 2>/dev/null || echo ?)  cpus: $(nproc 2>/dev/null || echo ?)"
  echo "-- nvidia-smi"
  timeout 30 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.sm,power.limit,temperature.gpu,persistence_mode,mig.mode.current --format=csv 2>&1 || echo "(nvidia-smi failed)"
  timeout 30 nvidia-smi -L 2>&1 || true
  echo "-- toolchain"
  (command -v nvcc > /dev/null && nvcc --version || /usr/local/cuda/bin/nvcc --version) 2>&1 | tail -2
  cmake --version 2>&1 | head -1
  echo "-- prepared"
  cat "$prep/PREPARED"
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

# 1. Build the runner (the carried prefix holds cJSON and cmocka).
say "build"
export PRUNER_DEPS_PREFIX="$src/$prep/deps"
export LD_LIBRARY_PATH="$PRUNER_DEPS_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if ! test/gpu/build-runner.sh "$build"; then
  cp "$build.configure.log" "$OUT/build.configure.log" 2>/dev/null
  cp "$build.build.log" "$OUT/build.build.log" 2>/dev/null
  echo "error: the runner-only build failed (logs in $OUT)"
  exit 1
fi
cp "$build.configure.log" "$OUT/build.configure.log"
cp "$build.build.log" "$OUT/build.build.log"

# 2. Unit tests (runner-only set; the GPU tests run for real here). Reported, not fatal.
say "unit tests"
if timeout 120 ctest --test-dir "$build" --output-on-failure -j "$(nproc 2>/dev/null || echo 4)" \
    > "$OUT/ctest.log" 2>&1; then
  tail -3 "$OUT/ctest.log"
else
  echo "unit tests FAILED:"; grep -E "Failed|\*\*\*|tests passed" "$OUT/ctest.log" | tail -20
fi

# 3. One bundle: pruner-run under a wall-clock limit, records straight into $OUT.
# Returns pruner-run's exit status (124 when stopped by the limit).
run_bundle() { # NAME LIMIT [extra pruner-run options...]
  local name=$1 limit=$2; shift 2
  local dir="$prep/bundles/$name" code
  if [[ ! -f $dir/manifest.json ]]; then
    say "skipping $name: no $dir/manifest.json"
    return 0
  fi
  local n; n=$(grep -o '"cubin": *"' "$dir/manifest.json" | wc -l)
  say "pruner-run $name: $n candidates, limit ${limit}s, ${run_args[*]} $*"
  timeout -k 10 "$limit" "$build/bin/pruner-run" "$dir" -o "$OUT/$name-records.jsonl" \
    "${run_args[@]}" "$@" > "$OUT/$name-run.log" 2>&1
  code=$?
  grep -E "^(device|target key|warning|no CUDA device|error)" "$OUT/$name-run.log" | head -5
  sed -n '/^workload  *ok  *wrong/,$p' "$OUT/$name-run.log"
  grep -E "final \(interleaved|final re-measurement" "$OUT/$name-run.log" || true
  case $code in
    0) say "$name: done" ;;
    1) say "$name: finished with runner errors (exit 1): $(grep -c '^error' "$OUT/$name-run.log") error line(s)" ;;
    3) say "$name: no CUDA device" ;;
    124|137) say "$name: stopped at its ${limit}s limit (records so far kept)" ;;
    *) say "$name: pruner-run exit $code"; tail -5 "$OUT/$name-run.log" ;;
  esac
  return $code
}

lim=$(( $(left) - reserve ))
(( lim > check_limit )) && lim=$check_limit
run_bundle check "$lim"
if [[ $? -eq 3 ]]; then
  tail -3 "$OUT/check-run.log"
  say "no CUDA device: nothing was measured (results: $OUT)"
  exit 3
fi

# 4. The dataset bundles, sharing what is left; no interleaved finals (a dataset run
# wants one measurement per config, and the time goes to more configs).
datasets=()
for d in "$prep"/bundles/dataset-*/; do
  [[ -f $d/manifest.json ]] && datasets+=("$(basename "$d")")
done
for i in "${!datasets[@]}"; do
  rest=$(( ${#datasets[@]} - i ))
  lim=$(( ($(left) - reserve) / rest ))
  if (( lim < 20 )); then
    say "skipping ${datasets[$i]}: ${lim}s left for it"
    continue
  fi
  run_bundle "${datasets[$i]}" "$lim" --no-final
done

# 5. Tables from the records (complete even for runs stopped at their limit).
say "summary"
{
  for name in check "${datasets[@]}"; do
    echo "== $name ($prep/bundles/$name)"
    test/gpu/summarize.sh --bundle="$prep/bundles/$name" "$OUT/$name-records.jsonl"
    echo
  done
} > "$OUT/summary.txt" 2>&1
cat "$OUT/summary.txt"
say "done; results in $OUT"
exit 0

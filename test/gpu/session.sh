#!/usr/bin/env bash
# The one command of a lent GPU session (docs/gpu-session.md). Run in the repository root
# of the copy on the GPU host, with the folder made by `scripts/gpu-session.sh prepare`
# carried along (default out/gpu-session):
#
#   bash test/gpu/session.sh
#
# What it writes under $OUT (the run tool brings back at most 8 files of at most 16 MiB,
# so logs are packed into one archive at the end); records go there directly, so that what
# was measured before a kill is not lost (lib/records fsyncs each line):
#   session.log                  this script's output (env, tables at its end)
#   check-records.jsonl          the check bundles (check-matmul, check-bmm, check-conv,
#                                check-igemm, check-tc, check-tcs, check-gemv, check-rowred,
#                                check-splitk, check-conv1x1)
#                                + cuBLAS baselines
#   dataset-<w>-records.jsonl    the dataset bundles (by default the two held-out complete
#                                tensor-core spaces dataset-tc-*; at most four, for the
#                                run tool's 8 files)
#   summary.txt                  the tables from the records (test/gpu/summarize.sh) and
#                                the check cubins' SASS census (test/gpu/sass_census.py)
#   logs.tar.gz                  env.txt (date, nvidia-smi, nvcc, cmake, the bundles'
#                                origin), build and ctest logs, pruner-run logs with one
#                                line per candidate and the interleaved finals
#
# Time: BUDGET seconds in all (default 480: the run tool allows 600 s per command, and the
# session's 15 minutes of device time include the machine's start). The check bundles get
# at most CHECK_LIMIT (default 150) s together, the dataset bundles what is left minus
# RESERVE (30 s for the summaries). Within a group each bundle in turn gets the group's
# remaining time divided by the bundles still to run, so time one leaves unused goes to the
# next. pruner-run is stopped at its limit; candidates it did not reach are counted as
# "left" in the summary. Bundles list candidates in the tuner's pick order (draft ranking
# and random picks interleaved, ε-greedy), so a cut keeps a mix of both.
# Per candidate: pruner-run's watchdog RUN_TIMEOUT (default 5 s; it samples past the
# 10-sample minimum for at most half of it); a candidate over it is recorded as timeout.
#
# Exit status: 0 when the runner was built and the bundles were run (failing candidates and
# time limits are data), 3 when there is no CUDA device (nothing measured), 1 when the
# prepared folder is missing or the build fails (see the build logs in $OUT/logs.tar.gz).
set -uo pipefail
shopt -s nullglob # a group without bundles is empty, not a literal pattern
src=$(cd "$(dirname "$0")/../.." && pwd)
cd "$src"
prep=${GPU_SESSION_DIR:-out/gpu-session}
OUT=${OUT:-$src/out/gpu-session-results}
budget=${BUDGET:-480}
check_limit=${CHECK_LIMIT:-150}
reserve=${RESERVE:-30}
build=${BUILD_DIR:-$src/build-gpu}
# Testing hooks: RUNNER replaces pruner-run, SKIP_BUILD=1 skips the build and unit tests.
runner=${RUNNER:-$build/bin/pruner-run}
# At least 10 samples per candidate, each after an L2 flush (docs/measurement.md).
run_args=(--timeout="${RUN_TIMEOUT:-5}" --samples=10)
logs=$build-session-logs
mkdir -p "$OUT"
rm -rf "$logs" && mkdir -p "$logs"
exec > >(tee -a "$OUT/session.log") 2>&1
tee_pid=$!
finish() { # pack the logs; let tee write its last lines before the command returns
  tar -C "$logs" -czf "$OUT/logs.tar.gz" . 2>/dev/null || true
  exec >&- 2>&-
  wait "$tee_pid" 2>/dev/null || true
}
trap finish EXIT
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
  # xz is almost always there; Python's lzma is the fallback.
  if command -v xz > /dev/null 2>&1; then
    tar -xJf "$prep/bundles.tar.xz" -C "$prep/bundles"
  else
    python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
      "$prep/bundles.tar.xz" "$prep/bundles"
  fi || { echo "error: cannot unpack $prep/bundles.tar.xz (needs xz or python3)"; exit 1; }
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
} > "$logs/env.txt" 2>&1
cat "$logs/env.txt"

# 1. Build the runner (the carried prefix holds cJSON and cmocka).
case $prep in /*) export PRUNER_DEPS_PREFIX="$prep/deps" ;; *) export PRUNER_DEPS_PREFIX="$src/$prep/deps" ;; esac
export LD_LIBRARY_PATH="$PRUNER_DEPS_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  say "build"
  if ! test/gpu/build-runner.sh "$build"; then
    cp "$build/runner-configure.log" "$build/runner-build.log" "$logs/" 2>/dev/null
    echo "error: the runner-only build failed (logs in $OUT/logs.tar.gz)"
    exit 1
  fi
  cp "$build/runner-configure.log" "$build/runner-build.log" "$logs/"

  # 2. Unit tests (runner-only set; the GPU tests run for real here). Reported, not fatal.
  say "unit tests"
  if timeout 120 ctest --test-dir "$build" --output-on-failure -j "$(nproc 2>/dev/null || echo 4)" \
      > "$logs/ctest.log" 2>&1; then
    tail -3 "$logs/ctest.log"
  else
    echo "unit tests FAILED:"; grep -E "Failed|\*\*\*|tests passed" "$logs/ctest.log" | tail -20
  fi
fi

# 3. One bundle: pruner-run under a wall-clock limit, records straight into $OUT.
# Returns pruner-run's exit status (124 when stopped by the limit).
run_bundle() { # NAME LIMIT RECORDS [extra pruner-run options...]
  local name=$1 limit=$2 records=$3; shift 3
  local dir="$prep/bundles/$name" code
  local n; n=$(grep -o '"cubin":[[:space:]]*"' "$dir/manifest.json" | wc -l)
  say "pruner-run $name: $n candidates, limit ${limit}s, ${run_args[*]} $*"
  timeout -k 10 "$limit" "$runner" "$dir" -o "$OUT/$records" \
    "${run_args[@]}" "$@" > "$logs/$name-run.log" 2>&1
  code=$?
  grep -E "^(device|target key|warning|no CUDA device|error)" "$logs/$name-run.log" | head -5
  sed -n '/^workload  *ok  *wrong/,$p' "$logs/$name-run.log"
  grep -E "final \(interleaved|final re-measurement" "$logs/$name-run.log" || true
  case $code in
    0) say "$name: done" ;;
    1) say "$name: finished with runner errors (exit 1): $(grep -c '^error' "$logs/$name-run.log") error line(s)" ;;
    3) say "$name: no CUDA device" ;;
    124|137) say "$name: stopped at its ${limit}s limit (records so far kept)" ;;
    *) say "$name: pruner-run exit $code"; tail -5 "$logs/$name-run.log" ;;
  esac
  return $code
}

# The bundles of one group (check-*, dataset-*) in turn, within GROUP_LIMIT seconds: each
# gets what is left of the group's time divided by the bundles still to run, so time one
# leaves unused goes to the next. RECORDS: a fixed file name, or "" for NAME-records.jsonl.
run_group() { # PREFIX GROUP_LIMIT RECORDS [extra pruner-run options...]
  local prefix=$1 group_limit=$2 records=$3; shift 3
  local names=() d i lim code group_end=$((SECONDS + group_limit))
  for d in "$prep"/bundles/"$prefix"-*/; do
    [[ -f $d/manifest.json ]] && names+=("$(basename "$d")")
  done
  for i in "${!names[@]}"; do
    lim=$(( (group_end - SECONDS) / (${#names[@]} - i) ))
    (( lim > $(left) - reserve )) && lim=$(( $(left) - reserve ))
    if (( lim < 15 )); then
      say "skipping ${names[$i]}: ${lim}s left for it"
      continue
    fi
    run_bundle "${names[$i]}" "$lim" "${records:-${names[$i]}-records.jsonl}" "$@"
    code=$?
    (( code == 3 )) && return 3
  done
  return 0
}

# 4. The check bundles (the tuner's picks: draft ranking + random), with the interleaved
# finals against cuBLAS, into one records file.
lim=$(( $(left) - reserve ))
(( lim > check_limit )) && lim=$check_limit
if ! run_group check "$lim" check-records.jsonl; then
  say "no CUDA device: nothing was measured (results: $OUT)"
  exit 3
fi

# 4b. The check bundles' machine code: the build host has no cuobjdump, so its checks stop
# at the PTX; here the SASS of each cubin is checked for what its config kind needs (HMMA,
# LDSM, LDGSTS, two kernels for split-K; test/gpu/sass_census.py). Reported, not fatal.
# At most 12 cubins per bundle and kind: all 1,000 did not fit 45 s on 2026-12-04, 286
# took 20 s.
check_dirs=("$prep"/bundles/check-*/)
if [[ ${#check_dirs[@]} -eq 0 ]]; then
  echo "(no check bundles: no census)" > "$logs/sass-census.txt"
elif command -v python3 > /dev/null 2>&1; then
  say "sass census (check bundles)"
  timeout 45 python3 test/gpu/sass_census.py --per-kind=12 "${check_dirs[@]}" > "$logs/sass-census.txt" 2>&1
  say "sass census exit $?"
  head -n 60 "$logs/sass-census.txt"
else
  echo "(no python3: skipped)" > "$logs/sass-census.txt"
fi

# 5. The dataset bundles, sharing what is left. With the interleaved finals (the best 3
# re-timed back to back with cuBLAS; they write no records, so each config keeps its one
# measurement): a few seconds per dataset, and the complete tensor-core spaces' best
# against cuBLAS is what they are for.
if ! run_group dataset $(( $(left) - reserve )) ""; then
  say "no CUDA device: nothing was measured (results: $OUT)"
  exit 3
fi

# 6. Tables from the records (complete even for runs stopped at their limit).
say "summary"
{
  checks=()
  for d in "$prep"/bundles/check-*/; do checks+=(--bundle="$d"); done
  if [[ ${#checks[@]} -gt 0 ]]; then
    echo "== check bundles (check-records.jsonl)"
    test/gpu/summarize.sh "${checks[@]}" "$OUT/check-records.jsonl"
  fi
  for d in "$prep"/bundles/dataset-*/; do
    name=$(basename "$d")
    echo
    echo "== $name ($name-records.jsonl)"
    test/gpu/summarize.sh --bundle="$d" "$OUT/$name-records.jsonl"
  done
  echo
  echo "== machine code of the check bundles (test/gpu/sass_census.py)"
  cat "$logs/sass-census.txt" 2>/dev/null
} > "$OUT/summary.txt" 2>&1
cat "$OUT/summary.txt"
say "done; results in $OUT"
exit 0

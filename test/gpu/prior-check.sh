#!/usr/bin/env bash
# GPU-host side of the Hopper prior's check (scripts/prior-check.sh; docs/transfer.md,
# "The Hopper prior, on the chip"). Run in the repository root with the prepared folder
# carried (default out/prior-check): builds the runner, then times every bundle, each arm
# into its own records file (both arms often share configs; one file would skip them),
# in two passes: the bundles in name order (draft-*, then prior-*), then in reverse order
# (prior-*, then draft-*), so that a drift of the machine over the call shows as a
# difference between the passes rather than between the arms:
#   $OUT/{prior,draft}-records.jsonl (pass 1), $OUT/{prior,draft}-records-2.jsonl (pass 2),
#   $OUT/prior-check.log   (PASSES=1: the first pass only)
# pruner-run checks each output against the reference, takes at least 10 samples after an
# L2 flush, and re-times each bundle's best three against cuBLAS, interleaved.
set -uo pipefail
cd "$(dirname "$0")/../.."
dir=${PRIOR_CHECK_DIR:-out/prior-check}
OUT=${OUT:-$PWD/out/prior-check-results}
build=${BUILD_DIR:-$PWD/build-gpu}
mkdir -p "$OUT" "$dir/bundles"
exec > >(tee -a "$OUT/prior-check.log") 2>&1
[[ -f $dir/PREPARED ]] || { echo "error: $dir/PREPARED missing (scripts/prior-check.sh)"; exit 1; }
cat "$dir/PREPARED"
tar -xJf "$dir/bundles.tar.xz" -C "$dir/bundles" || exit 1
export PRUNER_DEPS_PREFIX=$PWD/$dir/deps
export LD_LIBRARY_PATH="$PRUNER_DEPS_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  test/gpu/build-runner.sh "$build" > /dev/null 2>&1 || { tail -20 "$build/runner-build.log"; exit 1; }
fi
bundles=("$dir"/bundles/*/)
for pass in $(seq 1 "${PASSES:-2}"); do
  order=("${bundles[@]}")
  if [[ $pass == 2 ]]; then
    order=()
    for ((i = ${#bundles[@]} - 1; i >= 0; --i)); do order+=("${bundles[$i]}"); done
  fi
  suffix=$([[ $pass == 1 ]] || echo "-$pass")
  for b in "${order[@]}"; do
    name=$(basename "$b") arm=${name%%-*}
    echo "== pass $pass: $name"
    timeout -k 5 "${RUN_LIMIT:-60}" "$build/bin/pruner-run" "$b" -o "$OUT/$arm-records$suffix.jsonl" \
      --timeout=5 --samples=10 > "$OUT/run.tmp" 2>&1
    code=$?
    grep -E "^  \[|final|^(no CUDA device|error)" "$OUT/run.tmp"
    [[ $code == 3 ]] && exit 3
    [[ $code != 0 ]] && echo "pruner-run exit $code"
  done
done
rm -f "$OUT/run.tmp"
exit 0

#!/usr/bin/env bash
# Build-host side of the Hopper prior's check on a GPU (docs/transfer.md, "The Hopper
# prior, on the chip"): for each module of test/gpu/Inputs/unseen/ (shapes the shipped
# gpu-sm_90 model was not trained on), two bundles of the tuner's first batch at
# --measure=none's cold start, compiled for the H200 by the real compile stage:
#   prior-<name>   the first TRIALS picks with the shipped prior (the default)
#   draft-<name>   the first TRIALS picks with --pretrained=none (the draft's order)
# (ε = 0: no random picks; candidate 0 of each bundle is that arm's first choice), packed
# with cJSON/cmocka into DIR (default out/prior-check) for test/gpu/prior-check.sh there.
#
#   scripts/prior-check.sh [DIR]     env: BUILD (default build), TRIALS (8), JOBS (2)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-out/prior-check}
build=${BUILD:-build}
trials=${TRIALS:-8}
jobs=${JOBS:-2}
work=$dir/work
die() { echo "prior-check: $*" >&2; exit 1; }
[[ -x $build/bin/pruner-tune ]] || die "$build/bin/pruner-tune is missing (cmake --build $build)"
[[ -f $build/share/pruner-mlir/models/gpu-sm_90.json ]] || die "no shipped gpu-sm_90 model in $build"
rm -rf "$dir" && mkdir -p "$work"
for module in test/gpu/Inputs/unseen/*.mlir; do
  name=$(basename "$module" .mlir)
  for arm in prior draft; do
    extra=()
    [[ $arm == draft ]] && extra=(--pretrained=none)
    "$build/bin/pruner-tune" "$module" -o "$work/$arm-$name.mlir" --target=h200 \
      --measure=bundle:"$work/$arm-$name" --trials="$trials" --batch="$trials" --epsilon=0 \
      --seed=1 --jobs="$jobs" --records="$work/$arm-$name.compile.jsonl" "${extra[@]}" \
      > "$work/$arm-$name.log" 2>&1 || { tail -5 "$work/$arm-$name.log"; die "$arm-$name failed"; }
    n=$(grep -o '"cubin":[[:space:]]*"' "$work/$arm-$name/manifest.json" | wc -l)
    prior=$(grep -c "verifier prior" "$work/$arm-$name.log" || true)
    echo "$arm-$name: $n candidates (prior note lines: $prior)"
  done
done
tar -C "$work" -cf - $(cd "$work" && ls -d prior-* draft-* | grep -v '\.') | xz -6 -T1 > "$dir/bundles.tar.xz"
test/gpu/make-prefix.sh "$dir/deps" > /dev/null
rm -rf "$work"
echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) $(git rev-parse --short HEAD) trials=$trials" > "$dir/PREPARED"
du -sh "$dir"

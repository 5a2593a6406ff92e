#!/bin/bash
# scripts/trust-check.sh [BUILD_DIR] [TRIALS] [RECHECKS]: does the time pruner-tune reports
# for a host winner hold when the winner is measured again later, in a fresh process?
# (docs/measurement.md, "Host: the final check".) For 1024^3 and the two BERT-base FFN
# matmuls, on one core (taskset to the last CPU) and on every core: tune with TRIALS
# trials (default 64) and the final check, then re-measure the written winner RECHECKS
# times (default 3), each a separate pruner-host-tool process reading the tuned module's
# own pruner.config, on as many threads as the tuning had. Prints one row per run: the final check's median and IQR, OpenBLAS'
# median in the same rounds, and the re-checks, with how many fell inside the IQR and
# within 10% of the median. Read it on a quiet machine; it measures, so nothing else
# should run meanwhile.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}/bin
TRIALS=${2:-64}
RECHECKS=${3:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}"/pruner-trust-XXXXXX)
# A failed step (set -e) names its line and keeps the logs; a clean run removes them.
trap 'st=$?; if [ $st -ne 0 ]; then echo "trust-check: failed (exit $st) at line ${fail_line:-?}; "\
"logs kept in $tmp" >&2; else rm -rf "$tmp"; fi' EXIT
trap 'fail_line=$LINENO' ERR
last_cpu=$(($(nproc) - 1))
printf '%-22s %-7s %-30s %-26s %-10s %-28s %s\n' shape cores winner "final median [IQR] ms" \
  "OpenBLAS" "re-checks ms" "in IQR / within 10%"
for shape in 1024x1024x1024 128x3072x768 128x768x3072; do
  IFS=x read -r m n k <<< "$shape"
  f="$tmp/mm-$shape.mlir"
  scripts/matmul-mlir.sh "$m" "$n" "$k" > "$f"
  for cores in 1 all; do
    pin=() threads=$(nproc)
    [ "$cores" = 1 ] && pin=(taskset -c "$last_cpu") threads=1
    out="$tmp/tuned-$shape-$cores.mlir"
    log="$tmp/tune-$shape-$cores.log"
    "${pin[@]}" "$B/pruner-tune" "$f" -o "$out" --target=host --trials="$TRIALS" -q > "$log" 2>&1
    # "final check, ... chose CONFIG (tuning rank R), median M us [IQR A-B], ..."
    line=$(grep 'final check, .* chose' "$log")
    winner=$(sed -E 's/.*chose (.*) \(tuning rank.*/\1/' <<< "$line")
    read -r med lo hi < <(sed -E 's/.*median ([0-9.]+) us \[IQR ([0-9.]+)-([0-9.]+)\].*/\1 \2 \3/' <<< "$line")
    blas=$(grep 'final check, OpenBLAS median' "$log" | sed -E 's/.*median ([0-9.]+) us.*/\1/')
    checks=() inside=0 near=0
    for _ in $(seq "$RECHECKS"); do
      us=$("${pin[@]}" "$B/pruner-host-tool" "$out" --threads="$threads" |
        sed -E 's/.*median_us ([0-9.]+).*/\1/')
      checks+=("$(awk -v u="$us" 'BEGIN{printf "%.2f", u / 1000}')")
      inside=$((inside + $(awk -v u="$us" -v a="$lo" -v b="$hi" 'BEGIN{print (u >= a && u <= b)}')))
      near=$((near + $(awk -v u="$us" -v m="$med" 'BEGIN{d = u / m - 1; print (d <= 0.1 && d >= -0.1)}')))
    done
    printf '%-22s %-7s %-30s %-26s %-10s %-28s %s\n' "$shape" "$cores" "$winner" \
      "$(awk -v m="$med" -v a="$lo" -v b="$hi" 'BEGIN{printf "%.2f [%.2f-%.2f]", m/1000, a/1000, b/1000}')" \
      "$(awk -v u="$blas" 'BEGIN{printf "%.2f", u / 1000}')" "${checks[*]}" \
      "$inside/$RECHECKS, $near/$RECHECKS"
  done
done

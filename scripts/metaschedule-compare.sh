#!/bin/bash
# scripts/metaschedule-compare.sh [BUILD_DIR] [TRIALS] [PYTHON]: pruner-tune against TVM
# MetaSchedule with the same number of measured trials (default 64), on one core, for the
# f32 matmuls the host issue compared (512^3 and the two BERT-base FFN matmuls), each
# against OpenBLAS measured right after it (docs/host.md, "Against TVM MetaSchedule").
# PYTHON is an interpreter with TVM (not a dependency of this project); to make one:
#   python3 -m venv /tmp/tvm && /tmp/tvm/bin/pip install apache-tvm==0.27.0.post1 \
#     apache-tvm-ffi==0.1.14.post1 cloudpickle psutil xgboost scipy tornado
# (apache-tvm-ffi 0.1.15 crashed MetaSchedule 0.27 in ToJSONGraph here). Measures: run it
# on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}/bin
TRIALS=${2:-64}
PY=${3:-/tmp/tvm/bin/python}
cpu=$(($(nproc) - 1))
tmp=$(mktemp -d "${TMPDIR:-/tmp}"/pruner-ms-XXXXXX)
# A failed step (set -e) names its line and keeps the logs; a clean run removes them.
trap 'st=$?; if [ $st -ne 0 ]; then echo "metaschedule-compare: failed (exit $st) at line ${fail_line:-?}; "\
"logs kept in $tmp" >&2; else rm -rf "$tmp"; fi' EXIT
trap 'fail_line=$LINENO' ERR
printf '%-14s %-30s %-24s %-24s %s\n' shape "pruner-tune ms (tuning s)" "MetaSchedule ms (s)" \
  "OpenBLAS ms" "pruner / MetaSchedule"
for shape in 512x512x512 128x3072x768 128x768x3072; do
  IFS=x read -r m n k <<< "$shape"
  f="$tmp/mm.mlir"
  scripts/matmul-mlir.sh "$m" "$n" "$k" > "$f"
  start=$(date +%s.%N)
  taskset -c "$cpu" "$B/pruner-tune" "$f" -o "$tmp/tuned.mlir" --target=host --trials="$TRIALS" \
    -q > "$tmp/tune.log" 2>&1
  tune_s=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.0f", e - s}')
  ours=$(grep 'final check, .* chose' "$tmp/tune.log" | sed -E 's/.*median ([0-9.]+) us.*/\1/')
  theirs=$(taskset -c "$cpu" "$PY" scripts/metaschedule.py "$m" "$n" "$k" 1 "$TRIALS" 2>"$tmp/metaschedule.err" |
    grep '^metaschedule')
  ms_ms=$(sed -E 's/.*median ([0-9.]+) ms.*/\1/' <<< "$theirs")
  ms_s=$(sed -E 's/.*tuning ([0-9.]+) s.*/\1/' <<< "$theirs")
  blas=$(taskset -c "$cpu" "$B/pruner-host-tool" "$f" --baseline --threads=1 |
    sed -E 's/.*median_us ([0-9.]+).*/\1/')
  printf '%-14s %-30s %-24s %-24s %s\n' "$shape" \
    "$(awk -v u="$ours" -v s="$tune_s" 'BEGIN{printf "%.3f (%s s)", u / 1000, s}')" \
    "$ms_ms ($ms_s s)" "$(awk -v u="$blas" 'BEGIN{printf "%.3f", u / 1000}')" \
    "$(awk -v a="$ours" -v b="$ms_ms" 'BEGIN{printf "%.2fx faster kernel", b * 1000 / a}')"
done

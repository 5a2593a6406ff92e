#!/bin/bash
# scripts/quality.sh [BUILD_DIR] [SEEDS]: reruns the tables of docs/quality.md on the
# complete-space host datasets in data/ (draft recall and Spearman, verifier
# cross-validation, search study). Pinned to core 0: the datasets were measured on one
# core, so the host target must describe one core (key host:<cpu>-1c-<isa>); on another
# CPU the keys differ and the tools report that no records match.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}/bin
SEEDS=${2:-20}
DATA=(data/host-matmul-512.jsonl data/host-conv-nhwc.jsonl data/host-bmm.jsonl)
for f in "${DATA[@]}"; do
  [ -f "$f" ] || { echo "quality.sh: $f missing" >&2; exit 1; }
done
echo "== draft: Spearman, rank of the measured best, recall@N (pruner-draft --eval)"
for f in "${DATA[@]}"; do
  for top in 1 8 32 128 512; do
    echo "-- $f --top=$top"
    taskset -c 0 "$B/pruner-draft" --eval "$f" --target=host --top="$top" | tail -n +3
  done
done
echo "== verifier vs draft alone, leave-workload-out (pruner-eval --folds=${#DATA[@]})"
ALL=$(mktemp /tmp/pruner-quality-XXXXXX.jsonl)
trap 'rm -f "$ALL"' EXIT
cat "${DATA[@]}" > "$ALL"
"$B/pruner-eval" "$ALL" --folds=${#DATA[@]}
echo "== the verifier's model alone (no draft blend), same folds"
"$B/pruner-eval" "$ALL" --folds=${#DATA[@]} --blend-records=0
echo "== the verifier with 16 own records of each held-out workload (one tuning batch)"
"$B/pruner-eval" "$ALL" --folds=${#DATA[@]} --own=16
for within in 0.05 0.02; do
  echo "== search study, $SEEDS seeds, goal within $within of the best (pruner-tune --study)"
  for f in "${DATA[@]}"; do
    taskset -c 0 "$B/pruner-tune" --study="$f" --seeds="$SEEDS" --target=host --within=$within
  done
done

#!/bin/bash
# scripts/verifier-lowo.sh [BUILD_DIR]: chooses the verifier's draft-blend constants
# (blend_records K, blend_floor F) by leave-one-workload-out on the host datasets in
# data/ and judges each choice on the workload it never saw (docs/quality.md, "Verifier
# constants by leave-one-workload-out"). For each held-out workload W: every (K, F) of
# the grid is cross-validated on the OTHER datasets only (pruner-eval --folds=2, the
# tuner's view: --as-tuned=512 with 0, 16 and 48 own records), scored by
#   sum over own counts and metrics (pairwise, top-1, top-5) of d - 3 max(0, -d),
#   d = verifier - draft
# (a loss against the draft weighs three times a gain: the verifier must not hurt); the
# best (K, F) is then run with all datasets (--folds=3) and W's row is reported, next to
# the default constants' row. Nothing is measured; runs on any machine.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}/bin
DATA=(data/host-matmul-512.jsonl data/host-conv-nhwc.jsonl data/host-bmm.jsonl)
GRID=("0 0" "16 0" "16 0.05" "64 0" "64 0.05" "256 0" "256 0.05" "1024 0" "1024 0.05")
OWNS=(0 16 48)
TMP=$(mktemp -d "${TMPDIR:-/tmp}"/pruner-lowo-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
cat "${DATA[@]}" > "$TMP/all.jsonl"

# Rows "workload n vpair vtop1 vtop5 dpair dtop1 dtop5" of one pruner-eval run.
rows() { "$B/pruner-eval" "$@" --dataset-target=records --as-tuned=512 |
  awk 'NF == 8 && $2 ~ /^[0-9]+$/ && $1 != "overall"'; }

for w in "${!DATA[@]}"; do
  held=$(head -1 "${DATA[$w]}" | sed 's/^{"version":1,"workload_key":"\([^"]*\)".*/\1/')
  : > "$TMP/train.jsonl"
  for o in "${!DATA[@]}"; do
    [ "$o" = "$w" ] || cat "${DATA[$o]}" >> "$TMP/train.jsonl"
  done
  best_score=""; best=""
  for kf in "${GRID[@]}"; do
    set -- $kf
    score=0
    for own in "${OWNS[@]}"; do
      s=$(rows "$TMP/train.jsonl" --folds=2 --own=$own --blend-records=$1 --blend-floor=$2 |
        awk '{ for (i = 3; i <= 5; ++i) { d = $i - $(i + 3); s += d - 3 * (d < 0 ? -d : 0) } }
             END { printf "%.4f", s }')
      score=$(awk -v a=$score -v b=$s 'BEGIN { printf "%.4f", a + b }')
    done
    echo "held out $held: K=$1 F=$2 score on the other workloads $score"
    if [ -z "$best_score" ] || awk -v a=$score -v b=$best_score 'BEGIN { exit !(a > b) }'; then
      best_score=$score; best="$1 $2"
    fi
  done
  set -- $best
  echo "held out $held: chosen K=$1 F=$2"
  for own in "${OWNS[@]}"; do
    echo "  own $own, chosen:  $(rows "$TMP/all.jsonl" --folds=3 --own=$own --blend-records=$1 --blend-floor=$2 | grep -F "$held")"
    echo "  own $own, default: $(rows "$TMP/all.jsonl" --folds=3 --own=$own | grep -F "$held")"
  done
done

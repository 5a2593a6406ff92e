#!/usr/bin/env bash
# The host draft's overlap of short runs (lib/backend/host/draft_host.c, OOO_WINDOW_FMAS:
# independent accumulator chains of the register tiles that follow one another, when a
# tile's run over its reduction block is short), chosen leave-one-dataset-out over every
# host dataset in data/ (docs/quality.md, "Short runs overlap").
#
#   scripts/draft-lowo-window.sh [STUDY_BUILD]
#
# Builds pruner-draft in a separate study build (default out/draft-study-build; the
# product builds are not touched) once per candidate window (0: no overlap, 8, 16, 24,
# 32, 64, 128, 256 FMAs), passed through the CMake cache variable PRUNER_HOST_DRAFT_STUDY.
# Each candidate's `pruner-draft --eval --dataset-target=records` on every host dataset
# gives regret@16, regret@64, the first config within 2% and the Spearman; for each
# held-out dataset the candidate with the lowest mean log(regret@16) + log(regret@64) on
# the others is chosen (ties: the higher mean Spearman) and judged on the held-out one.
# About five minutes (8 study builds); needs python3. Nothing is measured.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/draft-study-rows.sh"
build=${1:-$root/out/draft-study-build}
sets=()
shopt -s nullglob
for f in "$root"/data/host-*.jsonl; do
  b=${f##*/}
  if [[ -f $f && $b != host-pack-pairs* ]]; then
    sets+=("${b%.jsonl}")
  fi
done
[ "${#sets[@]}" -gt 1 ] ||
  { echo "draft-lowo-window.sh: need at least two host datasets in data/" >&2; exit 1; }
table=$(mktemp "${TMPDIR:-/tmp}"/pruner-draft-lowo-XXXXXX.tsv)
log=$(mktemp "${TMPDIR:-/tmp}"/pruner-draft-lowo-XXXXXX.log)
trap 'rm -f "$table" "$log"' EXIT
for window in 0 8 16 24 32 64 128 256; do
  draftStudyRows draft-lowo-window.sh "$root" "$build" "$log" "OOO_WINDOW_FMAS=$window" \
    "$window" "${sets[@]}" >> "$table"
done
# default: the draft before the overlap (none).
python3 "$root/scripts/draft-study-lowo.py" "$table" window 0

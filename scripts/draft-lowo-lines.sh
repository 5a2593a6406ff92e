#!/usr/bin/env bash
# The host draft's fills of one-line tasks (lib/backend/host/draft_host.c,
# ONE_LINE_TASK_FILLS: lines an L1 fill brings per line used when a task's slice of an
# operand's contiguous dim is one line or less), chosen leave-one-dataset-out over every
# host dataset in data/ (docs/quality.md, "One-line tasks").
#
#   scripts/draft-lowo-lines.sh [STUDY_BUILD]
#
# Builds pruner-draft in a separate study build (default out/draft-study-build; the
# product builds are not touched) once per candidate (1: no charge, 1.5, 2, 3), passed
# through the CMake cache variable PRUNER_HOST_DRAFT_STUDY. Each candidate's
# `pruner-draft --eval --dataset-target=records` on every host dataset gives regret@16,
# regret@64, the first config within 2% and the Spearman; for each held-out dataset the
# candidate with the lowest mean log(regret@16) + log(regret@64) on the others is chosen
# (ties: the higher mean Spearman) and judged on the held-out one. About two minutes;
# needs python3. Nothing is measured.
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
  { echo "draft-lowo-lines.sh: need at least two host datasets in data/" >&2; exit 1; }
table=$(mktemp "${TMPDIR:-/tmp}"/pruner-draft-lowo-XXXXXX.tsv)
log=$(mktemp "${TMPDIR:-/tmp}"/pruner-draft-lowo-XXXXXX.log)
trap 'rm -f "$table" "$log"' EXIT
for lines in 1.0 1.5 2.0 3.0; do
  draftStudyRows draft-lowo-lines.sh "$root" "$build" "$log" "ONE_LINE_TASK_FILLS=$lines" \
    "$lines" "${sets[@]}" >> "$table"
done
# default: the draft before the charge (1: a one-line task's fills are its own lines).
python3 "$root/scripts/draft-study-lowo.py" "$table" lines 1.0

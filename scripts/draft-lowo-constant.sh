#!/usr/bin/env bash
# One host draft constant chosen leave-one-dataset-out over every host dataset in data/
# (the study behind draft-lowo-window.sh, draft-lowo-lines.sh and draft-lowo-runs.sh).
#
#   scripts/draft-lowo-constant.sh CONSTANT DEFAULT CANDIDATE... [-- STUDY_BUILD]
#
# CONSTANT is a macro of lib/backend/host/draft_host.c that a study build may set (its
# #ifndef); DEFAULT is the candidate the choices are compared with (the draft before the
# constant, usually the value that turns the term off). Builds pruner-draft in a separate
# study build (default out/draft-study-build; the product builds are not touched) once
# per candidate, passed through the CMake cache variable PRUNER_HOST_DRAFT_STUDY. Each
# candidate's `pruner-draft --eval --dataset-target=records` on every host dataset gives
# regret@16, regret@64, the first config within 2% and the Spearman; for each held-out
# dataset the candidate with the lowest mean log(regret@16) + log(regret@64) on the others
# is chosen (ties: the higher mean Spearman) and judged on the held-out one. About 20
# seconds per candidate; needs python3. Nothing is measured.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/draft-study-rows.sh"
[ $# -ge 3 ] || { sed -n 2,16p "$0" >&2; exit 2; }
constant=$1 default=$2
shift 2
candidates=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  candidates+=("$1")
  shift
done
[ "${1:-}" = -- ] && shift
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
  { echo "draft-lowo-constant.sh: need at least two host datasets in data/" >&2; exit 1; }
table=$(mktemp "${TMPDIR:-/tmp}"/pruner-draft-lowo-XXXXXX.tsv)
log=$(mktemp "${TMPDIR:-/tmp}"/pruner-draft-lowo-XXXXXX.log)
trap 'rm -f "$table" "$log"' EXIT
for value in "${candidates[@]}"; do
  draftStudyRows "draft-lowo-constant.sh $constant" "$root" "$build" "$log" \
    "$constant=$value" "$value" "${sets[@]}" >> "$table"
done
python3 "$root/scripts/draft-study-lowo.py" "$table" "$constant" "$default"

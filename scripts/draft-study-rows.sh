# scripts/draft-study-rows.sh: sourced by the draft's leave-one-dataset-out scripts
# (draft-lowo-conv.sh, draft-lowo-conv-hoisted.sh, draft-lowo-window.sh); not run on its own.
#
# draftStudySetsPresent NAME ROOT SET...: fails, naming NAME and the file, unless every
# data/SET.jsonl exists.
draftStudySetsPresent() {
  local name=$1 root=$2 s
  shift 2
  for s in "$@"; do
    [ -f "$root/data/$s.jsonl" ] || { echo "$name: data/$s.jsonl missing" >&2; return 1; }
  done
}

# draftStudyRows NAME ROOT BUILD LOG DEFS PREFIX SET...: builds pruner-draft in the study
# build BUILD with the host draft constants DEFS (the CMake cache variable
# PRUNER_HOST_DRAFT_STUDY, lib/backend/host/CMakeLists.txt), then prints for each SET (a
# data/SET.jsonl) one line "PREFIX SET spearman regret@16 regret@64 first_2%" of
# `pruner-draft --eval --dataset-target=records`. Fails, naming NAME, when the build fails
# or a set gives no single row.
draftStudyRows() {
  local name=$1 root=$2 build=$3 log=$4 defs=$5 prefix=$6
  shift 6
  if ! { cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
           "-DPRUNER_HOST_DRAFT_STUDY=$defs" &&
         cmake --build "$build" --target pruner-draft -j "$(nproc)"; } > "$log" 2>&1; then
    tail -30 "$log" >&2
    echo "$name: study build failed for $defs" >&2
    return 1
  fi
  local s row
  for s in "$@"; do
    row=$("$build/bin/pruner-draft" --eval "$root/data/$s.jsonl" --dataset-target=records \
        --top=1 | awk 'NF == 9 && $2 ~ /^[0-9]+$/ { print $3, $7, $8, $9 }')
    [ "$(wc -l <<< "$row")" = 1 ] && [ -n "$row" ] ||
      { echo "$name: no single eval row for $s ($defs)" >&2; return 1; }
    echo "$prefix $s $row"
  done
}

#!/bin/bash
# scripts/transfer-study.sh [BUILD_DIR]: does a verifier pretrained on one machine's
# records speed up tuning on another (Pruner's MoA; docs/transfer.md)? Nothing is
# measured: every run replays the complete-space datasets in data/, so this runs on any
# machine (about 90 minutes on 2 shared Zen 3 cores; PARTS=shipped about 10).
#
# Machine sets (data/README.md): amd (AMD Zen 4, AVX-512), intel (Intel Emerald Rapids,
# AVX-512), intel-avx2 (the same Intel CPU under the AVX2 description), each with the same
# three host workloads, and iree-intel (IREE's CPU code generator on the Intel CPU, one
# GEMV). For every ordered pair source -> target of the sets present, and for every
# target workload W, the priors are trained on the source (pruner-eval --train):
#   same:  all of the source's workloads (W's shape included, where the source has it: a
#          shipped model that has seen the shape on another machine);
#   new:   the source's workloads but W's kind (a shape the prior never saw; only where
#          the source has W's kind and others);
#   all:   where the source has no dataset of W's kind: all of its workloads (the
#          prior has not seen the shape either).
# Methods (pruner-tune --study): draft+verifier (cold start), pretrained-frozen (the
# prior alone, never adapted), pretrained (the prior with momentum adaptation).
#
# Constants: the prior's momentum M, its floor F on a workload it was trained on (the
# "same" priors) and Fu on one it was not (the "new" priors) are chosen per reported
# pair by a grid search on the pairs that do not involve the reported pair's target set
# (with only two sets: on the reverse pair, which the output says). The score: the sum
# over workloads of log(pretrained / cold) of the median tuning batches to come within
# 2% (CV_SEEDS seeds; a batch of 16 is compiled and measured as a whole, so trials inside
# one batch cost the same time), plus 0.01 log of the trials' ratio to break ties. The
# report then runs SEEDS seeds with the chosen constants. The last line is
# the choice over all pairs (the shipped defaults, pruner/verifier.h, came from it).
#
# The last section runs the shipped models' policy as the tuner applies it by default:
# source amd (the one data/models/ is built from), the library's default constants, and a
# "new" prior kept off unseen shapes where the family's shipped model says so
# ("pruner_unseen": "skip", scripts/build-models.sh): those rows must equal cold start.
#
# Environment: SEEDS (default 50), CV_SEEDS (default 20), GRID_M, GRID_F (space-separated),
# PARTS (default "grid shipped"; "shipped" alone runs only the last section, a few minutes);
# SHIPPED_M, SHIPPED_F, SHIPPED_FU: constants for the last section instead of the library's
# defaults (to judge a change of defaults before making it).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}/bin
SEEDS=${SEEDS:-50}
CV_SEEDS=${CV_SEEDS:-20}
GRID_M=(${GRID_M:-0.5 0.8 0.9 0.95})
GRID_F=(${GRID_F:-0 0.25 0.5 0.75 1})
PARTS=${PARTS:-grid shipped}
# Machine sets: "name:file" per dataset, the name the workload's kind (a prior for
# target workload W leaves out the source's dataset of W's name).
declare -A FILES=(
  [amd]="matmul:data/host-matmul-512.jsonl conv:data/host-conv-nhwc.jsonl bmm:data/host-bmm.jsonl"
  [intel]="matmul:data/host-matmul-512-intel.jsonl conv:data/host-conv-nhwc-intel.jsonl bmm:data/host-bmm-intel.jsonl"
  [intel-avx2]="matmul:data/host-matmul-512-intel-avx2.jsonl conv:data/host-conv-nhwc-intel-avx2.jsonl bmm:data/host-bmm-intel-avx2.jsonl"
  [iree-intel]="gemv:data/iree-gemv-1x2304x768.jsonl"
  [amd-2c]="matmul:data/host-matmul-512-2c.jsonl conv:data/host-conv-nhwc-2c.jsonl bmm:data/host-bmm-2c.jsonl"
)
SETS=()
for s in amd intel intel-avx2 iree-intel; do
  ok=1
  for e in ${FILES[$s]}; do [ -f "${e#*:}" ] || ok=0; done
  [ $ok = 1 ] && SETS+=("$s")
done
[ ${#SETS[@]} -ge 2 ] || { echo "transfer-study: needs the datasets of two machine sets" >&2; exit 1; }
PAIRS=()
for s in "${SETS[@]}"; do for t in "${SETS[@]}"; do [ "$s" = "$t" ] || PAIRS+=("$s>$t"); done; done
TMP=$(mktemp -d "${TMPDIR:-/tmp}"/pruner-transfer-XXXXXX)
trap 'rm -rf "$TMP"' EXIT

files_of() { local e; for e in ${FILES[$1]}; do echo "${e#*:}"; done; }
names_of() { local e; for e in ${FILES[$1]}; do echo "${e%%:*}"; done; }
file_of() { for e in ${FILES[$1]}; do [ "${e%%:*}" = "$2" ] && echo "${e#*:}"; done; }

# Priors: DIR/<set>.same.json (every dataset of the set), DIR/<set>.no-<name>.json (all
# but the dataset of that name, where the set has one and others).
train_priors() { # SET DIR [pruner-eval options...]
  local s=$1 dir=$2 n e
  shift 2
  "$B/pruner-eval" --train $(files_of "$s") -o "$dir/$s.same.json" "$@" | tail -1
  for n in $(names_of "$s"); do
    local others=()
    for e in ${FILES[$s]}; do [ "${e%%:*}" = "$n" ] || others+=("${e#*:}"); done
    if [ ${#others[@]} -gt 0 ]; then
      "$B/pruner-eval" --train "${others[@]}" -o "$dir/$s.no-$n.json" "$@" > /dev/null
    fi
  done
}
for s in "${SETS[@]}"; do train_priors "$s" "$TMP"; done
# priors SOURCE NAME: the priors to try for a target workload of NAME: "same" and "new"
# where the source has a dataset of that kind, else "all" (every dataset of the source,
# none of them of the target's kind: the prior has not seen the shape, as with "new").
priors() {
  if [ -n "$(file_of "$1" "$2")" ]; then
    echo same
    [ -f "$TMP/$1.no-$2.json" ] && echo new
  else
    echo all
  fi
  return 0
}
prior_file() { # SOURCE NAME KIND [DIR]
  local dir=${4:-$TMP}
  if [ "$3" = new ]; then echo "$dir/$1.no-$2.json"; else echo "$dir/$1.same.json"; fi
}
# The floor a prior kind is scored and run with: F where the prior knows the shape.
kind_of() { if [ "$1" = same ]; then echo same; else echo new; fi; }

# "median p25-p75 run_s" of METHOD at goal GOAL ("5", "2" or "noise": within the
# workload's measured noise) in a one-workload study table.
pick() {
  local g="goal within $2%"
  [ "$2" = noise ] && g="goal noise"
  awk -v goal="$g" -v m="$3" '
    index($0, "  goal ") == 1 { on = index($0, goal) == 3 }
    on && $1 == m { print $2, $3, $(NF-1); exit }' "$1"
}
# "median 5% / median 2% IQR 2% run_s 2% | median noise" of METHOD in study table FILE.
cell() {
  echo "$(pick "$1" 5 "$2" | cut -d' ' -f1) / $(pick "$1" 2 "$2") | $(pick "$1" noise "$2" | cut -d' ' -f1)"
}
# study OUT FILE METHODS SEEDS [ARGS...]
study() {
  local out=$1 file=$2 methods=$3 seeds=$4
  shift 4
  "$B/pruner-tune" --study="$file" --dataset-target=records --seeds="$seeds" \
    --study-methods="$methods" "$@" > "$out"
}

# The shipped models' policy (above): cold vs the tuner's default use of the source's
# priors, per target set with a family model.
# amd-2c (the AMD CPU on both cores) is a target of this section only: the shipped
# host-avx512 model is what a default run on that machine gets (the grid above does not
# include it, so the library's constants were chosen without it).
declare -A FAMILY=([intel]=host-avx512 [intel-avx2]=host-avx2 [iree-intel]=iree-cpu-avx512
                   [amd-2c]=host-avx512)
shipped() {
  echo "== shipped policy: source amd, constants ${SHIPPED_M:+M=$SHIPPED_M }${SHIPPED_F:+F=$SHIPPED_F }${SHIPPED_FU:+Fu=$SHIPPED_FU }(the rest the library's defaults), $SEEDS seeds; trials to 5% / 2% (median), 2% IQR, run_s"
  printf "%-21s %-7s %-6s %-6s  %-26s %-26s\n" pair workload prior unseen cold pretrained
  local t n prior model flag e ok dir
  local targets=("${SETS[@]}")
  ok=1
  for e in ${FILES[amd-2c]}; do [ -f "${e#*:}" ] || ok=0; done
  [ $ok = 1 ] && targets+=(amd-2c)
  for t in "${targets[@]}"; do
    [ "$t" != amd ] && [ -n "${FAMILY[$t]:-}" ] || continue
    model="data/models/${FAMILY[$t]}.json"
    [ -f "$model" ] || continue
    flag=use
    grep -q '"pruner_unseen":"skip"' "$model" && flag=skip
    # Priors trained as the family's model was: a model without the draft's scale was
    # trained without the draft as its margin (scripts/build-models.sh).
    dir=$TMP
    if ! grep -q '"pruner_draft_scale"' "$model"; then
      dir=$TMP/no-margin
      if [ ! -d "$dir" ]; then # once for every target of such a family
        mkdir -p "$dir"
        train_priors amd "$dir" --no-draft-margin
      fi
    fi
    for n in $(names_of "$t"); do
      study "$TMP/cold" "$(file_of "$t" "$n")" draft+verifier "$SEEDS"
      for prior in $(priors amd "$n"); do
        study "$TMP/pre" "$(file_of "$t" "$n")" pretrained "$SEEDS" \
          --pretrained="$(prior_file amd "$n" $prior "$dir")" --prior-unseen=$flag \
          ${SHIPPED_M:+--prior-momentum=$SHIPPED_M} ${SHIPPED_F:+--prior-floor=$SHIPPED_F} \
          ${SHIPPED_FU:+--prior-floor-unseen=$SHIPPED_FU}
        printf "%-21s %-7s %-6s %-6s  %-26s %-26s\n" "amd>$t" "$n" "$prior" "$flag" \
          "$(cell "$TMP/cold" draft+verifier)" "$(cell "$TMP/pre" pretrained)"
      done
    done
  done
}
if [ "$PARTS" = shipped ]; then
  shipped
  exit 0
fi

echo "== cold start (draft+verifier), $CV_SEEDS seeds, per target workload"
for t in "${SETS[@]}"; do
  for n in $(names_of "$t"); do
    study "$TMP/cold.$t.$n.cv" "$(file_of "$t" "$n")" draft+verifier "$CV_SEEDS"
  done
done

# score PRE COLD: log of the ratio of batches to come within 2%, plus 0.01 log of the
# trials' ratio (ties).
score() {
  awk -v p="$1" -v c="$2" 'function b(t) { return int((t + 15) / 16) }
    BEGIN { printf "%.4f", log(b(p) / b(c)) + 0.01 * log(p / c) }'
}
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a + b }'; }

echo "== grid: score (log batches pretrained / cold to 2%) summed over workloads, per prior kind"
declare -A SCORE
for p in "${PAIRS[@]}"; do
  s=${p%>*} t=${p#*>}
  for m in "${GRID_M[@]}"; do
    for f in "${GRID_F[@]}"; do
      SCORE["$p $m $f same"]=0
      SCORE["$p $m $f new"]=0
      for n in $(names_of "$t"); do
        cold=$(pick "$TMP/cold.$t.$n.cv" 2 draft+verifier | cut -d' ' -f1)
        for prior in $(priors "$s" "$n"); do
          study "$TMP/grid" "$(file_of "$t" "$n")" pretrained "$CV_SEEDS" \
            --pretrained="$(prior_file "$s" "$n" $prior)" --prior-momentum="$m" \
            --prior-floor="$f" --prior-floor-unseen="$f"
          pre=$(pick "$TMP/grid" 2 pretrained | cut -d' ' -f1)
          k=$(kind_of $prior)
          SCORE["$p $m $f $k"]=$(add "${SCORE["$p $m $f $k"]}" "$(score "$pre" "$cold")")
        done
      done
      echo "  $p M=$m F=$f: same ${SCORE["$p $m $f same"]} new ${SCORE["$p $m $f new"]}"
    done
  done
done

# choose PAIR...: "M F Fu" with the lowest summed score over the given pairs (for each M,
# the best F on the same priors and the best Fu on the new ones).
choose() {
  local best="" best_score="" m f q kind
  for m in "${GRID_M[@]}"; do
    local total=0 fs=""
    for kind in same new; do
      local bf="" bs=""
      for f in "${GRID_F[@]}"; do
        local sum=0
        for q in "$@"; do sum=$(add "$sum" "${SCORE["$q $m $f $kind"]}"); done
        if [ -z "$bs" ] || awk -v a="$sum" -v b="$bs" 'BEGIN { exit !(a < b) }'; then
          bs=$sum bf=$f
        fi
      done
      total=$(add "$total" "$bs")
      fs="$fs $bf"
    done
    if [ -z "$best_score" ] || awk -v a="$total" -v b="$best_score" 'BEGIN { exit !(a < b) }'; then
      best_score=$total best="$m$fs"
    fi
  done
  echo "$best"
}

echo "== report: $SEEDS seeds; trials to come within 5% / 2% (median), the 2% IQR and run_s (recorded run time until 2%)"
printf "%-21s %-7s %-6s %-9s  %-26s %-26s %-26s\n" pair workload prior "M,F" "cold" "frozen" \
  "pretrained"
for p in "${PAIRS[@]}"; do
  s=${p%>*} t=${p#*>}
  cv=()
  for q in "${PAIRS[@]}"; do
    qs=${q%>*} qt=${q#*>}
    [ "$qs" != "$t" ] && [ "$qt" != "$t" ] && cv+=("$q")
  done
  note=""
  if [ ${#cv[@]} = 0 ]; then cv=("$t>$s") note=" (chosen on the reverse pair: only two sets)"; fi
  set -- $(choose "${cv[@]}")
  m=$1 f=$2 fu=$3
  echo "# $p: M=$m F=$f Fu=$fu chosen on ${cv[*]}$note"
  for n in $(names_of "$t"); do
    study "$TMP/cold" "$(file_of "$t" "$n")" draft+verifier "$SEEDS"
    for prior in $(priors "$s" "$n"); do
      study "$TMP/pre" "$(file_of "$t" "$n")" pretrained-frozen,pretrained "$SEEDS" \
        --pretrained="$(prior_file "$s" "$n" $prior)" --prior-momentum="$m" \
        --prior-floor="$f" --prior-floor-unseen="$fu"
      printf "%-21s %-7s %-6s %-9s  %-26s %-26s %-26s\n" "$p" "$n" "$prior" \
        "$m,$([ $prior = same ] && echo "$f" || echo "$fu")" "$(cell "$TMP/cold" draft+verifier)" \
        "$(cell "$TMP/pre" pretrained-frozen)" "$(cell "$TMP/pre" pretrained)"
    done
  done
done
set -- $(choose "${PAIRS[@]}")
echo "== over all pairs (the shipped defaults): M=$1 F=$2 Fu=$3"
case " $PARTS " in *" shipped "*) shipped ;; esac

#!/usr/bin/env bash
# The host draft's conv register constants chosen leave-one-dataset-out over the eight
# conv datasets (docs/quality.md, "Spills in the host draft"; lib/backend/host/draft_host.c).
#
#   scripts/draft-lowo-conv.sh [STUDY_BUILD]
#
# Builds pruner-draft in a separate study build (default out/draft-study-build; the
# product builds are not touched) once per candidate, with the candidate's constants
# passed through the CMake cache variable PRUNER_HOST_DRAFT_STUDY: the accumulator knee
# (UNHOISTED_ACCUMULATOR_SHARE 0.375 / 0.4375 / 0.5), the spill slack
# (CONV2D_REGISTER_SLACK 0 / 2 / 4) and the spill cost (CONV2D_SPILL_COST_PER_REGISTER 0,
# 0.01 .. 0.16). Each candidate's `pruner-draft --eval --dataset-target=records` on every
# conv dataset gives the draft's regret@16 and regret@64 (the best measured config among
# its first 16 / 64 over the best), the first config within 2% and the Spearman. For each
# held-out dataset, the candidate with the lowest mean log(regret@16) + log(regret@64) on
# the others is chosen (ties: the higher mean Spearman) and judged on the held-out
# one. Three choices are printed: the cost alone (knee 0.5, slack 2: what the draft
# ships), the knee with the cost (slack 2), and the slack with the cost (knee 0.5).
# About 5 minutes; needs python3. Nothing is measured.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/draft-study-rows.sh"
build=${1:-$root/out/draft-study-build}
sets=(host-conv-nhwc host-conv-nhwc-intel host-conv-nhwc-intel-avx2 host-conv-nhwc-2c
      host-resnet-conv host-resnet-conv-wide-zen3 host-resnet-conv-wide
      host-resnet-conv-wide-intel)
draftStudySetsPresent draft-lowo-conv.sh "$root" "${sets[@]}"
table=$(mktemp "${TMPDIR:-/tmp}"/pruner-draft-lowo-XXXXXX.tsv)
log=$(mktemp "${TMPDIR:-/tmp}"/pruner-draft-lowo-XXXXXX.log)
trap 'rm -f "$table" "$log"' EXIT
for share in 0.375 0.4375 0.5; do
  for slack in 0 2 4; do
    for cost in 0 0.01 0.02 0.04 0.08 0.16; do
      # cost 0 charges nothing, whatever the slack: one run of it per knee.
      [ "$cost" = 0 ] && [ "$slack" != 2 ] && continue
      defs="UNHOISTED_ACCUMULATOR_SHARE=$share;CONV2D_REGISTER_SLACK=$slack"
      defs+=";CONV2D_SPILL_COST_PER_REGISTER=$cost"
      draftStudyRows draft-lowo-conv.sh "$root" "$build" "$log" "$defs" "$share $slack $cost" \
        "${sets[@]}" >> "$table"
    done
  done
done
python3 - "$table" <<'PY'
import math, sys
rows = {}
for line in open(sys.argv[1]):
    share, slack, cost, s, sp, r16, r64, first = line.split()
    rows.setdefault((share, slack, cost), {})[s] = (float(sp), float(r16), float(r64), int(first))
sets = sorted({s for v in rows.values() for s in v})
default = ('0.5', '2', '0')  # no charge: the draft before the spill charge

def score(key, among):
    v = rows[key]
    top = sum(math.log(v[s][1]) + math.log(v[s][2]) for s in among) / len(among)
    return (round(top, 4), -sum(v[s][0] for s in among) / len(among))

def lowo(title, candidates):
    print('\n' + title)
    print('%-28s %-18s %-15s %-15s %-11s %s' % ('held out', 'chose share/slack/cost',
          'regret@16', 'regret@64', 'first 2%', 'spearman'))
    for held in sets:
        chosen = min(candidates, key=lambda k: score(k, [s for s in sets if s != held]))
        b, a = rows[default][held], rows[chosen][held]
        print('%-28s %-22s %.3f -> %.3f  %.3f -> %.3f  %4d -> %-4d %.3f -> %.3f' % (
            held, '/'.join(chosen), b[1], a[1], b[2], a[2], b[3], a[3], b[0], a[0]))

keys = list(rows)
lowo('cost chosen (knee 0.5, slack 2): the shipped choice',
     [k for k in keys if k[0] == '0.5' and k[1] == '2'])
lowo('knee and cost chosen (slack 2)', [k for k in keys if k[1] == '2'])
lowo('slack and cost chosen (knee 0.5)', [k for k in keys if k[0] == '0.5'])
PY

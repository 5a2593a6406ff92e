#!/usr/bin/env bash
# The host draft's register constants for 2-D convs whose output tile stays in registers
# (host code-generator version 4, docs/host.md "Schedule"), chosen leave-one-dataset-out
# over the conv datasets measured with those kernels (docs/quality.md, "Conv accumulators
# in registers"; lib/backend/host/draft_host.c, HOISTED_CONV_ACCUMULATOR_SHARE).
#
#   scripts/draft-lowo-conv-hoisted.sh [STUDY_BUILD]
#
# Builds pruner-draft in a separate study build (default out/draft-study-build; the
# product builds are not touched) once per candidate, its constants passed through the
# CMake cache variable PRUNER_HOST_DRAFT_STUDY: the accumulator knee as a share of the
# SIMD registers (HOISTED_CONV_ACCUMULATOR_SHARE 0, i.e. FMA latency x pipes only, 0.25,
# 0.375, 0.5), whether the spill charge applies to these kernels
# (CONV2D_HOISTED_SPILLS 0 / 1) and whether a one-tap step counts one live broadcast
# instead of one per tile row (CONV2D_ONE_TAP_BROADCASTS 0 / 1). Each candidate's
# `pruner-draft --eval --dataset-target=records` on every version-4 conv dataset gives
# regret@16, regret@64 (the best measured config among the draft's first 16 / 64 over
# the best), the first config within 2% and the Spearman. For each held-out dataset the
# candidate with the lowest mean log(regret@16) + log(regret@64) on the others is chosen
# (ties: the higher mean Spearman) and judged on the held-out one. About ten minutes (14
# study builds); needs python3. Nothing is measured.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/draft-study-rows.sh"
build=${1:-$root/out/draft-study-build}
sets=(host-conv-nhwc-intel host-conv-nhwc-intel-avx2 host-resnet-conv-wide-intel
      host-resnet-conv-s3-wide-intel host-resnet-conv-s4-wide-intel)
draftStudySetsPresent draft-lowo-conv-hoisted.sh "$root" "${sets[@]}"
table=$(mktemp "${TMPDIR:-/tmp}"/pruner-draft-lowo-XXXXXX.tsv)
log=$(mktemp "${TMPDIR:-/tmp}"/pruner-draft-lowo-XXXXXX.log)
trap 'rm -f "$table" "$log"' EXIT
for share in 0 0.25 0.375 0.5; do
  for spills in 0 1; do
    for onetap in 0 1; do
      [ "$spills" = 0 ] && [ "$onetap" = 1 ] && continue # no spill charge: no demand counted
      defs="HOISTED_CONV_ACCUMULATOR_SHARE=$share;CONV2D_HOISTED_SPILLS=$spills"
      defs="$defs;CONV2D_ONE_TAP_BROADCASTS=$onetap"
      draftStudyRows draft-lowo-conv-hoisted.sh "$root" "$build" "$log" "$defs" \
        "$share $spills $onetap" "${sets[@]}" >> "$table"
    done
  done
done
python3 - "$table" <<'PY'
import math, sys
rows = {}
for line in open(sys.argv[1]):
    share, spills, onetap, s, sp, r16, r64, first = line.split()
    rows.setdefault((share, spills, onetap), {})[s] = (float(sp), float(r16), float(r64),
                                                       int(first))
sets = sorted({s for v in rows.values() for s in v})
default = ('0', '1', '0')  # the draft before the one-tap choice: a broadcast per row

def score(key, among):
    v = rows[key]
    top = sum(math.log(v[s][1]) + math.log(v[s][2]) for s in among) / len(among)
    return (round(top, 4), -sum(v[s][0] for s in among) / len(among))

print('%-8s %-7s %-7s %s' % ('share', 'spills', 'onetap',
                             '  '.join('%s: r16 r64 first sp' % s for s in sets)))
for k in sorted(rows):
    print('%-8s %-7s %-7s %s' % (k[0], k[1], k[2], '  '.join('%.3f %.3f %d %.3f' % (
        rows[k][s][1], rows[k][s][2], rows[k][s][3], rows[k][s][0]) for s in sets)))
print('\nleave one dataset out (share/spills/onetap chosen on the others)')
print('%-28s %-14s %-15s %-15s %-11s %s' % ('held out', 'chose', 'regret@16', 'regret@64',
      'first 2%', 'spearman'))
for held in sets:
    chosen = min(rows, key=lambda k: score(k, [s for s in sets if s != held]))
    b, a = rows[default][held], rows[chosen][held]
    print('%-28s %-14s %.3f -> %.3f  %.3f -> %.3f  %4d -> %-4d %.3f -> %.3f' % (
        held, '/'.join(chosen), b[1], a[1], b[2], a[2], b[3], a[3], b[0], a[0]))
PY

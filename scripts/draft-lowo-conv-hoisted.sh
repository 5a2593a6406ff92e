#!/usr/bin/env bash
# The host draft's register constants for 2-D convs whose output tile stays in registers
# (host code-generator version 4, docs/host.md "Schedule"), chosen leave-one-dataset-out
# over the conv datasets measured with those kernels (docs/quality.md, "Conv accumulators
# in registers" and "The Zen 3 conv with host version 4"; lib/backend/host/draft_host.c,
# HOISTED_CONV_ACCUMULATOR_SHARE): five on an Intel Xeon, four on a Zen 3 EPYC.
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
      host-resnet-conv-s3-wide-intel host-resnet-conv-s4-wide-intel
      host-resnet-conv-wide-zen3 host-conv-nhwc-zen3 host-resnet-conv-s3-wide-zen3
      host-resnet-conv-s4-wide-zen3)
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
# default: the draft before the one-tap choice (a broadcast per row).
python3 "$root/scripts/draft-study-lowo.py" "$table" share,spills,onetap 0,1,0

#!/bin/bash
# scripts/verifier-heldout.sh [BUILD_DIR]: the verifier against the draft in the tuner's
# view on the fifteen held-out sets of docs/quality.md ("All six conv datasets", "Batch
# tiles in the host draft", the wide Zen 4 conv, the wide Xeon attention, the Xeon's three
# wide model shapes, its three wide version-4 ResNet convs, its four depthwise convs, the
# Zen 3's six version-4 convs (two depthwise), the Zen 3's three wide model shapes, the
# Zen 3's two-core conv and matmul): per set, pruner-eval leave-one-workload-out with 16
# and 48 own records (the tuner's first batch on the host, --first-batch-tiles=0.5: the
# draft's best 8 and the draft's best of 8 more register steps, thread tiles with a conv's
# taps; then the draft's best) ranking the rest of the draft's top 512, with the 95%
# paired-bootstrap interval of verifier minus draft.
# FIRST_BATCH_TILES=0 gives the view before 2026-12-05 (the draft's best 16 / 48);
# EVAL_FLAGS adds pruner-eval flags (EVAL_FLAGS=--pooled-draft-scale: the verifier before
# 2026-12-07, one draft scale for every workload). One
# line per held-out workload: verifier pair/top-1, draft pair/top-1, and which side the
# intervals favour ("tie" when they hold 0). Nothing is measured; any machine, 2-3 minutes.
# The zen4 set's three datasets are the ones the blend constants were chosen on
# (docs/quality.md): its rows are in-sample, marked "zen4*", and counted apart at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}/bin
D=data
SETS=(zen4 xeon avx2 2c shapes shapes-wide zen3-wide zen4-wide xeon-wide xeon-shapes
      xeon-convs xeon-dw zen3-convs zen3-shapes zen3-2c)
FILES_zen4="$D/host-matmul-512.jsonl $D/host-conv-nhwc.jsonl $D/host-bmm.jsonl"
FILES_xeon="$D/host-matmul-512-intel.jsonl $D/host-conv-nhwc-intel.jsonl $D/host-bmm-intel.jsonl"
FILES_avx2="$D/host-matmul-512-intel-avx2.jsonl $D/host-conv-nhwc-intel-avx2.jsonl"
FILES_avx2+=" $D/host-bmm-intel-avx2.jsonl"
FILES_2c="$D/host-matmul-512-2c.jsonl $D/host-conv-nhwc-2c.jsonl $D/host-bmm-2c.jsonl"
FILES_shapes="$D/host-resnet-conv.jsonl $D/host-attn-scores.jsonl $D/host-ffn-up.jsonl"
FILES_shapes_wide="$D/host-resnet-conv.jsonl $D/host-attn-scores-wide.jsonl $D/host-ffn-up.jsonl"
FILES_zen3_wide="$D/host-resnet-conv-wide-zen3.jsonl $D/host-ffn-up-wide-zen3.jsonl"
FILES_zen4_wide="$D/host-resnet-conv-wide.jsonl $D/host-attn-scores-wide.jsonl $D/host-ffn-up.jsonl"
FILES_xeon_wide="$D/host-attn-scores-wide-intel.jsonl $D/host-conv-nhwc-intel.jsonl"
FILES_xeon_wide+=" $D/host-matmul-512-intel.jsonl"
# Issue 14's three model shapes in wide spaces, all on the Xeon with host version 2.
FILES_xeon_shapes="$D/host-attn-scores-wide-intel.jsonl $D/host-resnet-conv-wide-intel.jsonl"
FILES_xeon_shapes+=" $D/host-ffn-up-wide-intel.jsonl"
# ResNet-50's 3x3 convs of stages 1, 3 and 4, wide spaces on the Xeon, host version 4.
FILES_xeon_convs="$D/host-resnet-conv-wide-intel.jsonl $D/host-resnet-conv-s3-wide-intel.jsonl"
FILES_xeon_convs+=" $D/host-resnet-conv-s4-wide-intel.jsonl"
# MobileNet-V2's four stride-1 depthwise convs measured on the Xeon, host version 4.
FILES_xeon_dw="$D/host-dw-112x32-intel.jsonl $D/host-dw-56x144-intel.jsonl"
FILES_xeon_dw+=" $D/host-dw-28x192-intel.jsonl $D/host-dw-14x384-intel.jsonl"
# The small, stage-1, stage-3 and stage-4 convs on a Zen 3 under AVX2, host version 4
# (2026-12-07; the stage-4 conv added later that day, MobileNet-V2's depthwise 56x56x144
# and 112x112x32 that night).
FILES_zen3_convs="$D/host-conv-nhwc-zen3.jsonl $D/host-resnet-conv-wide-zen3.jsonl"
FILES_zen3_convs+=" $D/host-resnet-conv-s3-wide-zen3.jsonl $D/host-resnet-conv-s4-wide-zen3.jsonl"
FILES_zen3_convs+=" $D/host-dw-56x144-zen3.jsonl $D/host-dw-112x32-zen3.jsonl"
# Issue 14's three model shapes in wide spaces on the Zen 3: the attention scores' complete
# AVX2 space (2026-12-07, later) with the conv and the FFN of zen3-wide.
FILES_zen3_shapes="$D/host-attn-scores-wide-zen3.jsonl $D/host-resnet-conv-wide-zen3.jsonl"
FILES_zen3_shapes+=" $D/host-ffn-up-wide-zen3.jsonl"
# The small conv and the 512^3 matmul on both cores of the same Zen 3 (two threads, host
# version 4, 2026-12-07, evening): what a default run on that machine kind targets.
FILES_zen3_2c="$D/host-conv-nhwc-2c-zen3.jsonl $D/host-matmul-512-2c-zen3.jsonl"
# The host tuner's first-batch share (the host backend's first_batch_tiles).
TILES=${FIRST_BATCH_TILES:-0.5}
EVAL_FLAGS=${EVAL_FLAGS:-}
TMP=$(mktemp -d "${TMPDIR:-/tmp}"/pruner-heldout-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
printf '%-11s %-40s %3s  %-13s %-13s %-16s %s\n' set workload M "verifier" "draft" \
  "pair" "top-1"
for s in "${SETS[@]}"; do
  var="FILES_${s//-/_}"
  files=(${!var})
  for f in "${files[@]}"; do
    [ -f "$f" ] || { echo "verifier-heldout.sh: $f missing" >&2; exit 1; }
  done
  cat "${files[@]}" > "$TMP/set.jsonl"
  for m in 16 48; do
    "$B/pruner-eval" "$TMP/set.jsonl" --folds=${#files[@]} --dataset-target=records \
        --as-tuned=512 --own=$m --first-batch-tiles="$TILES" --interval $EVAL_FLAGS |
      awk -v s="$s" -v m=$m '
        NF == 8 && $2 ~ /^[0-9]+$/ && $1 != "overall" {
          split($1, k, ":"); w = k[1] ":" k[2]; v = $3 "/" $4; d = $6 "/" $7; next }
        /bootstrap/ {
          p = $0; sub(/.*pair \[[^]]*\] /, "", p); sub(/;.*/, "", p)
          t = $0; sub(/.*top1 \[[^]]*\] /, "", t)
          printf "%-11s %-40s %3d  %-13s %-13s %-16s %s\n", s, w, m, v, d, p, t }'
  done
done > "$TMP/rows.txt"
sed 's/^zen4 /zen4*/' "$TMP/rows.txt"
# The last two columns (two or more spaces apart): the pair and top-1 verdicts.
awk '{ in_sample = $1 == "zen4"
       n = split($0, f, /  +/); pair = f[n - 1]; top = f[n]
       for (j = 0; j < 2; ++j) { v = j ? top : pair
         k = v ~ /^verifier/ ? "v" : v ~ /^draft/ ? "d" : "t"
         c[(in_sample ? "in" : "out") k]++ } }
     END { printf "verdicts held out: %d verifier ahead, %d draft ahead, %d ties; " \
                  "in-sample (zen4*): %d, %d, %d\n", c["outv"], c["outd"], c["outt"], \
                  c["inv"], c["ind"], c["int"] }' "$TMP/rows.txt"

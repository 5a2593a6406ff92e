#!/bin/bash
# scripts/quality.sh [BUILD_DIR] [SEEDS]: reruns the tables of docs/quality.md on the
# complete-space host datasets in data/ (draft recall and Spearman, verifier
# cross-validation, search study) on any x86-64 machine: every tool studies the records
# as their own target (--dataset-target=records: the key's cores and ISA, the caches and
# clock the records carry; each tool's first line says what it assumed). Nothing is measured,
# so no core pinning is needed.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}/bin
SEEDS=${2:-50}
# The same three workloads measured on two CPUs (data/README.md): an AMD EPYC (Zen 4)
# and an Intel Xeon (Emerald Rapids), both AVX-512, one core each, and on the Intel one
# under the AVX2 description (intel-avx2: a second ISA, the same CPU). Each set is
# studied on its own (the verifier's folds stay within one set).
# amd-2c: the AMD CPU's three workloads on both of its cores (the only multi-core set of
# three; the Zen 3's two-core conv and matmul are studied on their own below).
MACHINES=(amd intel intel-avx2 amd-2c)
SET_amd=(data/host-matmul-512.jsonl data/host-conv-nhwc.jsonl data/host-bmm.jsonl)
SET_intel=(data/host-matmul-512-intel.jsonl data/host-conv-nhwc-intel.jsonl
           data/host-bmm-intel.jsonl)
SET_intel_avx2=(data/host-matmul-512-intel-avx2.jsonl data/host-conv-nhwc-intel-avx2.jsonl
                data/host-bmm-intel-avx2.jsonl)
SET_amd_2c=(data/host-matmul-512-2c.jsonl data/host-conv-nhwc-2c.jsonl data/host-bmm-2c.jsonl)
for m in "${MACHINES[@]}"; do
  declare -n set="SET_${m//-/_}"
  for f in "${set[@]}"; do
    [ -f "$f" ] || { echo "quality.sh: $f missing" >&2; exit 1; }
  done
done
for m in "${MACHINES[@]}"; do
declare -n DATA="SET_${m//-/_}"
echo "=== machine: $m"
echo "== draft: Spearman, rank of the measured best, recall@N (pruner-draft --eval)"
for f in "${DATA[@]}"; do
  for top in 1 8 32 128 512; do
    echo "-- $f --top=$top"
    "$B/pruner-draft" --eval "$f" --dataset-target=records --top="$top"
  done
done
echo "== verifier vs draft alone, leave-workload-out (pruner-eval --folds=${#DATA[@]})"
ALL=$(mktemp "${TMPDIR:-/tmp}"/pruner-quality-XXXXXX.jsonl)
trap 'rm -f "$ALL"' EXIT
cat "${DATA[@]}" > "$ALL"
"$B/pruner-eval" "$ALL" --folds=${#DATA[@]} --dataset-target=records
echo "== the verifier's model alone (no draft blend), same folds"
"$B/pruner-eval" "$ALL" --folds=${#DATA[@]} --dataset-target=records --blend-records=0
echo "== the verifier with 16 own records of each held-out workload (one tuning batch)"
"$B/pruner-eval" "$ALL" --folds=${#DATA[@]} --dataset-target=records --own=16
echo "== search study, $SEEDS seeds, goals within 5%, 2% and the noise (pruner-tune --study)"
for f in "${DATA[@]}"; do
  "$B/pruner-tune" --study="$f" --seeds="$SEEDS" --dataset-target=records
done
rm -f "$ALL"
done
# Model-shape datasets on their own (no other workload of the set to fold with): the
# draft's rank order at several depths and the search study (data/README.md).
modelShape() { # TITLE FILE TOPS...
  local title=$1 file=$2
  shift 2
  echo "=== $title ($file)"
  for top in "$@"; do
    "$B/pruner-draft" --eval "$file" --dataset-target=records --top="$top"
  done
  "$B/pruner-tune" --study="$file" --seeds="$SEEDS" --dataset-target=records
}
# The verifier leave-one-workload-out over model shapes, as the tuner uses it (its first
# batches' records, the draft's pool of 512).
modelLowo() { # TITLE FILES...
  local title=$1
  shift
  echo "=== $title, verifier leave-one-workload-out"
  ALL=$(mktemp "${TMPDIR:-/tmp}"/pruner-quality-XXXXXX.jsonl)
  trap 'rm -f "$ALL"' EXIT
  cat "$@" > "$ALL"
  for own in 0 16 48; do
    echo "-- as tuned, $own own records"
    "$B/pruner-eval" "$ALL" --folds=3 --dataset-target=records --as-tuned=512 --own="$own"
  done
  rm -f "$ALL"
}
# BERT attention scores, the first complete space with packing.
modelShape "BERT attention scores" data/host-attn-scores.jsonl 1 32 128 512
modelShape "ResNet-50 3x3 conv" data/host-resnet-conv.jsonl 1 32 128 512
modelShape "BERT FFN up" data/host-ffn-up.jsonl 1 32 128 512
# BERT attention scores again, in the wide space (Ansor-style candidates, docs/host.md):
# 11,004 configs, a uniform sample of 10,000 of its 20,128 plus the draft's top 2,000.
modelShape "BERT attention scores, wide space" data/host-attn-scores-wide.jsonl 1 32 128 512 2000
# ResNet-50's 3x3 conv in the wide space, the complete space (11,552 configs) on a Zen 3
# EPYC as an AVX2 machine (data/README.md), host version 4 since 2026-12-07.
modelShape "ResNet-50 3x3 conv, wide space, Zen 3 AVX2" data/host-resnet-conv-wide-zen3.jsonl \
  1 32 128 512 2000
# The small NHWC conv's complete AVX2 space (2,892 configs) on a Zen 3, host version 4,
# 2026-12-07.
modelShape "conv nhwc, Zen 3 AVX2" data/host-conv-nhwc-zen3.jsonl 1 32 128 512 2000
# ResNet-50's stage-3 3x3 conv, complete wide AVX2 space (11,268 configs), same Zen 3.
modelShape "ResNet-50 stage-3 conv, wide space, Zen 3 AVX2" \
  data/host-resnet-conv-s3-wide-zen3.jsonl 1 32 128 512 2000
# ResNet-50's stage-4 conv, complete wide AVX2 space (7,328 configs), same Zen 3.
modelShape "ResNet-50 stage-4 conv, wide space, Zen 3 AVX2" \
  data/host-resnet-conv-s4-wide-zen3.jsonl 1 32 128 512 2000
# MobileNet-V2's depthwise 56x56x144 and 112x112x32 convs, complete AVX2 spaces (7,056 and
# 6,960 configs), same Zen 3.
modelShape "MobileNet-V2 depthwise conv 56x56x144, Zen 3 AVX2" data/host-dw-56x144-zen3.jsonl \
  1 32 128 512 2000
modelShape "MobileNet-V2 depthwise conv 112x112x32, Zen 3 AVX2" data/host-dw-112x32-zen3.jsonl \
  1 32 128 512 2000
# The small conv on both cores of the same Zen 3 (two threads, 2,892 configs): noise-bound,
# so docs/quality.md reads it by the fastest pass and by the median of passes.
modelShape "conv nhwc, Zen 3 AVX2, 2 cores" data/host-conv-nhwc-2c-zen3.jsonl 1 32 128 512 2000
# The 512^3 matmul on both cores of the same Zen 3 (two threads, 7,380 configs).
modelShape "matmul 512^3, Zen 3 AVX2, 2 cores" data/host-matmul-512-2c-zen3.jsonl \
  1 32 128 512 2000
# BERT's FFN up in the wide space, the complete space (14,976 configs), same Zen 3.
modelShape "BERT FFN up, wide space, Zen 3 AVX2" data/host-ffn-up-wide-zen3.jsonl \
  1 32 128 512 2000
# BERT's attention scores, the complete AVX2 wide space (15,000 configs), same Zen 3.
modelShape "BERT attention scores, wide space, Zen 3 AVX2" data/host-attn-scores-wide-zen3.jsonl \
  1 32 128 512 2000
# ResNet-50's 3x3 conv in the wide space on this project's Zen 4 (AVX-512): the complete
# space (9,984 configs), 2026-12-05 (data/README.md).
modelShape "ResNet-50 3x3 conv, wide space, Zen 4" data/host-resnet-conv-wide.jsonl \
  1 32 128 512 2000
# The same wide-space sample of the attention scores on an Intel Xeon (Emerald Rapids,
# AVX-512), measured with aligned buffers (host version 2), 2026-12-05.
modelShape "BERT attention scores, wide space, Xeon" data/host-attn-scores-wide-intel.jsonl \
  1 32 128 512 2000
# The ResNet conv's complete wide space (9,984 configs) on the same Xeon, host version 2.
modelShape "ResNet-50 3x3 conv, wide space, Xeon" data/host-resnet-conv-wide-intel.jsonl \
  1 32 128 512 2000
# ResNet-50's stage-3 and stage-4 3x3 convs, complete wide spaces on the same Xeon, host
# version 4 (10,872 and 7,488 configs), 2026-12-06.
modelShape "ResNet-50 stage-3 conv, wide space, Xeon" \
  data/host-resnet-conv-s3-wide-intel.jsonl 1 32 128 512 2000
modelShape "ResNet-50 stage-4 conv, wide space, Xeon" \
  data/host-resnet-conv-s4-wide-intel.jsonl 1 32 128 512 2000
# MobileNet-V2's depthwise 3x3 convs (112x112x32, 28x28x192), complete spaces on the same
# Xeon, host version 4 (4,620 and 4,920 configs), 2026-12-06.
modelShape "MobileNet-V2 depthwise conv 112x112x32, Xeon" data/host-dw-112x32-intel.jsonl \
  1 32 128 512 2000
modelShape "MobileNet-V2 depthwise conv 28x28x192, Xeon" data/host-dw-28x192-intel.jsonl \
  1 32 128 512 2000
# Two more (56x56x144, 14x14x384; 2,640 and 2,832 configs), 2026-12-07.
modelShape "MobileNet-V2 depthwise conv 56x56x144, Xeon" data/host-dw-56x144-intel.jsonl \
  1 32 128 512 2000
modelShape "MobileNet-V2 depthwise conv 14x14x384, Xeon" data/host-dw-14x384-intel.jsonl \
  1 32 128 512 2000
# BERT's FFN up's complete wide AVX-512 space (16,848 configs) on the same Xeon, host
# version 2: with the two above, the three model shapes on one machine.
modelShape "BERT FFN up, wide space, Xeon" data/host-ffn-up-wide-intel.jsonl \
  1 32 128 512 2000
# The same FFN's complete wide AVX2 space (14,976 configs) on the same Xeon under the AVX2
# description, host version 2: the Zen 3 FFN's space on another core with today's harness.
modelShape "BERT FFN up, wide space, Xeon under AVX2" data/host-ffn-up-wide-intel-avx2.jsonl \
  1 32 128 512 2000
# Issue 14's three model shapes together, then with the wide attention dataset in place
# of the first.
modelLowo "the three model shapes" data/host-attn-scores.jsonl data/host-resnet-conv.jsonl \
  data/host-ffn-up.jsonl
modelLowo "the model shapes with the wide attention space" data/host-attn-scores-wide.jsonl \
  data/host-resnet-conv.jsonl data/host-ffn-up.jsonl
modelLowo "the wide Zen 4 conv with the wide attention and the FFN up" \
  data/host-resnet-conv-wide.jsonl data/host-attn-scores-wide.jsonl data/host-ffn-up.jsonl
modelLowo "the three wide model shapes on the Xeon" data/host-attn-scores-wide-intel.jsonl \
  data/host-resnet-conv-wide-intel.jsonl data/host-ffn-up-wide-intel.jsonl

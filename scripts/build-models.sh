#!/bin/bash
# scripts/build-models.sh [BUILD_DIR]: rebuilds the shipped verifier priors in
# data/models/ from the committed datasets (docs/transfer.md, "Shipped priors"). Each
# model is `pruner-eval --train` over one machine's datasets; training is deterministic
# (XGBoost seed 0, one thread), so a rerun writes the same files. pruner-tune uses the
# model of the target's family (data/models/<family>.json, copied beside the tools by
# CMake) when its log has no record of the target. Which source feeds which family is
# what the transfer study measured (scripts/transfer-study.sh): a family gets a model
# only from a source that transferred to it. The models read the draft's symbols, so a
# change to a draft changes them: rerun this after one (test/lit/tune/models-current.test
# fails until the committed files are what the code builds). MODELS_DIR writes elsewhere
# (default data/models).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}/bin
OUT=${MODELS_DIR:-data/models}
mkdir -p "$OUT"
# family: the source datasets.
declare -A SOURCES=(
  [host-avx512]="data/host-matmul-512.jsonl data/host-conv-nhwc.jsonl data/host-bmm.jsonl"
  [host-avx2]="data/host-matmul-512.jsonl data/host-conv-nhwc.jsonl data/host-bmm.jsonl"
  [iree-cpu-avx512]="data/host-matmul-512.jsonl data/host-conv-nhwc.jsonl data/host-bmm.jsonl"
  # Hopper (sm_90): the H200 sessions' ten workloads (data/README.md "H200" and "H200,
  # second session"; judged leave-one-workload-out at the tuner's cold-start blend in
  # docs/transfer.md). The first session's check file is left out: its pipelined
  # tensor-core kernels are the ones before ldmatrix, which check2 re-measured.
  [gpu-sm_90]="data/h200-2026-12-04-check2.jsonl data/h200-2026-12-04-matmul-1024.jsonl data/h200-2026-12-04-conv-resnet3x3.jsonl data/h200-2026-12-04-tc-qkv.jsonl data/h200-2026-12-04-tc-mlpup.jsonl data/h200-2026-12-04-tc-qkv128.jsonl data/h200-2026-12-04-tc-conv1x1.jsonl"
)
# Families the source does not transfer to on shapes it has not seen (the transfer
# study's "new" priors were worse than cold start there): the model is marked so, and the
# tuner applies it only to the shapes it was trained on.
declare -A UNSEEN=(
  [host-avx2]=skip
)
# Families whose prior is trained without the draft as its margin (--no-draft-margin:
# the trees learn the source's whole ranking, not what the draft misses there). Chosen
# on the Intel AVX-512 set and judged on the AMD CPU's two-core set (docs/transfer.md,
# "Training the shipped priors"); the model file says which (no "pruner_draft_scale").
declare -A NO_MARGIN=(
  [host-avx512]=1
)
for family in "${!SOURCES[@]}"; do
  "$B/pruner-eval" --train ${SOURCES[$family]} -o "$OUT/$family.json" \
    ${UNSEEN[$family]:+--prior-unseen=${UNSEEN[$family]}} \
    ${NO_MARGIN[$family]:+--no-draft-margin} | tail -1
done

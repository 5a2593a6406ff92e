#!/usr/bin/env bash
# The IREE rejection study (docs/iree.md, "Rejection study"): random valid iree-cpu configs
# per op kind through iree-compile. Usage: scripts/iree-study.sh [build-dir] [N] [FULL_N]
#   N configs per op up to executable-configurations (config selection and IREE's
#   verification of the lowering config; default 200), FULL_N of them (default 20)
#   through the whole compile, a run and the comparison with IREE's default build.
# TARGET=sm_80 studies IREE's CUDA backend instead (compile only, no GPU needed); with
# MMA=1 too, the tensor-core configs of f16 matmul and batch_matmul (pruner-iree --mma).
# Prints each tool's summary line. Needs the IREE tools (PRUNER_WITH_IREE=1 scripts/setup.sh).
set -euo pipefail
build=${1:-build}
n=${2:-200}
full=${3:-20}
ops=("matmul 128x3072x768" "batch_matmul 12x128x128x64" "conv_2d_nhwc_hwcf 2x30x30x64x3x3x64"
     "reduction 512x1024")
extra=()
if [[ ${MMA:-0} == 1 ]]; then
  ops=("matmul 128x3072x768" "batch_matmul 12x128x128x64")
  extra=(--mma --dtype=f16)
fi
for spec in "${ops[@]}"; do
  set -- $spec
  "$build/bin/pruner-iree" --target="${TARGET:-iree-cpu}" --op="$1" --shape="$2" "${extra[@]}" \
    --random="$n" --seed=7 --quiet | tail -1 | sed "s/^/$1 $2: /" || true
  "$build/bin/pruner-iree" --target="${TARGET:-iree-cpu}" --op="$1" --shape="$2" "${extra[@]}" \
    --random="$full" --seed=8 --full --quiet | tail -1 | sed "s/^/$1 $2: /" || true
done

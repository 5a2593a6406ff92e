#!/usr/bin/env bash
# The draft's register estimate against ptxas (docs/draft.md, "Registers").
#
#   scripts/register-study.sh [BUILD] [OUT]
#
# For each kind below, pruner-compile draws N random valid configs (seed 1) of one
# representative workload, compiles them to sm_90 cubins (MLIR -> PTX -> ptxas) and, with
# --study-registers, prints the draft's estimate beside ptxas' count for every compiled
# candidate and the error summary. Writes OUT/<kind>.txt (default out/register-study)
# and prints one markdown row per kind: the table of docs/draft.md.
# Environment: N (configs per kind, default 200), JOBS (compile workers, default 2).
set -euo pipefail
trap 'echo "register-study: failed (exit $?) at line $LINENO" >&2' ERR
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=${2:-$root/out/register-study}
n=${N:-200}
jobs=${JOBS:-2}
compile=$build/bin/pruner-compile
inputs=$root/test/register-study/Inputs
mkdir -p "$out"

# name | pruner-compile arguments
kinds=(
  "matmul-f32|--op=matmul --shape=512x1024x256"
  "matmul-f16|--op=matmul --shape=256x768x768 --dtype=f16"
  "batch_matmul|--op=batch_matmul --shape=12x128x128x64"
  "conv-nhwc|--op=conv_2d_nhwc_hwcf --shape=1x58x58x64x3x3x64"
  "conv-nchw-7x7s2|--op=conv_2d_nchw_fchw --shape=1x3x230x230x64x7x7x2"
  "elementwise|--op=elementwise --shape=128x3072"
  "reduction|--op=reduction --shape=128x4096"
  "reduction-xthread|--op=reduction --shape=128x4096 --min-reduction-threads=32"
  "gemv-xthread|--input=$inputs/gemv-qkv.mlir --min-reduction-threads=32"
  "gemv-mlp-xthread|--input=$inputs/gemv-mlp.mlir --min-reduction-threads=32"
)

echo "| kind | compiled | rejected | mean abs err | median | max | est/ptxas mean (min..max) | within 25% |"
echo "|---|---|---|---|---|---|---|---|"
for entry in "${kinds[@]}"; do
  name=${entry%%|*}
  args=${entry#*|}
  # shellcheck disable=SC2086
  "$compile" $args --random="$n" --seed=1 --jobs="$jobs" --timeout=120 --memory-mb=4096 \
    --study-registers >"$out/$name.txt" 2>&1 || true
  summary=$(grep '^summary:' "$out/$name.txt" || echo "summary: ?")
  regs=$(grep '^registers:' "$out/$name.txt" || echo "registers: ?")
  compiled=$(sed -n 's/.*compiled \([0-9]*\),.*/\1/p' <<<"$summary")
  rejected=$(sed -n 's/.*rejected \([0-9]* ([0-9.]*%)\).*/\1/p' <<<"$summary")
  mean=$(sed -n 's/.*mean \([0-9.]*\) median.*/\1/p' <<<"$regs")
  median=$(sed -n 's/.*median \([0-9.]*\) max.*/\1/p' <<<"$regs")
  max=$(sed -n 's/.*max \([0-9.]*\);.*/\1/p' <<<"$regs")
  ratio=$(sed -n 's/.*est\/ptxas mean \([0-9.]* ([0-9.]* \.\. [0-9.]*)\).*/\1/p' <<<"$regs")
  within=$(sed -n 's/.*within 25%: \([0-9]*%\).*/\1/p' <<<"$regs")
  echo "| $name | $compiled | $rejected | $mean | $median | $max | $ratio | $within |"
done

#!/bin/bash
# scripts/matmul-mlir.sh M N K: prints a module with one f32 linalg.matmul (M x K) * (K x N)
# on tensors, the input the host comparison scripts tune (trust-check.sh,
# metaschedule-compare.sh).
set -euo pipefail
[ $# = 3 ] || { echo "usage: scripts/matmul-mlir.sh M N K" >&2; exit 2; }
m=$1 n=$2 k=$3
cat <<MLIR
func.func @mm(%a: tensor<${m}x${k}xf32>, %b: tensor<${k}x${n}xf32>, %c: tensor<${m}x${n}xf32>) -> tensor<${m}x${n}xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<${m}x${k}xf32>, tensor<${k}x${n}xf32>) outs(%c : tensor<${m}x${n}xf32>) -> tensor<${m}x${n}xf32>
  return %r : tensor<${m}x${n}xf32>
}
MLIR

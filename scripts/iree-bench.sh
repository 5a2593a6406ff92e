#!/usr/bin/env bash
# Tuned vs IREE's default config on model shapes, one thread (docs/iree.md, "Benchmarks"):
# pruner-tune --target=iree-cpu per shape (TRIALS candidates), whose final check times
# the best 4 configs and IREE's default build back to back in 5 interleaved rounds.
# Usage: scripts/iree-bench.sh [build-dir] [TRIALS] [OUT-DIR]
# Prints one line per shape: shape, tuned median, default median (µs), speedup, config, and
# what the spec got: the config, or "default" where IREE's default measured faster
# (docs/tune.md, "Keeping the compiler's default").
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
trials=${2:-16}
out=${3:-$(mktemp -d)}
mkdir -p "$out"
cd "$out"
matmul() { # name M N K
  cat > "$1.mlir" <<MLIR
func.func @$1(%a: tensor<$2x$4xf32>, %b: tensor<$4x$3xf32>) -> tensor<$2x$3xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<$2x$3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<$2x$3xf32>) -> tensor<$2x$3xf32>
  %r = linalg.matmul ins(%a, %b : tensor<$2x$4xf32>, tensor<$4x$3xf32>) outs(%f : tensor<$2x$3xf32>) -> tensor<$2x$3xf32>
  return %r : tensor<$2x$3xf32>
}
MLIR
}
matmul ffn_up 128 3072 768    # BERT-base FFN up
matmul gemv 1 2304 768        # GPT-2 decode GEMV
cat > attn.mlir <<'MLIR'
func.func @attn(%a: tensor<12x128x64xf32>, %b: tensor<12x64x128xf32>) -> tensor<12x128x128xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<12x128x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<12x128x64xf32>, tensor<12x64x128xf32>) outs(%f : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  return %r : tensor<12x128x128xf32>
}
MLIR
printf "%-34s %12s %12s %8s %8s  %s\n" workload tuned_us default_us speedup written config
for m in ffn_up attn gemv; do
  "$build/bin/pruner-tune" "$m.mlir" -o "$m.out.mlir" --target=iree-cpu --trials="$trials" \
    --batch=4 --records="$m.jsonl" --spec="$m.spec.mlir" > "$m.table" 2> "$m.log"
  key=$(grep -m1 -o "[a-z_]*matmul:[^:]*:f32,f32->f32" "$m.log")
  tuned=$(grep -o "chose .* median [0-9.]* us" "$m.log" | grep -o "median [0-9.]*" | cut -d' ' -f2)
  config=$(grep -o "chose [^(]*" "$m.log" | cut -d' ' -f2- | sed 's/ *$//')
  base=$(grep -o "IREE-default median [0-9.]*" "$m.log" | cut -d' ' -f3)
  speed=$(awk -v t="$tuned" -v b="$base" 'BEGIN { printf "%.2fx", b / t }')
  written=config
  if grep -q "the op keeps it, no config is written" "$m.log"; then written=default; fi
  printf "%-34s %12s %12s %8s %8s  %s\n" "$key" "$tuned" "$base" "$speed" "$written" "$config"
done

// Check workload (docs/gpu-session.md): GPT-2's decode-time QKV projection, one token:
// x (1x768, f16) . W (768x2304, f16) -> 1x2304, f32 accumulation. Bandwidth-bound (3.5 MB
// of weights); the draft ranks cross-thread configs (reduction_threads > 1) first.
// pruner-run's baseline is cublasGemmEx with f16 inputs and f32 compute.
func.func @gemv_qkv(%x: tensor<1x768xf16>, %w: tensor<768x2304xf16>) -> tensor<1x2304xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2304xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2304xf32>) -> tensor<1x2304xf32>
  %r = linalg.matmul ins(%x, %w : tensor<1x768xf16>, tensor<768x2304xf16>)
                     outs(%c : tensor<1x2304xf32>) -> tensor<1x2304xf32>
  return %r : tensor<1x2304xf32>
}

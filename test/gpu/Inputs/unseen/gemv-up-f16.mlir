// Unseen by the gpu-sm_90 prior: GPT-2 decode MLP up-projection, one token, f16 in, f32 out.
func.func @gemv_up(%x: tensor<1x768xf16>, %w: tensor<768x3072xf16>) -> tensor<1x3072xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3072xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3072xf32>) -> tensor<1x3072xf32>
  %r = linalg.matmul ins(%x, %w : tensor<1x768xf16>, tensor<768x3072xf16>) outs(%c : tensor<1x3072xf32>) -> tensor<1x3072xf32>
  return %r : tensor<1x3072xf32>
}

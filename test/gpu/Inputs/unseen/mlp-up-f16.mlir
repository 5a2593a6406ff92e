// Unseen by the gpu-sm_90 prior: GPT-2 MLP up-projection at 1024 tokens, f16 in, f32 out.
func.func @mlp_up(%x: tensor<1024x768xf16>, %w: tensor<768x3072xf16>) -> tensor<1024x3072xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x3072xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x3072xf32>) -> tensor<1024x3072xf32>
  %r = linalg.matmul ins(%x, %w : tensor<1024x768xf16>, tensor<768x3072xf16>) outs(%c : tensor<1024x3072xf32>) -> tensor<1024x3072xf32>
  return %r : tensor<1024x3072xf32>
}

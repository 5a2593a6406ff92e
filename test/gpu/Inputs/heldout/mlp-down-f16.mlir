// Held out from the draft's L1 term and the gpu-sm_90 prior: GPT-2 MLP down-projection at
// 1024 tokens, f16 in, f32 out. K = 3072 is four times any tensor-core space measured
// before it (docs/draft.md, "The L1 / shared wavefront term").
func.func @mlp_down(%x: tensor<1024x3072xf16>, %w: tensor<3072x768xf16>) -> tensor<1024x768xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x768xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x768xf32>) -> tensor<1024x768xf32>
  %r = linalg.matmul ins(%x, %w : tensor<1024x3072xf16>, tensor<3072x768xf16>) outs(%c : tensor<1024x768xf32>) -> tensor<1024x768xf32>
  return %r : tensor<1024x768xf32>
}

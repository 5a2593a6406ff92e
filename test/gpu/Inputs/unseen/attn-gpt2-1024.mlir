// Unseen by the gpu-sm_90 prior: GPT-2 attention scores at 1024 tokens, 12 heads x (1024x64 . 64x1024), f32.
func.func @scores(%q: tensor<12x1024x64xf32>, %kt: tensor<12x64x1024xf32>, %s: tensor<12x1024x1024xf32>) -> tensor<12x1024x1024xf32> {
  %r = linalg.batch_matmul ins(%q, %kt : tensor<12x1024x64xf32>, tensor<12x64x1024xf32>) outs(%s : tensor<12x1024x1024xf32>) -> tensor<12x1024x1024xf32>
  return %r : tensor<12x1024x1024xf32>
}

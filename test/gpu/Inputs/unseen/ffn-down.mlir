// Unseen by the gpu-sm_90 prior: BERT-base FFN down-projection at 128 tokens, f32.
func.func @ffn_down(%x: tensor<128x3072xf32>, %w: tensor<3072x768xf32>, %y: tensor<128x768xf32>) -> tensor<128x768xf32> {
  %r = linalg.matmul ins(%x, %w : tensor<128x3072xf32>, tensor<3072x768xf32>) outs(%y : tensor<128x768xf32>) -> tensor<128x768xf32>
  return %r : tensor<128x768xf32>
}

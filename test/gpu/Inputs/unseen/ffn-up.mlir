// Unseen by the gpu-sm_90 prior (docs/transfer.md, "The Hopper prior, on the chip"):
// BERT-base FFN up-projection at 128 tokens, f32.
func.func @ffn_up(%x: tensor<128x768xf32>, %w: tensor<768x3072xf32>, %y: tensor<128x3072xf32>) -> tensor<128x3072xf32> {
  %r = linalg.matmul ins(%x, %w : tensor<128x768xf32>, tensor<768x3072xf32>) outs(%y : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  return %r : tensor<128x3072xf32>
}

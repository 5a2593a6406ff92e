// BERT-base FFN up-projection at 128 tokens: 128x768 * 768x3072 f32 (issue 14's FFN
// matmul workload; data/host-ffn-up.jsonl).
func.func @ffn_up(%X: tensor<128x768xf32>, %W: tensor<768x3072xf32>, %Y: tensor<128x3072xf32>) -> tensor<128x3072xf32> {
  %r = linalg.matmul ins(%X, %W : tensor<128x768xf32>, tensor<768x3072xf32>) outs(%Y : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  return %r : tensor<128x3072xf32>
}

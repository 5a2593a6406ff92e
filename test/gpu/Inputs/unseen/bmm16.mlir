// Unseen by the gpu-sm_90 prior: BERT-large attention scores, 16 heads x (128x64 . 64x128), f32.
func.func @scores(%q: tensor<16x128x64xf32>, %kt: tensor<16x64x128xf32>, %s: tensor<16x128x128xf32>) -> tensor<16x128x128xf32> {
  %r = linalg.batch_matmul ins(%q, %kt : tensor<16x128x64xf32>, tensor<16x64x128xf32>) outs(%s : tensor<16x128x128xf32>) -> tensor<16x128x128xf32>
  return %r : tensor<16x128x128xf32>
}

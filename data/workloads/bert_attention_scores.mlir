// BERT-base attention scores at 128 tokens: 12 heads x (128x64 * 64x128) f32, Q K^T per
// head as a batch_matmul (issue 14's attention workload; data/host-attn-scores.jsonl).
func.func @scores(%Q: tensor<12x128x64xf32>, %Kt: tensor<12x64x128xf32>, %S: tensor<12x128x128xf32>) -> tensor<12x128x128xf32> {
  %r = linalg.batch_matmul ins(%Q, %Kt : tensor<12x128x64xf32>, tensor<12x64x128xf32>) outs(%S : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  return %r : tensor<12x128x128xf32>
}

// Check workload (docs/gpu-session.md): the attention scores of a BERT-base layer,
// Q . K^T per head: batch_matmul 12x128x64 . 12x64x128 -> 12x128x128, f32.
func.func @scores(%q: tensor<12x128x64xf32>, %kt: tensor<12x64x128xf32>) -> tensor<12x128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<12x128x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  %r = linalg.batch_matmul ins(%q, %kt : tensor<12x128x64xf32>, tensor<12x64x128xf32>)
                           outs(%c : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  return %r : tensor<12x128x128xf32>
}

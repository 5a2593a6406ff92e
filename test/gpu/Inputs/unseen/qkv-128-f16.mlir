// Unseen by the gpu-sm_90 prior: BERT-base QKV projection at 128 tokens, f16 in, f32 out.
func.func @qkv(%x: tensor<128x768xf16>, %w: tensor<768x2304xf16>) -> tensor<128x2304xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x2304xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x2304xf32>) -> tensor<128x2304xf32>
  %r = linalg.matmul ins(%x, %w : tensor<128x768xf16>, tensor<768x2304xf16>) outs(%c : tensor<128x2304xf32>) -> tensor<128x2304xf32>
  return %r : tensor<128x2304xf32>
}

// Unseen by the gpu-sm_90 prior: an f32 GEMV, 1x4096 . 4096x4096 (a 7B model's projection, one token).
func.func @gemv(%x: tensor<1x4096xf32>, %w: tensor<4096x4096xf32>) -> tensor<1x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4096xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  %r = linalg.matmul ins(%x, %w : tensor<1x4096xf32>, tensor<4096x4096xf32>) outs(%c : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  return %r : tensor<1x4096xf32>
}

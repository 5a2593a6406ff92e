// Unseen by the gpu-sm_90 prior: f32 matmul 2048^3.
func.func @matmul(%a: tensor<2048x2048xf32>, %b: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x2048xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2048x2048xf32>, tensor<2048x2048xf32>)
                     outs(%c : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  return %r : tensor<2048x2048xf32>
}

// A matmul whose output has 72 columns, not a multiple of AVX-512's 16 f32 lanes.
func.func @mm(%A: tensor<96x200xf32>, %B: tensor<200x72xf32>) -> tensor<96x72xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<96x72xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<96x72xf32>) -> tensor<96x72xf32>
  %r = linalg.matmul ins(%A, %B : tensor<96x200xf32>, tensor<200x72xf32>) outs(%f : tensor<96x72xf32>) -> tensor<96x72xf32>
  return %r : tensor<96x72xf32>
}

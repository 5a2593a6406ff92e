// A matmul of prime bounds: the only tile that divides 1021 or 1019 is 1, so no GPU block
// has enough threads.
func.func @f(%a: tensor<1021x1031xf32>, %b: tensor<1031x1019xf32>) -> tensor<1021x1019xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1021x1019xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<1021x1019xf32>) -> tensor<1021x1019xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1021x1031xf32>, tensor<1031x1019xf32>) outs(%c : tensor<1021x1019xf32>) -> tensor<1021x1019xf32>
  return %r : tensor<1021x1019xf32>
}

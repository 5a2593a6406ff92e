func.func @gemv(%a: tensor<1x768xf32>, %b: tensor<768x2304xf32>) -> tensor<1x2304xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2304xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x2304xf32>) -> tensor<1x2304xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1x768xf32>, tensor<768x2304xf32>) outs(%f : tensor<1x2304xf32>) -> tensor<1x2304xf32>
  return %r : tensor<1x2304xf32>
}

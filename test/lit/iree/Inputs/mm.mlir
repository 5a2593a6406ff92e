// A module as an IREE user has it: linalg on tensors, the accumulator zero-filled.
func.func @mm(%a: tensor<64x128xf32>, %b: tensor<128x96xf32>) -> tensor<64x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x96xf32>)
                     outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// A transpose feeding a matmul: IREE fuses them into one matmul with a transposed map.
func.func @mmt(%A: tensor<64x128xf32>, %Bt: tensor<96x128xf32>) -> tensor<64x96xf32> {
  %c0 = arith.constant 0.0 : f32
  %eb = tensor.empty() : tensor<128x96xf32>
  %B = linalg.transpose ins(%Bt : tensor<96x128xf32>) outs(%eb : tensor<128x96xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<64x96xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %r = linalg.matmul ins(%A, %B : tensor<64x128xf32>, tensor<128x96xf32>) outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

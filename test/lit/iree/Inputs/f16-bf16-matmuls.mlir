// An f16 and a bf16 matmul of one shape: IREE's contraction matcher tells them apart.
func.func @a(%A: tensor<64x128xf16>, %B: tensor<128x96xf16>) -> tensor<64x96xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %r = linalg.matmul ins(%A, %B : tensor<64x128xf16>, tensor<128x96xf16>) outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}
func.func @b(%A: tensor<64x128xbf16>, %B: tensor<128x96xbf16>) -> tensor<64x96xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %r = linalg.matmul ins(%A, %B : tensor<64x128xbf16>, tensor<128x96xbf16>) outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

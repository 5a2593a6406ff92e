func.func @dyn(%a: tensor<?x64xf32>, %b: tensor<64x32xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x32xf32>) outs(%c : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}

func.func @empty(%a: tensor<0x8xf32>, %b: tensor<8x16xf32>, %c: tensor<0x16xf32>) -> tensor<0x16xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%c : tensor<0x16xf32>) -> tensor<0x16xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<0x8xf32>, tensor<8x16xf32>) outs(%f : tensor<0x16xf32>) -> tensor<0x16xf32>
  return %0 : tensor<0x16xf32>
}

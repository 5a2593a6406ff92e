func.func @dynamic(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>, %c: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x64xf32>)
                     outs(%c : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}

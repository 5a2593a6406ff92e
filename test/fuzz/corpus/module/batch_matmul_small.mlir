func.func @bmm(%A: tensor<4x96x384xf32>, %B: tensor<4x384x128xf32>, %C: tensor<4x96x128xf32>) -> tensor<4x96x128xf32> {
  %r = linalg.batch_matmul ins(%A, %B : tensor<4x96x384xf32>, tensor<4x384x128xf32>) outs(%C : tensor<4x96x128xf32>) -> tensor<4x96x128xf32>
  return %r : tensor<4x96x128xf32>
}

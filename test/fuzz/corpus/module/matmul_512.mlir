func.func @matmul_512(%A: tensor<512x512xf32>, %B: tensor<512x512xf32>, %C: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %r = linalg.matmul ins(%A, %B : tensor<512x512xf32>, tensor<512x512xf32>) outs(%C : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %r : tensor<512x512xf32>
}

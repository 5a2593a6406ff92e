func.func @f(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>, %c: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}
func.func @g(%a: tensor<48x32xf32>, %b: tensor<32x16xf32>, %c: tensor<48x16xf32>) -> tensor<48x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<48x32xf32>, tensor<32x16xf32>) outs(%c : tensor<48x16xf32>) -> tensor<48x16xf32>
  return %r : tensor<48x16xf32>
}
func.func private @decl(tensor<4xf32>) -> tensor<4xf32>

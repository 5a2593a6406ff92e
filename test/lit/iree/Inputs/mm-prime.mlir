// A matmul with 53 output columns (prime: no vector of 4 lanes or more divides them) and
// 71 reduction steps (iree/split-tiles.test).
func.func @f(%a: tensor<37x71xf32>, %b: tensor<71x53xf32>, %c: tensor<37x53xf32>) -> tensor<37x53xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<37x71xf32>, tensor<71x53xf32>) outs(%c : tensor<37x53xf32>) -> tensor<37x53xf32>
  return %r : tensor<37x53xf32>
}

// A matmul whose bounds have no dividing task tile on the vectorized loop (133 = 7 x 19:
// no vector of 4 lanes or more divides it) and rows over the task-tile limit with none
// either (521, a prime): every config of its host space splits both loops
// (object-split.test).
func.func @mm(%a: tensor<521x40xf32>, %b: tensor<40x133xf32>, %c: tensor<521x133xf32>) -> tensor<521x133xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<521x40xf32>, tensor<40x133xf32>) outs(%c : tensor<521x133xf32>) -> tensor<521x133xf32>
  return %r : tensor<521x133xf32>
}

// 533 output columns (13 x 41: no vector of 4 lanes or more divides them): a 64-column
// task tile leaves a 21-column remainder (split.mlir).
func.func @mm(%A: tensor<64x64xf32>, %B: tensor<64x533xf32>, %C: tensor<64x533xf32>) -> tensor<64x533xf32> {
  %r = linalg.matmul ins(%A, %B : tensor<64x64xf32>, tensor<64x533xf32>) outs(%C : tensor<64x533xf32>) -> tensor<64x533xf32>
  return %r : tensor<64x533xf32>
}

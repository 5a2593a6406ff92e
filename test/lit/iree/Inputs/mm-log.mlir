// A matmul and a log (NaN on the random inputs' negative half): the module check compares
// both functions, NaNs agreeing with NaNs.
func.func @mm(%a: tensor<64x128xf32>, %b: tensor<128x96xf32>) -> tensor<64x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x96xf32>)
                     outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}
func.func @lg(%x: tensor<64x96xf32>) -> tensor<64x96xf32> {
  %e = tensor.empty() : tensor<64x96xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x96xf32>) outs(%e : tensor<64x96xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = math.log %v : f32
    linalg.yield %m : f32
  } -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// A column sum: a 2-D reduction over the outer loop (see reduction-order.test).
func.func @f(%a: tensor<64x48xf32>, %c: tensor<48xf32>) -> tensor<48xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>], iterator_types = ["reduction", "parallel"]}
      ins(%a : tensor<64x48xf32>) outs(%c : tensor<48xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  } -> tensor<48xf32>
  return %r : tensor<48xf32>
}

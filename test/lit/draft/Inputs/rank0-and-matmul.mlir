// A full reduction to a rank-0 result (no GPU schedule) beside a matmul.
func.func @f(%a: tensor<64x32xf32>, %c: tensor<f32>, %x: tensor<16x8xf32>, %y: tensor<8x16xf32>, %z: tensor<16x16xf32>) -> (tensor<f32>, tensor<16x16xf32>) {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<64x32xf32>) outs(%c : tensor<f32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %m = linalg.matmul ins(%x, %y : tensor<16x8xf32>, tensor<8x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r, %m : tensor<f32>, tensor<16x16xf32>
}

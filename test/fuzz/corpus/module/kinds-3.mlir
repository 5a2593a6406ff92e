func.func @rowmax(%X: tensor<12x128x128xf32>, %Y: tensor<12x128xf32>) -> tensor<12x128xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(b, r, c) -> (b, r, c)>, affine_map<(b, r, c) -> (b, r)>],
      iterator_types = ["parallel", "parallel", "reduction"],
      pruner.config = {workgroup = [1, 64, 0], reduction = [0, 0, 32], thread = [1, 1, 0], promote_operands = [], vector_width = 1}}
      ins(%X : tensor<12x128x128xf32>) outs(%Y : tensor<12x128xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %x, %acc : f32
    linalg.yield %m : f32
  } -> tensor<12x128xf32>
  return %r : tensor<12x128xf32>
}

func.func @rowmax(%s: tensor<12x128x128xf32>, %acc: tensor<12x128xf32>) -> tensor<12x128xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                                        affine_map<(d0, d1, d2) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : tensor<12x128x128xf32>) outs(%acc : tensor<12x128xf32>) {
  ^bb0(%v: f32, %m: f32):
    %x = arith.maximumf %v, %m : f32
    linalg.yield %x : f32
  } -> tensor<12x128xf32>
  return %r : tensor<12x128xf32>
}

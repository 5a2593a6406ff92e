func.func @linear_nt(%x: tensor<128x768xf32>, %w: tensor<3072x768xf32>,
                     %acc: tensor<128x3072xf32>) -> (tensor<128x3072xf32>, tensor<128x3072xf32>) {
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                      affine_map<(d0, d1, d2) -> (d1, d2)>,
                                      affine_map<(d0, d1, d2) -> (d0, d1)>]
         ins(%x, %w : tensor<128x768xf32>, tensor<3072x768xf32>)
         outs(%acc : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                        affine_map<(d0, d1, d2) -> (d1, d2)>,
                                        affine_map<(d0, d1, d2) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<128x768xf32>, tensor<3072x768xf32>) outs(%acc : tensor<128x3072xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<128x3072xf32>
  return %r, %g : tensor<128x3072xf32>, tensor<128x3072xf32>
}

func.func @bias_relu(%x: tensor<128x3072xf32>, %b: tensor<3072xf32>,
                     %o: tensor<128x3072xf32>) -> tensor<128x3072xf32> {
  %zero = arith.constant 0.0 : f32
  %biased = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                             affine_map<(d0, d1) -> (d1)>,
                                             affine_map<(d0, d1) -> (d0, d1)>],
                            iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<128x3072xf32>, tensor<3072xf32>) outs(%o : tensor<128x3072xf32>) {
  ^bb0(%v: f32, %bias: f32, %u: f32):
    %s = arith.addf %v, %bias : f32
    linalg.yield %s : f32
  } -> tensor<128x3072xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                           affine_map<(d0, d1) -> (d0, d1)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<128x3072xf32>) outs(%o : tensor<128x3072xf32>) {
  ^bb0(%v: f32, %u: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<128x3072xf32>
  return %relu : tensor<128x3072xf32>
}

func.func @tanh(%x: tensor<64xf32>, %o: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%o : tensor<64xf32>) {
  ^bb0(%v: f32, %u: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

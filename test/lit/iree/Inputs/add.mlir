// An elementwise add: no op here is one IREE's CPU backend takes a config for.
#map_id = affine_map<(d0, d1) -> (d0, d1)>
func.func @add(%x: tensor<16x32xf32>, %y: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [#map_id, #map_id, #map_id], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

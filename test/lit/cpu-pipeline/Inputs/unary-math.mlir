// Unary f32 math in host objects (object-math.test): one elementwise kernel per
// function, 64x256 elements each. erf, exp, log and tanh bodies are tunable (vector
// kernels, pruner-approximate-math); expm1, log2 and log1p are not (scalar loops).
#map = affine_map<(i, j) -> (i, j)>
func.func @k_erf(%a: tensor<64x256xf32>, %c: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<64x256xf32>) outs(%c : tensor<64x256xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.erf %x : f32
    linalg.yield %y : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}
func.func @k_exp(%a: tensor<64x256xf32>, %c: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<64x256xf32>) outs(%c : tensor<64x256xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}
func.func @k_expm1(%a: tensor<64x256xf32>, %c: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<64x256xf32>) outs(%c : tensor<64x256xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.expm1 %x : f32
    linalg.yield %y : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}
func.func @k_log(%a: tensor<64x256xf32>, %c: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<64x256xf32>) outs(%c : tensor<64x256xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.log %x : f32
    linalg.yield %y : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}
func.func @k_log2(%a: tensor<64x256xf32>, %c: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<64x256xf32>) outs(%c : tensor<64x256xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.log2 %x : f32
    linalg.yield %y : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}
func.func @k_log1p(%a: tensor<64x256xf32>, %c: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<64x256xf32>) outs(%c : tensor<64x256xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.log1p %x : f32
    linalg.yield %y : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}
func.func @k_tanh(%a: tensor<64x256xf32>, %c: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<64x256xf32>) outs(%c : tensor<64x256xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.tanh %x : f32
    linalg.yield %y : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

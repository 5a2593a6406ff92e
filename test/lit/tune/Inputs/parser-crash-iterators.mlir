// A linalg.generic whose iterator_types holds a non-string: MLIR 22's parser crashes
// (docs/hardening.md, "MLIR parser crashes"). Used by parser-crash.test.
#map = affine_map<(d0) -> (d0)>
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = [8]}
      ins(%a : tensor<4xf32>) outs(%a : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

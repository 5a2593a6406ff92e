// Generics whose correct kernels the host's reference used to reject as wrong results:
// a division by an input (0/0 and x/0: NaN and infinities), fptosi (truncates), truncf to
// bf16 (rounds to nearest even), maxnumf of a NaN (timed as maximumf, which propagates it).
#map = affine_map<(i, j) -> (i, j)>
func.func @div(%a: tensor<16x32xf32>, %b: tensor<16x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<16x32xf32>, tensor<16x32xf32>) outs(%c : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %d = arith.divf %x, %y : f32
    linalg.yield %d : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
func.func @fptosi(%a: tensor<16x48xf32>, %c: tensor<16x48xf32>) -> tensor<16x48xf32> {
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<16x48xf32>) outs(%c : tensor<16x48xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = arith.fptosi %x : f32 to i32
    %f = arith.sitofp %i : i32 to f32
    %m = arith.minimumf %f, %x : f32
    linalg.yield %m : f32
  } -> tensor<16x48xf32>
  return %r : tensor<16x48xf32>
}
func.func @bf16(%a: tensor<16x64xf32>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %k = arith.constant 0.1 : f32
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<16x64xf32>) outs(%c : tensor<16x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %k : f32
    %t = arith.truncf %m : f32 to bf16
    %e = arith.extf %t : bf16 to f32
    linalg.yield %e : f32
  } -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}
func.func @maxnum(%a: tensor<16x80xf32>, %b: tensor<16x80xf32>, %c: tensor<16x80xf32>) -> tensor<16x80xf32> {
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<16x80xf32>, tensor<16x80xf32>) outs(%c : tensor<16x80xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %d = arith.divf %x, %x : f32
    %m = arith.maxnumf %d, %y : f32
    linalg.yield %m : f32
  } -> tensor<16x80xf32>
  return %r : tensor<16x80xf32>
}

// Rounding to bf16 in an elementwise op (a mixed-precision model's activations stored as
// bf16 and read back): arith.truncf to bf16 becomes compiler-rt's __truncsfbf2 where the
// CPU has no bf16 conversion instruction.
#map = affine_map<(i, j) -> (i, j)>
func.func @round_bf16(%a: tensor<32x64xf32>, %c: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %k = arith.constant 0.1 : f32
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<32x64xf32>) outs(%c : tensor<32x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %k : f32
    %t = arith.truncf %m : f32 to bf16
    %e = arith.extf %t : bf16 to f32
    linalg.yield %e : f32
  } -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

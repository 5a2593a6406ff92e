// Two generic forms the measuring payload could not rebuild (every candidate a compile
// error, on the host and for the GPU alike): two outputs (a row sum and a row max in one
// op), and no input at all (the output read and written in place).
func.func @sum_and_max(%a: tensor<32x64xf32>, %s0: tensor<32xf32>, %m0: tensor<32xf32>) -> (tensor<32xf32>, tensor<32xf32>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<32x64xf32>) outs(%s0, %m0 : tensor<32xf32>, tensor<32xf32>) {
  ^bb0(%x: f32, %s: f32, %m: f32):
    %u = arith.addf %x, %s : f32
    %v = arith.maximumf %x, %m : f32
    linalg.yield %u, %v : f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>)
  return %r#0, %r#1 : tensor<32xf32>, tensor<32xf32>
}
func.func @double_in_place(%c: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %two = arith.constant 2.0 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%c : tensor<32x16xf32>) {
  ^bb0(%o: f32):
    %s = arith.mulf %o, %two : f32
    linalg.yield %s : f32
  } -> tensor<32x16xf32>
  return %r : tensor<32x16xf32>
}

// A 16x32 row reduction (a dot product per row): the same op name, bounds, operand counts
// and bitwidths as small.mlir's 16x32 elementwise add, but its loop 1 is a reduction.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @rows(%x: tensor<16x32xf32>, %y: tensor<16x32xf32>, %o: tensor<16xf32>) -> tensor<16xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %y : tensor<16x32xf32>, tensor<16x32xf32>) outs(%o : tensor<16xf32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %p = arith.mulf %u, %v : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// A logsumexp in one op: the accumulator goes through log and exp, not one add/mul/max/
// min, so MLIR's reduction vectorizer and split_reduction cannot take it (reduction.test).
func.func @lse(%x: tensor<64x1024xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x1024xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %ea = math.exp %acc : f32
    %ev = math.exp %v : f32
    %s = arith.addf %ea, %ev : f32
    %l = math.log %s : f32
    linalg.yield %l : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// Unseen by the gpu-sm_90 prior: a row sum over 1024 f32 per row, 1024 rows.
func.func @row_sum(%x: tensor<1024x1024xf32>) -> tensor<1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1024x1024xf32>) outs(%c : tensor<1024xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}

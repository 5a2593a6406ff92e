// GELU (erf), tanh, a LayerNorm-style scale (absf, rsqrt) and log(sqrt(|x|)): the unary
// float math of transformer blocks, tunable since 2026-12-06 (math-body.test).
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @acts(%x: tensor<128x768xf32>, %var: tensor<128xf32>) -> (tensor<128x768xf32>, tensor<128x768xf32>, tensor<128x768xf32>, tensor<128x768xf32>) {
  %e = tensor.empty() : tensor<128x768xf32>
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %rs2 = arith.constant 0.70710678 : f32
  %eps = arith.constant 1.0e-5 : f32
  %gelu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<128x768xf32>) outs(%e : tensor<128x768xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %rs2 : f32
    %er = math.erf %s : f32
    %p = arith.addf %er, %one : f32
    %h = arith.mulf %v, %half : f32
    %r = arith.mulf %h, %p : f32
    linalg.yield %r : f32
  } -> tensor<128x768xf32>
  %th = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<128x768xf32>) outs(%e : tensor<128x768xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  } -> tensor<128x768xf32>
  %ln = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %var : tensor<128x768xf32>, tensor<128xf32>) outs(%e : tensor<128x768xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %a = math.absf %w : f32
    %ve = arith.addf %a, %eps : f32
    %r = math.rsqrt %ve : f32
    %n = arith.mulf %v, %r : f32
    linalg.yield %n : f32
  } -> tensor<128x768xf32>
  %lg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<128x768xf32>) outs(%e : tensor<128x768xf32>) {
  ^bb0(%v: f32, %o: f32):
    %a = math.absf %v : f32
    %s = math.sqrt %a : f32
    %l = math.log %s : f32
    linalg.yield %l : f32
  } -> tensor<128x768xf32>
  return %gelu, %th, %ln, %lg : tensor<128x768xf32>, tensor<128x768xf32>, tensor<128x768xf32>, tensor<128x768xf32>
}

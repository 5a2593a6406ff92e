// A module in the form IREE's frontends give iree-compile (torch-mlir / iree-turbine
// output): func.func on tensors, named contractions, elementwise generics, fills.
func.func @main(%x: tensor<128x768xf32>, %w: tensor<768x3072xf32>, %bias: tensor<3072xf32>,
                %n: index) -> (tensor<128x3072xf32>, tensor<?x768xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x3072xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<128x768xf32>, tensor<768x3072xf32>)
                      outs(%c : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<128x3072xf32>, tensor<3072xf32>) outs(%e : tensor<128x3072xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %s = arith.addf %a, %b : f32
      %m = arith.maximumf %s, %zero : f32
      linalg.yield %m : f32
  } -> tensor<128x3072xf32>
  // Named elementwise ops are not tuned (frontends emit generics for these).
  %twice = linalg.add ins(%r, %r : tensor<128x3072xf32>, tensor<128x3072xf32>)
                      outs(%e : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  // Dynamic shapes are not tuned.
  %dx = tensor.empty(%n) : tensor<?x768xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%dx : tensor<?x768xf32>) {
    ^bb0(%o: f32):
      linalg.yield %zero : f32
  } -> tensor<?x768xf32>
  return %twice, %d : tensor<128x3072xf32>, tensor<?x768xf32>
}

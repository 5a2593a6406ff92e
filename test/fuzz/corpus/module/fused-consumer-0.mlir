func.func @mm_bias(%A: tensor<32x48xf32>, %B: tensor<48x64xf32>, %bias: tensor<64xf32>, %C: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %mm = linalg.matmul {pruner.config = {workgroup = [16, 32, 0], reduction = [0, 0, 16], thread = [2, 4, 0], promote_operands = [], vector_width = 4}}
      ins(%A, %B : tensor<32x48xf32>, tensor<48x64xf32>) outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<32x64xf32>, tensor<64xf32>) outs(%C : tensor<32x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

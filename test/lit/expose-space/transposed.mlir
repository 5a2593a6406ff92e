// RUN: %pruner_opt -p 'builtin.module(pruner-expose-space{target=sm_90})' %s | FileCheck %s

// x * W^T, written two ways: linalg.matmul with indexing_maps, and a linalg.generic.
// Both are contractions with the same loops, operands and body, so the same key.
// CHECK-LABEL: func.func @linear_nt
// CHECK: linalg.matmul indexing_maps = [{{.*}}] {pruner.space = {knobs = {
// CHECK-SAME{LITERAL}: promote_operands = [[], [0], [1], [0, 1]], reduction = [[], [], [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]],
// CHECK-SAME: tile_pairs = [30, 78, 0],
// CHECK-SAME: raw_size = 1684800 : i64, target = {arch = "sm_90", {{.*}}}, valid_configs = 105287 : i64,
// CHECK-SAME: workload = {bounds = [128, 3072, 768], dtypes = ["f32", "f32", "f32"], flops = 603979776 : i64,
// CHECK-SAME: iterators = ["parallel", "parallel", "reduction"], key = "[[KEY:contraction:128x3072x768:f32,f32->f32:[0-9a-f]+]]",
// CHECK-SAME: kind = "contraction", loops = ["m", "n", "k"], op = "linalg.matmul"}}}
// CHECK: linalg.generic {{.*}}pruner.space = {knobs = {
// CHECK-SAME: valid_configs = 105287 : i64,
// CHECK-SAME: key = "[[KEY]]", kind = "contraction", loops = ["m", "n", "k"], op = "linalg.generic"}}}
func.func @linear_nt(%x: tensor<128x768xf32>, %w: tensor<3072x768xf32>,
                     %acc: tensor<128x3072xf32>) -> (tensor<128x3072xf32>, tensor<128x3072xf32>) {
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                      affine_map<(d0, d1, d2) -> (d1, d2)>,
                                      affine_map<(d0, d1, d2) -> (d0, d1)>]
         ins(%x, %w : tensor<128x768xf32>, tensor<3072x768xf32>)
         outs(%acc : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                        affine_map<(d0, d1, d2) -> (d1, d2)>,
                                        affine_map<(d0, d1, d2) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<128x768xf32>, tensor<3072x768xf32>) outs(%acc : tensor<128x3072xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<128x3072xf32>
  return %r, %g : tensor<128x3072xf32>, tensor<128x3072xf32>
}

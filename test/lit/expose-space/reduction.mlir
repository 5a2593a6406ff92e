// RUN: %pruner_opt -p 'builtin.module(pruner-expose-space{target=sm_90})' %s | FileCheck %s

// Row max of attention scores (12 x 128 rows of 128), the first step of a softmax.
// CHECK-LABEL: func.func @rowmax
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<12x128x128xf32>) outs(%{{.*}} : tensor<12x128xf32>) attrs = {pruner.space = {knobs = {
// CHECK-SAME{LITERAL}: promote_operands = [[]], reduction = [[], [], [1, 2, 4, 8, 16, 32, 64]],
// reduction_threads (docs/space.md): 1, or the warp multiples dividing 128; 162 of the valid
// configs use more than one.
// CHECK-SAME{LITERAL}: reduction_threads = [1, 32, 64, 128],
// CHECK-SAME{LITERAL}: thread = [[1, 2, 3, 4, 6, 12], [1, 2, 4, 8, 16], []], tile_pairs = [18, 30, 0], vector_width = [1, 2, 4],
// CHECK-SAME{LITERAL}: workgroup = [[1, 2, 3, 4, 6, 12], [1, 2, 4, 8, 16, 32, 64, 128], []]},
// CHECK-SAME: raw_size = 45360 : i64, target = {arch = "sm_90", {{.*}}}, valid_configs = 2245 : i64,
// CHECK-SAME: workload = {bounds = [12, 128, 128], dtypes = ["f32", "f32"], flops = 196608 : i64,
// CHECK-SAME: iterators = ["parallel", "parallel", "reduction"], key = "reduction:12x128x128:f32->f32:{{[0-9a-f]+}}",
// CHECK-SAME: kind = "reduction", loops = ["p", "p", "r"], op = "linalg.generic"}}}
func.func @rowmax(%s: tensor<12x128x128xf32>, %acc: tensor<12x128xf32>) -> tensor<12x128xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                                        affine_map<(d0, d1, d2) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : tensor<12x128x128xf32>) outs(%acc : tensor<12x128xf32>) {
  ^bb0(%v: f32, %m: f32):
    %x = arith.maximumf %v, %m : f32
    linalg.yield %x : f32
  } -> tensor<12x128xf32>
  return %r : tensor<12x128xf32>
}

// RUN: %pruner_opt -p 'builtin.module(pruner-expose-space{target=sm_90})' %s | FileCheck %s

// Bias add then ReLU (with a captured constant), as two all-parallel generics.
// CHECK-LABEL: func.func @bias_relu
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins({{.*}}) outs({{.*}}) attrs = {pruner.space = {knobs = {
// CHECK-SAME{LITERAL}: promote_operands = [[]], reduction = [[], []], thread = [[1, 2, 4, 8, 16], [1, 2, 3, 4, 6, 8, 12, 16]],
// CHECK-SAME: tile_pairs = [30, 78], vector_width = [1, 2, 4],
// CHECK-SAME{LITERAL}: workgroup = [[1, 2, 4, 8, 16, 32, 64, 128], [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256]]},
// CHECK-SAME: raw_size = 7020 : i64, target = {arch = "sm_90", {{.*}}}, valid_configs = 2136 : i64,
// CHECK-SAME: workload = {bounds = [128, 3072], dtypes = ["f32", "f32", "f32"], flops = 393216 : i64,
// CHECK-SAME: iterators = ["parallel", "parallel"], key = "elementwise:128x3072:f32,f32->f32:[[BIAS:[0-9a-f]+]]",
// CHECK-SAME: kind = "elementwise", loops = ["p", "p"], op = "linalg.generic"}}}
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins({{.*}}) outs({{.*}}) attrs = {pruner.space = {knobs = {
// CHECK-SAME: valid_configs = 2136 : i64,
// CHECK-SAME: workload = {bounds = [128, 3072], dtypes = ["f32", "f32"], flops = 393216 : i64,
// CHECK-SAME: key = "elementwise:128x3072:f32->f32:{{[0-9a-f]+}}"
func.func @bias_relu(%x: tensor<128x3072xf32>, %b: tensor<3072xf32>,
                     %o: tensor<128x3072xf32>) -> tensor<128x3072xf32> {
  %zero = arith.constant 0.0 : f32
  %biased = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                             affine_map<(d0, d1) -> (d1)>,
                                             affine_map<(d0, d1) -> (d0, d1)>],
                            iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<128x3072xf32>, tensor<3072xf32>) outs(%o : tensor<128x3072xf32>) {
  ^bb0(%v: f32, %bias: f32, %u: f32):
    %s = arith.addf %v, %bias : f32
    linalg.yield %s : f32
  } -> tensor<128x3072xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                           affine_map<(d0, d1) -> (d0, d1)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<128x3072xf32>) outs(%o : tensor<128x3072xf32>) {
  ^bb0(%v: f32, %u: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<128x3072xf32>
  return %relu : tensor<128x3072xf32>
}

// RUN: %pruner_opt -p 'builtin.module(pruner-expose-space{target=sm_90})' %s | FileCheck %s

// Attention scores of 12 heads: Q (12x128x64) * K^T (12x64x128).
// CHECK-LABEL: func.func @scores
// CHECK: linalg.batch_matmul {pruner.space = {knobs = {
// CHECK-SAME{LITERAL}: promote_operands = [[], [0], [1], [0, 1]], reduction = [[], [], [], [1, 2, 4, 8, 16, 32, 64]],
// CHECK-SAME{LITERAL}: thread = [[1, 2, 3, 4, 6, 12], [1, 2, 4, 8, 16], [1, 2, 4, 8, 16], []], tile_pairs = [18, 30, 30, 0],
// CHECK-SAME{LITERAL}: vector_width = [1, 2, 4], workgroup = [[1, 2, 3, 4, 6, 12], [1, 2, 4, 8, 16, 32, 64, 128], [1, 2, 4, 8, 16, 32, 64, 128], []]},
// CHECK-SAME: raw_size = 4082400 : i64, target = {arch = "sm_90", {{.*}}}, valid_configs = 348959 : i64,
// CHECK-SAME: workload = {bounds = [12, 128, 128, 64], dtypes = ["f32", "f32", "f32"], flops = 25165824 : i64,
// CHECK-SAME: iterators = ["parallel", "parallel", "parallel", "reduction"], key = "batch_matmul:12x128x128x64:f32,f32->f32",
// CHECK-SAME: kind = "batch_matmul", loops = ["b", "m", "n", "k"], op = "linalg.batch_matmul"}}}
func.func @scores(%q: tensor<12x128x64xf32>, %kt: tensor<12x64x128xf32>,
                  %acc: tensor<12x128x128xf32>) -> tensor<12x128x128xf32> {
  %s = linalg.batch_matmul ins(%q, %kt : tensor<12x128x64xf32>, tensor<12x64x128xf32>)
                           outs(%acc : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  return %s : tensor<12x128x128xf32>
}

// RUN: %pruner_opt -p 'builtin.module(pruner-expose-space{target=sm_90})' %s | FileCheck %s
// RUN: %pruner_opt -p 'builtin.module(pruner-expose-space{target=a100-40gb})' %s | FileCheck %s --check-prefix=A100

// The matmul gets pruner.space; its fill (fused into the matmul's kernel) does not.
// valid_configs is cross-checked against a brute-force count over the raw space by
// test/unit/ir (test_lit_count_matches_brute_force reads it from this file).

// CHECK-LABEL: func.func @matmul
// CHECK: linalg.fill
// CHECK-NOT: pruner.space
// CHECK-SAME: -> tensor<256x512xf32>
// CHECK: linalg.matmul {pruner.space = {
// CHECK-SAME{LITERAL}: knobs = {promote_operands = [[], [0], [1], [0, 1]], reduction = [[], [], [1, 2, 4, 8, 16, 32, 64]],
// CHECK-SAME{LITERAL}: thread = [[1, 2, 4, 8, 16], [1, 2, 4, 8, 16], []], tile_pairs = [35, 35, 0], vector_width = [1, 2, 4],
// CHECK-SAME{LITERAL}: workgroup = [[1, 2, 4, 8, 16, 32, 64, 128, 256], [1, 2, 4, 8, 16, 32, 64, 128, 256], []]},
// CHECK-SAME: raw_size = 411600 : i64,
// CHECK-SAME: target = {arch = "sm_90", max_regs_per_thread = 255 : i64, max_threads_per_block = 1024 : i64, name = "h200", regs_per_block = 65536 : i64, sm_count = 132 : i64, smem_per_block = 232448 : i64, warp_size = 32 : i64},
// CHECK-SAME: valid_configs = 34174 : i64,
// CHECK-SAME: workload = {bounds = [256, 512, 128], dtypes = ["f32", "f32", "f32"], flops = 33554432 : i64,
// CHECK-SAME: iterators = ["parallel", "parallel", "reduction"], key = "matmul:256x512x128:f32,f32->f32",
// CHECK-SAME: kind = "matmul", loops = ["m", "n", "k"], op = "linalg.matmul"}}}
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<256x128xf32>, tensor<128x512xf32>)

// Another target changes the target limits (and may change the count), not the workload.
// A100: arch = "sm_80"
// A100-SAME: key = "matmul:256x512x128:f32,f32->f32"
func.func @matmul(%a: tensor<256x128xf32>, %b: tensor<128x512xf32>) -> tensor<256x512xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<256x512xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<256x512xf32>) -> tensor<256x512xf32>
  %c = linalg.matmul ins(%a, %b : tensor<256x128xf32>, tensor<128x512xf32>)
                     outs(%acc : tensor<256x512xf32>) -> tensor<256x512xf32>
  return %c : tensor<256x512xf32>
}

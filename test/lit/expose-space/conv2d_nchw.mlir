// RUN: %pruner_opt -p 'builtin.module(pruner-expose-space{target=sm_90})' %s | FileCheck %s

// ResNet-50 stem: 7x7 stride 2, 1x3x230x230 (padded by 3) -> 1x64x112x112.
// CHECK-LABEL: func.func @stem
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, pruner.space = {knobs = {
// CHECK-SAME{LITERAL}: promote_operands = [[]], reduction = [[], [], [], [], [1, 3], [1], [1]],
// CHECK-SAME{LITERAL}: thread = [[1], [1, 2, 4, 8, 16], [1, 2, 4, 7, 8, 14, 16], [1, 2, 4, 7, 8, 14, 16], [], [], []],
// CHECK-SAME: tile_pairs = [1, 25, 39, 39, 0, 0, 0], vector_width = [1, 2, 4],
// CHECK-SAME{LITERAL}: workgroup = [[1], [1, 2, 4, 8, 16, 32, 64], [1, 2, 4, 7, 8, 14, 16, 28, 56, 112], [1, 2, 4, 7, 8, 14, 16, 28, 56, 112], [], [], []]},
// CHECK-SAME: raw_size = 228150 : i64, target = {arch = "sm_90", {{.*}}}, valid_configs = 48084 : i64,
// CHECK-SAME: workload = {bounds = [1, 64, 112, 112, 3, 7, 7], dilations = [1, 1], dtypes = ["f32", "f32", "f32"], flops = 236027904 : i64,
// CHECK-SAME: iterators = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"],
// CHECK-SAME: key = "conv_2d_nchw_fchw:1x64x112x112x3x7x7:f32,f32->f32:s2x2d1x1", kind = "conv_2d_nchw_fchw",
// CHECK-SAME: loops = ["img", "f", "oh", "ow", "c", "kh", "kw"], op = "linalg.conv_2d_nchw_fchw", strides = [2, 2]}},
// CHECK-SAME: strides = dense<2> : tensor<2xi64>}
func.func @stem(%in: tensor<1x3x230x230xf32>, %filter: tensor<64x3x7x7xf32>,
                %acc: tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%in, %filter : tensor<1x3x230x230xf32>, tensor<64x3x7x7xf32>)
         outs(%acc : tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32>
  return %r : tensor<1x64x112x112xf32>
}

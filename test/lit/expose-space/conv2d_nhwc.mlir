// RUN: %pruner_opt -p 'builtin.module(pruner-expose-space{target=sm_90})' %s | FileCheck %s

// ResNet-50 conv2_x 3x3: 1x58x58x64 (padded) * 3x3x64x64 -> 1x56x56x64.
// CHECK-LABEL: func.func @conv
// CHECK: linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, pruner.space = {knobs = {
// CHECK-SAME{LITERAL}: promote_operands = [[]], reduction = [[], [], [], [], [1], [1], [1, 2, 4, 8, 16, 32, 64]],
// CHECK-SAME{LITERAL}: thread = [[1], [1, 2, 4, 7, 8, 14], [1, 2, 4, 7, 8, 14], [1, 2, 4, 8, 16], [], [], []], tile_pairs = [1, 27, 27, 25, 0, 0, 0],
// CHECK-SAME{LITERAL}: vector_width = [1, 2, 4], workgroup = [[1], [1, 2, 4, 7, 8, 14, 28, 56], [1, 2, 4, 7, 8, 14, 28, 56], [1, 2, 4, 8, 16, 32, 64], [], [], []]},
// CHECK-SAME: raw_size = 388347 : i64, target = {arch = "sm_90", {{.*}}}, valid_configs = 95573 : i64,
// CHECK-SAME: workload = {bounds = [1, 56, 56, 64, 3, 3, 64], dilations = [1, 1], dtypes = ["f32", "f32", "f32"], flops = 231211008 : i64,
// CHECK-SAME: iterators = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"],
// CHECK-SAME: key = "conv_2d_nhwc_hwcf:1x56x56x64x3x3x64:f32,f32->f32:s1x1d1x1", kind = "conv_2d_nhwc_hwcf",
// CHECK-SAME: loops = ["img", "oh", "ow", "f", "kh", "kw", "c"], op = "linalg.conv_2d_nhwc_hwcf", strides = [1, 1]}},
// CHECK-SAME: strides = dense<1> : tensor<2xi64>}
func.func @conv(%in: tensor<1x58x58x64xf32>, %filter: tensor<3x3x64x64xf32>,
                %acc: tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%in, %filter : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>)
         outs(%acc : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  return %r : tensor<1x56x56x64xf32>
}

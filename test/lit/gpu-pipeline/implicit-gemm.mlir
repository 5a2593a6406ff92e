// The ResNet-50 3x3 conv as an implicit GEMM (docs/schedule.md): the PTX stages the
// im2col tile (28 columns x 16 channels, 1792 bytes) and the filter's (16 x 64, 4096
// bytes) in shared memory; scalar global loads build the im2col tile, v4 ones copy the
// filter; the compute reads both with ld.shared. PTX needs no toolkit: this runs
// everywhere.
// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config,pruner-gpu-pipeline{format=isa})' %s | FileCheck %s
// (The PTX places the K loop's compute block before its staging blocks.)

// CHECK: gpu.launch_func {{ *}}@conv_kernel::@conv_kernel blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in
// CHECK: gpu.binary @conv_kernel
// CHECK-SAME: .maxntid 16, 7, 1
// CHECK-SAME: .shared .align 16 .b8 {{[a-z_0-9]+}}[1792]
// CHECK-SAME: .shared .align 16 .b8 {{[a-z_0-9]+}}[4096]
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.shared.v4.b32
// CHECK-SAME: fma.rn.f32
// CHECK-SAME: st.global.v4.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.global.b32
// CHECK-SAME: st.shared.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: st.shared.v4.b32
func.func @conv(%I: tensor<1x58x58x64xf32>, %W: tensor<3x3x64x64xf32>) -> tensor<1x56x56x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x56x56x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
      pruner.config = {workgroup = [1, 1, 28, 64, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 1, 16], thread = [1, 1, 4, 4, 0, 0, 0], promote_operands = [0, 1], vector_width = 4}}
      ins(%I, %W : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>) outs(%f : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  return %r : tensor<1x56x56x64xf32>
}

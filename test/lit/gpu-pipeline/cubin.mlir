// REQUIRES: ptxas
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{chip=sm_90 format=bin})' %s | FileCheck %s --check-prefix=SM90
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{chip=sm_80 format=bin})' %s | FileCheck %s --check-prefix=SM80

// Two configured ops: two kernels, each a cubin (ELF) for the chip.
// SM90: gpu.launch_func {{ *}}@mm_kernel::@mm_kernel
// SM90: gpu.launch_func {{ *}}@mm_kernel_0::@mm_kernel
// SM90: gpu.binary @mm_kernel {{.*}}#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80"{{(, link = \[.*libdevice.10.bc"\])?}}>, {{.*}}bin = "\7FELF
// SM90: gpu.binary @mm_kernel_0 {{.*}}chip = "sm_90"{{.*}}bin = "\7FELF
// SM80: gpu.binary @mm_kernel {{.*}}#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80"{{(, link = \[.*libdevice.10.bc"\])?}}>, {{.*}}bin = "\7FELF
func.func @mm(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>, %C: tensor<256x128xf32>,
              %I: tensor<1x18x18x16xf32>, %W: tensor<3x3x16x64xf32>, %O: tensor<1x16x16x64xf32>) -> (tensor<256x128xf32>, tensor<1x16x16x64xf32>) {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<256x128xf32>) -> tensor<256x128xf32>
  %0 = linalg.matmul {pruner.config = {workgroup = [64, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], promote_operands = [], vector_width = 4}}
     ins(%A, %B : tensor<256x64xf32>, tensor<64x128xf32>) outs(%f : tensor<256x128xf32>) -> tensor<256x128xf32>
  %1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
      pruner.config = {workgroup = [1, 4, 8, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 1, 8], thread = [1, 1, 2, 4, 0, 0, 0], promote_operands = [], vector_width = 4}}
      ins(%I, %W : tensor<1x18x18x16xf32>, tensor<3x3x16x64xf32>) outs(%O : tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
  return %0, %1 : tensor<256x128xf32>, tensor<1x16x16x64xf32>
}

// Scalar multiply-adds of a configured op become FMAs (prunerScheduleContractMulAdd,
// docs/schedule.md "FMA contraction"): a vector_width = 1 matmul gets fma.rn.f32 and no
// mul.rn / add.rn pair (before: 32 mul.rn.f32 + 32 add.rn.f32 per K step). A body whose
// multiply carries fastmath flags of its own keeps them and its separate rounding; a
// lone add stays an add. PTX needs no toolkit: this runs everywhere.
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{format=isa})' %s | FileCheck %s

// CHECK: gpu.binary @mm_kernel
// CHECK-NOT: mul.rn.f32
// CHECK-SAME: fma.rn.f32
// CHECK-NOT: mul.rn.f32
// CHECK: gpu.binary @user_flags_kernel
// CHECK-NOT: fma.rn.f32
// CHECK-SAME: mul.rn.f32
// CHECK-SAME: add.rn.f32
// CHECK: gpu.binary @lone_add_kernel
// CHECK-SAME: add.rn.f32
func.func @mm(%A: tensor<256x256xf32>, %B: tensor<256x256xf32>, %C: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 8], thread = [4, 4, 0], promote_operands = [], vector_width = 1}}
      ins(%A, %B : tensor<256x256xf32>, tensor<256x256xf32>) outs(%C : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}
func.func @user_flags(%X: tensor<128x256xf32>, %Y: tensor<128x256xf32>, %O: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"],
      pruner.config = {workgroup = [4, 64], reduction = [0, 0], thread = [1, 1], promote_operands = [], vector_width = 1}}
      ins(%X, %Y : tensor<128x256xf32>, tensor<128x256xf32>) outs(%O : tensor<128x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y fastmath<nnan> : f32
    %s = arith.addf %m, %o : f32
    linalg.yield %s : f32
  } -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}
func.func @lone_add(%X: tensor<128x256xf32>, %Y: tensor<128x256xf32>, %O: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"],
      pruner.config = {workgroup = [4, 64], reduction = [0, 0], thread = [1, 1], promote_operands = [], vector_width = 1}}
      ins(%X, %Y : tensor<128x256xf32>, tensor<128x256xf32>) outs(%O : tensor<128x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

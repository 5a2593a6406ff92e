// Tensor cores (mma = 1, docs/schedule.md "Tensor cores"): a f16 x f16 -> f32 matmul tiled
// to blocks of 64x32, 2x2 warps of 32x16 and K steps of 32 comes out as mma.sync
// m16n8k16 with f32 accumulation: (32/16) x (16/8) x (32/16) = 8 per warp and K step.
// PTX needs no toolkit: this runs everywhere.
// The second function holds two tensor-core ops, an FMA f16 op without vectors and an
// unconfigured f16 op: the mma conversion must leave the others' f16 -> f32 extensions
// alone (before the K loop was outlined it failed on them).
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{format=isa})' %s | FileCheck %s

// CHECK: gpu.launch_func {{ *}}@mma_kernel::@mma_kernel blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%[[T:[a-z0-9_]+]],
// CHECK: gpu.binary @mma_kernel
// CHECK-SAME: .entry mma_kernel
// CHECK-SAME: .maxntid 128, 1, 1
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// The K loop outlined before the mma conversion is inlined back (no call.uni), and the
// function, internal to LLVM, is dropped: no dead copy for ptxas to compile.
// CHECK-NOT: call.uni
// CHECK-NOT: .func pruner_mma_steps
func.func @mma(%A: tensor<128x256xf16>, %B: tensor<256x128xf16>, %C: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<128x128xf32>) -> tensor<128x128xf32>
  %0 = linalg.matmul {pruner.config = {workgroup = [64, 32, 0], reduction = [0, 0, 32], thread = [32, 16, 0], promote_operands = [], vector_width = 1, mma = 1}}
      ins(%A, %B : tensor<128x256xf16>, tensor<256x128xf16>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
}

// CHECK: gpu.binary @mixed_kernel
// CHECK-SAME: mma.sync.aligned.m16n8k16
// CHECK: gpu.binary @mixed_kernel_0
// CHECK-SAME: mma.sync.aligned.m16n8k16
// CHECK: gpu.binary @mixed_kernel_1
// CHECK-NOT: mma.sync
// CHECK-SAME: cvt.f32.f16
// CHECK: gpu.binary @mixed_kernel_2
// CHECK-NOT: mma.sync
// CHECK-SAME: cvt.f32.f16
func.func @mixed(%A: tensor<128x256xf16>, %B: tensor<256x128xf16>, %C: tensor<128x128xf32>, %D: tensor<128x128xf32>, %E: tensor<128x128xf32>, %X: tensor<128x128xf16>) -> (tensor<128x128xf32>, tensor<128x128xf32>, tensor<128x128xf32>, tensor<128x128xf32>) {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<128x128xf32>) -> tensor<128x128xf32>
  %0 = linalg.matmul {pruner.config = {workgroup = [64, 32, 0], reduction = [0, 0, 32], thread = [32, 16, 0], promote_operands = [], vector_width = 1, mma = 1}}
      ins(%A, %B : tensor<128x256xf16>, tensor<256x128xf16>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%D : tensor<128x128xf32>) -> tensor<128x128xf32>
  %1 = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [16, 16, 0], promote_operands = [], vector_width = 1, mma = 1}}
      ins(%A, %B : tensor<128x256xf16>, tensor<256x128xf16>) outs(%f1 : tensor<128x128xf32>) -> tensor<128x128xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%E : tensor<128x128xf32>) -> tensor<128x128xf32>
  %2 = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], promote_operands = [], vector_width = 1}}
      ins(%A, %B : tensor<128x256xf16>, tensor<256x128xf16>) outs(%f2 : tensor<128x128xf32>) -> tensor<128x128xf32>
  %e = tensor.empty() : tensor<128x128xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%X : tensor<128x128xf16>) outs(%e : tensor<128x128xf32>) {
  ^bb0(%x: f16, %o: f32):
    %y = arith.extf %x : f16 to f32
    linalg.yield %y : f32
  } -> tensor<128x128xf32>
  return %0, %1, %2, %3 : tensor<128x128xf32>, tensor<128x128xf32>, tensor<128x128xf32>, tensor<128x128xf32>
}

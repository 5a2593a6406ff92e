// Tensor cores (mma = 1, docs/schedule.md "Tensor cores"): a f16 x f16 -> f32 matmul tiled
// to blocks of 64x32, 2x2 warps of 32x16 and K steps of 32 comes out as mma.sync
// m16n8k16 with f32 accumulation: (32/16) x (16/8) x (32/16) = 8 per warp and K step.
// PTX needs no toolkit: this runs everywhere.
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{format=isa})' %s | FileCheck %s

// CHECK: gpu.launch_func {{ *}}@mma_kernel::@mma_kernel blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%[[T:[a-z0-9_]+]],
// CHECK: gpu.binary @mma_kernel
// CHECK-SAME: .maxntid 128, 1, 1
// CHECK-COUNT-8: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT: mma.sync
func.func @mma(%A: tensor<128x256xf16>, %B: tensor<256x128xf16>, %C: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<128x128xf32>) -> tensor<128x128xf32>
  %0 = linalg.matmul {pruner.config = {workgroup = [64, 32, 0], reduction = [0, 0, 32], thread = [32, 16, 0], promote_operands = [], vector_width = 1, mma = 1}}
      ins(%A, %B : tensor<128x256xf16>, tensor<256x128xf16>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
}

// REQUIRES: ptxas
// Tensor cores staged in shared memory (mma = 1, promote_operands = [0, 1]; docs/schedule.md
// "Tensor cores staged in shared memory"): per K step the block copies its A and B tiles
// with 16-byte cp.async (L1 bypassed), each warp reads its fragments with ldmatrix (A) and
// ldmatrix.trans (B, the column operand) and issues mma.sync; C stays in registers.
// A matmul (2 x 2 warps of 32 x 16, K steps of 32: A 64x32 and B 32x32 f16 staged, 6 KiB)
// and a batch_matmul (batch on grid z), through ptxas for sm_80 and sm_90.
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{chip=sm_90 format=isa})' %s | FileCheck %s
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{chip=sm_90 format=bin})' %s | FileCheck %s --check-prefix=BIN
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{chip=sm_80 format=bin})' %s | FileCheck %s --check-prefix=BIN
// No diagnostic on the way: with the pipelined stage buffers passed to the outlined
// function in the workgroup space, convert-func-to-llvm printed "conversion of memref
// memory space #gpu.address_space<workgroup> to integer address space failed" and mlir-opt
// still exited 0 (prunerScheduleSharedSpaceAsNumber, docs/schedule.md).
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{chip=sm_90 format=isa})' %s 2>&1 >/dev/null | FileCheck %s --check-prefix=DIAG --allow-empty
// DIAG-NOT: error
// DIAG-NOT: warning

// The tiles are the kernel's own .shared arrays (LLVM demotes a global only the kernel
// uses into it), 16-byte aligned.
// CHECK: gpu.binary @mm_kernel
// CHECK-SAME: .entry mm_kernel
// CHECK-SAME: .maxntid 128, 1, 1
// CHECK-SAME: .shared .align 16 .b8 {{[a-z_0-9]+}}[4096]
// CHECK-SAME: .shared .align 16 .b8 {{[a-z_0-9]+}}[2048]
// CHECK-SAME: cp.async.cg.shared.global [{{[^]]*}}], [{{[^]]*}}], 16;
// CHECK-SAME: cp.async.commit_group;
// CHECK-SAME: cp.async.wait_group \090;
// CHECK-SAME: bar.sync \090;
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-SAME: bar.sync \090;
// CHECK: gpu.binary @bmm_kernel
// CHECK-SAME: %ctaid.z
// CHECK-SAME: cp.async.cg.shared.global
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// A 3-stage pipeline (stages = 3; docs/schedule.md): three buffers per operand, rows
// padded from 64 to 80 bytes against ldmatrix bank conflicts (3 x 7.5 KiB: 15360 and 7680),
// the prologue's copies, then per step a wait for all but the four newest groups
// (the next two steps' A and B) before the barrier; fragments read with ldmatrix, as in
// the one-stage kernels, and no scalar shared loads at all (before 2026-12-04 the
// pipelined fragments were 64 ld.shared.b16 + 64 ld.shared.b32 here).
// CHECK: gpu.binary @piped_kernel
// CHECK-SAME: .shared .align 16 .b8 {{[a-z_0-9]+}}[15360]
// CHECK-SAME: .shared .align 16 .b8 {{[a-z_0-9]+}}[7680]
// CHECK-SAME: cp.async.cg.shared.global
// CHECK-SAME: cp.async.commit_group;
// Each K step commits two cp.async groups (A, then B after a barrier): the waits count
// groups, so that two steps of copies stay in flight (4 groups pending in the loop), then
// the peeled last steps drain with 2 and 0 (docs/schedule.md).
// CHECK-SAME: cp.async.wait_group \094;
// CHECK-SAME: bar.sync \090;
// CHECK-NOT: ld.shared
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-NOT: ld.shared
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// CHECK-NOT: ld.shared
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-SAME: cp.async.wait_group \092;
// CHECK-SAME: cp.async.wait_group \090;
// CHECK-NOT: cp.async.wait_group \091;
// BIN: gpu.binary @mm_kernel {{.*}}bin = "\7FELF
// BIN: gpu.binary @bmm_kernel {{.*}}bin = "\7FELF
// BIN: gpu.binary @piped_kernel {{.*}}bin = "\7FELF
func.func @mm(%A: tensor<128x256xf16>, %B: tensor<256x128xf16>, %C: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<128x128xf32>) -> tensor<128x128xf32>
  %0 = linalg.matmul {pruner.config = {workgroup = [64, 32, 0], reduction = [0, 0, 32], thread = [32, 16, 0], promote_operands = [0, 1], vector_width = 1, mma = 1}}
      ins(%A, %B : tensor<128x256xf16>, tensor<256x128xf16>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
}

func.func @bmm(%A: tensor<12x128x64xf16>, %B: tensor<12x64x128xf16>, %C: tensor<12x128x128xf32>) -> tensor<12x128x128xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  %0 = linalg.batch_matmul {pruner.config = {workgroup = [1, 32, 64, 0], reduction = [0, 0, 0, 32], thread = [1, 16, 32, 0], promote_operands = [0, 1], vector_width = 1, mma = 1}}
      ins(%A, %B : tensor<12x128x64xf16>, tensor<12x64x128xf16>) outs(%f : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  return %0 : tensor<12x128x128xf32>
}

func.func @piped(%A: tensor<128x256xf16>, %B: tensor<256x128xf16>, %C: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<128x128xf32>) -> tensor<128x128xf32>
  %0 = linalg.matmul {pruner.config = {workgroup = [64, 32, 0], reduction = [0, 0, 32], thread = [32, 16, 0], promote_operands = [0, 1], vector_width = 1, mma = 1, stages = 3}}
      ins(%A, %B : tensor<128x256xf16>, tensor<256x128xf16>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
}

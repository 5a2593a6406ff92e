// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config)' %s | FileCheck %s

// Tensor cores staged in shared memory (docs/schedule.md, "Tensor cores staged in shared
// memory"). What must hold after the schedule, in the outlined K loop:
// - C's 16x8 fragments are read before the loop and carried in registers (iter_args);
// - every fragment read of the staged tiles (ldmatrix) stays inside the loop, after the
//   step's copies, their wait and the barrier. A hoisted ldmatrix would read the first
//   step's tiles for every step: a silent miscompile that a host check cannot see (the
//   hoist happens after the thread mapping), so this test guards it;
// - a barrier ends each step before the next step's copies overwrite the tiles.
// The tiles are allocated in the GPU dialect's workgroup space (convert-vector-to-gpu makes
// ldmatrix only from memrefs it knows are shared) and numbered 3 after the schedule, NVVM's
// shared space (prunerScheduleSharedSpaceAsNumber): nothing of the attribute is left.
// CHECK-NOT: #gpu.address_space<workgroup>
// CHECK-LABEL: func.func private @pruner_mma_steps
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: vector.load
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>)
// CHECK: memref.get_global @[[A:[a-z0-9_]+]] : memref<4096xi8, 3>
// CHECK: memref.get_global @[[B:[a-z0-9_]+]] : memref<2048xi8, 3>
// CHECK: nvgpu.device_async_copy {{.*}}, 8 {bypassL1}
// CHECK: nvgpu.device_async_wait
// CHECK-NEXT: gpu.barrier
// CHECK: nvgpu.device_async_copy {{.*}}, 8 {bypassL1}
// CHECK: nvgpu.device_async_wait
// CHECK-NEXT: gpu.barrier
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true}
// CHECK: nvgpu.mma.sync
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: vector.store
// CHECK-LABEL: func.func @mma
// CHECK: gpu.launch
// CHECK: call @pruner_mma_steps
func.func @mma(%A: tensor<128x256xf16>, %B: tensor<256x128xf16>, %C: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<128x128xf32>) -> tensor<128x128xf32>
  %0 = linalg.matmul {pruner.config = {workgroup = [64, 32, 0], reduction = [0, 0, 32], thread = [32, 16, 0], promote_operands = [0, 1], vector_width = 1, mma = 1}}
      ins(%A, %B : tensor<128x256xf16>, tensor<256x128xf16>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
}

// A 3-stage pipeline (stages = 3): three buffers per operand, rotated through the K
// loop's iter_args, their rows padded from 32 to 40 f16 (64 to 80 bytes: the 8 rows an
// ldmatrix reads fall in distinct banks; prunerSchedulePadStagedRows), each step's tile a
// [64, 32] or [32, 32] view with row stride 40; the fragments are ldmatrix here too (before 2026-12-04 the pipelined
// tiles were allocated as the number 3, which convert-vector-to-gpu does not know as
// shared memory, so every fragment was scalar shared loads). The buffers reach the
// outlined function as arguments, in space 3. Each step waits until two steps of copies
// (four groups: A and B each) are pending at most, then reads with ldmatrix, and no
// fragment load is a plain vector.load of shared memory.
// CHECK-LABEL: func.func private @pruner_mma_steps_0(%{{.+}}: memref<3x32x40xf16, 3>, %{{.+}}: memref<3x64x40xf16, 3>
// CHECK: scf.for {{.*}} iter_args
// CHECK: nvgpu.device_async_wait {{.*}} {numGroups = 4 : i32, pruner.groups_per_step = 2 : i64}
// CHECK: gpu.barrier
// CHECK-NOT: vector.load {{.*}}, 3>
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<32x32xf16, strided<[40, 1], offset: ?>, 3>
// CHECK-NOT: vector.load {{.*}}, 3>
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true} : memref<32x16xf16, strided<[40, 1], offset: ?>, 3>
// CHECK: nvgpu.mma.sync
// CHECK-NOT: vector.load {{.*}}, 3>
// CHECK: scf.yield
// CHECK-LABEL: func.func @piped
// CHECK: call @pruner_mma_steps_0
// The globals of both kernels close the module; @mma's A and B tiles:
// CHECK: memref.global "private" @[[A]] : memref<4096xi8, 3>
// CHECK: memref.global "private" @[[B]] : memref<2048xi8, 3>
func.func @piped(%A: tensor<128x256xf16>, %B: tensor<256x128xf16>, %C: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<128x128xf32>) -> tensor<128x128xf32>
  %0 = linalg.matmul {pruner.config = {workgroup = [64, 32, 0], reduction = [0, 0, 32], thread = [32, 16, 0], promote_operands = [0, 1], vector_width = 1, mma = 1, stages = 3}}
      ins(%A, %B : tensor<128x256xf16>, tensor<256x128xf16>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
}

// Vector accesses get the alignment their addresses provably have (schedule_ir.h):
// function buffers are assumed 16-byte aligned (cudaMalloc gives 256), and every index
// times its stride must keep that. REQUIRES ptxas for the cubin run.
// REQUIRES: ptxas
// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config)' -split-input-file %s | FileCheck %s --check-prefix=IR
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{format=isa})' -split-input-file %s | FileCheck %s
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{format=bin})' -split-input-file %s | FileCheck %s --check-prefix=BIN

// Row stride 48 and 96 floats, thread offsets multiples of 4 floats: 16-byte aligned, so
// the global accesses are v4; the shared-memory buffers get .align 16.
// The promoted K loop is outlined (its accumulator kept in registers, docs/schedule.md);
// its accesses get the alignment of what the kernel's call passes.
// IR-LABEL: func.func private @pruner_k_steps
// IR: vector.load {{.*}} {alignment = 16 : i64} : memref<2x4xf32, strided<[48, 1], offset: ?>>, vector<4xf32>
// IR-LABEL: func.func @mm_v4
// IR: memref.global "private" @{{.*}} : memref<2048xi8, 3> {alignment = 16 : i64}
// CHECK-LABEL: gpu.binary @mm_v4_kernel
// CHECK-SAME: .shared .align 16
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: st.global.v4.b32
// CHECK-NOT: gpu.binary
// CHECK-NOT: ld.global.b32
// BIN: gpu.binary @mm_v4_kernel
func.func @mm_v4(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>) -> tensor<64x96xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<64x96xf32>) -> tensor<64x96xf32>
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], promote_operands = [0, 1], vector_width = 4}}
     ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// -----

// Row stride 98 floats = 392 bytes = 8 x 49: only 8-byte alignment holds, so the 2-wide
// vectors become v2 and nothing may claim 16 (a wrong claim would be a misaligned
// access on the GPU).
// IR-LABEL: func.func @ew_v2
// IR-NOT: alignment = 16
// IR: vector.load {{.*}} {alignment = 8 : i64}
// IR-NOT: alignment = 16
// CHECK-LABEL: gpu.binary @ew_v2_kernel
// CHECK-SAME: ld.global.v2.b32
// CHECK-NOT: ld.global.v4
func.func @ew_v2(%X: tensor<64x98xf32>, %O: tensor<64x98xf32>) -> tensor<64x98xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"],
      pruner.config = {workgroup = [8, 98], reduction = [0, 0], thread = [1, 2], promote_operands = [], vector_width = 2}}
      ins(%X : tensor<64x98xf32>) outs(%O : tensor<64x98xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<64x98xf32>
  return %r : tensor<64x98xf32>
}

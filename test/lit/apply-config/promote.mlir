// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config)' -split-input-file %s | FileCheck %s

// Shared-memory promotion of A and B (docs/schedule.md). Workgroup buffers are module
// globals in NVVM address space 3, one per promoted operand, sized as docs/config.md's
// footprint x dtype: A tile 32x16 and B tile 16x32 f32 = 2048 bytes each (4096 =
// prunerConfigLaunchShape's smem_bytes). Inside the block K loop: each copy is its own
// cooperative thread forall (2x4 elements per thread, v4 stores into shared memory), a
// gpu.barrier after each copy, so the compute reads shared memory only after every
// thread's copy; and a gpu.barrier after the compute, so the next step's copies cannot
// overwrite tiles another thread is still reading. A missing barrier is a race the host
// check cannot see: these CHECKs are the guard.
// The K loop is outlined after the thread mapping (docs/schedule.md, "Shared-memory
// promotion"): the thread's 4x4 accumulator is read once before it and written once
// after it, carried in registers in between.
// CHECK-LABEL: func.func private @pruner_k_steps
// CHECK-COUNT-4: vector.load %{{.*}} : memref<4x4xf32, strided<[96, 1], offset: ?>>, vector<4xf32>
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<4x4xf32>)
// CHECK: memref.get_global @[[A:[a-z_0-9]+]] : memref<2048xi8, 3>
// CHECK: memref.get_global @[[B:[a-z_0-9]+]] : memref<2048xi8, 3>
// CHECK-NOT: gpu.barrier
// CHECK-NOT: vector.load {{.*}}, 3>, vector
// CHECK-COUNT-2: vector.store {{.*}} : memref<2x4xf32, strided<[16, 1], offset: ?>, 3>, vector<4xf32>
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: vector.load {{.*}}, 3>, vector
// CHECK-COUNT-2: vector.store {{.*}} : memref<2x4xf32, strided<[32, 1], offset: ?>, 3>, vector<4xf32>
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK-NOT: vector.store {{.*}}, 3>, vector
// CHECK: vector.load {{.*}} : memref<4x16xf32, strided<[16, 1], offset: ?>, 3>, vector<16xf32>
// CHECK-NOT: gpu.barrier
// CHECK-NOT: vector.store {{.*}}, 3>, vector
// CHECK: vector.load {{.*}} : memref<16x4xf32, strided<[32, 1], offset: ?>, 3>, vector<4xf32>
// CHECK-NOT: gpu.barrier
// CHECK-NOT: vector.store
// CHECK: vector.fma
// CHECK-NOT: gpu.barrier
// CHECK-NOT: vector.store
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK-COUNT-4: vector.store %{{.*}} : memref<4x4xf32, strided<[96, 1], offset: ?>>, vector<4xf32>
// CHECK-LABEL: func.func @mm_promote_ab
// CHECK: gpu.launch
// CHECK-COUNT-4: vector.store %{{.*}} : memref<4x4xf32, strided<[96, 1], offset: ?>>, vector<4xf32>
// CHECK-NEXT: gpu.barrier
// CHECK: call @pruner_k_steps
// CHECK-NEXT: gpu.terminator
// CHECK-DAG: memref.global "private" @[[A]] : memref<2048xi8, 3>
// CHECK-DAG: memref.global "private" @[[B]] : memref<2048xi8, 3>
func.func @mm_promote_ab(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>) -> tensor<64x96xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<64x96xf32>) -> tensor<64x96xf32>
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], promote_operands = [0, 1], vector_width = 4}}
     ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// -----

// B only, scalar (vector_width 1): one 8x32 f32 buffer = 1024 bytes; the copy is scalar
// loads/stores, still fenced by barriers on both sides of the compute.
// CHECK-LABEL: func.func @mm_promote_b_scalar
// CHECK: scf.for
// CHECK: memref.get_global @[[B:[a-z_0-9]+]] : memref<1024xi8, 3>
// CHECK-NOT: memref.get_global
// CHECK-NOT: memref.load {{.*}}, 3>
// CHECK: memref.store {{.*}} : memref<{{.*}}, 3>
// CHECK-NOT: memref.load {{.*}}, 3>
// CHECK: gpu.barrier
// CHECK-NOT: memref.store {{.*}}, 3>
// CHECK: memref.load {{.*}} : memref<{{.*}}, 3>
// CHECK-NOT: memref.store {{.*}}, 3>
// CHECK: gpu.barrier
// CHECK-NEXT: }
// CHECK: memref.global "private" @[[B]] : memref<1024xi8, 3>
// CHECK-NOT: memref.global
func.func @mm_promote_b_scalar(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>) -> tensor<64x96xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<64x96xf32>) -> tensor<64x96xf32>
  %r = linalg.matmul {pruner.config = {workgroup = [16, 32, 0], reduction = [0, 0, 8], thread = [2, 2, 0], promote_operands = [1], vector_width = 1}}
     ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// -----

// batch_matmul, A and B: tiles 1x32x8 and 1x8x32 f32 = 1024 bytes each; the outlined K
// loop carries the 1x4x4 accumulator.
// CHECK-LABEL: func.func private @pruner_k_steps
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<1x4x4xf32>)
// CHECK: memref.get_global @{{.*}} : memref<1024xi8, 3>
// CHECK: memref.get_global @{{.*}} : memref<1024xi8, 3>
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: vector.fma
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK-LABEL: func.func @bmm_promote
// CHECK: call @pruner_k_steps
func.func @bmm_promote(%A: tensor<2x64x32xf32>, %B: tensor<2x32x64xf32>, %C: tensor<2x64x64xf32>) -> tensor<2x64x64xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  %r = linalg.batch_matmul {pruner.config = {workgroup = [1, 32, 32, 0], reduction = [0, 0, 0, 8], thread = [1, 4, 4, 0], promote_operands = [0, 1], vector_width = 4}}
     ins(%A, %B : tensor<2x64x32xf32>, tensor<2x32x64xf32>) outs(%f : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  return %r : tensor<2x64x64xf32>
}

// -----

// No promotion: no workgroup buffers.
// CHECK-LABEL: func.func @mm_no_promote
// CHECK-NOT: memref.get_global
// CHECK: return
// CHECK-NOT: memref.global
func.func @mm_no_promote(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>) -> tensor<64x96xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<64x96xf32>) -> tensor<64x96xf32>
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], promote_operands = [], vector_width = 4}}
     ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// -----

// One K step (reduction = K = 4): no K loop to outline, so the accumulator is read and
// written in the launch as before (a random campaign case found the outlining asking for
// a loop that canonicalization had dropped).
// CHECK-LABEL: func.func @bmm_one_k_step
// CHECK-NOT: call @pruner_k_steps
// CHECK: gpu.launch
// CHECK: memref.get_global @{{.*}} : memref<{{[0-9]+}}xi8, 3>
// CHECK: gpu.barrier
func.func @bmm_one_k_step(%A: tensor<8x32x4xf32>, %B: tensor<8x4x64xf32>) -> tensor<8x32x64xf32> {
  %e = tensor.empty() : tensor<8x32x64xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x32x64xf32>) -> tensor<8x32x64xf32>
  %r = linalg.batch_matmul {pruner.config = {workgroup = [2, 32, 16, 0], reduction = [0, 0, 0, 4], thread = [2, 1, 4, 0], promote_operands = [1], vector_width = 2}}
     ins(%A, %B : tensor<8x32x4xf32>, tensor<8x4x64xf32>) outs(%f : tensor<8x32x64xf32>) -> tensor<8x32x64xf32>
  return %r : tensor<8x32x64xf32>
}

// An input that is a tensor.cast of a dynamic argument to the op's static type
// (prunerIrSliceDynamicCastInputs, pruner/ir.h): the cast bufferizes to a memref.cast,
// which linalg's folder folded into the op, so a promoted schedule, which tiles to
// threads on buffers, took the loop bound from the dynamic memref ("requires statically
// sized, normalized forall op"); with vector widths 2 and 4, "Attempted to vectorize, but
// failed". Here B's block tile is all of B (N tile 128, K step 32), so no tiling slice
// stands between the cast and the op. The input becomes a static extract_slice of the
// argument and the kernel builds for every width.
// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config)' -split-input-file %s | FileCheck %s --check-prefix=IR
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{format=isa})' -split-input-file %s | FileCheck %s

// IR-LABEL: func.func @cast_b_v1
// IR: memref.subview %arg1[0, 0] [32, 128] [1, 1] : memref<?x?xf32> to memref<32x128xf32, strided<[?, 1]>>
// IR-NOT: memref.dim
// CHECK: gpu.binary @cast_b_v1_kernel
func.func @cast_b_v1(%A: tensor<64x32xf32>, %B: tensor<?x?xf32>, %C: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %b = tensor.cast %B : tensor<?x?xf32> to tensor<32x128xf32>
  %r = linalg.matmul {pruner.config = {workgroup = [32, 128, 0], reduction = [0, 0, 32], thread = [4, 4, 0], promote_operands = [0], vector_width = 1}}
     ins(%A, %b : tensor<64x32xf32>, tensor<32x128xf32>) outs(%C : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

// -----

// IR-LABEL: func.func @cast_b_v4
// CHECK: gpu.binary @cast_b_v4_kernel
func.func @cast_b_v4(%A: tensor<64x32xf32>, %B: tensor<?x?xf32>, %C: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %b = tensor.cast %B : tensor<?x?xf32> to tensor<32x128xf32>
  %r = linalg.matmul {pruner.config = {workgroup = [32, 128, 0], reduction = [0, 0, 32], thread = [4, 4, 0], promote_operands = [0], vector_width = 4}}
     ins(%A, %b : tensor<64x32xf32>, tensor<32x128xf32>) outs(%C : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

// -----

// The mirror case: A whole (M tile 64) with B promoted.
// CHECK: gpu.binary @cast_a_v2_kernel
func.func @cast_a_v2(%A: tensor<?x32xf32>, %B: tensor<32x128xf32>, %C: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %a = tensor.cast %A : tensor<?x32xf32> to tensor<64x32xf32>
  %r = linalg.matmul {pruner.config = {workgroup = [64, 32, 0], reduction = [0, 0, 32], thread = [4, 4, 0], promote_operands = [1], vector_width = 2}}
     ins(%a, %B : tensor<64x32xf32>, tensor<32x128xf32>) outs(%C : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

// A promoted input that is a splat arith.constant (prunerIrMaterializeSplatInputs,
// pruner/ir.h): a tile's slice of a splat folds into a smaller splat, which bufferizes to
// a memref.get_global, not a view, so the promotion found nothing to stage ("failed to
// apply") or, with both inputs promoted, one linalg.copy fewer than the schedule matches
// ("expected to contain 2 payloads"); every promoted config of such an op failed (a
// review's sweep, 2026-12-06: 458 of 1,493). The input becomes a linalg.fill of the value.
// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config)' -split-input-file %s | FileCheck %s --check-prefix=IR
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{format=isa})' -split-input-file %s | FileCheck %s

// IR-LABEL: func.func @splat_b
// IR-NOT: memref.get_global @__constant
// IR: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<32x16xf32>)
// IR-NOT: memref.get_global @__constant
// CHECK: gpu.binary @splat_b_kernel
func.func @splat_b(%A: tensor<64x32xf32>) -> tensor<64x16xf32> {
  %B = arith.constant dense<0.5> : tensor<32x16xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %C = linalg.fill ins(%z : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %r = linalg.matmul {pruner.config = {workgroup = [16, 8, 0], reduction = [0, 0, 32], thread = [1, 4, 0], promote_operands = [1], vector_width = 1}}
      ins(%A, %B : tensor<64x32xf32>, tensor<32x16xf32>) outs(%C : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %r : tensor<64x16xf32>
}

// -----

// Tensor cores staged in shared memory, both inputs promoted.
// CHECK: gpu.binary @splat_mma_kernel
// CHECK: mma.sync
func.func @splat_mma(%A: tensor<64x64xf16>) -> tensor<64x128xf32> {
  %B = arith.constant dense<1.0> : tensor<64x128xf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %C = linalg.fill ins(%z : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %r = linalg.matmul {pruner.config = {workgroup = [64, 16, 0], reduction = [0, 0, 32], thread = [32, 16, 0], promote_operands = [0, 1], vector_width = 1, mma = 1}}
      ins(%A, %B : tensor<64x64xf16>, tensor<64x128xf16>) outs(%C : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

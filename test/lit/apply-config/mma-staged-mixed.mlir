// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config)' %s | FileCheck %s

// A staged tensor-core op and a promoted FMA op in one function. The module's ops run each
// schedule step in turn (every @pruner_promote, then every @pruner_map), and the staged
// op's vector.contract waits for the thread mapping to become mma.sync. The FMA op's
// promote step once lowered the vectors of the whole function, turning the tensor-core
// kernel into FMAs without a word (no mma.sync left); it now lowers its own block only.
// CHECK-LABEL: func.func private @pruner_mma_steps
// CHECK: nvgpu.ldmatrix
// CHECK: nvgpu.mma.sync
// CHECK-LABEL: func.func @mix
// CHECK-COUNT-2: gpu.launch
func.func @mix(%A: tensor<128x256xf16>, %B: tensor<256x128xf16>, %C: tensor<128x128xf32>, %D: tensor<128x64xf32>, %E: tensor<64x128xf32>, %F: tensor<128x128xf32>) -> (tensor<128x128xf32>, tensor<128x128xf32>) {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<128x128xf32>) -> tensor<128x128xf32>
  %0 = linalg.matmul {pruner.config = {workgroup = [64, 32, 0], reduction = [0, 0, 32], thread = [32, 16, 0], promote_operands = [0, 1], vector_width = 1, mma = 1}}
      ins(%A, %B : tensor<128x256xf16>, tensor<256x128xf16>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
  %g = linalg.fill ins(%z : f32) outs(%F : tensor<128x128xf32>) -> tensor<128x128xf32>
  %1 = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], promote_operands = [0, 1], vector_width = 4}}
      ins(%D, %E : tensor<128x64xf32>, tensor<64x128xf32>) outs(%g : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %0, %1 : tensor<128x128xf32>, tensor<128x128xf32>
}

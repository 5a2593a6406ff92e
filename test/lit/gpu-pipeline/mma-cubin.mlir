// REQUIRES: ptxas
// Tensor-core kernels through ptxas for sm_80 and sm_90 (cubin = ELF), a matmul and a
// batch_matmul (batch on grid z), docs/schedule.md "Tensor cores".
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{chip=sm_90 format=bin})' %s | FileCheck %s --check-prefix=SM90
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{chip=sm_80 format=bin})' %s | FileCheck %s --check-prefix=SM80
// The PTX that ptxas accepted holds the mma.sync ops.
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{chip=sm_80 format=isa})' %s | FileCheck %s --check-prefix=PTX

// SM90: gpu.binary @mm_kernel {{.*}}chip = "sm_90"{{.*}}bin = "\7FELF
// SM90: gpu.binary @bmm_kernel {{.*}}chip = "sm_90"{{.*}}bin = "\7FELF
// SM80: gpu.binary @mm_kernel {{.*}}chip = "sm_80"{{.*}}bin = "\7FELF
// SM80: gpu.binary @bmm_kernel {{.*}}chip = "sm_80"{{.*}}bin = "\7FELF
// PTX: gpu.binary @mm_kernel
// PTX-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX: gpu.binary @bmm_kernel
// PTX-SAME: .maxntid 64, 1, 1
// PTX-SAME: %ctaid.z
// PTX-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
func.func @mm(%A: tensor<128x768xf16>, %B: tensor<768x256xf16>, %C: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<128x256xf32>) -> tensor<128x256xf32>
  %0 = linalg.matmul {pruner.config = {workgroup = [64, 64, 0], reduction = [0, 0, 16], thread = [32, 32, 0], promote_operands = [], vector_width = 1, mma = 1}}
      ins(%A, %B : tensor<128x768xf16>, tensor<768x256xf16>) outs(%f : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %0 : tensor<128x256xf32>
}

func.func @bmm(%A: tensor<12x128x64xf16>, %B: tensor<12x64x128xf16>, %C: tensor<12x128x128xf32>) -> tensor<12x128x128xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  %0 = linalg.batch_matmul {pruner.config = {workgroup = [1, 32, 64, 0], reduction = [0, 0, 0, 32], thread = [1, 16, 64, 0], promote_operands = [], vector_width = 1, mma = 1}}
      ins(%A, %B : tensor<12x128x64xf16>, tensor<12x64x128xf16>) outs(%f : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  return %0 : tensor<12x128x128xf32>
}

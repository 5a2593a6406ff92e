// A configured op whose results are unused is dead code: the GPU schedule tiled it, then
// canonicalization erased the tiled loops under the schedule ("requires exactly one target
// handle", exit 1) while the host path built it. Now it is erased with a remark, and the
// op that is used is scheduled as usual. expose-space (and pruner-tune, the same walk)
// leaves a dead op untuned with a remark. Dead counts through chains: an op whose only
// users are dead is dead too (the first fix saw unused results only, and a matmul feeding
// an unused matmul failed the same way).
// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config)' -verify-diagnostics %s \
// RUN:   -split-input-file | FileCheck %s
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{chip=sm_90 format=isa})' %s \
// RUN:   2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: %pruner_opt -p 'builtin.module(pruner-expose-space{target=sm_90})' %s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=EXPOSE

// CHECK-LABEL: func.func @f
// CHECK: gpu.launch
// CHECK-NOT: gpu.launch
// PIPE: remark: pruner.config on linalg.matmul: not applied: its results are unused
// PIPE: gpu.binary
// EXPOSE: remark: pruner: not tunable: linalg.matmul: its results are unused (dead code
// EXPOSE: linalg.matmul {{.*}}pruner.space = {
func.func @f(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>)
    -> tensor<64x96xf32> {
  // expected-remark @+1 {{pruner.config on linalg.matmul: not applied: its results are unused (dead code, erased)}}
  %dead = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16],
                         thread = [4, 4, 0], promote_operands = [], vector_width = 1}}
      ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%C : tensor<64x96xf32>)
      -> tensor<64x96xf32>
  %used = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16],
                         thread = [4, 4, 0], promote_operands = [], vector_width = 1}}
      ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%C : tensor<64x96xf32>)
      -> tensor<64x96xf32>
  return %used : tensor<64x96xf32>
}

// -----

// CHECK-LABEL: func.func @chain
// CHECK-NOT: linalg.matmul
// CHECK: gpu.launch
// CHECK-NOT: gpu.launch
func.func @chain(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>,
                 %D: tensor<96x96xf32>) -> tensor<64x96xf32> {
  // expected-remark @+1 {{pruner.config on linalg.matmul: not applied: its results are unused (dead code, erased)}}
  %a = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16],
                      thread = [4, 4, 0], promote_operands = [], vector_width = 1}}
      ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%C : tensor<64x96xf32>)
      -> tensor<64x96xf32>
  // expected-remark @+1 {{pruner.config on linalg.matmul: not applied: the op was folded away}}
  %dead = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16],
                         thread = [4, 4, 0], promote_operands = [], vector_width = 1}}
      ins(%a, %D : tensor<64x96xf32>, tensor<96x96xf32>) outs(%C : tensor<64x96xf32>)
      -> tensor<64x96xf32>
  %used = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16],
                         thread = [4, 4, 0], promote_operands = [], vector_width = 1}}
      ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%C : tensor<64x96xf32>)
      -> tensor<64x96xf32>
  return %used : tensor<64x96xf32>
}

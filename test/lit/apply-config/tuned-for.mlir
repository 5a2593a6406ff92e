// A config is held to the kind of target its pruner.tuning names: one tuned for a host
// CPU passed the GPU rules and pruner-gpu-pipeline made a cubin of it silently (and
// pruner-cpu-pipeline accepted a pruner.tuning of any type). Errors on the op.
// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config)' -split-input-file \
// RUN:   -verify-diagnostics %s
// RUN: not %pruner_opt -p 'builtin.module(pruner-apply-config{target=host})' \
// RUN:   %S/Inputs/gpu-tuned.mlir 2>&1 | FileCheck %s --check-prefix=HOST
// HOST: error: pruner.config tuned for sm_90:h200:132sm (a GPU) cannot be applied for host (a host CPU): it follows another target's rules; lower it with pruner-gpu-pipeline
// RUN: not %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{chip=sm_90 format=isa})' \
// RUN:   %S/Inputs/host-tuned.mlir 2>&1 | FileCheck %s --check-prefix=PIPE
// PIPE: error: pruner.config tuned for host:amd-epyc-2c-sse (a host CPU) cannot be applied for sm_90 (a GPU): it follows another target's rules; lower it with pruner-cpu-pipeline
// PIPE-NOT: gpu.binary

func.func @host_on_gpu(%a: tensor<64x48xf32>, %b: tensor<48x96xf32>, %c: tensor<64x96xf32>)
    -> tensor<64x96xf32> {
  // expected-error @+1 {{pruner.config tuned for host:amd-epyc-2c-sse (a host CPU) cannot be applied for sm_90 (a GPU)}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16],
                      thread = [4, 4, 0], promote_operands = [], vector_width = 4},
                      pruner.tuning = {measured = true, target = "host:amd-epyc-2c-sse"}}
      ins(%a, %b : tensor<64x48xf32>, tensor<48x96xf32>) outs(%c : tensor<64x96xf32>)
      -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// -----

func.func @iree_on_gpu(%a: tensor<64x48xf32>, %b: tensor<48x96xf32>, %c: tensor<64x96xf32>)
    -> tensor<64x96xf32> {
  // expected-error @+1 {{pruner.config tuned for iree-cpu:amd-epyc-2c-avx2 (IREE) cannot be applied for sm_90 (a GPU): it follows another target's rules; IREE applies it (docs/iree.md)}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16],
                      thread = [4, 4, 0], promote_operands = [], vector_width = 1},
                      pruner.tuning = {measured = true, target = "iree-cpu:amd-epyc-2c-avx2"}}
      ins(%a, %b : tensor<64x48xf32>, tensor<48x96xf32>) outs(%c : tensor<64x96xf32>)
      -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// -----

func.func @malformed(%a: tensor<64x48xf32>, %b: tensor<48x96xf32>, %c: tensor<64x96xf32>)
    -> tensor<64x96xf32> {
  // expected-error @+1 {{pruner.tuning on this op is not a dictionary whose target is a string}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16],
                      thread = [4, 4, 0], promote_operands = [], vector_width = 1},
                      pruner.tuning = {target = 5}}
      ins(%a, %b : tensor<64x48xf32>, tensor<48x96xf32>) outs(%c : tensor<64x96xf32>)
      -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// -----

// A config written by hand (no pruner.tuning), and one tuned for the GPU: applied.
func.func @gpu_ok(%a: tensor<64x48xf32>, %b: tensor<48x96xf32>, %c: tensor<64x96xf32>)
    -> tensor<64x96xf32> {
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16],
                      thread = [4, 4, 0], promote_operands = [], vector_width = 1},
                      pruner.tuning = {measured = true, target = "sm_90:h200:132sm"}}
      ins(%a, %b : tensor<64x48xf32>, tensor<48x96xf32>) outs(%c : tensor<64x96xf32>)
      -> tensor<64x96xf32>
  %s = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16],
                      thread = [4, 4, 0], promote_operands = [], vector_width = 1}}
      ins(%a, %b : tensor<64x48xf32>, tensor<48x96xf32>) outs(%r : tensor<64x96xf32>)
      -> tensor<64x96xf32>
  return %s : tensor<64x96xf32>
}

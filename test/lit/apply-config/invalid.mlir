// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config)' -split-input-file -verify-diagnostics %s

func.func @thread_not_dividing(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>) -> tensor<64x96xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: thread tile [3, 4, 0] does not divide workgroup tile [32, 32, 0]}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [3, 4, 0], promote_operands = [], vector_width = 4}} ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%C : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// -----

func.func @bad_vector_width(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>) -> tensor<64x96xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: vector_width = 3 is not one of 1, 2, 4}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], promote_operands = [], vector_width = 3}} ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%C : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// -----

func.func @unknown_key(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>) -> tensor<64x96xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: unknown key 'bogus'}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], bogus = 1}} ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%C : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// -----

func.func @too_many_threads(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>) -> tensor<64x96xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: workgroup tile [64, 96, 0] over thread tile [1, 1, 0] gives more than 1024 threads per block}}
  %r = linalg.matmul {pruner.config = {workgroup = [64, 96, 0], reduction = [0, 0, 16], thread = [1, 1, 0], promote_operands = [], vector_width = 1}} ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%C : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// -----

func.func @mma_bf16(%A: tensor<64x64xbf16>, %B: tensor<64x64xbf16>, %C: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: mma on linalg.matmul: bf16 inputs are not supported: MLIR 22's convert-vector-to-gpu}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [16, 16, 0], promote_operands = [], vector_width = 1, mma = 1}} ins(%A, %B : tensor<64x64xbf16>, tensor<64x64xbf16>) outs(%C : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

func.func @mma_f32(%A: tensor<64x64xf32>, %B: tensor<64x64xf32>, %C: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{mma on linalg.matmul: inputs f32 x f32 -> f32; mma.sync m16n8k16 is scheduled for f16 x f16 -> f32}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [16, 16, 0], promote_operands = [], vector_width = 1, mma = 1}} ins(%A, %B : tensor<64x64xf32>, tensor<64x64xf32>) outs(%C : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

func.func @mma_bad_value(%A: tensor<64x64xf16>, %B: tensor<64x64xf16>, %C: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: key 'mma' must be 0 (FMA) or 1 (mma.sync m16n8k16), got 2}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [16, 16, 0], promote_operands = [], vector_width = 1, mma = 2}} ins(%A, %B : tensor<64x64xf16>, tensor<64x64xf16>) outs(%C : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

func.func @mma_k_not_tiled(%A: tensor<64x64xf16>, %B: tensor<64x64xf16>, %C: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{mma on linalg.matmul: K step 64 must be smaller than K = 64}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 64], thread = [16, 16, 0], promote_operands = [], vector_width = 1, mma = 1}} ins(%A, %B : tensor<64x64xf16>, tensor<64x64xf16>) outs(%C : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

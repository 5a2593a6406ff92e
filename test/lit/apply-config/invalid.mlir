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

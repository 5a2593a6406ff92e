// The passes run on builtin.module. Nested on func.func they refuse with an error on the
// function; before, the pass manager aborted mlir-opt ("Can't add pass ... restricted to
// 'builtin.module' on a PassManager intended to run on 'func.func'").
// RUN: not %pruner_opt -p 'builtin.module(func.func(pruner-gpu-pipeline{format=isa}))' %s 2>&1 | FileCheck %s --check-prefix=FUNC-PIPE
// RUN: not %pruner_opt -p 'builtin.module(func.func(pruner-apply-config))' %s 2>&1 | FileCheck %s --check-prefix=FUNC-APPLY
// A nested module holding linalg ops is not lowered by a run on the outer module
// (bufferization and outlining are per module): an error on it naming the nesting that
// works; that nesting lowers it.
// RUN: not %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{format=isa})' %s 2>&1 | FileCheck %s --check-prefix=OUTER
// RUN: %pruner_opt -p 'builtin.module(builtin.module(pruner-gpu-pipeline{format=isa}))' %s | FileCheck %s --check-prefix=INNER

// FUNC-PIPE: nesting.mlir:[[#@LINE+3]]:3: error: pruner-gpu-pipeline runs on builtin.module, not func.func: it bufferizes the module's functions together and outlines kernels into a gpu.module; use builtin.module(pruner-gpu-pipeline{...})
// FUNC-APPLY: nesting.mlir:[[#@LINE+2]]:3: error: pruner-apply-config runs on builtin.module, not func.func: it bufferizes the module's functions together; use builtin.module(pruner-apply-config)
module {
  func.func @outer(%X: tensor<8xf32>) -> tensor<8xf32> {
    return %X : tensor<8xf32>
  }
  // OUTER: nesting.mlir:[[#@LINE+6]]:3: error: pruner-gpu-pipeline: nested module @inner holds linalg/tensor ops, which this run does not lower (bufferization and kernel outlining are per module); lower it on its own: builtin.module(builtin.module(pruner-gpu-pipeline{...}))
  // INNER: module @inner
  // INNER-NOT: linalg.
  // INNER: gpu.launch_func @matmul_kernel::@matmul_kernel
  // INNER: gpu.binary @matmul_kernel
  // INNER-NOT: linalg.
  module @inner {
    func.func @matmul(%A: tensor<32x16xf32>, %B: tensor<16x64xf32>, %C: tensor<32x64xf32>) -> tensor<32x64xf32> {
      %r = linalg.matmul {pruner.config = {workgroup = [16, 32, 0], reduction = [0, 0, 8], thread = [2, 2, 0], promote_operands = [], vector_width = 1}}
          ins(%A, %B : tensor<32x16xf32>, tensor<16x64xf32>) outs(%C : tensor<32x64xf32>) -> tensor<32x64xf32>
      return %r : tensor<32x64xf32>
    }
  }
}

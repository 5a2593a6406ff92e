// pruner-cpu-pipeline runs on builtin.module. Nested on func.func it refuses with an error
// on the function; before, the pass manager aborted mlir-opt ("LLVM ERROR: Can't add pass
// ... restricted to 'builtin.module' on a PassManager intended to run on 'func.func'").
// RUN: not %pruner_opt -p 'builtin.module(func.func(pruner-cpu-pipeline{target=host}))' %s 2>&1 | FileCheck %s --check-prefix=FUNC
// A nested module holding linalg ops is not lowered by a run on the outer module: an
// error on it naming the nesting that works (before: a verifier error, "expected add/mul
// op in the body", on a half-lowered matmul); that nesting lowers it.
// RUN: not %pruner_opt -p 'builtin.module(pruner-cpu-pipeline{target=host})' %s 2>&1 | FileCheck %s --check-prefix=OUTER
// RUN: %pruner_opt -p 'builtin.module(builtin.module(pruner-cpu-pipeline{target=host}))' %s | FileCheck %s --check-prefix=INNER

// FUNC: error: pruner-cpu-pipeline runs on builtin.module, not func.func: it bufferizes the module's functions together and lowers the module to the LLVM dialect; use builtin.module(pruner-cpu-pipeline{...})
// FUNC-NOT: LLVM ERROR
// OUTER: nesting.mlir:[[#@LINE+7]]:3: error: pruner-cpu-pipeline: nested module @inner holds linalg/tensor ops, which this run does not lower (bufferization and kernel outlining are per module); lower it on its own: builtin.module(builtin.module(pruner-cpu-pipeline{...}))
// INNER: module @inner
// INNER: llvm.func @mm
module {
  func.func @top() {
    return
  }
  module @inner {
    func.func @mm(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
      %0 = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], promote_operands = [], vector_width = 1}} ins(%a, %b : tensor<64x32xf32>, tensor<32x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
      return %0 : tensor<64x64xf32>
    }
  }
}

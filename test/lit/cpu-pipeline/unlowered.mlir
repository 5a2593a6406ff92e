// A linalg op no pass of the pipelines lowers (linalg.softmax, an aggregate op) fails the
// pipeline with an error on it; before, both pipelines exited 0 with the op, on memrefs,
// in their output, which mlir-translate then refused.
// RUN: not %pruner_opt -p 'builtin.module(pruner-cpu-pipeline{target=host})' %s 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{format=isa})' %s 2>&1 | FileCheck %s --check-prefix=GPU
// CPU: unlowered.mlir:[[#@LINE+4]]:8: error: pruner-cpu-pipeline: linalg.softmax is left unlowered: no pass of the pipeline lowers it
// GPU: unlowered.mlir:[[#@LINE+3]]:8: error: pruner-gpu-pipeline: linalg.softmax is left unlowered
func.func @f(%a: tensor<2x16xf32>, %c: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %cst = arith.constant 0.0 : f32
  %0 = linalg.softmax dimension(1) ins(%a : tensor<2x16xf32>) outs(%c : tensor<2x16xf32>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

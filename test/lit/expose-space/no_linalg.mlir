// RUN: %pruner_opt -p 'builtin.module(pruner-expose-space{target=sm_90})' %s > %t.out
// RUN: %mlir_opt %s > %t.ref
// RUN: diff %t.ref %t.out

// A module without linalg ops comes out exactly as it went in.
func.func @add(%a: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<16xf32> {
  %c = arith.addf %a, %b : tensor<16xf32>
  return %c : tensor<16xf32>
}

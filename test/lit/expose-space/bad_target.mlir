// RUN: not %pruner_opt -p 'builtin.module(pruner-expose-space{target=sm_42})' %s 2>&1 | FileCheck %s

// An unknown target fails the pass, and the error lists the accepted values.
// CHECK: error: pruner-expose-space: unknown target 'sm_42'; valid values:
// CHECK-SAME: h200
// CHECK-SAME: sm_80
// CHECK-SAME: sm_90
func.func @f(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

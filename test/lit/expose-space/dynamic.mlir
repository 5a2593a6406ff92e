// RUN: %pruner_opt -p 'builtin.module(pruner-expose-space{target=sm_90})' %s -verify-diagnostics -split-input-file | FileCheck %s

// Ops pruner cannot tune stay untouched, with a remark saying why; the pass succeeds.

// CHECK-LABEL: func.func @dynamic
// CHECK-NOT: pruner.space
// CHECK: return
func.func @dynamic(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>, %c: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-remark @+1 {{pruner: not tunable: linalg.matmul: dynamic shape tensor<?x64xf32> of operand 0 (static shapes only)}}
  %r = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x64xf32>)
                     outs(%c : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}

// -----

// CHECK-LABEL: func.func @buffers
// CHECK-NOT: pruner.space
// CHECK: return
func.func @buffers(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-remark @+1 {{pruner: not tunable: linalg.matmul: operand 0 is a memref: buffer semantics are not tuned}}
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @sine
// CHECK-NOT: pruner.space
// CHECK: return
func.func @sine(%x: tensor<64xf32>, %o: tensor<64xf32>) -> tensor<64xf32> {
  // expected-remark @+1 {{pruner: not tunable: linalg.generic: unsupported body op math.sin}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%o : tensor<64xf32>) {
  ^bb0(%v: f32, %u: f32):
    %t = math.sin %v : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// CHECK-LABEL: func.func @pool
// CHECK-NOT: pruner.space
// CHECK: return
func.func @pool(%i: tensor<1x8x8x4xf32>, %k: tensor<2x2xf32>, %o: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-remark @+1 {{pruner: not tunable: linalg.pooling_nhwc_max: unsupported named op}}
  %r = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%i, %k : tensor<1x8x8x4xf32>, tensor<2x2xf32>)
         outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// A linalg op that is not a structured op (no indexing maps) gets the same remark; the
// body ops of a generic (linalg.yield, linalg.index) are not ops to tune and get none.
// CHECK-LABEL: func.func @softmax
// CHECK-NOT: pruner.space
// CHECK: return
func.func @softmax(%a: tensor<2x16xf32>, %c: tensor<2x16xf32>) -> tensor<2x16xf32> {
  // expected-remark @+1 {{pruner: not tunable: linalg.softmax is not a structured linalg op (no indexing maps to tile)}}
  %r = linalg.softmax dimension(1) ins(%a : tensor<2x16xf32>) outs(%c : tensor<2x16xf32>) -> tensor<2x16xf32>
  return %r : tensor<2x16xf32>
}

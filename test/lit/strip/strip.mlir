// RUN: %pruner_opt -p 'builtin.module(pruner-expose-space{target=sm_90}, pruner-strip)' %examples/model.mlir | FileCheck %s
// RUN: %pruner_opt -p 'builtin.module(pruner-strip)' %s | FileCheck %s --check-prefix=HAND
// RUN: %pruner_opt -p 'builtin.module(pruner-expose-space{target=sm_90}, pruner-strip)' %examples/model.mlir > %t.stripped
// RUN: %mlir_opt %examples/model.mlir > %t.ref
// RUN: diff %t.ref %t.stripped

// pruner-strip removes every pruner.* attribute (spaces, configs, markers, on any op),
// keeps every other attribute, and after expose-space gives back the input exactly.

// CHECK-NOT: pruner.
// CHECK: func.func @transformer_layer
// CHECK-NOT: pruner.
// CHECK: func.func @resnet_block
// CHECK-NOT: pruner.

// HAND-NOT: pruner.
// HAND: module attributes {other.keep = 1 : i64}
// HAND-NOT: pruner.
// HAND: func.func @f
// HAND-SAME: attributes {other.note = "kept"}
// HAND-NOT: pruner.
// HAND: linalg.matmul {other.tag} ins
// HAND-NOT: pruner.
module attributes {pruner.tuned = true, other.keep = 1} {
  func.func @f(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32>
      attributes {pruner.study = "x", other.note = "kept"} {
    %r = linalg.matmul {pruner.config = {workgroup = [8, 8, 0], reduction = [0, 0, 8], thread = [1, 1, 0],
                                         promote_operands = [], vector_width = 1},
                        pruner.apply_0, other.tag}
           ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
    return %r : tensor<8x8xf32>
  }
}

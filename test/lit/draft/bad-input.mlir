// Bad input to pruner-draft: untunable linalg ops are skipped with a remark naming the op,
// its location and why (the fill is fused silently); unparsable IR and missing files
// fail with a message naming the file.
// RUN: pruner-draft %s --target=h100 --top=1 2>&1 | FileCheck %s
// RUN: echo 'func.func @f( {' > %t.bad.mlir
// RUN: not pruner-draft %t.bad.mlir 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: not pruner-draft %t.missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: echo 'func.func @g() { return }' > %t.none.mlir
// RUN: pruner-draft %t.none.mlir 2>&1 | FileCheck %s --check-prefix=NONE

// CHECK-DAG: remark: loc("{{.*}}bad-input.mlir":[[@LINE+13]]:{{[0-9]+}}): skipped: linalg.matmul: dynamic shape tensor<?x64xf32> of operand 0
// CHECK-DAG: remark: loc("{{.*}}bad-input.mlir":[[@LINE+19]]:{{[0-9]+}}): skipped: linalg.matmul: operand 0 dimension 0 has size 0
// CHECK-NOT: linalg.fill
// CHECK: no tunable linalg ops

// PARSE: bad.mlir":1:{{[0-9]+}}): error:
// PARSE: pruner-draft: '{{.*}}bad.mlir' does not parse

// MISSING: pruner-draft: cannot read '{{.*}}missing.mlir': No such file or directory

// NONE: no tunable linalg ops

func.func @dyn(%a: tensor<?x64xf32>, %b: tensor<64x32xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x32xf32>) outs(%c : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}

func.func @empty(%a: tensor<0x8xf32>, %b: tensor<8x16xf32>, %c: tensor<0x16xf32>) -> tensor<0x16xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%c : tensor<0x16xf32>) -> tensor<0x16xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<0x8xf32>, tensor<8x16xf32>) outs(%f : tensor<0x16xf32>) -> tensor<0x16xf32>
  return %0 : tensor<0x16xf32>
}

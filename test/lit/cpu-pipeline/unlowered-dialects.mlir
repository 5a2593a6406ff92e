// Ops the host lowering has no LLVM conversion for: a complex matmul (complex.mul and
// complex.add after linalg-to-loops). pruner-cpu-pipeline exited 0 with them in its
// output, which mlir-translate then refused ("Dialect 'complex' not found"); now an error
// at the op that produced them. (omp.* ops stay: mlir-translate takes them.)
// math.erf (GELU) has no LLVM intrinsic: it failed the same way until the lowering ran
// convert-math-to-libm after convert-math-to-llvm (docs/host.md), and now becomes a call
// of libm's erff that mlir-translate takes; math.exp keeps its LLVM intrinsic.
// RUN: split-file %s %t
// RUN: not %pruner_opt -p 'builtin.module(pruner-cpu-pipeline{target=host})' %t/complex.mlir 2>&1 | FileCheck %s --check-prefix=COMPLEX
// RUN: %pruner_opt -p 'builtin.module(pruner-cpu-pipeline{target=host})' %t/erf.mlir -o %t/erf.ll.mlir
// RUN: FileCheck %s --check-prefix=ERF < %t/erf.ll.mlir
// RUN: mlir-translate --mlir-to-llvmir %t/erf.ll.mlir -o /dev/null
// COMPLEX: complex.mlir:2:8: error: pruner-cpu-pipeline: complex.mul is left unlowered: the host lowering has no conversion of it to the LLVM dialect
// ERF-DAG: llvm.func @erff(f32) -> f32
// ERF-DAG: llvm.call @erff
// ERF-DAG: llvm.intr.exp
// ERF-NOT: math.

//--- complex.mlir
func.func @f(%a: tensor<8x4xcomplex<f32>>, %b: tensor<4x8xcomplex<f32>>, %c: tensor<8x8xcomplex<f32>>) -> tensor<8x8xcomplex<f32>> {
  %r = linalg.matmul ins(%a, %b : tensor<8x4xcomplex<f32>>, tensor<4x8xcomplex<f32>>) outs(%c : tensor<8x8xcomplex<f32>>) -> tensor<8x8xcomplex<f32>>
  return %r : tensor<8x8xcomplex<f32>>
}
//--- erf.mlir
func.func @f(%a: tensor<16x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<16x32xf32>) outs(%c : tensor<16x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %e = math.erf %x : f32
    %x2 = math.exp %e : f32
    linalg.yield %x2 : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

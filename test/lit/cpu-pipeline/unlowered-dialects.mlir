// Ops the host lowering has no LLVM conversion for: a complex matmul (complex.mul and
// complex.add after linalg-to-loops) and math.erf. pruner-cpu-pipeline exited 0 with them
// in its output, which mlir-translate then refused ("Dialect 'complex' not found"); now
// an error at the op that produced them. (omp.* ops stay: mlir-translate takes them.)
// RUN: split-file %s %t
// RUN: not %pruner_opt -p 'builtin.module(pruner-cpu-pipeline{target=host})' %t/complex.mlir 2>&1 | FileCheck %s --check-prefix=COMPLEX
// RUN: not %pruner_opt -p 'builtin.module(pruner-cpu-pipeline{target=host})' %t/erf.mlir 2>&1 | FileCheck %s --check-prefix=ERF
// COMPLEX: complex.mlir:2:8: error: pruner-cpu-pipeline: complex.mul is left unlowered: the host lowering has no conversion of it to the LLVM dialect
// ERF: erf.mlir:5:10: error: pruner-cpu-pipeline: math.erf is left unlowered

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
    linalg.yield %e : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

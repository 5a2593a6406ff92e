// An op the NVVM lowering has no conversion for (arithmetic on f8, left to "the ordinary
// way" without a config) is an error naming the op and its kernel before
// gpu-module-to-binary; LLVM's translation failed with "LLVM Translation failed for
// operation: builtin.unrealized_conversion_cast" at <unknown>:0 and a dump of the kernel.
// RUN: not %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{chip=sm_90 format=isa})' %s \
// RUN:   2>&1 | FileCheck %s
// CHECK: error: pruner-gpu-pipeline: arith.mulf is left in the kernel of @f_kernel unlowered
// CHECK-NOT: LLVM Translation failed
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @f(%A: tensor<64x32xf8E4M3FN>, %B: tensor<32x64xf8E4M3FN>,
             %C: tensor<64x64xf8E4M3FN>) -> tensor<64x64xf8E4M3FN> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN>)
      outs(%C : tensor<64x64xf8E4M3FN>) {
  ^bb0(%x: f8E4M3FN, %y: f8E4M3FN, %o: f8E4M3FN):
    %m = arith.mulf %x, %y : f8E4M3FN
    %s = arith.addf %m, %o : f8E4M3FN
    linalg.yield %s : f8E4M3FN
  } -> tensor<64x64xf8E4M3FN>
  return %r : tensor<64x64xf8E4M3FN>
}

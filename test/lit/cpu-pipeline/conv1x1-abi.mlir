// A 1x1 conv that pruner-tune tuned as a matmul (its default, docs/tune.md) keeps the
// conv's C interface: it writes its output argument in place and returns nothing,
// as the untuned module's does (docs/host.md, "ABI"). The rewrite returns
// expand_shape(matmul(collapse_shape(%out))); the result is equal to %out only once the
// kernel's own result is dropped, so it was kept, the deallocation pipeline copied %out
// into a new buffer per call, and _mlir_ciface_conv took a result descriptor first: a
// caller written for the untuned signature crashed (a review, 2026-12-06).
// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config{target=host})' %s | FileCheck %s
// RUN: %pruner_opt -p 'builtin.module(pruner-cpu-pipeline{target=host c-interface=true})' %s \
// RUN:   | FileCheck %s --check-prefix=ABI

// CHECK-LABEL: func.func @conv(
// CHECK-SAME: %{{.*}}: memref<1x8x8x16xf32>, %{{.*}}: memref<1x1x16x32xf32>, %[[OUT:.*]]: memref<1x8x8x32xf32>) {
// CHECK: %[[C:.*]] = memref.collapse_shape %[[OUT]]
// CHECK: call @__pruner_host_kernel_0(%{{.*}}, %{{.*}}, %[[C]])
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: return{{$}}
// ABI-NOT: llvm.func @malloc
// ABI: llvm.func @_mlir_ciface_conv(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// ABI-NOT: llvm.func @malloc
func.func @conv(%arg0: tensor<1x8x8x16xf32>, %arg1: tensor<1x1x16x32xf32>, %arg2: tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %a = tensor.collapse_shape %arg0 [[0, 1, 2], [3]] : tensor<1x8x8x16xf32> into tensor<64x16xf32>
  %b = tensor.collapse_shape %arg1 [[0, 1, 2], [3]] : tensor<1x1x16x32xf32> into tensor<16x32xf32>
  %c = tensor.collapse_shape %arg2 [[0, 1, 2], [3]] : tensor<1x8x8x32xf32> into tensor<64x32xf32>
  %f = linalg.fill ins(%cst : f32) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  %m = linalg.matmul {pruner.config = {workgroup = [64, 32, 0], reduction = [0, 0, 16], thread = [4, 8, 0], promote_operands = [], vector_width = 1}}
      ins(%a, %b : tensor<64x16xf32>, tensor<16x32xf32>) outs(%f : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = tensor.expand_shape %m [[0, 1, 2], [3]] output_shape [1, 8, 8, 32] : tensor<64x32xf32> into tensor<1x8x8x32xf32>
  return %r : tensor<1x8x8x32xf32>
}

// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config)' -split-input-file %s | FileCheck %s

// A configured matmul whose only user is an unconfigured elementwise bias add: one
// kernel. The bias add is tiled with the matmul's tiles, matmul and fill are fused into
// it; the accumulator is a register iter_arg of the K loop, the bias is added before the
// only store, and no temporary C buffer is allocated.
// CHECK-LABEL: func.func @mm_bias
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c2{{[_0-9]*}}, %{{.*}} = %c2{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}}) threads(%{{.*}}) in (%{{.*}} = %c8{{[_0-9]*}}, %{{.*}} = %c8{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}})
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<2x4xf32>)
// CHECK: vector.fma
// CHECK: arith.addf {{.*}} : vector<2x4xf32>
// CHECK: vector.store
// CHECK-NOT: gpu.launch
// CHECK-NOT: linalg.
// CHECK: return
func.func @mm_bias(%A: tensor<32x48xf32>, %B: tensor<48x64xf32>, %bias: tensor<64xf32>, %C: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %mm = linalg.matmul {pruner.config = {workgroup = [16, 32, 0], reduction = [0, 0, 16], thread = [2, 4, 0], promote_operands = [], vector_width = 4}}
      ins(%A, %B : tensor<32x48xf32>, tensor<48x64xf32>) outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<32x64xf32>, tensor<64xf32>) outs(%C : tensor<32x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

// -----

// A consumer with its own config keeps its own kernel (two launches).
// CHECK-LABEL: func.func @mm_bias_configured
// CHECK: gpu.launch
// CHECK: gpu.launch
func.func @mm_bias_configured(%A: tensor<32x48xf32>, %B: tensor<48x64xf32>, %bias: tensor<64xf32>, %C: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %mm = linalg.matmul {pruner.config = {workgroup = [16, 32, 0], reduction = [0, 0, 16], thread = [2, 4, 0], promote_operands = [], vector_width = 4}}
      ins(%A, %B : tensor<32x48xf32>, tensor<48x64xf32>) outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"],
      pruner.config = {workgroup = [8, 64], reduction = [0, 0], thread = [1, 4], promote_operands = [], vector_width = 4}}
      ins(%mm, %bias : tensor<32x64xf32>, tensor<64xf32>) outs(%C : tensor<32x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

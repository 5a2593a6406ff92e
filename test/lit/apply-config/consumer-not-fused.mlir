// A fusible elementwise consumer (the matmul's only user, no config of its own) after a
// config whose schedule fuses no consumer (tensor cores, split-K, a cross-thread
// reduction, promoted operands): the matmul is built alone, the consumer gets a remark and
// stays as it is, like any op without a config. Before, the consumer was tagged for fusion
// and the schedule refused it: a valid config failed the pass.
// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config)' -split-input-file -verify-diagnostics %s | FileCheck %s

// The tensor-core K loop, outlined before the function.
// CHECK: func.func private @{{.*}}mma_steps
// CHECK: nvgpu.mma.sync
// CHECK-LABEL: func.func @mma_relu
// CHECK: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
func.func @mma_relu(%A: tensor<64x64xf16>, %B: tensor<64x64xf16>, %C: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [16, 16, 0], promote_operands = [], vector_width = 1, mma = 1}} ins(%A, %B : tensor<64x64xf16>, tensor<64x64xf16>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  // expected-remark @+1 {{elementwise consumer of linalg.matmul not fused into its kernel: the config uses tensor cores (mma), whose schedule fuses no consumer; give it a pruner.config of its own}}
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %z : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}

// -----

// CHECK-LABEL: func.func @split_k_relu
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
func.func @split_k_relu(%A: tensor<1x2048xf32>, %B: tensor<2048x64xf32>, %C: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<1x64xf32>) -> tensor<1x64xf32>
  %r = linalg.matmul {pruner.config = {workgroup = [1, 64, 0], reduction = [0, 0, 8], thread = [1, 2, 0], promote_operands = [], vector_width = 2, split_k = 8}} ins(%A, %B : tensor<1x2048xf32>, tensor<2048x64xf32>) outs(%f : tensor<1x64xf32>) -> tensor<1x64xf32>
  %e = tensor.empty() : tensor<1x64xf32>
  // expected-remark @+1 {{elementwise consumer of linalg.matmul not fused into its kernel: the config uses split-K, whose schedule fuses no consumer}}
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<1x64xf32>) outs(%e : tensor<1x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}

// -----

// CHECK-LABEL: func.func @cross_thread_relu
// CHECK: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
func.func @cross_thread_relu(%A: tensor<1x2048xf32>, %B: tensor<2048x64xf32>, %C: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<1x64xf32>) -> tensor<1x64xf32>
  %r = linalg.matmul {pruner.config = {workgroup = [1, 8, 0], reduction = [0, 0, 4], thread = [1, 8, 0], promote_operands = [], vector_width = 1, reduction_threads = 32}} ins(%A, %B : tensor<1x2048xf32>, tensor<2048x64xf32>) outs(%f : tensor<1x64xf32>) -> tensor<1x64xf32>
  %e = tensor.empty() : tensor<1x64xf32>
  // expected-remark @+1 {{the config uses a cross-thread reduction, whose schedule fuses no consumer}}
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<1x64xf32>) outs(%e : tensor<1x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}

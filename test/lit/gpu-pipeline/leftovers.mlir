// What pruner-apply-config leaves is lowered the ordinary way, so the module still
// becomes GPU code that translates to LLVM IR (docs/schedule.md, "pruner-gpu-pipeline").
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{format=isa})' -split-input-file %s | FileCheck %s
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{format=isa})' %s -o %t.mlir
// RUN: mlir-translate --mlir-to-llvmir %t.mlir | FileCheck %s --check-prefix=LLVM
// LLVM: define {{.*}} @dynamic(
// LLVM: define {{.*}} @row_sum(
// LLVM: define {{.*}} @bmm_exp(

// An op without a config (here a dynamic-shape matmul, which pruner-tune skips) next to a
// configured one: before, the NVVM lowering rewrote the matmul's body on the host and its
// verifier failed the whole module ("expected add/mul op in the body"). Now it becomes a
// kernel of MLIR's parallel-loop mapping beside the configured one.
// CHECK-LABEL: llvm.func @dynamic(
// CHECK-NOT: linalg.
// CHECK-COUNT-2: gpu.launch_func
// CHECK-NOT: linalg.
// CHECK: gpu.binary @dynamic_kernel
// CHECK: gpu.binary @dynamic_kernel_0
func.func @dynamic(%A: tensor<?x?xf32>, %B: tensor<?x?xf32>, %C: tensor<?x?xf32>, %X: tensor<128x256xf32>, %O: tensor<128x256xf32>) -> (tensor<?x?xf32>, tensor<128x256xf32>) {
  %m = linalg.matmul ins(%A, %B : tensor<?x?xf32>, tensor<?x?xf32>) outs(%C : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"],
      pruner.config = {workgroup = [16, 128], reduction = [0, 0], thread = [1, 4], promote_operands = [], vector_width = 4}}
      ins(%X : tensor<128x256xf32>) outs(%O : tensor<128x256xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<128x256xf32>
  return %m, %r : tensor<?x?xf32>, tensor<128x256xf32>
}

// -----

// A reduction's init fill is fused into its kernel like a contraction's; before, it
// stayed a linalg.fill on the host, and the output could not be translated.
// CHECK-LABEL: llvm.func @row_sum(
// CHECK-NOT: linalg.fill
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary @row_sum_kernel
// CHECK-NOT: linalg.fill
func.func @row_sum(%X: tensor<64x32xf32>) -> tensor<64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"],
                       pruner.config = {promote_operands = [], reduction = [0, 32], thread = [2, 0], vector_width = 2 : i64, workgroup = [64, 0]}}
      ins(%X : tensor<64x32xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// A contraction accumulating into an uninitialised tensor with a fused consumer: the
// kernel needs a private accumulator, which bufferization filled with a memref.copy that
// lowered to a call of the host runtime's memrefCopy inside the gpu.module ("'llvm.call'
// op 'memrefCopy' does not reference a symbol", at an unknown location). Copies are now
// linalg.copy, converted to loops inside the kernel.
// CHECK-LABEL: llvm.func @bmm_exp(
// CHECK-NOT: memrefCopy
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary @bmm_exp_kernel
// CHECK-NOT: memrefCopy
func.func @bmm_exp(%A: tensor<8x3x100xf32>, %B: tensor<8x100x3xf32>) -> tensor<8x3x3xf32> {
  %e = tensor.empty() : tensor<8x3x3xf32>
  %m = linalg.batch_matmul {pruner.config = {promote_operands = [], reduction = [0, 0, 0, 50], thread = [2, 1, 1, 0], vector_width = 1 : i64, workgroup = [8, 3, 3, 0]}}
      ins(%A, %B : tensor<8x3x100xf32>, tensor<8x100x3xf32>) outs(%e : tensor<8x3x3xf32>) -> tensor<8x3x3xf32>
  %e2 = tensor.empty() : tensor<8x3x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%m : tensor<8x3x3xf32>) outs(%e2 : tensor<8x3x3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %v = math.exp %x : f32
    linalg.yield %v : f32
  } -> tensor<8x3x3xf32>
  return %r : tensor<8x3x3xf32>
}

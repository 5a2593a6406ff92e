// Two configured matmuls that accumulate into one zero-filled tensor (what CSE leaves of
// two fills): each kernel gets its own fill. The fill used to be shared: the first
// kernel's fusion cloned it with both ops' tags, the second op's tag then matched two
// fills and its schedule failed ("could not find next producer to fuse into container"),
// on a module pruner-tune had written.
// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config{gpu-mapping=false})' %s | FileCheck %s
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{format=isa})' %s | FileCheck %s --check-prefix=PIPE

// CHECK-LABEL: func.func @shared_fill
// CHECK-NOT: linalg.
// CHECK: scf.forall ({{.*}}) in (2, 2)
// CHECK: scf.forall ({{.*}}) in (8, 8)
// CHECK: scf.forall ({{.*}}) in (2, 2)
// CHECK: scf.forall ({{.*}}) in (8, 8)
// CHECK-NOT: linalg.
// CHECK: return
// PIPE-COUNT-2: gpu.launch_func
func.func @shared_fill(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>, %b2: tensor<32x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %0 = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], promote_operands = [], vector_width = 1}} ins(%a, %b : tensor<64x32xf32>, tensor<32x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], promote_operands = [0, 1], vector_width = 1}} ins(%a, %b2 : tensor<64x32xf32>, tensor<32x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0, %1 : tensor<64x64xf32>, tensor<64x64xf32>
}

// Split-K over blocks (split_k = 4, docs/schedule.md): two kernels. The partial kernel
// runs the slices on grid y, each writing its partial results to a device workspace (4 x
// the output, allocated and freed through the GPU runtime around the launches); the
// combining kernel, launched after it, folds the four partials into the output, the fill
// fused into it. PTX needs no toolkit: this runs everywhere.
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{format=isa})' %s | FileCheck %s

// The decode GEMV shape of GPT-2 (1x768 . 768x2304, f16 inputs, f32 output): 9 blocks of 256
// outputs, times 4 slices of 192 K each.
// CHECK-LABEL: llvm.func @gemv(
// CHECK-NOT: @malloc
// CHECK: llvm.call @mgpuMemAlloc
// CHECK: gpu.launch_func {{ *}}@gemv_kernel::@gemv_kernel blocks in ({{.*}}) threads in ({{.*}}) {{.*}}args(
// CHECK: gpu.launch_func {{ *}}@gemv_kernel_0::@gemv_kernel blocks in ({{.*}}) threads in ({{.*}}) {{.*}}args(
// CHECK: llvm.call @mgpuMemFree
// The partial kernel: vector loads of A and B, FMAs, 16-byte stores of its partials.
// CHECK: gpu.binary @gemv_kernel
// CHECK-SAME: .maxntid 64, 1, 1
// CHECK-SAME: ld.global.v4.b16
// CHECK-SAME: cvt.f32.f16
// CHECK-SAME: fma.rn.f32
// CHECK-SAME: st.global.v4.b32
// The combine: four 16-byte partial loads per thread, adds, one 16-byte store.
// CHECK: gpu.binary @gemv_kernel_0
// CHECK-SAME: .maxntid 64, 1, 1
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: add.rn.f32
// CHECK-SAME: st.global.v4.b32
func.func @gemv(%A: tensor<1x768xf16>, %B: tensor<768x2304xf16>, %C: tensor<1x2304xf32>) -> tensor<1x2304xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<1x2304xf32>) -> tensor<1x2304xf32>
  %r = linalg.matmul {pruner.config = {workgroup = [1, 256, 0], reduction = [0, 0, 8], thread = [1, 4, 0], promote_operands = [], vector_width = 4, split_k = 4}}
      ins(%A, %B : tensor<1x768xf16>, tensor<768x2304xf16>) outs(%f : tensor<1x2304xf32>) -> tensor<1x2304xf32>
  return %r : tensor<1x2304xf32>
}

// A row sum over 16 long rows (16 x 65536): 16 outputs cannot fill a GPU; 64 slices of 1024
// elements give 64 blocks of 16 threads, one row each. vector_width = 1 (a thread tile of 1
// row allows no more), yet both kernels are vectorized: the partial reads 16-byte vectors
// of its row and keeps its sum in a register, one store at the end (scalar, it stored the
// partial back after every element: 17 stores for 16 adds).
// CHECK-LABEL: llvm.func @rowsum(
// CHECK: llvm.call @mgpuMemAlloc
// CHECK: gpu.launch_func {{ *}}@rowsum_kernel::@rowsum_kernel
// CHECK: gpu.launch_func {{ *}}@[[COMBINE:rowsum_kernel_[0-9]+]]::@rowsum_kernel
// CHECK: llvm.call @mgpuMemFree
// CHECK: gpu.binary @rowsum_kernel
// CHECK-SAME: .maxntid 16, 1, 1
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: add.rn.f32
// CHECK-NOT: st.global
// CHECK-SAME: bra
// CHECK-SAME: st.global.b32
// CHECK: gpu.binary @[[COMBINE]]
// CHECK-SAME: .maxntid 16, 1, 1
func.func @rowsum(%X: tensor<16x65536xf32>, %Y: tensor<16xf32>) -> tensor<16xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%Y : tensor<16xf32>) -> tensor<16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(r, c) -> (r, c)>, affine_map<(r, c) -> (r)>],
      iterator_types = ["parallel", "reduction"],
      pruner.config = {workgroup = [16, 0], reduction = [0, 8], thread = [1, 0], promote_operands = [], vector_width = 1, split_k = 64}}
      ins(%X : tensor<16x65536xf32>) outs(%f : tensor<16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

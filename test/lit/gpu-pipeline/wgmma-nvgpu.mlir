// wgmma (sm_90a) exists in MLIR 22 only as hand-written nvgpu ops: nothing from linalg or
// vector.contract reaches nvgpu.warpgroup.mma (docs/schedule.md, "Tensor cores"). This is
// the smallest such kernel (descriptors passed in as i64, no TMA): it lowers to
// wgmma.mma_async m64n128k16 f32 += f16 * f16 (128x128x64 in 8 ops). A watch on upstream,
// not a schedule of ours.
// RUN: %pruner_opt %s -pass-pipeline='builtin.module(gpu.module(convert-nvgpu-to-nvvm,convert-vector-to-llvm,convert-gpu-to-nvvm,canonicalize,cse,convert-nvvm-to-llvm,reconcile-unrealized-casts),gpu-module-to-binary{format=isa})' | FileCheck %s

// CHECK: gpu.binary @k
// CHECK-SAME: .target sm_90a
// CHECK-SAME: wgmma.fence.sync.aligned
// CHECK-SAME: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK-SAME: wgmma.commit_group.sync.aligned
// CHECK-SAME: wgmma.wait_group.sync.aligned
module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
    gpu.func @wg(%ai: i64, %bi: i64, %out: memref<128x128xf32>) kernel {
      %a = builtin.unrealized_conversion_cast %ai : i64 to !nvgpu.warpgroup.descriptor<tensor = memref<128x64xf16, 3>>
      %b = builtin.unrealized_conversion_cast %bi : i64 to !nvgpu.warpgroup.descriptor<tensor = memref<64x128xf16, 3>>
      %acc = nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<128x128xf32>>
      %d = nvgpu.warpgroup.mma %a, %b, %acc {transposeB} : <tensor = memref<128x64xf16, 3>>, <tensor = memref<64x128xf16, 3>>, <fragmented = vector<128x128xf32>> -> <fragmented = vector<128x128xf32>>
      nvgpu.warpgroup.mma.store %d, %out : <fragmented = vector<128x128xf32>> to memref<128x128xf32>
      gpu.return
    }
  }
}

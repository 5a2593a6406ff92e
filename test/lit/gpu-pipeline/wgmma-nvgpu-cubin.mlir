// REQUIRES: ptxas
// The wgmma kernel of wgmma-nvgpu.mlir through ptxas for sm_90a (cubin = ELF).
// RUN: %pruner_opt %s -pass-pipeline='builtin.module(gpu.module(convert-nvgpu-to-nvvm,convert-vector-to-llvm,convert-gpu-to-nvvm,canonicalize,cse,convert-nvvm-to-llvm,reconcile-unrealized-casts),gpu-module-to-binary{format=bin})' | FileCheck %s

// CHECK: gpu.binary @k {{.*}}chip = "sm_90a"{{.*}}bin = "\7FELF
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

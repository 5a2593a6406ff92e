// The draft's printed list for a small module: one line per kept config, fastest first,
// and the symbols that explain it.
// RUN: pruner-draft %s --target=h100 --top=3 | FileCheck %s
// RUN: pruner-draft %s --target=h100 --top=2 --json | FileCheck %s --check-prefix=JSON
// RUN: not pruner-draft %s --target=nosuchgpu 2>&1 | FileCheck %s --check-prefix=BADTARGET

// CHECK: target: sm_90:h100-sxm:132sm
// CHECK: op 0: linalg.matmul matmul:256x256x256:f32,f32->f32
// CHECK-NEXT: space: {{[0-9]+}} valid configs
// CHECK-NEXT: rank  config pred_us   GFLOP/s   occ  waves   dram_MB  regs  smem_B  bound
// CHECK-NEXT: 1  wg{{[0-9]+}}x{{[0-9]+}} r{{[0-9]+}} t{{[0-9]+}}x{{[0-9]+}} p{{[-01]+}} v{{[124]}} {{[0-9.]+}} {{.*}} {{(compute|memory|shared|launch)}}
// CHECK-NEXT: 2  wg
// CHECK-NEXT: 3  wg
// CHECK-NOT: op 1:

// JSON: "target": "sm_90:h100-sxm:132sm"
// JSON: "workload": "matmul:256x256x256:f32,f32->f32"
// JSON: "top": [
// JSON: "config": "{workgroup = [
// JSON: "predicted_us":
// JSON: "occupancy":
// JSON: "bound":
// JSON: "config": "{workgroup = [

// BADTARGET: pruner-draft: {{.*}}nosuchgpu

func.func @mm(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<256x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<256x256xf32>) -> tensor<256x256xf32>
  %c = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>)
                     outs(%acc : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %c : tensor<256x256xf32>
}

// Split-K over blocks (split_k = 8, docs/schedule.md): apply-config leaves two gpu.launch
// ops, the partial kernel's grid [2, 8, 1] (the slices on y) and the combine's [2, 1, 1],
// around a device workspace for the partials: bufferization makes it a host memref.alloc,
// which the kernels could not read, so it becomes an async gpu.alloc (waited for) and is
// freed by gpu.dealloc before the function returns.
// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config{target=sm_90})' %s | FileCheck %s

// CHECK-LABEL: func.func @gemv
// CHECK-NOT: memref.alloc
// CHECK: %[[T0:.*]] = gpu.wait async
// CHECK: %[[WS:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]] () : memref<8x1x256xf32>
// CHECK: gpu.wait [%[[T1]]]
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c2{{.*}}, {{.*}} = %c8{{.*}}, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c32{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}})
// CHECK: memref.subview %[[WS]]
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c2{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c32{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}})
// CHECK: vector.load %[[WS]]
// CHECK: %[[T2:.*]] = gpu.wait async
// CHECK: %[[T3:.*]] = gpu.dealloc async [%[[T2]]] %[[WS]]
// CHECK: gpu.wait [%[[T3]]]
// CHECK-NEXT: return
func.func @gemv(%A: tensor<1x1024xf16>, %B: tensor<1024x256xf16>, %C: tensor<1x256xf32>) -> tensor<1x256xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<1x256xf32>) -> tensor<1x256xf32>
  %r = linalg.matmul {pruner.config = {workgroup = [1, 128, 0], reduction = [0, 0, 16], thread = [1, 4, 0], promote_operands = [], vector_width = 4, split_k = 8}}
      ins(%A, %B : tensor<1x1024xf16>, tensor<1024x256xf16>) outs(%f : tensor<1x256xf32>) -> tensor<1x256xf32>
  return %r : tensor<1x256xf32>
}

// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config)' %s | FileCheck %s

// An implicit-GEMM conv (promote_operands on a conv_2d_nhwc_hwcf, docs/schedule.md): the
// conv is the GEMM (n, m = oh * ow, f, k = kh * kw * c) over the collapsed filter (72x16)
// and output (1x64x16). Per block: the fill (4 elements per thread), a barrier; then per
// K step of 4 channels: the im2col tile (1x8x4: 8 output columns x 4 channels, one
// element per thread, scalar: its maps have floordiv / mod) built from the input in shared
// memory (address space 3), a barrier; the filter's 4x16 tile copied cooperatively (v4),
// a barrier; the compute reading both tiles from shared memory; a barrier before the next
// step overwrites them. A missing barrier is a race the host check cannot see: these
// CHECKs are the guard.
// CHECK-LABEL: func.func @conv_igemm
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] : memref<3x3x8x16xf32> into memref<72x16xf32>
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3]] : memref<1x8x8x16xf32> into memref<1x64x16xf32>
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c8, {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c4, {{.*}} = %c8, {{.*}} = %c1)
// CHECK: vector.store %{{.*}} : memref<1x1x4xf32, strided<[1024, 16, 1], offset: ?>>, vector<4xf32>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %c72{{.*}} step %c4
// CHECK: memref.get_global @[[IMG:[a-z_0-9]+]] : memref<1x8x4xf32, 3>
// CHECK-NOT: gpu.barrier
// CHECK: memref.load %{{.*}} : memref<1x1x1x1xf32, strided<[800, 80, 8, 1], offset: ?>>
// CHECK-NEXT: memref.store %{{.*}} : memref<1x1x1xf32, strided<[32, 4, 1], offset: ?>, 3>
// CHECK-NEXT: gpu.barrier
// CHECK: memref.get_global @[[B:[a-z_0-9]+]] : memref<256xi8, 3>
// CHECK-NOT: gpu.barrier
// CHECK: vector.store {{.*}} : memref<1x4xf32, strided<[16, 1], offset: ?>, 3>, vector<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK-NOT: vector.store {{.*}}, 3>, vector
// CHECK: vector.load {{.*}} : memref<1x1x4xf32, strided<[32, 4, 1], offset: ?>, 3>, vector<4xf32>
// CHECK-NOT: gpu.barrier
// CHECK: vector.load {{.*}} : memref<4x4xf32, strided<[16, 1], offset: ?>, 3>, vector<4xf32>
// CHECK-NOT: gpu.barrier
// CHECK: vector.fma
// CHECK-NOT: gpu.barrier
// CHECK-NOT: vector.store {{.*}}, 3>, vector
// CHECK: vector.store %{{.*}} : memref<1x1x4xf32, strided<[1024, 16, 1], offset: ?>>, vector<4xf32>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: }
// CHECK-NEXT: gpu.terminator
// CHECK: memref.global "private" @[[IMG]] : memref<1x8x4xf32, 3>
// CHECK: memref.global "private" @[[B]] : memref<256xi8, 3>
func.func @conv_igemm(%I: tensor<1x10x10x8xf32>, %W: tensor<3x3x8x16xf32>, %O: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%O : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
      pruner.config = {workgroup = [1, 1, 8, 16, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 1, 4], thread = [1, 1, 1, 4, 0, 0, 0], promote_operands = [0, 1], vector_width = 4}}
      ins(%I, %W : tensor<1x10x10x8xf32>, tensor<3x3x8x16xf32>) outs(%f : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %r : tensor<1x8x8x16xf32>
}

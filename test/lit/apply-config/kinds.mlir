// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config)' -split-input-file %s | FileCheck %s

// batch_matmul: wg [1, 32, 64] on 4x64x128: grid (128/64, 64/32, 4) = (2, 2, 4), batch on z;
// thread [1, 4, 4]: block (16, 8, 1).
// CHECK-LABEL: func.func @bmm
// CHECK: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c2{{[_0-9]*}}, %{{.*}} = %c2{{[_0-9]*}}, %{{.*}} = %c4{{[_0-9]*}}) threads(%{{.*}}) in (%{{.*}} = %c16{{[_0-9]*}}, %{{.*}} = %c8{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}})
// CHECK: vector.fma
func.func @bmm(%A: tensor<4x64x32xf32>, %B: tensor<4x32x128xf32>, %C: tensor<4x64x128xf32>) -> tensor<4x64x128xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<4x64x128xf32>) -> tensor<4x64x128xf32>
  %r = linalg.batch_matmul {pruner.config = {workgroup = [1, 32, 64, 0], reduction = [0, 0, 0, 8], thread = [1, 4, 4, 0], promote_operands = [], vector_width = 4}}
      ins(%A, %B : tensor<4x64x32xf32>, tensor<4x32x128xf32>) outs(%f : tensor<4x64x128xf32>) -> tensor<4x64x128xf32>
  return %r : tensor<4x64x128xf32>
}

// -----

// conv_2d_nhwc_hwcf (n, oh, ow, f | kh, kw, c): wg [1, 4, 8, 32] on 1x16x16x64:
// grid (64/32, 16/8, 16/4) = (2, 2, 4); thread [1, 1, 2, 4]: block (8, 4, 4).
// CHECK-LABEL: func.func @conv_nhwc
// CHECK: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c2{{[_0-9]*}}, %{{.*}} = %c2{{[_0-9]*}}, %{{.*}} = %c4{{[_0-9]*}}) threads(%{{.*}}) in (%{{.*}} = %c8{{[_0-9]*}}, %{{.*}} = %c4{{[_0-9]*}}, %{{.*}} = %c4{{[_0-9]*}})
// CHECK: vector.fma
func.func @conv_nhwc(%I: tensor<1x18x18x16xf32>, %W: tensor<3x3x16x64xf32>, %O: tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%O : tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
      pruner.config = {workgroup = [1, 4, 8, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 1, 8], thread = [1, 1, 2, 4, 0, 0, 0], promote_operands = [], vector_width = 4}}
      ins(%I, %W : tensor<1x18x18x16xf32>, tensor<3x3x16x64xf32>) outs(%f : tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
  return %r : tensor<1x16x16x64xf32>
}

// -----

// conv_2d_nchw_fchw 7x7 stride 2 (n, f, oh, ow | c, kh, kw): wg [1, 16, 4, 28] on 1x16x28x28:
// grid (28/28 -> not split, 28/4, 16/16 -> not split) = (7, 1, 1); thread [1, 4, 1, 4]:
// block (28/4, 4/1, 16/4) = (7, 4, 4).
// CHECK-LABEL: func.func @conv_nchw_7x7
// CHECK: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c7{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}}) threads(%{{.*}}) in (%{{.*}} = %c7{{[_0-9]*}}, %{{.*}} = %c4{{[_0-9]*}}, %{{.*}} = %c4{{[_0-9]*}})
// CHECK: vector.fma
func.func @conv_nchw_7x7(%I: tensor<1x3x61x61xf32>, %W: tensor<16x3x7x7xf32>, %O: tensor<1x16x28x28xf32>) -> tensor<1x16x28x28xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%O : tensor<1x16x28x28xf32>) -> tensor<1x16x28x28xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>,
      pruner.config = {workgroup = [1, 16, 4, 28, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 1, 7], thread = [1, 4, 1, 4, 0, 0, 0], promote_operands = [], vector_width = 4}}
      ins(%I, %W : tensor<1x3x61x61xf32>, tensor<16x3x7x7xf32>) outs(%f : tensor<1x16x28x28xf32>) -> tensor<1x16x28x28xf32>
  return %r : tensor<1x16x28x28xf32>
}

// -----

// Row max (thread per output row): wg [1, 64] over (b, r): grid (128/64, 12) = (2, 12);
// thread [1, 1]: block (64, 1, 1).
// CHECK-LABEL: func.func @rowmax
// CHECK: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c2{{[_0-9]*}}, %{{.*}} = %c12{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}}) threads(%{{.*}}) in (%{{.*}} = %c64{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}})
// CHECK: arith.maximumf
func.func @rowmax(%X: tensor<12x128x128xf32>, %Y: tensor<12x128xf32>) -> tensor<12x128xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(b, r, c) -> (b, r, c)>, affine_map<(b, r, c) -> (b, r)>],
      iterator_types = ["parallel", "parallel", "reduction"],
      pruner.config = {workgroup = [1, 64, 0], reduction = [0, 0, 32], thread = [1, 1, 0], promote_operands = [], vector_width = 1}}
      ins(%X : tensor<12x128x128xf32>) outs(%Y : tensor<12x128xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %x, %acc : f32
    linalg.yield %m : f32
  } -> tensor<12x128xf32>
  return %r : tensor<12x128xf32>
}

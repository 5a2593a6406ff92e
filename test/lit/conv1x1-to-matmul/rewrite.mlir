// pruner-conv1x1-to-matmul: a 1x1 stride-1 conv_2d_nhwc_hwcf (or conv_2d_nchw_fchw of one
// image) becomes collapse_shape ops, a linalg.matmul at the conv's location and an
// expand_shape back (docs/plugin.md); a fill of the output moves past the reshape. Every
// other conv stays, with a remark saying why.
// RUN: %pruner_opt -p 'builtin.module(pruner-conv1x1-to-matmul)' %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @resnet_1x1
// CHECK-SAME: (%[[I:.*]]: tensor<1x56x56x64xf16>, %[[W:.*]]: tensor<1x1x64x256xf16>)
// CHECK-DAG: %[[Z:.*]] = arith.constant 0.0
// CHECK-DAG: %[[E:.*]] = tensor.empty() : tensor<1x56x56x256xf32>
// CHECK-DAG: %[[A:.*]] = tensor.collapse_shape %[[I]] {{\[}}[0, 1, 2], [3]] : tensor<1x56x56x64xf16> into tensor<3136x64xf16>
// CHECK-DAG: %[[B:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1, 2], [3]] : tensor<1x1x64x256xf16> into tensor<64x256xf16>
// CHECK-DAG: %[[C:.*]] = tensor.collapse_shape %[[E]] {{\[}}[0, 1, 2], [3]] : tensor<1x56x56x256xf32> into tensor<3136x256xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[C]] : tensor<3136x256xf32>)
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<3136x64xf16>, tensor<64x256xf16>) outs(%[[F]] : tensor<3136x256xf32>)
// CHECK: %[[R:.*]] = tensor.expand_shape %[[M]] {{\[}}[0, 1, 2], [3]] output_shape [1, 56, 56, 256] : tensor<3136x256xf32> into tensor<1x56x56x256xf32>
// CHECK-NOT: linalg.conv
// CHECK: return %[[R]]
func.func @resnet_1x1(%in: tensor<1x56x56x64xf16>, %w: tensor<1x1x64x256xf16>) -> tensor<1x56x56x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x56x56x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x56x56x256xf32>) -> tensor<1x56x56x256xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%in, %w : tensor<1x56x56x64xf16>, tensor<1x1x64x256xf16>) outs(%f : tensor<1x56x56x256xf32>) -> tensor<1x56x56x256xf32>
  return %r : tensor<1x56x56x256xf32>
}

// -----

// Accumulating into the output (no fill), a batch of two: M = 2 * 7 * 7 = 98 crosses images.
// A fill with another user stays for that user.
// CHECK-LABEL: func.func @accumulate
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]] : tensor<2x7x7x16xf32> into tensor<98x16xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<98x32xf32>, tensor<32x16xf32>) outs(%{{.*}} : tensor<98x16xf32>)
// CHECK: output_shape [2, 7, 7, 16]
// CHECK-LABEL: func.func @shared_fill
// CHECK: %[[F0:.*]] = linalg.fill {{.*}} -> tensor<2x7x7x16xf32>
// CHECK: linalg.fill {{.*}} -> tensor<98x16xf32>
// CHECK: linalg.matmul
// CHECK: return %{{.*}}, %[[F0]]
func.func @accumulate(%in: tensor<2x7x7x32xf32>, %w: tensor<1x1x32x16xf32>, %o: tensor<2x7x7x16xf32>) -> tensor<2x7x7x16xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%in, %w : tensor<2x7x7x32xf32>, tensor<1x1x32x16xf32>) outs(%o : tensor<2x7x7x16xf32>) -> tensor<2x7x7x16xf32>
  return %r : tensor<2x7x7x16xf32>
}
func.func @shared_fill(%in: tensor<2x7x7x32xf32>, %w: tensor<1x1x32x16xf32>, %o: tensor<2x7x7x16xf32>) -> (tensor<2x7x7x16xf32>, tensor<2x7x7x16xf32>) {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<2x7x7x16xf32>) -> tensor<2x7x7x16xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%in, %w : tensor<2x7x7x32xf32>, tensor<1x1x32x16xf32>) outs(%f : tensor<2x7x7x16xf32>) -> tensor<2x7x7x16xf32>
  return %r, %f : tensor<2x7x7x16xf32>, tensor<2x7x7x16xf32>
}

// -----

// NCHW, one image: the GEMM the other way round, filter F x C times image C x (H*W) into
// output F x (H*W); the fill moves past the reshape as in NHWC.
// CHECK-LABEL: func.func @nchw_1x1
// CHECK-SAME: (%[[I:.*]]: tensor<1x64x56x56xf32>, %[[W:.*]]: tensor<256x64x1x1xf32>, %[[O:.*]]: tensor<1x256x56x56xf32>)
// CHECK-DAG: %[[A:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2, 3]] : tensor<256x64x1x1xf32> into tensor<256x64xf32>
// CHECK-DAG: %[[B:.*]] = tensor.collapse_shape %[[I]] {{\[}}[0, 1], [2, 3]] : tensor<1x64x56x56xf32> into tensor<64x3136xf32>
// CHECK-DAG: %[[C:.*]] = tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2, 3]] : tensor<1x256x56x56xf32> into tensor<256x3136xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[C]] : tensor<256x3136xf32>)
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<256x64xf32>, tensor<64x3136xf32>) outs(%[[F]] : tensor<256x3136xf32>)
// CHECK: %[[R:.*]] = tensor.expand_shape %[[M]] {{\[}}[0, 1], [2, 3]] output_shape [1, 256, 56, 56] : tensor<256x3136xf32> into tensor<1x256x56x56xf32>
// CHECK-NOT: linalg.conv
// CHECK: return %[[R]]
func.func @nchw_1x1(%in: tensor<1x64x56x56xf32>, %w: tensor<256x64x1x1xf32>, %o: tensor<1x256x56x56xf32>) -> tensor<1x256x56x56xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<1x256x56x56xf32>) -> tensor<1x256x56x56xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%in, %w : tensor<1x64x56x56xf32>, tensor<256x64x1x1xf32>) outs(%f : tensor<1x256x56x56xf32>) -> tensor<1x256x56x56xf32>
  return %r : tensor<1x256x56x56xf32>
}

// -----

// NCHW convs that stay convs: two images (one GEMM each), a 3x3 filter.
// CHECK-LABEL: func.func @nchw_kept
// CHECK-COUNT-2: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.matmul
func.func @nchw_kept(%i2: tensor<2x8x7x7xf32>, %w1: tensor<4x8x1x1xf32>, %o2: tensor<2x4x7x7xf32>,
                     %i9: tensor<1x8x9x9xf32>, %w3: tensor<4x8x3x3xf32>, %o7: tensor<1x4x7x7xf32>) -> (tensor<2x4x7x7xf32>, tensor<1x4x7x7xf32>) {
  // expected-remark @below {{pruner: conv kept as a conv, not a GEMM: it is NCHW with 2 images: one GEMM per image, not one GEMM}}
  %a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%i2, %w1 : tensor<2x8x7x7xf32>, tensor<4x8x1x1xf32>) outs(%o2 : tensor<2x4x7x7xf32>) -> tensor<2x4x7x7xf32>
  // expected-remark @below {{pruner: conv kept as a conv, not a GEMM: its filter is 3x3, not 1x1}}
  %b = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%i9, %w3 : tensor<1x8x9x9xf32>, tensor<4x8x3x3xf32>) outs(%o7 : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  return %a, %b : tensor<2x4x7x7xf32>, tensor<1x4x7x7xf32>
}

// -----

// Convs that stay convs.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-4: linalg.conv_2d_nhwc_hwcf
// CHECK-NOT: linalg.matmul
func.func @kept(%i3: tensor<1x9x9x8xf32>, %w3: tensor<3x3x8x4xf32>, %o3: tensor<1x7x7x4xf32>,
                %i2: tensor<1x8x8x8xf32>, %w1: tensor<1x1x8x4xf32>, %o2: tensor<1x4x4x4xf32>,
                %i9: tensor<1x9x9x8xf32>, %o8: tensor<1x8x8x4xf32>) -> (tensor<1x7x7x4xf32>, tensor<1x4x4x4xf32>, tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) {
  // expected-remark @below {{pruner: conv kept as a conv, not a GEMM: its filter is 3x3, not 1x1}}
  %a = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%i3, %w3 : tensor<1x9x9x8xf32>, tensor<3x3x8x4xf32>) outs(%o3 : tensor<1x7x7x4xf32>) -> tensor<1x7x7x4xf32>
  // expected-remark @below {{pruner: conv kept as a conv, not a GEMM: its strides are [2, 2], not [1, 1]}}
  %b = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
     ins(%i2, %w1 : tensor<1x8x8x8xf32>, tensor<1x1x8x4xf32>) outs(%o2 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  // expected-remark @below {{pruner: conv kept as a conv, not a GEMM: its input is 9x9 pixels and its output 8x8}}
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%i9, %w1 : tensor<1x9x9x8xf32>, tensor<1x1x8x4xf32>) outs(%o8 : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  // expected-remark @below {{pruner: conv kept as a conv, not a GEMM: it carries a pruner.config, whose tiles are the conv's loops}}
  %d = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
                                 pruner.config = {workgroup = [1, 1, 8, 4, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 1, 8], thread = [1, 1, 1, 1, 0, 0, 0], promote_operands = [], vector_width = 1}}
     ins(%i2, %w1 : tensor<1x8x8x8xf32>, tensor<1x1x8x4xf32>) outs(%o8 : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  return %a, %b, %c, %d : tensor<1x7x7x4xf32>, tensor<1x4x4x4xf32>, tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>
}

// -----

// A conv on memrefs and one with a dynamic shape are not tunable ops at all.
// CHECK-LABEL: func.func @not_tensors
// CHECK-COUNT-2: linalg.conv_2d_nhwc_hwcf
func.func @not_tensors(%i: memref<1x8x8x8xf32>, %w: memref<1x1x8x4xf32>, %o: memref<1x8x8x4xf32>,
                       %t: tensor<?x8x8x8xf32>, %tw: tensor<1x1x8x4xf32>, %to: tensor<?x8x8x4xf32>) -> tensor<?x8x8x4xf32> {
  // expected-remark @below {{pruner: conv kept as a conv, not a GEMM: linalg.conv_2d_nhwc_hwcf: operand 0 is a memref}}
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%i, %w : memref<1x8x8x8xf32>, memref<1x1x8x4xf32>) outs(%o : memref<1x8x8x4xf32>)
  // expected-remark @below {{pruner: conv kept as a conv, not a GEMM: linalg.conv_2d_nhwc_hwcf: dynamic shape tensor<?x8x8x8xf32> of operand 0}}
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%t, %tw : tensor<?x8x8x8xf32>, tensor<1x1x8x4xf32>) outs(%to : tensor<?x8x8x4xf32>) -> tensor<?x8x8x4xf32>
  return %r : tensor<?x8x8x4xf32>
}

// -----

// Rows past 64 bits: N*H*W is not a shape; the conv stays (a remark, no overflow).
// CHECK-LABEL: func.func @huge
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK-NOT: linalg.matmul
func.func @huge(%in: tensor<4294967296x4294967296x4x8xf32>, %w: tensor<1x1x8x4xf32>, %o: tensor<4294967296x4294967296x4x4xf32>) -> tensor<4294967296x4294967296x4x4xf32> {
  // expected-remark @below {{pruner: conv kept as a conv, not a GEMM: its N*H*W = 4294967296*4294967296*4 does not fit in 64 bits}}
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%in, %w : tensor<4294967296x4294967296x4x8xf32>, tensor<1x1x8x4xf32>) outs(%o : tensor<4294967296x4294967296x4x4xf32>) -> tensor<4294967296x4294967296x4x4xf32>
  return %r : tensor<4294967296x4294967296x4x4xf32>
}

// -----

// A conv of a nested module is that module's (the shared walk, prunerWalkTunableOps): the
// tuner leaves it alone, and so does the rewrite.
// CHECK-LABEL: module @inner
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK-NOT: linalg.matmul
module {
  module @inner {
    func.func @nested(%in: tensor<1x8x8x8xf32>, %w: tensor<1x1x8x4xf32>, %o: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
      // expected-remark @below {{pruner: conv kept as a conv, not a GEMM: linalg.conv_2d_nhwc_hwcf is inside nested module @inner}}
      %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%in, %w : tensor<1x8x8x8xf32>, tensor<1x1x8x4xf32>) outs(%o : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
      return %r : tensor<1x8x8x4xf32>
    }
  }
}

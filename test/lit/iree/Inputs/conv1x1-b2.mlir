// A 1x1 stride-1 conv of batch 2: IREE configures it as a 512x64x32 matmul-shaped generic.
func.func @c1(%I: tensor<2x16x16x32xf32>, %W: tensor<1x1x32x64xf32>) -> tensor<2x16x16x64xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x16x64xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<2x16x16x64xf32>) -> tensor<2x16x16x64xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%I, %W : tensor<2x16x16x32xf32>, tensor<1x1x32x64xf32>) outs(%f : tensor<2x16x16x64xf32>) -> tensor<2x16x16x64xf32>
  return %r : tensor<2x16x16x64xf32>
}

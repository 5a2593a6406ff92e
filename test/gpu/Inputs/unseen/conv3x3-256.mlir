// Unseen by the gpu-sm_90 prior: ResNet-50 conv4_x 3x3, NHWC 1x16x16x256 * 3x3x256x256, f32.
func.func @conv(%act: tensor<1x16x16x256xf32>, %w: tensor<3x3x256x256xf32>) -> tensor<1x14x14x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x14x14x256xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x14x14x256xf32>) -> tensor<1x14x14x256xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
                                 strides = dense<1> : tensor<2xi64>}
      ins(%act, %w : tensor<1x16x16x256xf32>, tensor<3x3x256x256xf32>)
      outs(%c : tensor<1x14x14x256xf32>) -> tensor<1x14x14x256xf32>
  return %r : tensor<1x14x14x256xf32>
}

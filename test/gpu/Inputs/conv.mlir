// Check and dataset workload (docs/gpu-session.md): ResNet-50 conv2_x 3x3 convolution, NHWC
// 1x58x58x64 (1x56x56x64 padded by 1) * 3x3x64x64 -> 1x56x56x64, f32.
func.func @conv(%act: tensor<1x58x58x64xf32>, %w: tensor<3x3x64x64xf32>) -> tensor<1x56x56x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x56x56x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
                                 strides = dense<1> : tensor<2xi64>}
      ins(%act, %w : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>)
      outs(%c : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  return %r : tensor<1x56x56x64xf32>
}

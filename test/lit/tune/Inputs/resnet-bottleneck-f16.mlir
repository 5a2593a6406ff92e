// A ResNet-50 bottleneck (stage 1, f16 activations and weights, f32 accumulation): 1x1
// 64 -> 64, 3x3 64 -> 64 (input padded by the caller), 1x1 64 -> 256.
func.func @bottleneck(%x: tensor<1x56x56x64xf16>, %w1: tensor<1x1x64x64xf16>,
                      %xp: tensor<1x58x58x64xf16>, %w2: tensor<3x3x64x64xf16>,
                      %y: tensor<1x56x56x64xf16>, %w3: tensor<1x1x64x256xf16>)
    -> (tensor<1x56x56x64xf32>, tensor<1x56x56x64xf32>, tensor<1x56x56x256xf32>) {
  %z = arith.constant 0.0 : f32
  %e64 = tensor.empty() : tensor<1x56x56x64xf32>
  %f64 = linalg.fill ins(%z : f32) outs(%e64 : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %a = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w1 : tensor<1x56x56x64xf16>, tensor<1x1x64x64xf16>) outs(%f64 : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %b = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%xp, %w2 : tensor<1x58x58x64xf16>, tensor<3x3x64x64xf16>) outs(%f64 : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %e256 = tensor.empty() : tensor<1x56x56x256xf32>
  %f256 = linalg.fill ins(%z : f32) outs(%e256 : tensor<1x56x56x256xf32>) -> tensor<1x56x56x256xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%y, %w3 : tensor<1x56x56x64xf16>, tensor<1x1x64x256xf16>) outs(%f256 : tensor<1x56x56x256xf32>) -> tensor<1x56x56x256xf32>
  return %a, %b, %c : tensor<1x56x56x64xf32>, tensor<1x56x56x64xf32>, tensor<1x56x56x256xf32>
}

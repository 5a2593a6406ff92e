// MobileNet-V2's depthwise 3x3 convolution of its 28x28 blocks (32 channels expanded 6x)
// at batch 1: 28x28x192, stride 1, input padded to 30x30 (data/host-dw-28x192-intel.jsonl).
func.func @dw(%I: tensor<1x30x30x192xf32>, %F: tensor<3x3x192xf32>, %O: tensor<1x28x28x192xf32>) -> tensor<1x28x28x192xf32> {
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%I, %F : tensor<1x30x30x192xf32>, tensor<3x3x192xf32>) outs(%O : tensor<1x28x28x192xf32>) -> tensor<1x28x28x192xf32>
  return %r : tensor<1x28x28x192xf32>
}

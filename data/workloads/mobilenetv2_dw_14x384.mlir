// MobileNet-V2's depthwise 3x3 convolution of its 14x14 blocks (64 channels expanded 6x)
// at batch 1: 14x14x384, stride 1, input padded to 16x16 (data/host-dw-14x384-intel.jsonl).
func.func @dw(%I: tensor<1x16x16x384xf32>, %F: tensor<3x3x384xf32>, %O: tensor<1x14x14x384xf32>) -> tensor<1x14x14x384xf32> {
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%I, %F : tensor<1x16x16x384xf32>, tensor<3x3x384xf32>) outs(%O : tensor<1x14x14x384xf32>) -> tensor<1x14x14x384xf32>
  return %r : tensor<1x14x14x384xf32>
}

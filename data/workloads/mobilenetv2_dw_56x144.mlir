// MobileNet-V2's depthwise 3x3 convolution of its 56x56 blocks (24 channels expanded 6x)
// at batch 1: 56x56x144, stride 1, input padded to 58x58 (data/host-dw-56x144-intel.jsonl).
func.func @dw(%I: tensor<1x58x58x144xf32>, %F: tensor<3x3x144xf32>, %O: tensor<1x56x56x144xf32>) -> tensor<1x56x56x144xf32> {
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%I, %F : tensor<1x58x58x144xf32>, tensor<3x3x144xf32>) outs(%O : tensor<1x56x56x144xf32>) -> tensor<1x56x56x144xf32>
  return %r : tensor<1x56x56x144xf32>
}

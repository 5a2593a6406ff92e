// MobileNet-V2's first depthwise 3x3 convolution at batch 1: 112x112x32, stride 1, input
// padded to 114x114 (data/host-dw-112x32-intel.jsonl).
func.func @dw(%I: tensor<1x114x114x32xf32>, %F: tensor<3x3x32xf32>, %O: tensor<1x112x112x32xf32>) -> tensor<1x112x112x32xf32> {
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%I, %F : tensor<1x114x114x32xf32>, tensor<3x3x32xf32>) outs(%O : tensor<1x112x112x32xf32>) -> tensor<1x112x112x32xf32>
  return %r : tensor<1x112x112x32xf32>
}

// ResNet-50's third-stage 3x3 convolution at batch 1: 28x28x128 -> 128, stride 1, input
// padded to 30x30 (data/host-resnet-conv-s3-wide-intel.jsonl).
func.func @conv(%I: tensor<1x30x30x128xf32>, %F: tensor<3x3x128x128xf32>, %O: tensor<1x28x28x128xf32>) -> tensor<1x28x28x128xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%I, %F : tensor<1x30x30x128xf32>, tensor<3x3x128x128xf32>) outs(%O : tensor<1x28x28x128xf32>) -> tensor<1x28x28x128xf32>
  return %r : tensor<1x28x28x128xf32>
}

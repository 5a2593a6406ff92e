// ResNet-50's fourth-stage 3x3 convolution at batch 1: 14x14x256 -> 256, stride 1, input
// padded to 16x16 (data/host-resnet-conv-s4-wide-intel.jsonl).
func.func @conv(%I: tensor<1x16x16x256xf32>, %F: tensor<3x3x256x256xf32>, %O: tensor<1x14x14x256xf32>) -> tensor<1x14x14x256xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%I, %F : tensor<1x16x16x256xf32>, tensor<3x3x256x256xf32>) outs(%O : tensor<1x14x14x256xf32>) -> tensor<1x14x14x256xf32>
  return %r : tensor<1x14x14x256xf32>
}

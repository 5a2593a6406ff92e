// ResNet-50's first-stage 3x3 convolution at batch 1: 56x56x64 -> 64, stride 1, input
// padded to 58x58 (issue 14's conv workload; data/host-resnet-conv.jsonl).
func.func @conv(%I: tensor<1x58x58x64xf32>, %F: tensor<3x3x64x64xf32>, %O: tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%I, %F : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>) outs(%O : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  return %r : tensor<1x56x56x64xf32>
}

// ResNet-50's first-stage 3x3 convolution with 96 output channels instead of 64 (a check,
// not a model layer): the filter's rows are 384 bytes apart instead of 256, so a slice of
// them spreads over all of a 64-set L1 instead of half of it (data/README.md, "Taps per
// step and the filter's L1 sets").
func.func @conv(%I: tensor<1x58x58x64xf32>, %F: tensor<3x3x64x96xf32>, %O: tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%I, %F : tensor<1x58x58x64xf32>, tensor<3x3x64x96xf32>) outs(%O : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
  return %r : tensor<1x56x56x96xf32>
}

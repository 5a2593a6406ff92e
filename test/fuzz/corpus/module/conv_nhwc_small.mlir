func.func @conv(%I: tensor<1x30x30x32xf32>, %W: tensor<3x3x32x64xf32>, %O: tensor<1x28x28x64xf32>) -> tensor<1x28x28x64xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%I, %W : tensor<1x30x30x32xf32>, tensor<3x3x32x64xf32>) outs(%O : tensor<1x28x28x64xf32>) -> tensor<1x28x28x64xf32>
  return %r : tensor<1x28x28x64xf32>
}

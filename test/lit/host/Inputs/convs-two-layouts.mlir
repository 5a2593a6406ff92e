// A strided NHWC conv and a strided NCHW conv (test/lit/host/conv-baseline.test).
func.func @nhwc(%I: tensor<1x17x17x16xf32>, %W: tensor<3x3x16x32xf32>, %O: tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%I, %W : tensor<1x17x17x16xf32>, tensor<3x3x16x32xf32>) outs(%O : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  return %r : tensor<1x8x8x32xf32>
}
func.func @nchw(%I: tensor<1x3x21x21xf32>, %W: tensor<8x3x5x5xf32>, %O: tensor<1x8x9x9xf32>) -> tensor<1x8x9x9xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%I, %W : tensor<1x3x21x21xf32>, tensor<8x3x5x5xf32>) outs(%O : tensor<1x8x9x9xf32>) -> tensor<1x8x9x9xf32>
  return %r : tensor<1x8x9x9xf32>
}

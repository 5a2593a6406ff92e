// An NHWC conv with rows of 14 output columns and 64 filters, two output rows (two tasks
// at a workgroup of one row): register tiles up to 14 x 4 vectors at AVX-512
// (test/lit/host/conv-spill-avx512.test).
func.func @conv(%I: tensor<1x4x16x32xf32>, %W: tensor<3x3x32x64xf32>, %O: tensor<1x2x14x64xf32>) -> tensor<1x2x14x64xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%I, %W : tensor<1x4x16x32xf32>, tensor<3x3x32x64xf32>) outs(%O : tensor<1x2x14x64xf32>) -> tensor<1x2x14x64xf32>
  return %r : tensor<1x2x14x64xf32>
}

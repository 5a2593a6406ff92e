func.func @conv_nhwc(%I: tensor<1x18x18x16xf32>, %W: tensor<3x3x16x64xf32>, %O: tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%O : tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
      pruner.config = {workgroup = [1, 4, 8, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 1, 8], thread = [1, 1, 2, 4, 0, 0, 0], promote_operands = [], vector_width = 4}}
      ins(%I, %W : tensor<1x18x18x16xf32>, tensor<3x3x16x64xf32>) outs(%f : tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
  return %r : tensor<1x16x16x64xf32>
}

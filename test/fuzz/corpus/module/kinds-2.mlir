func.func @conv_nchw_7x7(%I: tensor<1x3x61x61xf32>, %W: tensor<16x3x7x7xf32>, %O: tensor<1x16x28x28xf32>) -> tensor<1x16x28x28xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%O : tensor<1x16x28x28xf32>) -> tensor<1x16x28x28xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>,
      pruner.config = {workgroup = [1, 16, 4, 28, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 1, 7], thread = [1, 4, 1, 4, 0, 0, 0], promote_operands = [], vector_width = 4}}
      ins(%I, %W : tensor<1x3x61x61xf32>, tensor<16x3x7x7xf32>) outs(%f : tensor<1x16x28x28xf32>) -> tensor<1x16x28x28xf32>
  return %r : tensor<1x16x28x28xf32>
}

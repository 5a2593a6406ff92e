func.func @stem(%in: tensor<1x3x230x230xf32>, %filter: tensor<64x3x7x7xf32>,
                %acc: tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%in, %filter : tensor<1x3x230x230xf32>, tensor<64x3x7x7xf32>)
         outs(%acc : tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32>
  return %r : tensor<1x64x112x112xf32>
}

func.func @pool(%i: tensor<1x8x8x4xf32>, %k: tensor<2x2xf32>, %o: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %r = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%i, %k : tensor<1x8x8x4xf32>, tensor<2x2xf32>)
         outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

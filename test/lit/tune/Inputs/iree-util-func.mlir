util.func public @main(%a: tensor<128x256xf32>, %b: tensor<256x128xf32>, %c: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<128x256xf32>, tensor<256x128xf32>) outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>
  util.return %r : tensor<128x128xf32>
}

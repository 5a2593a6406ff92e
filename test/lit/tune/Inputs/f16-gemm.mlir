func.func @ffn_up(%x: tensor<128x768xf16>, %w: tensor<768x3072xf16>) -> tensor<128x3072xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x3072xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  %r = linalg.matmul ins(%x, %w : tensor<128x768xf16>, tensor<768x3072xf16>)
                     outs(%c : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  return %r : tensor<128x3072xf32>
}

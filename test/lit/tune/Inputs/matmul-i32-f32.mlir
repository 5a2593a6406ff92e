// Two matmuls of one shape, i32 and f32: their matchers differ only in the body check.
func.func @f(%a: tensor<256x128xi32>, %b: tensor<128x64xi32>, %a2: tensor<256x128xf32>, %b2: tensor<128x64xf32>) -> (tensor<256x64xi32>, tensor<256x64xf32>) {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<256x64xi32>
  %c = linalg.fill ins(%z : i32) outs(%e : tensor<256x64xi32>) -> tensor<256x64xi32>
  %r = linalg.matmul ins(%a, %b : tensor<256x128xi32>, tensor<128x64xi32>) outs(%c : tensor<256x64xi32>) -> tensor<256x64xi32>
  %zf = arith.constant 0.0 : f32
  %ef = tensor.empty() : tensor<256x64xf32>
  %cf = linalg.fill ins(%zf : f32) outs(%ef : tensor<256x64xf32>) -> tensor<256x64xf32>
  %rf = linalg.matmul ins(%a2, %b2 : tensor<256x128xf32>, tensor<128x64xf32>) outs(%cf : tensor<256x64xf32>) -> tensor<256x64xf32>
  return %r, %rf : tensor<256x64xi32>, tensor<256x64xf32>
}

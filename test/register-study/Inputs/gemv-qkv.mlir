// GPT-2 decode-time QKV projection: x (1x768, f16) . W (768x2304, f16), f32 accumulation.
func.func @gemv_qkv(%A: tensor<1x768xf16>, %B: tensor<768x2304xf16>, %C: tensor<1x2304xf32>) -> tensor<1x2304xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<1x2304xf32>) -> tensor<1x2304xf32>
  %0 = linalg.matmul ins(%A, %B : tensor<1x768xf16>, tensor<768x2304xf16>) outs(%f : tensor<1x2304xf32>) -> tensor<1x2304xf32>
  return %0 : tensor<1x2304xf32>
}

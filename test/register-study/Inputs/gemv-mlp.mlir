// GPT-2 decode-time MLP down projection: h (1x3072, f16) . W (3072x768, f16), f32 accumulation.
func.func @gemv_mlp(%A: tensor<1x3072xf16>, %B: tensor<3072x768xf16>, %C: tensor<1x768xf32>) -> tensor<1x768xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<1x768xf32>) -> tensor<1x768xf32>
  %0 = linalg.matmul ins(%A, %B : tensor<1x3072xf16>, tensor<3072x768xf16>) outs(%f : tensor<1x768xf32>) -> tensor<1x768xf32>
  return %0 : tensor<1x768xf32>
}

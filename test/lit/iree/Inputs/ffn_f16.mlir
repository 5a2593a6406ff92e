// BERT-base FFN up-projection at 128 tokens with f16 inputs and f32 accumulation, as an
// IREE user has it (linalg on tensors, the accumulator zero-filled).
func.func @main(%a: tensor<128x768xf16>, %b: tensor<768x3072xf16>) -> tensor<128x3072xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x3072xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x768xf16>, tensor<768x3072xf16>)
                     outs(%f : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  return %r : tensor<128x3072xf32>
}

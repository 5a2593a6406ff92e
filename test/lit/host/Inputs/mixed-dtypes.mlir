// An f32 matmul the host can time and an f16 one it cannot (its kernels are timed on f32
// data only): the f16 op must not take trials from the other.
func.func @mixed(%a: tensor<16x8xf32>, %b: tensor<8x16xf32>, %c: tensor<32x64xf16>,
                 %d: tensor<64x32xf16>) -> (tensor<16x16xf32>, tensor<32x32xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x16xf32>)
                     outs(%f : tensor<16x16xf32>) -> tensor<16x16xf32>
  %e2 = tensor.empty() : tensor<32x32xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<32x32xf32>) -> tensor<32x32xf32>
  %h = linalg.matmul ins(%c, %d : tensor<32x64xf16>, tensor<64x32xf16>)
                     outs(%f2 : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %r, %h : tensor<16x16xf32>, tensor<32x32xf32>
}

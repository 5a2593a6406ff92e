// A measurable f32 matmul beside an f16 one that the replay file (made for small.mlir)
// never measures: the scheduler test of unmeasurable.test.
func.func @m(%a: tensor<16x8xf32>, %b: tensor<8x16xf32>, %c: tensor<16x16xf32>,
             %h: tensor<64x32xf16>, %g: tensor<32x64xf16>, %k: tensor<64x64xf32>)
    -> (tensor<16x16xf32>, tensor<64x64xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x16xf32>)
                     outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  %1 = linalg.matmul ins(%h, %g : tensor<64x32xf16>, tensor<32x64xf16>) outs(%k : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0, %1 : tensor<16x16xf32>, tensor<64x64xf32>
}

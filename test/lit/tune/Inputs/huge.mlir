// Shapes no kernel can run: a 16x16x2^40 matmul (its 2^40-step reduction spun for hours
// in the host space's candidate scan; its operands need 128 TiB) and a 2^62x2x2 matmul
// (2^65 bytes per operand: element counts overflow 64 bits). Next to them a small matmul
// that is tuned as usual.
func.func @huge(%a: tensor<16x1099511627776xf32>, %b: tensor<1099511627776x16xf32>,
                %c: tensor<16x16xf32>,
                %x: tensor<4611686018427387904x2xf32>, %y: tensor<2x2xf32>,
                %z: tensor<4611686018427387904x2xf32>,
                %p: tensor<16x8xf32>, %q: tensor<8x16xf32>, %r: tensor<16x16xf32>)
    -> (tensor<16x16xf32>, tensor<4611686018427387904x2xf32>, tensor<16x16xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<16x1099511627776xf32>, tensor<1099511627776x16xf32>)
                     outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  %1 = linalg.matmul ins(%x, %y : tensor<4611686018427387904x2xf32>, tensor<2x2xf32>)
                     outs(%z : tensor<4611686018427387904x2xf32>) -> tensor<4611686018427387904x2xf32>
  %2 = linalg.matmul ins(%p, %q : tensor<16x8xf32>, tensor<8x16xf32>)
                     outs(%r : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %0, %1, %2 : tensor<16x16xf32>, tensor<4611686018427387904x2xf32>, tensor<16x16xf32>
}

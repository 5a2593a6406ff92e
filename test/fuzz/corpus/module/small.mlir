#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @small(%a: tensor<16x8xf32>, %b: tensor<8x16xf32>, %c: tensor<16x16xf32>,
                 %x: tensor<16x32xf32>, %y: tensor<16x32xf32>)
    -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x32xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x16xf32>)
                     outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  %1 = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x16xf32>)
                     outs(%0 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %e = tensor.empty() : tensor<16x32xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %s = arith.addf %u, %v : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  return %0, %1, %2 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x32xf32>
}

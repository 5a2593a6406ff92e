// One workload written twice: a linalg.matmul and a linalg.contract with a matmul's maps
// (one task, key matmul:); and a linalg.matmul of the same sizes with B transposed (key
// contraction:), which the spec's upstream matchers cannot tell from the plain one.
func.func @f(%a: tensor<64x48xf32>, %b: tensor<48x96xf32>, %bt: tensor<96x48xf32>,
             %c: tensor<64x96xf32>) -> (tensor<64x96xf32>, tensor<64x96xf32>, tensor<64x96xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<64x48xf32>, tensor<48x96xf32>)
                     outs(%c : tensor<64x96xf32>) -> tensor<64x96xf32>
  %1 = linalg.contract indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                        affine_map<(m, n, k) -> (k, n)>,
                                        affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<64x48xf32>, tensor<48x96xf32>) outs(%c : tensor<64x96xf32>)
      -> tensor<64x96xf32>
  %2 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %bt : tensor<64x48xf32>, tensor<96x48xf32>) outs(%c : tensor<64x96xf32>)
      -> tensor<64x96xf32>
  return %0, %1, %2 : tensor<64x96xf32>, tensor<64x96xf32>, tensor<64x96xf32>
}

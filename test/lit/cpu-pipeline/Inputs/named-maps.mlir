// Named contractions with indexing maps of their own: a linalg.matmul with B transposed
// (C = A B^T, as attention's Q K^T is written) and a linalg.contract with A transposed
// (C = A^T B): the tuner measures them as the linalg.generic contraction they are; and a
// linalg.contract with a batch_matmul's maps, measured as the linalg.batch_matmul it is.
// The host pipeline must build those same kernels from the ops as written.
func.func @matmul_bt(%a: tensor<64x48xf32>, %b: tensor<96x48xf32>, %c: tensor<64x96xf32>)
    -> tensor<64x96xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<64x48xf32>, tensor<96x48xf32>) outs(%c : tensor<64x96xf32>)
      -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}
func.func @contract_at(%a: tensor<40x32xf32>, %b: tensor<40x80xf32>, %c: tensor<32x80xf32>)
    -> tensor<32x80xf32> {
  %r = linalg.contract indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                        affine_map<(m, n, k) -> (k, n)>,
                                        affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<40x32xf32>, tensor<40x80xf32>) outs(%c : tensor<32x80xf32>)
      -> tensor<32x80xf32>
  return %r : tensor<32x80xf32>
}
// The default cast written out, as MLIR prints it once set: the same workload.
func.func @contract_bmm(%a: tensor<3x16x24xf32>, %b: tensor<3x24x32xf32>,
                        %c: tensor<3x16x32xf32>) -> tensor<3x16x32xf32> {
  %r = linalg.contract indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                                        affine_map<(b, m, n, k) -> (b, k, n)>,
                                        affine_map<(b, m, n, k) -> (b, m, n)>]
      {cast = #linalg.type_fn<cast_signed>}
      ins(%a, %b : tensor<3x16x24xf32>, tensor<3x24x32xf32>) outs(%c : tensor<3x16x32xf32>)
      -> tensor<3x16x32xf32>
  return %r : tensor<3x16x32xf32>
}

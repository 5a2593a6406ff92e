// A linalg.contract with a matmul's maps (as newer frontends write a dense layer): IREE
// configures it as a matmul, so iree-cpu tunes it as one (it was refused as "not an op
// kind this backend configures").
func.func @dense(%a: tensor<64x48xf32>, %b: tensor<48x96xf32>, %c: tensor<64x96xf32>)
    -> tensor<64x96xf32> {
  %r = linalg.contract indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                        affine_map<(m, n, k) -> (k, n)>,
                                        affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<64x48xf32>, tensor<48x96xf32>) outs(%c : tensor<64x96xf32>)
      -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

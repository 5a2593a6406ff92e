// A matmul tuned for the H200 (a scalar config the host rules accept too).
func.func @f(%a: tensor<64x48xf32>, %b: tensor<48x96xf32>, %c: tensor<64x96xf32>)
    -> tensor<64x96xf32> {
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16],
                      thread = [4, 4, 0], promote_operands = [], vector_width = 1},
                      pruner.tuning = {measured = true, target = "sm_90:h200:132sm"}}
      ins(%a, %b : tensor<64x48xf32>, tensor<48x96xf32>) outs(%c : tensor<64x96xf32>)
      -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

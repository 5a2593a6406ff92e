// A matmul tuned for a host CPU (SSE: vector_width 4 also passes the GPU rules).
func.func @f(%a: tensor<64x48xf32>, %b: tensor<48x96xf32>, %c: tensor<64x96xf32>)
    -> tensor<64x96xf32> {
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16],
                      thread = [4, 4, 0], promote_operands = [], vector_width = 4},
                      pruner.tuning = {measured = true, target = "host:amd-epyc-2c-sse"}}
      ins(%a, %b : tensor<64x48xf32>, tensor<48x96xf32>) outs(%c : tensor<64x96xf32>)
      -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

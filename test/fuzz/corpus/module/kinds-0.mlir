func.func @bmm(%A: tensor<4x64x32xf32>, %B: tensor<4x32x128xf32>, %C: tensor<4x64x128xf32>) -> tensor<4x64x128xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<4x64x128xf32>) -> tensor<4x64x128xf32>
  %r = linalg.batch_matmul {pruner.config = {workgroup = [1, 32, 64, 0], reduction = [0, 0, 0, 8], thread = [1, 4, 4, 0], promote_operands = [], vector_width = 4}}
      ins(%A, %B : tensor<4x64x32xf32>, tensor<4x32x128xf32>) outs(%f : tensor<4x64x128xf32>) -> tensor<4x64x128xf32>
  return %r : tensor<4x64x128xf32>
}

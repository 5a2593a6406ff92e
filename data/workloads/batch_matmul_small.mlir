// The batch_matmul of data/host-bmm.jsonl: 4 x (96x384 * 384x128) f32, the third dataset
// workload (a batched op whose operands, 1.5 MB together, exceed one core's 1 MiB L2).
func.func @bmm(%A: tensor<4x96x384xf32>, %B: tensor<4x384x128xf32>, %C: tensor<4x96x128xf32>) -> tensor<4x96x128xf32> {
  %r = linalg.batch_matmul ins(%A, %B : tensor<4x96x384xf32>, tensor<4x384x128xf32>) outs(%C : tensor<4x96x128xf32>) -> tensor<4x96x128xf32>
  return %r : tensor<4x96x128xf32>
}

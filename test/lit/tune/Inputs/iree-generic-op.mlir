// An op of a dialect pruner-tune does not load, in the generic form that parses without it.
func.func @f(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = "util.optimization_barrier"(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

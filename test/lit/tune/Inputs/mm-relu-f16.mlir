// A BERT FFN-up matmul in f16 (f32 accumulation) and the ReLU after it: the draft picks a
// tensor-core config for the matmul (test/lit/tune/consumer-own-kernel.test).
func.func @mm_relu(%A: tensor<128x768xf16>, %B: tensor<768x3072xf16>) -> tensor<128x3072xf32> {
  %z = arith.constant 0.0 : f32
  %c = tensor.empty() : tensor<128x3072xf32>
  %f = linalg.fill ins(%z : f32) outs(%c : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  %r = linalg.matmul ins(%A, %B : tensor<128x768xf16>, tensor<768x3072xf16>) outs(%f : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  %e = tensor.empty() : tensor<128x3072xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<128x3072xf32>) outs(%e : tensor<128x3072xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %z : f32
    linalg.yield %m : f32
  } -> tensor<128x3072xf32>
  return %y : tensor<128x3072xf32>
}

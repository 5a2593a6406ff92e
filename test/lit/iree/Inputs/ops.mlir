// Four ops as an IREE user has them (linalg on tensors): a matmul, a batch_matmul, a
// convolution and a row reduction, each in its own function.
func.func @mm(%a: tensor<64x128xf32>, %b: tensor<128x96xf32>) -> tensor<64x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x96xf32>)
                     outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}
func.func @bmm(%a: tensor<4x32x64xf32>, %b: tensor<4x64x48xf32>) -> tensor<4x32x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x32x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x32x48xf32>) -> tensor<4x32x48xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x32x64xf32>, tensor<4x64x48xf32>)
                           outs(%f : tensor<4x32x48xf32>) -> tensor<4x32x48xf32>
  return %r : tensor<4x32x48xf32>
}
func.func @conv(%x: tensor<2x18x18x16xf32>, %w: tensor<3x3x16x32xf32>) -> tensor<2x16x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x16x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x16x32xf32>) -> tensor<2x16x16x32xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<2x18x18x16xf32>, tensor<3x3x16x32xf32>)
         outs(%f : tensor<2x16x16x32xf32>) -> tensor<2x16x16x32xf32>
  return %r : tensor<2x16x16x32xf32>
}
func.func @rowsum(%x: tensor<64x256xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
         ins(%x : tensor<64x256xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

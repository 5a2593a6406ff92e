// A tuned matmul on slices of its arguments (object-slices.test): the kernel takes
// identity-layout buffers, so its caller copies each strided slice into one.
func.func @sl(%a: tensor<40x64xf32>, %b: tensor<64x48xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %sa = tensor.extract_slice %a[3, 8] [16, 40] [1, 1] : tensor<40x64xf32> to tensor<16x40xf32>
  %sb = tensor.extract_slice %b[5, 16] [40, 32] [1, 1] : tensor<64x48xf32> to tensor<40x32xf32>
  %r = linalg.matmul {pruner.config = {workgroup = [16, 32, 0], reduction = [0, 0, 8], thread = [4, 8, 0], promote_operands = [], vector_width = 1}}
      ins(%sa, %sb : tensor<16x40xf32>, tensor<40x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

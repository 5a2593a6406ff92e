module {
  func.func @outer(%A: tensor<32x16xf32>, %B: tensor<16x64xf32>, %C: tensor<32x64xf32>) -> tensor<32x64xf32> {
    %r = linalg.matmul ins(%A, %B : tensor<32x16xf32>, tensor<16x64xf32>) outs(%C : tensor<32x64xf32>) -> tensor<32x64xf32>
    return %r : tensor<32x64xf32>
  }
  module @inner {
    func.func @nested(%A: tensor<32x16xf32>, %B: tensor<16x64xf32>, %C: tensor<32x64xf32>) -> tensor<32x64xf32> {
      %r = linalg.matmul ins(%A, %B : tensor<32x16xf32>, tensor<16x64xf32>) outs(%C : tensor<32x64xf32>) -> tensor<32x64xf32>
      return %r : tensor<32x64xf32>
    }
  }
}

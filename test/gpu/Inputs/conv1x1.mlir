// Check workload (docs/gpu-session.md): ResNet-50 conv2_x's 1x1 expansion, 64 -> 256
// channels over 56x56 pixels, f16 inputs and f32 output. Compiled with
// pruner-tune --conv1x1-as-matmul, so the bundle holds the GEMM it is (3136x256x64) with
// its tensor-core configs, and the cuBLAS baseline is that GEMM (cublasGemmEx, f16 in, f32
// compute): the conv as cuDNN would run it is not measured.
func.func @expand(%x: tensor<1x56x56x64xf16>, %w: tensor<1x1x64x256xf16>) -> tensor<1x56x56x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x56x56x256xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x56x56x256xf32>) -> tensor<1x56x56x256xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x56x56x64xf16>, tensor<1x1x64x256xf16>) outs(%c : tensor<1x56x56x256xf32>) -> tensor<1x56x56x256xf32>
  return %r : tensor<1x56x56x256xf32>
}

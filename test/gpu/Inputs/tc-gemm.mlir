// Check workload (docs/gpu-session.md): GPT-2's QKV projection over 1024 tokens, f16
// inputs and f32 output, 1024x768 . 768x2304. The draft ranks tensor-core (mma = 1)
// configs first; the ε-greedy random picks are mostly FMA configs, so one bundle measures
// both kinds against cuBLAS (cublasGemmStridedBatchedEx, f16 inputs, CUBLAS_COMPUTE_32F).
func.func @qkv(%x: tensor<1024x768xf16>, %w: tensor<768x2304xf16>) -> tensor<1024x2304xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x2304xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x2304xf32>) -> tensor<1024x2304xf32>
  %r = linalg.matmul ins(%x, %w : tensor<1024x768xf16>, tensor<768x2304xf16>)
                     outs(%c : tensor<1024x2304xf32>) -> tensor<1024x2304xf32>
  return %r : tensor<1024x2304xf32>
}

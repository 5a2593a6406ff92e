// Check workload (docs/gpu-session.md): GPT-2's decode-time MLP down projection, one token:
// h (1x3072, f16) . W (3072x768, f16) -> 1x768, f32 accumulation. Bandwidth-bound (4.7 MB
// of weights) with a long K: 768 outputs, 3072-long rows. The check-splitk bundle holds its
// split-K (split_k > 1: partial and combining kernels) and cross-thread configs, so that a
// GPU says which way of splitting K wins; the draft ranks cross-thread first on the H200
// and split-K first on the A100. pruner-run's baseline is cublasGemmEx (f16 in, f32 compute).
func.func @gemv_down(%h: tensor<1x3072xf16>, %w: tensor<3072x768xf16>) -> tensor<1x768xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x768xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x768xf32>) -> tensor<1x768xf32>
  %r = linalg.matmul ins(%h, %w : tensor<1x3072xf16>, tensor<3072x768xf16>)
                     outs(%c : tensor<1x768xf32>) -> tensor<1x768xf32>
  return %r : tensor<1x768xf32>
}

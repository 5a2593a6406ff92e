// Check workload (docs/gpu-session.md): a row reduction with few, long rows (sum over
// 4096 f32 per row, 128 rows), the shape where one thread per output leaves the GPU
// nearly idle; the draft ranks cross-thread configs (reduction_threads > 1) first. No
// cuBLAS baseline (not a GEMM); compare against the bandwidth: 2.1 MB read.
func.func @row_sum(%x: tensor<128x4096xf32>) -> tensor<128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<128x4096xf32>) outs(%c : tensor<128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<128xf32>
  return %r : tensor<128xf32>
}

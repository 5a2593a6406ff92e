// Ops the GPU schedule cannot build every config of (test/lit/tune/unbuildable.test).
func.func @conv1d(%I: tensor<1x66x8xf32>, %F: tensor<3x8x16xf32>, %O: tensor<1x64x16xf32>) -> tensor<1x64x16xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(n, w, f, c, kw) -> (n, w + kw, c)>,
                                        affine_map<(n, w, f, c, kw) -> (kw, c, f)>,
                                        affine_map<(n, w, f, c, kw) -> (n, w, f)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%I, %F : tensor<1x66x8xf32>, tensor<3x8x16xf32>) outs(%O : tensor<1x64x16xf32>) {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %m = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x64x16xf32>
  return %r : tensor<1x64x16xf32>
}

func.func @full_sum(%X: tensor<64x32xf32>) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%X : tensor<64x32xf32>) outs(%f : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

func.func @copy(%X: tensor<64x32xf32>, %O: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%X : tensor<64x32xf32>) outs(%O : tensor<64x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

func.func @row_sum(%X: tensor<64x32xf32>) -> tensor<64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%X : tensor<64x32xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

func.func @dynamic(%A: tensor<?x?xf32>, %B: tensor<?x?xf32>, %C: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%A, %B : tensor<?x?xf32>, tensor<?x?xf32>) outs(%C : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

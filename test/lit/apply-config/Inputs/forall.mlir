// A matmul inside an scf.forall over the batch (a tiled batch_matmul), with a GPU config:
// see forall.test.
func.func @f(%a: tensor<4x32x64xf32>, %b: tensor<64x32xf32>, %c: tensor<4x32x32xf32>) -> tensor<4x32x32xf32> {
  %r = scf.forall (%i) in (4) shared_outs(%o = %c) -> tensor<4x32x32xf32> {
    %as = tensor.extract_slice %a[%i, 0, 0] [1, 32, 64] [1, 1, 1] : tensor<4x32x64xf32> to tensor<32x64xf32>
    %os = tensor.extract_slice %o[%i, 0, 0] [1, 32, 32] [1, 1, 1] : tensor<4x32x32xf32> to tensor<32x32xf32>
    %m = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], vector_width = 1}}
         ins(%as, %b : tensor<32x64xf32>, tensor<64x32xf32>) outs(%os : tensor<32x32xf32>) -> tensor<32x32xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %m into %o[%i, 0, 0] [1, 32, 32] [1, 1, 1] : tensor<32x32xf32> into tensor<4x32x32xf32>
    }
  }
  return %r : tensor<4x32x32xf32>
}

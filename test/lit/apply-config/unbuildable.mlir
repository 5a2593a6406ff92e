// Configs the GPU schedule cannot build are errors at the op, checked before anything is
// transformed, with the rules pruner-tune uses (docs/plugin.md, "What the passes build").
// Before, the conv1d config below crashed mlir-opt: the vectorizer failed, the transform
// erased the op, and the error was emitted on the erased op (a use-after-free, exit 139).
// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config)' -split-input-file -verify-diagnostics %s

func.func @conv1d_generic_vectorized(%I: tensor<1x66x8xf32>, %F: tensor<3x8x16xf32>, %O: tensor<1x64x16xf32>) -> tensor<1x64x16xf32> {
  // expected-error @+1 {{pruner.config on linalg.generic: vector_width = 4 on an op whose indexing maps are not projected permutations (e.g. a convolution written as linalg.generic): the vectorizer cannot vectorize it; use vector_width = 1}}
  %r = linalg.generic {indexing_maps = [affine_map<(n, w, f, c, kw) -> (n, w + kw, c)>,
                                        affine_map<(n, w, f, c, kw) -> (kw, c, f)>,
                                        affine_map<(n, w, f, c, kw) -> (n, w, f)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"],
                       pruner.config = {promote_operands = [], reduction = [0, 0, 0, 8, 3], thread = [1, 1, 4, 0, 0], vector_width = 4 : i64, workgroup = [1, 8, 16, 0, 0]}}
      ins(%I, %F : tensor<1x66x8xf32>, tensor<3x8x16xf32>) outs(%O : tensor<1x64x16xf32>) {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %m = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x64x16xf32>
  return %r : tensor<1x64x16xf32>
}

// -----

func.func @full_reduction(%X: tensor<64x32xf32>, %O: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{pruner.config on linalg.generic: linalg.generic has no parallel loop (a full reduction to a rank-0 result): the GPU schedule maps parallel loops to blocks and threads}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"],
                       pruner.config = {promote_operands = [], reduction = [32, 32], thread = [0, 0], vector_width = 1 : i64, workgroup = [0, 0]}}
      ins(%X : tensor<64x32xf32>) outs(%O : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

func.func @identity_copy(%X: tensor<64x32xf32>, %O: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @+1 {{pruner.config on linalg.generic: linalg.generic only copies its input (identity maps, the body yields the input): canonicalization folds it away, there is nothing to schedule}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"],
                       pruner.config = {promote_operands = [], reduction = [0, 0], thread = [1, 4], vector_width = 4 : i64, workgroup = [4, 32]}}
      ins(%X : tensor<64x32xf32>) outs(%O : tensor<64x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// -----

// Every invalid config is reported, not just the first, and nothing is transformed.
func.func @two_invalid(%X: tensor<64x32xf32>, %O: tensor<f32>, %P: tensor<64x32xf32>) -> (tensor<f32>, tensor<64x32xf32>) {
  // expected-error @+1 {{has no parallel loop}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"],
                       pruner.config = {reduction = [32, 32]}}
      ins(%X : tensor<64x32xf32>) outs(%O : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  // expected-error @+1 {{only copies its input}}
  %c = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"],
                       pruner.config = {thread = [1, 4], workgroup = [4, 32]}}
      ins(%X : tensor<64x32xf32>) outs(%P : tensor<64x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<64x32xf32>
  return %r, %c : tensor<f32>, tensor<64x32xf32>
}

// -----

// A configured op in a nested module belongs to a run on that module: left alone, with a
// warning on the nested module saying how to reach it.
module {
  // expected-warning @+1 {{pruner: the pruner.config attributes inside nested module @inner are not applied: the passes transform the module they run on; nest them to reach it, e.g. builtin.module(builtin.module(pruner-apply-config))}}
  module @inner {
    func.func @nested(%A: tensor<32x16xf32>, %B: tensor<16x64xf32>, %C: tensor<32x64xf32>) -> tensor<32x64xf32> {
      %r = linalg.matmul {pruner.config = {workgroup = [16, 32, 0], reduction = [0, 0, 8], thread = [2, 2, 0], promote_operands = [], vector_width = 1}}
          ins(%A, %B : tensor<32x16xf32>, tensor<16x64xf32>) outs(%C : tensor<32x64xf32>) -> tensor<32x64xf32>
      return %r : tensor<32x64xf32>
    }
  }
}

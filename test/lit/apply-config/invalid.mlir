// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config)' -split-input-file -verify-diagnostics %s

func.func @thread_not_dividing(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>) -> tensor<64x96xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: thread tile [3, 4, 0] does not divide workgroup tile [32, 32, 0]}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [3, 4, 0], promote_operands = [], vector_width = 4}} ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%C : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// -----

func.func @bad_vector_width(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>) -> tensor<64x96xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: vector_width = 3 is not one of 1, 2, 4}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], promote_operands = [], vector_width = 3}} ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%C : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// -----

// One config per kernel (docs/config.md rule 9b): the direct schedule vectorizes the whole
// 4 x 4 thread tile whatever width > 1 says, so 2 would build the kernel of 4.
func.func @duplicate_vector_width(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>) -> tensor<64x96xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: vector_width = 2 builds the same kernel as vector_width = 4: the direct schedule vectorizes the whole thread tile, with loads as wide as the tile allows; use 4 (or 1 for scalar code)}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], promote_operands = [], vector_width = 2}} ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%C : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// -----

func.func @unknown_key(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>) -> tensor<64x96xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: unknown key 'bogus'}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], bogus = 1}} ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%C : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// -----

func.func @too_many_threads(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>) -> tensor<64x96xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: workgroup tile [64, 96, 0] over thread tile [1, 1, 0] gives more than 1024 threads per block}}
  %r = linalg.matmul {pruner.config = {workgroup = [64, 96, 0], reduction = [0, 0, 16], thread = [1, 1, 0], promote_operands = [], vector_width = 1}} ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%C : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// -----

func.func @mma_bf16(%A: tensor<64x64xbf16>, %B: tensor<64x64xbf16>, %C: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: mma on linalg.matmul: bf16 inputs are not supported: MLIR 22's convert-vector-to-gpu}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [16, 16, 0], promote_operands = [], vector_width = 1, mma = 1}} ins(%A, %B : tensor<64x64xbf16>, tensor<64x64xbf16>) outs(%C : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

func.func @mma_f32(%A: tensor<64x64xf32>, %B: tensor<64x64xf32>, %C: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{mma on linalg.matmul: inputs f32 x f32 -> f32; mma.sync m16n8k16 is scheduled for f16 x f16 -> f32}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [16, 16, 0], promote_operands = [], vector_width = 1, mma = 1}} ins(%A, %B : tensor<64x64xf32>, tensor<64x64xf32>) outs(%C : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

func.func @mma_bad_value(%A: tensor<64x64xf16>, %B: tensor<64x64xf16>, %C: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: key 'mma' must be 0 (FMA) or 1 (mma.sync m16n8k16), got 2}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [16, 16, 0], promote_operands = [], vector_width = 1, mma = 2}} ins(%A, %B : tensor<64x64xf16>, tensor<64x64xf16>) outs(%C : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

func.func @mma_staged_one_operand(%A: tensor<64x64xf16>, %B: tensor<64x64xf16>, %C: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{mma on linalg.matmul: promote_operands must be [] (fragments read from global memory) or [0, 1] (both tiles staged in shared memory)}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [16, 16, 0], promote_operands = [1], vector_width = 1, mma = 1}} ins(%A, %B : tensor<64x64xf16>, tensor<64x64xf16>) outs(%C : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

func.func @mma_staged_too_much_shared(%A: tensor<256x256xf16>, %B: tensor<256x256xf16>, %C: tensor<256x256xf32>) -> tensor<256x256xf32> {
  // expected-error @+1 {{mma on linalg.matmul: promote_operands = [0, 1] stages 65536 bytes (A and B tiles of a K step, 1 stage(s)); h200 allows 49152 per block (static allocation limit)}}
  %r = linalg.matmul {pruner.config = {workgroup = [128, 128, 0], reduction = [0, 0, 128], thread = [32, 32, 0], promote_operands = [0, 1], vector_width = 1, mma = 1}} ins(%A, %B : tensor<256x256xf16>, tensor<256x256xf16>) outs(%C : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}

// -----

func.func @stages_without_staging(%A: tensor<64x64xf16>, %B: tensor<64x64xf16>, %C: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: config on linalg.matmul: stages = 2; only staged tensor-core configs (mma = 1 with promote_operands = [0, 1]) have more than one shared buffer}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [16, 16, 0], promote_operands = [], vector_width = 1, mma = 1, stages = 2}} ins(%A, %B : tensor<64x64xf16>, tensor<64x64xf16>) outs(%C : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

func.func @stages_too_few_steps(%A: tensor<64x64xf16>, %B: tensor<64x64xf16>, %C: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{mma on linalg.matmul: stages = 3 with 2 K steps; the pipeline fills 3 steps ahead, so K / K step must be at least the stages}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 32], thread = [16, 16, 0], promote_operands = [0, 1], vector_width = 1, mma = 1, stages = 3}} ins(%A, %B : tensor<64x64xf16>, tensor<64x64xf16>) outs(%C : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

func.func @stages_too_many(%A: tensor<64x64xf16>, %B: tensor<64x64xf16>, %C: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: key 'stages' must be 1 to 3 (shared buffers of a staged tensor-core config), got 4}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [16, 16, 0], promote_operands = [0, 1], vector_width = 1, mma = 1, stages = 4}} ins(%A, %B : tensor<64x64xf16>, tensor<64x64xf16>) outs(%C : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

func.func @mma_k_not_tiled(%A: tensor<64x64xf16>, %B: tensor<64x64xf16>, %C: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{mma on linalg.matmul: K step 64 must be smaller than K = 64}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 64], thread = [16, 16, 0], promote_operands = [], vector_width = 1, mma = 1}} ins(%A, %B : tensor<64x64xf16>, tensor<64x64xf16>) outs(%C : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// An implicit-GEMM conv whose M tile spans two output rows: the tiled im2col would read
// wrong input rows, so rule 12 refuses it (docs/config.md).
func.func @igemm_two_rows(%I: tensor<1x10x10x8xf32>, %W: tensor<3x3x8x16xf32>, %O: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {
  // expected-error @+1 {{pruner.config on linalg.conv_2d_nhwc_hwcf: implicit GEMM on linalg.conv_2d_nhwc_hwcf: workgroup tiles of n and oh must be 1, got 1 and 2}}
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, pruner.config = {workgroup = [1, 2, 8, 16, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 1, 4], thread = [1, 1, 1, 4, 0, 0, 0], promote_operands = [0, 1], vector_width = 4}} ins(%I, %W : tensor<1x10x10x8xf32>, tensor<3x3x8x16xf32>) outs(%O : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %r : tensor<1x8x8x16xf32>
}

// -----

func.func @nchw_promoted(%I: tensor<1x8x10x10xf32>, %W: tensor<16x8x3x3xf32>, %O: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  // expected-error @+1 {{pruner.config on linalg.conv_2d_nchw_fchw: promote_operands [0] on linalg.conv_2d_nchw_fchw: of the convolutions only conv_2d_nhwc_hwcf stages operands (as an implicit GEMM)}}
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, pruner.config = {workgroup = [1, 16, 1, 8, 0, 0, 0], reduction = [0, 0, 0, 0, 4, 1, 1], thread = [1, 4, 1, 1, 0, 0, 0], promote_operands = [0], vector_width = 1}} ins(%I, %W : tensor<1x8x10x10xf32>, tensor<16x8x3x3xf32>) outs(%O : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %r : tensor<1x16x8x8xf32>
}

// -----

// 8-wide vectors are 16-byte loads of 16-bit inputs only.
func.func @f32_width_8(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>) -> tensor<64x96xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: vector_width = 8 is not one of 1, 2, 4 (and 8 when every input is 16-bit or narrower: 16-byte loads)}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [4, 8, 0], promote_operands = [], vector_width = 8}} ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%C : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// -----

func.func @split_k_not_dividing(%A: tensor<1x96xf32>, %B: tensor<96x64xf32>, %C: tensor<1x64xf32>) -> tensor<1x64xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: split_k = 64 does not divide the bound 96 of reduction loop 2}}
  %r = linalg.matmul {pruner.config = {workgroup = [1, 32, 0], reduction = [0, 0, 1], thread = [1, 1, 0], promote_operands = [], vector_width = 1, split_k = 64}} ins(%A, %B : tensor<1x96xf32>, tensor<96x64xf32>) outs(%C : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %r : tensor<1x64xf32>
}

// -----

func.func @split_k_step_over_slice(%A: tensor<1x256xf32>, %B: tensor<256x64xf32>, %C: tensor<1x64xf32>) -> tensor<1x64xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: reduction [0, 0, 64] does not divide the 32 elements of each of the 8 slices}}
  %r = linalg.matmul {pruner.config = {workgroup = [1, 32, 0], reduction = [0, 0, 64], thread = [1, 1, 0], promote_operands = [], vector_width = 1, split_k = 8}} ins(%A, %B : tensor<1x256xf32>, tensor<256x64xf32>) outs(%C : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %r : tensor<1x64xf32>
}

// -----

func.func @split_k_with_reduction_threads(%A: tensor<1x256xf32>, %B: tensor<256x64xf32>, %C: tensor<1x64xf32>) -> tensor<1x64xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: split_k = 2 combines with none of mma, promote_operands and reduction_threads (each slice runs the plain schedule)}}
  %r = linalg.matmul {pruner.config = {workgroup = [1, 32, 0], reduction = [0, 0, 4], thread = [1, 32, 0], promote_operands = [], vector_width = 1, reduction_threads = 32, split_k = 2}} ins(%A, %B : tensor<1x256xf32>, tensor<256x64xf32>) outs(%C : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %r : tensor<1x64xf32>
}

// -----

func.func @split_k_on_a_conv(%I: tensor<1x8x8x4xf32>, %F: tensor<3x3x4x8xf32>, %O: tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32> {
  // expected-error @+1 {{pruner.config on linalg.conv_2d_nhwc_hwcf: split_k = 2 applies to a reduction or a contraction with one output and one reduction loop, the innermost; linalg.conv_2d_nhwc_hwcf is not one}}
  %r = linalg.conv_2d_nhwc_hwcf {pruner.config = {workgroup = [1, 1, 6, 8, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 1, 4], thread = [1, 1, 1, 1, 0, 0, 0], promote_operands = [], vector_width = 1, split_k = 2}} ins(%I, %F : tensor<1x8x8x4xf32>, tensor<3x3x4x8xf32>) outs(%O : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  return %r : tensor<1x6x6x8xf32>
}

// -----

func.func @split_k_too_many(%A: tensor<1x256xf32>, %B: tensor<256x64xf32>, %C: tensor<1x64xf32>) -> tensor<1x64xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: key 'split_k' must be 1 to 64 (slices of the reduction loop over blocks), got 128}}
  %r = linalg.matmul {pruner.config = {workgroup = [1, 32, 0], reduction = [0, 0, 1], thread = [1, 1, 0], promote_operands = [], vector_width = 1, split_k = 128}} ins(%A, %B : tensor<1x256xf32>, tensor<256x64xf32>) outs(%C : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %r : tensor<1x64xf32>
}

// -----

// Each op's schedule cleans up the func.func that holds it: an op elsewhere is refused
// before anything changes, by name.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @mm_in_gpu_func(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>) {
      // expected-error @+1 {{pruner.config on linalg.matmul: not inside a func.func: pruner-apply-config schedules the linalg ops of func.func functions}}
      %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], promote_operands = [0, 1], vector_width = 4}} ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%C : tensor<64x96xf32>) -> tensor<64x96xf32>
      gpu.return
    }
  }
}

// -----

// A tile array its op needs is named when it is missing (it read as zeros and failed as
// "thread tile [0, 0, 0] is 0"); arrays of a level the op lacks may be left out
// (unbuildable.mlir).
func.func @missing_thread(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>) -> tensor<64x96xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: key 'thread' is missing (the op has parallel loops; docs/config.md)}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16]}} ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%C : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// -----

func.func @missing_reduction(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>) -> tensor<64x96xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul: key 'reduction' is missing (the op has reduction loops; docs/config.md)}}
  %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], thread = [4, 4, 0]}} ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%C : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// -----

// A pruner.config on an op that is not a structured linalg op configures nothing: a
// warning says so (it was ignored without a word).
func.func @unconfigurable(%a: tensor<2x16xf32>, %c: tensor<2x16xf32>, %x: f32) -> (tensor<2x16xf32>, f32) {
  // expected-warning @+1 {{pruner: the pruner.config on linalg.softmax is ignored: only structured linalg ops (with indexing maps to tile) are configured}}
  %0 = linalg.softmax {pruner.config = {workgroup = [1, 16], reduction = [0, 0], thread = [1, 1]}} dimension(1) ins(%a : tensor<2x16xf32>) outs(%c : tensor<2x16xf32>) -> tensor<2x16xf32>
  // expected-warning @+1 {{pruner: the pruner.config on arith.addf is ignored}}
  %1 = arith.addf %x, %x {pruner.config = {workgroup = [1]}} : f32
  return %0, %1 : tensor<2x16xf32>, f32
}

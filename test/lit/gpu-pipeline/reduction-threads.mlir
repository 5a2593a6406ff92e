// A cross-thread reduction (reduction_threads = 32, docs/schedule.md): the PTX keeps the
// partials in shared memory (st.shared by the 32 partial reducers, a barrier, ld.shared by
// the combining threads): one level, one buffer. PTX needs no toolkit: this runs everywhere.
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{format=isa})' %s | FileCheck %s

// CHECK: gpu.launch_func {{ *}}@rowmax_kernel::@rowmax_kernel
// CHECK: gpu.binary @rowmax_kernel
// CHECK-SAME: .maxntid 32, 1, 1
// The partials: 4 rows x 32 threads x 4 bytes.
// CHECK-SAME: .shared .align {{[0-9]+}} .b8 {{[a-z_0-9]+}}[512]
// CHECK-SAME: ld.global
// CHECK-SAME: st.shared
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.shared
// CHECK-SAME: st.global
func.func @rowmax(%X: tensor<12x128x128xf32>, %Y: tensor<12x128xf32>) -> tensor<12x128xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(b, r, c) -> (b, r, c)>, affine_map<(b, r, c) -> (b, r)>],
      iterator_types = ["parallel", "parallel", "reduction"],
      pruner.config = {workgroup = [1, 4, 0], reduction = [0, 0, 1], thread = [1, 4, 0], promote_operands = [], vector_width = 1, reduction_threads = 32}}
      ins(%X : tensor<12x128x128xf32>) outs(%Y : tensor<12x128xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %x, %acc : f32
    linalg.yield %m : f32
  } -> tensor<12x128xf32>
  return %r : tensor<12x128xf32>
}

// With the init from a fill (a softmax's row max starts at -inf): the fill is fused into
// the combining threads' loop, the partials get their own -inf fill before the barrier.
// From 64 threads the combine has two levels (docs/schedule.md): the 64 partials of each
// row are first folded into 32 by the block's lanes (scalar loads, lane s reading partials
// s and s + 32 of its row), written to a second buffer (8 rows x 32 x 4 bytes), and after
// a second barrier one thread per row folds those 32 (ld.shared.v4).
// CHECK: gpu.binary @rowmax_fill_kernel
// CHECK-SAME: .maxntid 64, 1, 1
// CHECK-SAME: .shared .align {{[0-9]+}} .b8 {{[a-z_0-9]+}}[2048]
// CHECK-SAME: .shared .align {{[0-9]+}} .b8 {{[a-z_0-9]+}}[1024]
// CHECK-SAME: st.shared
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.shared.b32
// CHECK-SAME: max.NaN.f32
// CHECK-SAME: st.shared
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.shared.v4.b32
// CHECK-SAME: st.global
func.func @rowmax_fill(%X: tensor<12x128x128xf32>, %Y: tensor<12x128xf32>) -> tensor<12x128xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %f = linalg.fill ins(%ninf : f32) outs(%Y : tensor<12x128xf32>) -> tensor<12x128xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, r, c) -> (b, r, c)>, affine_map<(b, r, c) -> (b, r)>],
      iterator_types = ["parallel", "parallel", "reduction"],
      pruner.config = {workgroup = [1, 8, 0], reduction = [0, 0, 2], thread = [1, 8, 0], promote_operands = [], vector_width = 1, reduction_threads = 64}}
      ins(%X : tensor<12x128x128xf32>) outs(%f : tensor<12x128xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %x, %acc : f32
    linalg.yield %m : f32
  } -> tensor<12x128xf32>
  return %r : tensor<12x128xf32>
}

// A GEMV (matmul with M = 1, f16 inputs, f32 accumulation; GPT-2's decode-time QKV
// projection): 64 threads split K = 768, each block owns 16 columns, so the grid has
// 2304 / 16 = 144 blocks. The partials: 16 columns x 64 threads x 4 bytes. Each thread's
// K loop reads its row of B's 16 columns as two 16-byte loads and keeps its 16 partials
// in registers (FMAs, no shared memory before the barrier); after the barrier each warp
// folds 8 columns' 64 partials into 32 (two-level combine: a second buffer of 16 columns
// x 32 x 4 bytes, a second barrier), then the combining threads read those 16 at a time
// (ld.shared.v4).
// CHECK: gpu.binary @gemv_kernel
// CHECK-SAME: .maxntid 64, 1, 1
// CHECK-SAME: .shared .align {{[0-9]+}} .b8 {{[a-z_0-9]+}}[4096]
// CHECK-SAME: .shared .align {{[0-9]+}} .b8 {{[a-z_0-9]+}}[2048]
// CHECK-NOT: ld.shared
// CHECK-SAME: ld.global.v4.b32
// CHECK-NOT: ld.shared
// CHECK-SAME: ld.global.b16
// CHECK-SAME: cvt.f32.f16
// CHECK-NOT: ld.shared
// CHECK-SAME: fma.rn.f32
// CHECK-NOT: ld.shared
// CHECK-SAME: st.shared
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.shared.b32
// CHECK-SAME: add.rn.f32
// CHECK-SAME: st.shared
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.shared.v4.b32
// CHECK-SAME: st.global
func.func @gemv(%A: tensor<1x768xf16>, %B: tensor<768x2304xf16>, %C: tensor<1x2304xf32>) -> tensor<1x2304xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<1x2304xf32>) -> tensor<1x2304xf32>
  %0 = linalg.matmul {pruner.config = {workgroup = [1, 16, 0], reduction = [0, 0, 4], thread = [1, 16, 0], promote_operands = [], vector_width = 1, reduction_threads = 64}}
      ins(%A, %B : tensor<1x768xf16>, tensor<768x2304xf16>) outs(%f : tensor<1x2304xf32>) -> tensor<1x2304xf32>
  return %0 : tensor<1x2304xf32>
}

// vector_width = 8 for 16-bit inputs (docs/config.md rule 1): 8 halves are one 16-byte
// load. An f16 elementwise add with an 8-wide thread tile: two ld.global.v4.b32 and one
// st.global.v4.b32 per thread; the f16 -> f32 matmul promoted with width 8 copies its
// tiles 16 bytes at a time. PTX needs no toolkit: this runs everywhere.
// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config,pruner-gpu-pipeline{format=isa})' %s | FileCheck %s

// CHECK: gpu.binary @ew_kernel
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: add.rn.f16x2
// CHECK-SAME: st.global.v4.b32
// CHECK: gpu.binary @mm_kernel
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: st.shared.v4.b32
// CHECK-SAME: ld.shared.v4.b32
func.func @ew(%X: tensor<128x3072xf16>, %Y: tensor<128x3072xf16>, %O: tensor<128x3072xf16>) -> tensor<128x3072xf16> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"],
      pruner.config = {workgroup = [4, 256], reduction = [0, 0], thread = [1, 8], promote_operands = [], vector_width = 8}}
      ins(%X, %Y : tensor<128x3072xf16>, tensor<128x3072xf16>) outs(%O : tensor<128x3072xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %s = arith.addf %x, %y : f16
    linalg.yield %s : f16
  } -> tensor<128x3072xf16>
  return %r : tensor<128x3072xf16>
}
func.func @mm(%A: tensor<128x768xf16>, %B: tensor<768x3072xf16>) -> tensor<128x3072xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x3072xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  %r = linalg.matmul {pruner.config = {workgroup = [32, 128, 0], reduction = [0, 0, 16], thread = [4, 8, 0], promote_operands = [0, 1], vector_width = 8}}
      ins(%A, %B : tensor<128x768xf16>, tensor<768x3072xf16>) outs(%f : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  return %r : tensor<128x3072xf32>
}

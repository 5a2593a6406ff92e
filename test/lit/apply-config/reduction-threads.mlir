// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config)' %s | FileCheck %s

// A cross-thread reduction reads its input interleaved (docs/schedule.md, "Cross-thread
// reductions"): the reduction loop of 128 is viewed as 4 x 32 and lane x of the block's 32
// threads reads column x, so neighbouring lanes load neighbouring elements. Each thread
// keeps its 4 rows' partials in its column of the shared buffer (4 x 32 f32); after a
// barrier, one thread per row folds the 32 partials into the output.
// CHECK-LABEL: func.func @rowmax
// CHECK: gpu.launch
// CHECK: %[[IN:.+]] = memref.subview %arg0[%{{.+}}, %{{.+}}, 0] [1, 4, 128] [1, 1, 1]
// CHECK: %[[SPLIT:.+]] = memref.expand_shape %[[IN]] {{\[\[}}0], [1], [2, 3]] output_shape [1, 4, 4, 32]
// CHECK: %[[PART:.+]] = memref.get_global @{{.+}} : memref<1x4x32xf32, 3>
// CHECK: %[[TX:.+]] = gpu.thread_id x
// CHECK: memref.subview %[[PART]][0, 0, %[[TX]]] [1, 4, 1]
// CHECK: scf.for %[[KK:.+]] =
// CHECK: memref.subview %[[SPLIT]][0, 0, %[[KK]], %[[TX]]] [1, 4, 1, 1]
// CHECK: arith.maximumf
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %[[TX]]
// CHECK: memref.subview %[[PART]][0, %[[TX]], 0] [1, 1, 32]
// CHECK: arith.maximumf
// CHECK: memref.global "private" @{{.+}} : memref<1x4x32xf32, 3>
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

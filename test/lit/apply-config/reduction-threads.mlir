// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config)' %s | FileCheck %s

// A cross-thread reduction reads its input interleaved (docs/schedule.md, "Cross-thread
// reductions"): the reduction loop of 128 is viewed as 4 x 32 and lane x of the block's 32
// threads reads column x, so neighbouring lanes load neighbouring elements. Each thread
// carries its 4 rows' partials through its K loop in registers (a vector iter_arg that
// starts at the neutral element), and stores them once into its column of the shared
// buffer (4 x 32 f32); after a barrier, one thread per row folds the 32 partials into the
// output, 16 per vector load, the output element carried in registers.
// CHECK-LABEL: func.func @rowmax
// CHECK: gpu.launch
// CHECK: %[[PART:.+]] = memref.get_global @{{.+}} : memref<1x4x32xf32, 3>
// CHECK: %[[TX:.+]] = gpu.thread_id x
// CHECK: scf.for %[[KK:.+]] = {{.*}} iter_args(%{{.+}} = %{{.+}}) -> (vector<1x4x1xf32>)
// CHECK: affine.linearize_index [%[[KK]], %[[TX]]] by (4, 32)
// CHECK: vector.load %arg0
// CHECK-NOT: memref.store
// CHECK: arith.maximumf {{.*}} : vector<1x4x1xf32>
// CHECK: scf.yield
// CHECK-COUNT-4: vector.store %{{.+}}, %[[PART]][%{{.+}}, %{{.+}}, %[[TX]]]
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %[[TX]]
// CHECK: scf.for {{.*}} iter_args
// CHECK: vector.load %[[PART]][%{{.+}}, %[[TX]], %{{.+}}] {{.*}} vector<16xf32>
// CHECK: arith.maximumf
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

// From 64 threads the combine has two levels (docs/schedule.md): here 256 threads, 4 rows.
// After the partials' barrier, 4 rows x 32 lanes = 128 threads (the rest predicated off)
// each fold 8 of their row's 256 partials, lane s reading partials s, s + 32, ... (so a
// warp reads 32 neighbouring ones), into a second shared buffer of 4 x 32; after a second
// barrier one thread per row folds those 32, 16 per vector load, into the output.
// CHECK-LABEL: func.func @rowsum_two_level
// CHECK: gpu.launch
// CHECK: %[[PART:.+]] = memref.get_global @{{.+}} : memref<1x4x256xf32, 3>
// CHECK: %[[TX:.+]] = gpu.thread_id x
// CHECK: scf.for
// CHECK: affine.linearize_index [%{{.+}}, %[[TX]]] by (4, 256)
// CHECK: scf.yield
// CHECK-COUNT-4: vector.store %{{.+}}, %[[PART]][%{{.+}}, %{{.+}}, %[[TX]]]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[FIRST:.+]] = memref.get_global @{{.+}} : memref<1x4x32xf32, 3>
// CHECK: arith.cmpi ult, %[[TX]], %c128
// CHECK-COUNT-8: vector.load %[[PART]]
// CHECK-COUNT-8: arith.addf
// CHECK-NEXT: vector.store %{{.+}}, %[[FIRST]]
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %[[TX]], %c4
// CHECK: scf.for {{.*}} iter_args
// CHECK: vector.load %[[FIRST]][%{{.+}}, %[[TX]], %{{.+}}] {{.*}} vector<16xf32>
// CHECK: arith.addf
// The buffers, the module's: @rowmax's partials, then @rowsum_two_level's two.
// CHECK: memref.global "private" @{{.+}} : memref<1x4x32xf32, 3>
// CHECK: memref.global "private" @{{.+}} : memref<1x4x256xf32, 3>
// CHECK: memref.global "private" @{{.+}} : memref<1x4x32xf32, 3>
func.func @rowsum_two_level(%X: tensor<12x128x1024xf32>, %Y: tensor<12x128xf32>) -> tensor<12x128xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(b, r, c) -> (b, r, c)>, affine_map<(b, r, c) -> (b, r)>],
      iterator_types = ["parallel", "parallel", "reduction"],
      pruner.config = {workgroup = [1, 4, 0], reduction = [0, 0, 1], thread = [1, 4, 0], promote_operands = [], vector_width = 1, reduction_threads = 256}}
      ins(%X : tensor<12x128x1024xf32>) outs(%Y : tensor<12x128xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<12x128xf32>
  return %r : tensor<12x128xf32>
}

// Host kernel of an NCHW conv (docs/host.md, "NCHW convolutions run channels-last"): the
// input and filter transposed to NHWC and HWCF, the NHWC conv of the config (its loops
// mapped by role: the config stays in the NCHW op's order n, f, oh, ow, c, kh, kw) into a
// zero-filled NHWC tile per task, added back into the NCHW output by each task; every
// buffer it allocates is freed, and the output is written in place (no copy). Strides and
// dilations differ between h and w; two images; checked against the reference on two
// threads.
// RUN: pruner-host-tool %s --print=schedule \
// RUN:   --config='{workgroup = [1, 32, 2, 10, 0, 0, 0], reduction = [0, 0, 0, 0, 5, 1, 3], thread = [1, 16, 1, 5, 0, 0, 0], promote_operands = [], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=SCHED
// RUN: pruner-host-tool %s --print=scheduled \
// RUN:   --config='{workgroup = [1, 32, 2, 10, 0, 0, 0], reduction = [0, 0, 0, 0, 5, 1, 3], thread = [1, 16, 1, 5, 0, 0, 0], promote_operands = [], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=IR
// RUN: pruner-host-tool %s --threads=2 \
// RUN:   --config='{workgroup = [1, 32, 2, 10, 0, 0, 0], reduction = [0, 0, 0, 0, 5, 1, 3], thread = [1, 16, 1, 5, 0, 0, 0], promote_operands = [], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=MEASURED
// One task: the output goes through one NHWC buffer, no tasks to fuse into.
// RUN: pruner-host-tool %s --print=schedule \
// RUN:   --config='{workgroup = [2, 32, 6, 10, 0, 0, 0], reduction = [0, 0, 0, 0, 5, 1, 3], thread = [1, 16, 1, 5, 0, 0, 0], promote_operands = [], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=ONE
// A bad config is named in the twin's loop numbers, and says so.
// RUN: not pruner-host-tool %s --print=schedule \
// RUN:   --config='{workgroup = [1, 32, 2, 10, 0, 0, 0], reduction = [0, 0, 0, 0, 5, 1, 3], thread = [1, 16, 2, 5, 0, 0, 0], promote_operands = [], vector_width = LANES}' \
// RUN:   2>&1 | FileCheck %s --check-prefix=BAD

// SCHED: %op = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]}
// SCHED: %tr0, %tr1 = transform.split_handle %tr
// SCHED: tile_using_forall %back tile_sizes [1, 32, 2, 10]
// SCHED: fuse_into_containing_op %op into %forall0
// SCHED: fuse_into_containing_op %zfill into %forall1
// SCHED: tile_using_for %t1 tile_sizes [1, 1, 5, 16, 0, 0, 1]
// The filter (kh, kw, c, f) in blocks of its taps x a vector of f, walking c, f, then kh.
// SCHED: tile_using_for %tr1 tile_sizes [1, 3, 1, {{[0-9]+}}] interchange = [2, 3, 0, 1]
// SCHED: transform.structured.decompose
// SCHED: lower_transpose lowering_strategy = "shuffle_16x16"

// IR-LABEL: func.func @kernel
// IR-SAME: memref<2x5x13x14xf32>
// IR: %[[IN:.*]] = memref.alloc() {{.*}} : memref<2x13x14x5xf32>
// IR: %[[FIL:.*]] = memref.alloc() {{.*}} : memref<3x3x5x32xf32>
// IR: scf.parallel
// IR: %[[TILE:.*]] = memref.alloc() {{.*}} : memref<1x2x10x32xf32>
// IR: vector.fma
// IR: memref.dealloc %[[TILE]]
// IR: scf.reduce
// IR-DAG: memref.dealloc %[[IN]]
// IR-DAG: memref.dealloc %[[FIL]]
// IR-NOT: memref.copy
// IR: return %arg2

// MEASURED: tuned ok {{.*}} max_abs_error {{(0|[0-9.]+e-0[5-9])}} jit_s

// ONE-NOT: tile_using_forall
// ONE-NOT: fuse_into_containing_op
// ONE: %zfillr, %zfilll:3 = transform.structured.tile_using_for %zfill tile_sizes [1, 1, 1, 0]

// BAD: thread tile 2 of loop 1 (oh): 2-D convolutions keep it at 1 (an NCHW conv runs as its channels-last twin

func.func @conv(%I: tensor<2x5x13x14xf32>, %W: tensor<32x5x3x3xf32>, %O: tensor<2x32x6x10xf32>) -> tensor<2x32x6x10xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
      ins(%I, %W : tensor<2x5x13x14xf32>, tensor<32x5x3x3xf32>) outs(%O : tensor<2x32x6x10xf32>) -> tensor<2x32x6x10xf32>
  return %r : tensor<2x32x6x10xf32>
}

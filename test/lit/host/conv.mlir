// Host schedule of an NHWC conv: tiled on tensors (oh and kh at 1 inside the register
// tile), decomposed into 1-D convs, then bufferized by the schedule itself; vectorized
// over f and checked against the C reference. The 4 x 16 register tile fits every x86-64
// description (AVX2: 8 accumulators + 2 + 1 of 16 registers).
// RUN: pruner-host-tool %s --print=schedule \
// RUN:   --config='{workgroup = [1, 4, 8, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 3, 8], thread = [1, 1, 4, 16, 0, 0, 0], promote_operands = [], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=SCHED
// RUN: pruner-host-tool %s --print=scheduled \
// RUN:   --config='{workgroup = [1, 4, 8, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 3, 8], thread = [1, 1, 4, 16, 0, 0, 0], promote_operands = [], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=IR
// RUN: pruner-host-tool %s \
// RUN:   --config='{workgroup = [1, 4, 8, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 3, 8], thread = [1, 1, 4, 16, 0, 0, 0], promote_operands = [], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=MEASURED
// A register tile of oh > 1 cannot be decomposed: rejected, naming the loop.
// RUN: not pruner-host-tool %s --print=schedule \
// RUN:   --config='{workgroup = [1, 4, 8, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 3, 8], thread = [1, 2, 4, 16, 0, 0, 0], promote_operands = [], vector_width = LANES}' \
// RUN:   2>&1 | FileCheck %s --check-prefix=BAD

// SCHED: {transform.consumed}
// SCHED: tile_using_forall %op tile_sizes [1, 4, 8, 32, 0, 0, 0]
// SCHED: tile_using_for %t1 tile_sizes [1, 1, 4, 16, 0, 0, 1]
// SCHED: transform.structured.decompose
// SCHED: transform.bufferization.one_shot_bufferize layout{IdentityLayoutMap}
// SCHED: vectorize_children_and_apply_patterns

// IR-LABEL: func.func @kernel
// IR-SAME: memref<1x10x10x8xf32>
// IR: scf.parallel
// The output register tile stays in registers across the input-channel steps (host
// code-generator version 4): the step loop carries it and stores nothing; the tile is
// stored once after it (before, bufferization's self-copies loaded and stored it three
// times a step).
// IR: scf.for {{.*}} iter_args({{.*}}) -> (vector<1x4x16xf32>)
// IR-NOT: vector.store
// IR: vector.fma
// IR-NOT: vector.store
// IR: scf.yield {{.*}} : vector<1x4x16xf32>
// IR: vector.store
// IR-NOT: linalg.conv_2d

// MEASURED: tuned ok {{.*}} max_abs_error 0

// BAD: thread tile 2 of loop 1 (oh): 2-D convolutions keep it at 1

func.func @conv(%I: tensor<1x10x10x8xf32>, %W: tensor<3x3x8x32xf32>, %O: tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%I, %W : tensor<1x10x10x8xf32>, tensor<3x3x8x32xf32>) outs(%O : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  return %r : tensor<1x8x8x32xf32>
}

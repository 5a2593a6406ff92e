// Host schedule of a matmul (docs/host.md): two tasks run by OpenMP, a K cache tile of
// 32, a 3 x 16 register tile whose 3 rows do not divide the 64-row task (the row loop is
// peeled), vectorized, the accumulator hoisted into the inner K loop's iter_args,
// contractions lowered to FMAs. LANES is the described f32 SIMD width; 3 x 16 fits every
// x86-64 description (AVX2: 6 accumulators + 2 + 1 of 16 registers; AVX-512: 3 + 1 + 1),
// and the IR's vector shapes follow the tile, not the lanes.
// RUN: pruner-host-tool %s --print=schedule \
// RUN:   --config='{workgroup = [64, 256, 0], reduction = [0, 0, 32], thread = [3, 16, 0], promote_operands = [], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=SCHED
// RUN: pruner-host-tool %s --print=scheduled \
// RUN:   --config='{workgroup = [64, 256, 0], reduction = [0, 0, 32], thread = [3, 16, 0], promote_operands = [], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=IR
// RUN: pruner-host-tool %s --print=llvm \
// RUN:   --config='{workgroup = [64, 256, 0], reduction = [0, 0, 32], thread = [3, 16, 0], promote_operands = [], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=LLVM
// RUN: pruner-host-tool %s \
// RUN:   --config='{workgroup = [64, 256, 0], reduction = [0, 0, 32], thread = [3, 16, 0], promote_operands = [], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=MEASURED
// Untiled: no transform at all, plain loops, and still correct.
// RUN: pruner-host-tool %s --print=schedule | FileCheck %s --check-prefix=UNTILED
// RUN: pruner-host-tool %s | FileCheck %s --check-prefix=MEASURED-UNTILED

// SCHED: tile_using_forall %op tile_sizes [64, 256, 0]
// SCHED: tile_using_for %t0 tile_sizes [0, 0, 32]
// SCHED: tile_using_for %t1 tile_sizes [3, 16, 1]
// SCHED: transform.loop.peel
// SCHED: vectorize_children_and_apply_patterns
// SCHED: transform.apply_patterns.memref.fold_memref_alias_ops
// SCHED: hoist_redundant_vector_transfers
// SCHED: lower_contraction lowering_strategy = "outerproduct"
// SCHED: transform.loop.forall_to_parallel

// IR-LABEL: func.func @kernel
// IR: scf.parallel
// IR: scf.for %{{.*}} = %{{.*}} to %c64 step %c32
// IR: scf.for %{{.*}} = %{{.*}} to %c63 step %c3
// IR: scf.for {{.*}} iter_args({{.*}}) -> (vector<3x16xf32>)
// IR-COUNT-3: vector.fma
// IR: scf.yield {{.*}} : vector<3x16xf32>
// The peeled last row.
// IR: scf.for {{.*}} iter_args({{.*}}) -> (vector<1x16xf32>)
// IR: vector.fma
// IR-NOT: linalg.matmul

// LLVM: omp.parallel
// LLVM: omp.wsloop
// LLVM-COUNT-4: llvm.intr.fmuladd
// LLVM-NOT: scf.

// MEASURED: tuned ok median_us {{[0-9.]+}} gflops {{[0-9.]+}} samples {{[0-9]+}} max_abs_error 0

// UNTILED: transform.named_sequence @__transform_main
// UNTILED-NEXT: transform.yield
// MEASURED-UNTILED: untiled ok median_us {{.*}} max_abs_error 0

func.func @mm(%A: tensor<128x64xf32>, %B: tensor<64x256xf32>, %C: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %r = linalg.matmul ins(%A, %B : tensor<128x64xf32>, tensor<64x256xf32>) outs(%C : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

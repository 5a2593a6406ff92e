// Split loops (docs/host.md, "Split loops"): 521 rows (a prime over the 512 task-tile
// limit) have no dividing task tile, and no vector of 4 lanes or more divides 517
// columns (11 x 47). Each loop is split at the last multiple of a task tile that does not
// divide it: the main part runs the config, the remainder (9 rows, 5 columns) is one task
// along the split loop, its register tile cut to it and peeled where it does not divide.
// Two split loops make four parts; the remainders of B's columns are not packed, and the
// panels' copies are tiled once after every part has packed. The 6 x 16 register tile
// fits AVX2 (12 accumulators + 2 + 1 of 16 registers) and AVX-512 (6 + 1 + 1 of 32).
// RUN: pruner-host-tool %s --print=schedule \
// RUN:   --config='{workgroup = [64, 128, 0], reduction = [0, 0, 32], thread = [6, 16, 0], promote_operands = [1], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=SCHED
// RUN: pruner-host-tool %s --print=scheduled \
// RUN:   --config='{workgroup = [64, 128, 0], reduction = [0, 0, 32], thread = [6, 16, 0], promote_operands = [1], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=IR
// RUN: pruner-host-tool %s \
// RUN:   --config='{workgroup = [64, 128, 0], reduction = [0, 0, 32], thread = [6, 16, 0], promote_operands = [1], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=MEASURED
// One split loop: two parts, and one forall (the remainder is one task along m and n).
// RUN: pruner-host-tool %s --print=schedule \
// RUN:   --config='{workgroup = [521, 256, 0], reduction = [0, 0, 64], thread = [4, 16, 0], promote_operands = [], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=ONE
// RUN: pruner-host-tool %s \
// RUN:   --config='{workgroup = [521, 256, 0], reduction = [0, 0, 64], thread = [4, 16, 0], promote_operands = [], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=MEASURED
// A remainder of 21 columns (533 = 8 x 64 + 21) with a 32-wide register tile takes 16
// columns (whole vectors) and peels a 5-wide tail, on AVX2 and AVX-512 alike: a tile cut
// to 21 (partial vectors wider than one) was rebuilt from scalars every step, 6-27x
// slower.
// RUN: pruner-host-tool %S/Inputs/mm-533.mlir --print=scheduled \
// RUN:   --config='{workgroup = [64, 64, 0], reduction = [0, 0, 64], thread = [1, 32, 0], promote_operands = [], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=WHOLE
// RUN: pruner-host-tool %S/Inputs/mm-533.mlir \
// RUN:   --config='{workgroup = [64, 64, 0], reduction = [0, 0, 64], thread = [1, 32, 0], promote_operands = [], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=MEASURED
// The draft and the space: every config of the space is split on both loops, vectorized
// with the described lanes (before, the space of this op was empty: "no task tile").
// RUN: pruner-draft %s --target=host:avx2 --top=2 | FileCheck %s --check-prefix=SPACE
// A task tile past the bound is still refused by name.
// RUN: not pruner-host-tool %s \
// RUN:   --config='{workgroup = [600, 128, 0], reduction = [0, 0, 32], thread = [6, 16, 0], promote_operands = [], vector_width = LANES}' \
// RUN:   2>&1 | FileCheck %s --check-prefix=BAD

// SCHED: %op = transform.structured.match
// SCHED: // Loop 0 (m) split at 512: 64-wide tasks below, a remainder of 9 above.
// SCHED-NEXT: %sp0_0 = transform.structured.split %op after 512 {dimension = 0}
// SCHED-NEXT: %op0_0, %op0_1 = transform.split_handle %sp0_0
// SCHED-NEXT: // Loop 1 (n) split at 512: 128-wide tasks below, a remainder of 5 above.
// SCHED-NEXT: %sp1_0 = transform.structured.split %op0_0 after 512 {dimension = 1}
// SCHED-NEXT: %op_p0, %op_p2 = transform.split_handle %sp1_0
// SCHED-NEXT: %sp1_1 = transform.structured.split %op0_1 after 512 {dimension = 1}
// SCHED-NEXT: %op_p1, %op_p3 = transform.split_handle %sp1_1
// SCHED: // Part 0.
// SCHED-NEXT: // 32 tasks
// SCHED-NEXT: tile_using_forall %op_p0 tile_sizes [64, 128, 0]
// SCHED: %pk_p0 = transform.structured.promote
// SCHED: tile_using_for %pk_p0 tile_sizes [6, 16, 1]
// SCHED: transform.loop.peel %peel0_p0
// SCHED: // Part 1.
// SCHED-NEXT: // 4 tasks
// SCHED-NEXT: tile_using_forall %op_p1 tile_sizes [9, 128, 0]
// SCHED: %pk_p1 = transform.structured.promote
// SCHED: tile_using_for %pk_p1 tile_sizes [6, 16, 1]
// SCHED: transform.loop.peel %peel0_p1
// SCHED: // Part 2.
// SCHED-NEXT: // 8 tasks
// SCHED-NEXT: tile_using_forall %op_p2 tile_sizes [64, 5, 0]
// SCHED-NOT: promote
// SCHED: tile_using_for %t1_p2 tile_sizes [6, 5, 1]
// SCHED: // Part 3.
// SCHED-NOT: tile_using_forall
// SCHED: tile_using_for %t1_p3 tile_sizes [6, 5, 1]
// SCHED: %pc = transform.structured.match ops{["linalg.copy"]}
// SCHED: vectorize_children_and_apply_patterns
// SCHED: transform.foreach %fa
// SCHED-NEXT: ^bb0(%one: !transform.any_op):
// SCHED-NEXT: transform.loop.forall_to_parallel %one

// Every part is vectorized: the main tiles (64-row tasks: 10 rows of 6, 4 peeled), the
// 5-wide remainder columns and the 9 remainder rows (6 + 3 peeled), with the accumulators
// in registers; no linalg op is left. Parts 0, 2 and 1 have tasks, part 3 runs alone.
// IR-LABEL: func.func @kernel
// IR: scf.parallel
// IR: iter_args({{.*}}) -> (vector<6x16xf32>)
// IR: iter_args({{.*}}) -> (vector<4x16xf32>)
// IR: scf.parallel
// IR: iter_args({{.*}}) -> (vector<6x5xf32>)
// IR: iter_args({{.*}}) -> (vector<4x5xf32>)
// IR: scf.parallel
// IR: iter_args({{.*}}) -> (vector<6x16xf32>)
// IR: iter_args({{.*}}) -> (vector<3x16xf32>)
// IR-NOT: scf.parallel
// IR: iter_args({{.*}}) -> (vector<6x5xf32>)
// IR: iter_args({{.*}}) -> (vector<3x5xf32>)
// IR-NOT: linalg.matmul

// WHOLE-LABEL: func.func @kernel
// WHOLE: iter_args({{.*}}) -> (vector<1x32xf32>)
// WHOLE-NOT: x21xf32>
// WHOLE: iter_args({{.*}}) -> (vector<1x16xf32>)
// WHOLE: iter_args({{.*}}) -> (vector<1x5xf32>)
// WHOLE-NOT: x21xf32>
// WHOLE: return

// MEASURED: tuned ok median_us {{[0-9.]+}} gflops {{[0-9.]+}} samples {{[0-9]+}} max_abs_error {{[0-9.e-]+}}

// ONE: // Loop 1 (n) split at 512: 256-wide tasks below, a remainder of 5 above.
// ONE: %op_p0, %op_p1 = transform.split_handle %sp0_0
// ONE: // Part 0.
// ONE-NEXT: // 2 tasks
// ONE: // Part 1.
// ONE-NOT: tile_using_forall
// ONE: tile_using_for %op_p1 tile_sizes [4, 5, 1]
// ONE: transform.loop.peel %peel0_p1
// ONE-NOT: transform.foreach
// ONE: %par = transform.loop.forall_to_parallel %fa

// SPACE: op 0: linalg.matmul matmul:521x517x64:f32,f32->f32
// SPACE-NEXT: space: {{[1-9][0-9]*}} valid configs
// SPACE: 1 wg{{[0-9]+}}x{{[0-9]+}} r64 t{{[0-9]+}}x{{[0-9]+}} p{{.}} v8

// BAD: workgroup tile 600 of loop 0 (m) is not in [1, bound 521]

func.func @mm(%A: tensor<521x64xf32>, %B: tensor<64x517xf32>, %C: tensor<521x517xf32>) -> tensor<521x517xf32> {
  %r = linalg.matmul ins(%A, %B : tensor<521x64xf32>, tensor<64x517xf32>) outs(%C : tensor<521x517xf32>) -> tensor<521x517xf32>
  return %r : tensor<521x517xf32>
}

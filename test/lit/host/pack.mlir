// Packing B (docs/host.md, "Packing B"): promote_operands = [1] on the host copies each
// K-step x register-column panel of B into a 64-byte aligned buffer, one row vector per
// iteration, and the register tiles read the copy; the accumulator stays hoisted and the
// result is exact. The 3 x 16 tile fits every x86-64 description (AVX2: 6 accumulators
// + 2 + 1 of 16 registers; AVX-512: 3 + 1 + 1 of 32), and the IR's vectors follow the
// tile, not the lanes.
// RUN: pruner-host-tool %s --print=schedule \
// RUN:   --config='{workgroup = [64, 256, 0], reduction = [0, 0, 32], thread = [3, 16, 0], promote_operands = [1], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=SCHED
// RUN: pruner-host-tool %s --print=scheduled \
// RUN:   --config='{workgroup = [64, 256, 0], reduction = [0, 0, 32], thread = [3, 16, 0], promote_operands = [1], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=IR
// RUN: pruner-host-tool %s \
// RUN:   --config='{workgroup = [64, 256, 0], reduction = [0, 0, 32], thread = [3, 16, 0], promote_operands = [1], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=MEASURED
// A task one register column wide needs no panel loop, and B's whole K is one panel.
// RUN: pruner-host-tool %s --print=schedule \
// RUN:   --config='{workgroup = [32, 16, 0], reduction = [0, 0, 64], thread = [3, 16, 0], promote_operands = [1], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=WHOLE
// RUN: pruner-host-tool %s \
// RUN:   --config='{workgroup = [32, 16, 0], reduction = [0, 0, 64], thread = [3, 16, 0], promote_operands = [1], vector_width = LANES}' \
// RUN:   | FileCheck %s --check-prefix=MEASURED
// Only operand 1, and only vectorized: anything else is refused, naming the op.
// RUN: not pruner-host-tool %s \
// RUN:   --config='{workgroup = [64, 256, 0], reduction = [0, 0, 32], thread = [3, 16, 0], promote_operands = [0], vector_width = LANES}' \
// RUN:   2>&1 | FileCheck %s --check-prefix=OPERAND
// RUN: not pruner-host-tool %s \
// RUN:   --config='{workgroup = [64, 256, 0], reduction = [0, 0, 32], thread = [3, 16, 0], promote_operands = [1], vector_width = 1}' \
// RUN:   2>&1 | FileCheck %s --check-prefix=SCALAR

// SCHED: tile_using_forall %op tile_sizes [64, 256, 0]
// SCHED: tile_using_for %t0 tile_sizes [0, 0, 32]
// SCHED: %t3, %lp:1 = transform.structured.tile_using_for %t1 tile_sizes [0, 16, 0]
// SCHED: transform.structured.promote %t3 {operands_to_promote = [1], alignment = 64}
// SCHED: match ops{["linalg.copy"]}
// SCHED: tile_using_for %pc tile_sizes [1, 0]
// SCHED: tile_using_for %pk tile_sizes [3, 16, 1]

// IR-LABEL: func.func @kernel
// IR: scf.parallel
// IR: scf.for %{{.*}} = %{{.*}} to %c64 step %c32
// IR: scf.for %{{.*}} = %{{.*}} to %c256 step %c16
// IR: %[[ALLOC:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2048xi8>
// IR: %[[PANEL:.*]] = memref.view %[[ALLOC]]{{.*}} to memref<32x16xf32>
// The copy: one row of the panel per iteration.
// IR: scf.for
// IR: vector.load %arg1{{.*}} : memref<64x256xf32>, vector<16xf32>
// IR: vector.store {{.*}}, %[[PANEL]]{{.*}} : memref<32x16xf32>, vector<16xf32>
// The register tiles read the panel, the accumulator in iter_args.
// IR: scf.for {{.*}} iter_args({{.*}}) -> (vector<3x16xf32>)
// IR: vector.load %[[PANEL]]{{.*}} : memref<32x16xf32>, vector<16xf32>
// IR-COUNT-3: vector.fma
// IR: memref.dealloc %[[ALLOC]]
// IR-NOT: linalg.matmul

// WHOLE-NOT: %lp
// WHOLE: transform.structured.promote %t0 {operands_to_promote = [1], alignment = 64}

// MEASURED: tuned ok median_us {{[0-9.]+}} gflops {{[0-9.]+}} samples {{[0-9]+}} max_abs_error 0

// OPERAND: pruner.config on linalg.matmul (host): promote_operands = [0]; on the host only operand 1 of a contraction whose rows run along the vectorized loop can be packed
// SCALAR: pruner.config on linalg.matmul (host): promote_operands = [1] packs a vectorized register panel; vector_width is 1

func.func @mm(%A: tensor<128x64xf32>, %B: tensor<64x256xf32>, %C: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %r = linalg.matmul ins(%A, %B : tensor<128x64xf32>, tensor<64x256xf32>) outs(%C : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

// PTX needs no toolkit: this runs everywhere.
// RUN: %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{format=isa})' %s | FileCheck %s
// RUN: not %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{chip=sm_42})' %s 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{format=elf})' %s 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not %pruner_opt -p 'builtin.module(pruner-gpu-pipeline{chip=host})' %s 2>&1 | FileCheck %s --check-prefix=HOSTCHIP

// CHECK: gpu.launch_func {{ *}}@ew_kernel::@ew_kernel blocks in ({{.*}}) threads in
// CHECK: gpu.binary @ew_kernel {{.*}}chip = "sm_90", features = "+ptx80"{{(, link = \[.*libdevice.10.bc"\])?}}>{{.*}}assembly = "
// CHECK-SAME: .target sm_90
// CHECK-SAME: ld.global
// CHIP: error: pruner-gpu-pipeline: chip 'sm_42' is not a GPU of the table; accepted: t4 (sm_75), {{.*}}h200 (sm_90), or an architecture: sm_75, sm_80, sm_86, sm_89, sm_90
// CHIP-NOT: host
// HOSTCHIP: error: pruner-gpu-pipeline: chip 'host' is not a GPU; accepted: t4 (sm_75),
// FORMAT: error: pruner-gpu-pipeline: format 'elf' is not one of bin, isa
func.func @ew(%X: tensor<128x256xf32>, %O: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"],
      pruner.config = {workgroup = [16, 128], reduction = [0, 0], thread = [1, 4], promote_operands = [], vector_width = 4}}
      ins(%X : tensor<128x256xf32>) outs(%O : tensor<128x256xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

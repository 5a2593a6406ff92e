// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config)' -split-input-file %s | FileCheck %s

// Grid and block follow prunerConfigLaunchShape: the innermost tiled parallel loop (N)
// goes to x. wg [64, 32] on 256x128: grid (128/32, 256/64) = (4, 4); thread [4, 4]:
// block (32/4, 64/4) = (8, 16). vector_width 4: vector FMAs, no shared memory.
// CHECK-LABEL: func.func @mm_64x32
// CHECK-NOT: linalg.matmul
// CHECK: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c4{{[_0-9]*}}, %{{.*}} = %c4{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}}) threads(%{{.*}}) in (%{{.*}} = %c8{{[_0-9]*}}, %{{.*}} = %c16{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}})
// CHECK-NOT: workgroup
// CHECK: vector.fma
// CHECK-NOT: pruner.
func.func @mm_64x32(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>, %C: tensor<256x128xf32>) -> tensor<256x128xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%C : tensor<256x128xf32>) -> tensor<256x128xf32>
  %0 = linalg.matmul {pruner.config = {workgroup = [64, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], promote_operands = [], vector_width = 4}}
     ins(%A, %B : tensor<256x64xf32>, tensor<64x128xf32>) outs(%f : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %0 : tensor<256x128xf32>
}

// -----

// N fits one block (wg 128): only M is split, so M goes to grid x: grid (8, 1, 1);
// block (128/8, 32/2) = (16, 16). vector_width 1: scalar code.
// CHECK-LABEL: func.func @mm_one_block_column
// CHECK: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c8{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}}) threads(%{{.*}}) in (%{{.*}} = %c16{{[_0-9]*}}, %{{.*}} = %c16{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}})
// CHECK-NOT: vector.
// CHECK: arith.mulf {{.*}} : f32
// CHECK: return
func.func @mm_one_block_column(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>, %C: tensor<256x128xf32>) -> tensor<256x128xf32> {
  %0 = linalg.matmul {pruner.config = {workgroup = [32, 128, 0], reduction = [0, 0, 8], thread = [2, 8, 0], promote_operands = [], vector_width = 1}}
     ins(%A, %B : tensor<256x64xf32>, tensor<64x128xf32>) outs(%C : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %0 : tensor<256x128xf32>
}

// -----

// Two configured ops in one function: two launches, in order. The op without a config
// is left alone.
// CHECK-LABEL: func.func @two_ops
// CHECK: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c4{{[_0-9]*}}, %{{.*}} = %c4{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}}) threads(%{{.*}}) in (%{{.*}} = %c8{{[_0-9]*}}, %{{.*}} = %c16{{[_0-9]*}}
// CHECK: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c2{{[_0-9]*}}, %{{.*}} = %c8{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}}) threads(%{{.*}}) in (%{{.*}} = %c16{{[_0-9]*}}, %{{.*}} = %c8{{[_0-9]*}}
// CHECK: linalg.generic
// CHECK-NOT: gpu.launch
func.func @two_ops(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>, %C: tensor<256x128xf32>, %D: tensor<256x128xf32>) -> tensor<256x128xf32> {
  %0 = linalg.matmul {pruner.config = {workgroup = [64, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], promote_operands = [], vector_width = 4}}
     ins(%A, %B : tensor<256x64xf32>, tensor<64x128xf32>) outs(%C : tensor<256x128xf32>) -> tensor<256x128xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"],
      pruner.config = {workgroup = [32, 64], reduction = [0, 0], thread = [4, 4], promote_operands = [], vector_width = 4}}
      ins(%0 : tensor<256x128xf32>) outs(%D : tensor<256x128xf32>) {
  ^bb0(%x: f32, %o: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } -> tensor<256x128xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%1 : tensor<256x128xf32>) outs(%D : tensor<256x128xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<256x128xf32>
  return %2 : tensor<256x128xf32>
}

// -----

// gpu-mapping=false stops before the GPU mapping.
// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config{gpu-mapping=false})' %s -split-input-file | FileCheck %s --check-prefix=HOST
// HOST-LABEL: func.func @mm_64x32
// HOST-NOT: gpu.launch
// HOST: scf.forall {{.*}} in (4, 4)
// HOST: scf.forall {{.*}} in (16, 8)
// HOST: } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// HOST: } {mapping = [#gpu.block<y>, #gpu.block<x>]}

// pruner-apply-config{target=host} (the first half of pruner-cpu-pipeline): each op with
// a pruner.config is outlined into an internal kernel function scheduled as the tuner
// measured it (docs/host.md), the module is bufferized, public functions write their
// outputs into their arguments; ops without a config stay linalg (lowered to loops
// later). Configs here are scalar (vector_width = 1) so that they fit every x86-64.
// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config{target=host})' %s -split-input-file \
// RUN:   -verify-diagnostics | FileCheck %s
// RUN: not %pruner_opt -p 'builtin.module(pruner-cpu-pipeline{target=sm_90})' %s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GPU
// GPU: error: pruner-cpu-pipeline: target: 'sm_90' is not a host target
// Applied configs are gone from the scheduled kernels (a scalar tile stays a linalg op on
// memrefs, and kept its pruner.config: a second pass refused it as "a memref"), so the
// pass can run again, or pruner-cpu-pipeline after it.
// RUN: %pruner_opt -p 'builtin.module(pruner-apply-config{target=host},pruner-apply-config{target=host})' \
// RUN:   %s -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=TWICE
// TWICE: func.func private @__pruner_host_kernel_0(
// TWICE-NOT: pruner.config
// TWICE: func.func @mm(

// CHECK-LABEL: func.func private @__pruner_host_kernel_0(
// CHECK-SAME: %{{.*}}: memref<64x96xf32>, %{{.*}}: memref<96x128xf32>, %{{.*}}: memref<64x128xf32>)
// CHECK-SAME: llvm.linkage = #llvm.linkage<internal>
// 4 x 4 tasks of 16 x 32, run by OpenMP later; K by 32; a 4 x 8 register tile.
// CHECK: scf.parallel {{.*}} to (%c4{{.*}}, %c4{{.*}})
// CHECK: scf.for %{{.*}} = %c0 to %c96 step %c32
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c4
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c8
// CHECK-LABEL: func.func @mm(
// CHECK-SAME: %{{.*}}: memref<64x96xf32>, %{{.*}}: memref<96x128xf32>, %[[C:.*]]: memref<64x128xf32>) {
// CHECK: linalg.fill {{.*}} outs(%[[C]]
// CHECK: call @__pruner_host_kernel_0(%{{.*}}, %{{.*}}, %[[C]])
// The op without a config stays a linalg op, on the buffers.
// CHECK: linalg.generic {{.*}} outs(%[[C]] : memref<64x128xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.maximumf
// CHECK: return{{$}}
func.func @mm(%a: tensor<64x96xf32>, %b: tensor<96x128xf32>, %c: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  %r = linalg.matmul {pruner.config = {workgroup = [16, 32, 0], reduction = [0, 0, 32], thread = [4, 8, 0], promote_operands = [], vector_width = 1}}
      ins(%a, %b : tensor<64x96xf32>, tensor<96x128xf32>) outs(%acc : tensor<64x128xf32>) -> tensor<64x128xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%r : tensor<64x128xf32>) {
  ^bb0(%v: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x128xf32>
  return %relu : tensor<64x128xf32>
}

// -----

// A constant the op's body captures from outside is cloned into the kernel.
// CHECK-LABEL: func.func private @__pruner_host_kernel_0(
// CHECK-SAME: %{{.*}}: memref<64x128xf32>)
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK: arith.maximumf
// CHECK-LABEL: func.func @relu(
// CHECK: call @__pruner_host_kernel_0(
func.func @relu(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%x : tensor<64x128xf32>) attrs = {pruner.config = {workgroup = [32, 128], reduction = [0, 0], thread = [4, 8], promote_operands = [], vector_width = 1}} {
  ^bb0(%v: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

// -----

func.func @bad_tile(%a: tensor<64x96xf32>, %b: tensor<96x128xf32>, %c: tensor<64x128xf32>) -> tensor<64x128xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul (host): workgroup tile 96 of loop 0 (m) is not in [1, bound 64]}}
  %r = linalg.matmul {pruner.config = {workgroup = [96, 32, 0], reduction = [0, 0, 32], thread = [4, 8, 0], promote_operands = [], vector_width = 1}}
      ins(%a, %b : tensor<64x96xf32>, tensor<96x128xf32>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

// -----

// Every bad op is reported, and nothing is changed.
func.func @bad_width(%a: tensor<64x96xf32>, %b: tensor<96x128xf32>, %c: tensor<64x128xf32>) -> tensor<64x128xf32> {
  // expected-error @+1 {{vector_width = 3 is neither 1 nor the}}
  %r = linalg.matmul {pruner.config = {workgroup = [16, 32, 0], reduction = [0, 0, 32], thread = [4, 8, 0], promote_operands = [], vector_width = 3}}
      ins(%a, %b : tensor<64x96xf32>, tensor<96x128xf32>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  // expected-error @+1 {{pruner.config on linalg.matmul: unknown key 'tile'}}
  %s = linalg.matmul {pruner.config = {tile = [16, 32, 0]}}
      ins(%a, %b : tensor<64x96xf32>, tensor<96x128xf32>) outs(%r : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %s : tensor<64x128xf32>
}

// -----

// Knobs of the GPU's and IREE's schedules: the host's has none, and a config that sets one
// was meant for another target (the knob used to be dropped silently).
func.func @other_targets_knobs(%a: tensor<64x96xf32>, %b: tensor<96x128xf32>, %c: tensor<64x128xf32>) -> tensor<64x128xf32> {
  // expected-error @+1 {{pruner.config on linalg.matmul (host): split_k is a knob of another target's schedule}}
  %r = linalg.matmul {pruner.config = {workgroup = [16, 32, 0], reduction = [0, 0, 32], thread = [4, 8, 0], promote_operands = [], vector_width = 1, split_k = 4}}
      ins(%a, %b : tensor<64x96xf32>, tensor<96x128xf32>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  // expected-error @+1 {{pruner.config on linalg.matmul (host): cache is a knob of another target's schedule}}
  %s = linalg.matmul {pruner.config = {workgroup = [16, 32, 0], reduction = [0, 0, 32], thread = [4, 8, 0], promote_operands = [], vector_width = 1, cache = [8, 16, 0]}}
      ins(%a, %b : tensor<64x96xf32>, tensor<96x128xf32>) outs(%r : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %s : tensor<64x128xf32>
}

// -----

func.func @on_buffers(%a: memref<64x96xf32>, %b: memref<96x128xf32>, %c: memref<64x128xf32>) {
  // expected-error @+1 {{operand 0 is a memref: buffer semantics are not tuned (pruner tunes linalg on tensors)}}
  linalg.matmul {pruner.config = {workgroup = [16, 32, 0], reduction = [0, 0, 32], thread = [4, 8, 0], promote_operands = [], vector_width = 1}}
      ins(%a, %b : memref<64x96xf32>, memref<96x128xf32>) outs(%c : memref<64x128xf32>)
  return
}

// -----

// A configured op in a nested module belongs to a run on that module: left alone with its
// config, with a warning on the nested module. Before, the host path outlined its kernel
// into the outer module, out of the nested one's symbol scope, and failed in
// bufferization with "'func.call' op '__pruner_host_kernel_0' does not reference a valid
// function", leaving the module half transformed.
// CHECK-LABEL: module @inner
// CHECK: func.func @nested_host(
// CHECK: linalg.matmul {pruner.config
module {
  // expected-warning @+1 {{pruner: the pruner.config attributes inside nested module @inner are not applied}}
  module @inner {
    func.func @nested_host(%a: tensor<64x96xf32>, %b: tensor<96x128xf32>, %c: tensor<64x128xf32>) -> tensor<64x128xf32> {
      %r = linalg.matmul {pruner.config = {workgroup = [16, 32, 0], reduction = [0, 0, 32], thread = [4, 8, 0], promote_operands = [], vector_width = 1}}
          ins(%a, %b : tensor<64x96xf32>, tensor<96x128xf32>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
      return %r : tensor<64x128xf32>
    }
  }
}

// -----

// A configured op outside a func.func (here in a gpu.func) is refused by name before
// anything changes, as on the GPU path; before, the host path outlined it next to the
// gpu.func and failed in bufferization ("op was not bufferized", a func.call to a
// function out of its symbol table).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @mm_in_gpu_func(%A: tensor<64x48xf32>, %B: tensor<48x96xf32>, %C: tensor<64x96xf32>) {
      // expected-error @+1 {{pruner.config on linalg.matmul: not inside a func.func: the host's apply outlines the linalg ops of func.func functions}}
      %r = linalg.matmul {pruner.config = {workgroup = [32, 32, 0], reduction = [0, 0, 16], thread = [4, 4, 0], promote_operands = [], vector_width = 1}} ins(%A, %B : tensor<64x48xf32>, tensor<48x96xf32>) outs(%C : tensor<64x96xf32>) -> tensor<64x96xf32>
      gpu.return
    }
  }
}

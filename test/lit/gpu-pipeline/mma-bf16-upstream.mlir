// MLIR 22 cannot lower a bf16 mma.sync, which is why the mma config rules refuse bf16
// (docs/schedule.md, "Tensor cores"). This test watches upstream: when a RUN line below
// stops failing, bf16 can be enabled.
// RUN: not %pruner_opt %s -split-input-file --convert-vector-to-gpu=use-nvgpu=true 2>&1 | FileCheck %s --check-prefix=VEC
// RUN: %pruner_opt %s -split-input-file --convert-nvgpu-to-nvvm 2>&1 | FileCheck %s --check-prefix=NVGPU

// The route the tensor-core schedule takes (a 16x16 . 16x8 contract in f32).
// VEC: error: 'vector.transfer_read' op failed to convert op during vector-to-nvgpu conversion
#mapA = affine_map<(m, n, k) -> (m, k)>
#mapB = affine_map<(m, n, k) -> (k, n)>
#mapC = affine_map<(m, n, k) -> (m, n)>
func.func @contract_bf16(%A: memref<16x16xbf16>, %B: memref<16x8xbf16>, %C: memref<16x8xf32>) {
  %c0 = arith.constant 0 : index
  %pa = arith.constant 0.0 : bf16
  %pc = arith.constant 0.0 : f32
  %a = vector.transfer_read %A[%c0, %c0], %pa {in_bounds = [true, true]} : memref<16x16xbf16>, vector<16x16xbf16>
  %b = vector.transfer_read %B[%c0, %c0], %pa {in_bounds = [true, true]} : memref<16x8xbf16>, vector<16x8xbf16>
  %c = vector.transfer_read %C[%c0, %c0], %pc {in_bounds = [true, true]} : memref<16x8xf32>, vector<16x8xf32>
  %d = vector.contract {indexing_maps = [#mapA, #mapB, #mapC], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<16x16xbf16>, vector<16x8xbf16> into vector<16x8xf32>
  vector.transfer_write %d, %C[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32>
  return
}

// -----

// The nvgpu op written by hand, one level lower: the conversion reports the error and
// leaves the op unconverted (mlir-opt still exits 0).
// NVGPU: error: 'nvgpu.mma.sync' op failed to deduce operand PTX types
func.func @nvgpu_bf16(%a: vector<4x2xbf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}

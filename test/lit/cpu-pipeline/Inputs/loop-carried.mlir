// A matmul inside an scf.for that fills a fresh tensor every iteration and yields it:
// acc <- acc x B four times, from acc = ones and B = 1/64 everywhere, so every element
// of the result is 1 (test/lit/cpu-pipeline/loop-carried.test).
func.func @f(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %iv = %c0 to %c4 step %c1 iter_args(%acc = %a) -> (tensor<64x64xf32>) {
    %e = tensor.empty() : tensor<64x64xf32>
    %z = arith.constant 0.0 : f32
    %o = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    %m = linalg.matmul ins(%acc, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%o : tensor<64x64xf32>) -> tensor<64x64xf32>
    scf.yield %m : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}
func.func @main() {
  %one = arith.constant 1.0 : f32
  %y = arith.constant 0.015625 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %a = linalg.fill ins(%one : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %b = linalg.fill ins(%y : f32) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = func.call @f(%a, %b) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %c0 = arith.constant 0 : index
  %c63 = arith.constant 63 : index
  %v0 = tensor.extract %r[%c0, %c0] : tensor<64x64xf32>
  %v1 = tensor.extract %r[%c63, %c63] : tensor<64x64xf32>
  vector.print %v0 : f32
  vector.print %v1 : f32
  return
}

func.func @broken(%x: f32) -> f32 {
  %0 = arith.mulf %x : f32
  return %0 : f32
}

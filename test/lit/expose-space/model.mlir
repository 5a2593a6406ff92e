// RUN: %pruner_opt -p 'builtin.module(pruner-expose-space{target=sm_90})' %examples/model.mlir -verify-diagnostics | FileCheck %s
// RUN: %pruner_opt -p 'builtin.module(pruner-expose-space{target=sm_90})' %examples/matmul.mlir | FileCheck %s --check-prefix=MATMUL

// Every tunable op of the bundled model is annotated; no fill is; both projections have
// the same workload key; no remark is emitted (-verify-diagnostics).

// CHECK-LABEL: func.func @transformer_layer
// CHECK-NOT: linalg.fill {{.*}}pruner.space
// CHECK: = linalg.matmul {pruner.space = {
// CHECK-SAME: key = "[[UP:matmul:128x3072x768:f32,f32->f32]]"
// CHECK: = linalg.generic
// CHECK-SAME: pruner.space = {
// CHECK-SAME: key = "elementwise:128x3072:f32,f32->f32:{{[0-9a-f]+}}"
// CHECK: = linalg.generic
// CHECK-SAME: pruner.space = {
// CHECK-SAME: key = "elementwise:128x3072:f32->f32:{{[0-9a-f]+}}"
// CHECK: = linalg.matmul {pruner.space = {
// CHECK-SAME: key = "[[UP]]"
// CHECK: = linalg.batch_matmul {pruner.space = {
// CHECK-SAME: key = "batch_matmul:12x128x128x64:f32,f32->f32"
// CHECK: = linalg.generic
// CHECK-SAME: pruner.space = {
// CHECK-SAME: key = "reduction:12x128x128:f32->f32:{{[0-9a-f]+}}"
// CHECK-LABEL: func.func @resnet_block
// CHECK: = linalg.conv_2d_nchw_fchw {{.*}}pruner.space = {
// CHECK-SAME: key = "conv_2d_nchw_fchw:1x64x112x112x3x7x7:f32,f32->f32:s2x2d1x1"
// CHECK: = linalg.conv_2d_nhwc_hwcf {{.*}}pruner.space = {
// CHECK-SAME: key = "conv_2d_nhwc_hwcf:1x56x56x64x3x3x64:f32,f32->f32:s1x1d1x1"
// CHECK: = linalg.generic
// CHECK-SAME: pruner.space = {
// CHECK-SAME: key = "elementwise:1x56x56x64:f32->f32:{{[0-9a-f]+}}"
// CHECK: return

// MATMUL: linalg.fill ins
// MATMUL-NOT: pruner.space
// MATMUL-SAME: -> tensor<1024x1024xf32>
// MATMUL-NEXT: linalg.matmul {pruner.space = {
// MATMUL-SAME: workload = {bounds = [1024, 1024, 1024]
// MATMUL-SAME: key = "matmul:1024x1024x1024:f32,f32->f32", kind = "matmul", loops = ["m", "n", "k"]

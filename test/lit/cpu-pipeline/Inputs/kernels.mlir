// Three entry points for the cpu-pipeline test (cpu-pipeline.test): a dense layer (matmul,
// then a bias add + ReLU generic whose body captures the constant 0 from outside), a
// row max (reduction) and a 3x3 NHWC convolution (scheduled on tensors, decomposed). The
// fills stay unconfigured and are lowered the ordinary way.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>

func.func @dense(%x: tensor<48x96xf32>, %w: tensor<96x128xf32>, %b: tensor<128xf32>,
                 %out: tensor<48x128xf32>) -> tensor<48x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<48x128xf32>) -> tensor<48x128xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<48x96xf32>, tensor<96x128xf32>)
                      outs(%acc : tensor<48x128xf32>) -> tensor<48x128xf32>
  %r = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<48x128xf32>, tensor<128xf32>) outs(%out : tensor<48x128xf32>) {
  ^bb0(%v: f32, %bb: f32, %o: f32):
    %s = arith.addf %v, %bb : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<48x128xf32>
  return %r : tensor<48x128xf32>
}

func.func @rowmax(%x: tensor<64x256xf32>, %out: tensor<64xf32>) -> tensor<64xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %acc = linalg.fill ins(%ninf : f32) outs(%out : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x256xf32>) outs(%acc : tensor<64xf32>) {
  ^bb0(%v: f32, %m: f32):
    %s = arith.maximumf %v, %m : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

func.func @conv(%in: tensor<1x10x10x16xf32>, %f: tensor<3x3x16x32xf32>,
                %out: tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%out : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %f : tensor<1x10x10x16xf32>, tensor<3x3x16x32xf32>)
      outs(%acc : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  return %r : tensor<1x8x8x32xf32>
}

// An NCHW convolution, run as its channels-last twin (docs/host.md): strides and
// dilations that differ between h and w, two images.
func.func @conv_nchw(%in: tensor<2x5x13x14xf32>, %f: tensor<32x5x3x3xf32>,
                     %out: tensor<2x32x6x10xf32>) -> tensor<2x32x6x10xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%out : tensor<2x32x6x10xf32>) -> tensor<2x32x6x10xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
      ins(%in, %f : tensor<2x5x13x14xf32>, tensor<32x5x3x3xf32>)
      outs(%acc : tensor<2x32x6x10xf32>) -> tensor<2x32x6x10xf32>
  return %r : tensor<2x32x6x10xf32>
}

// A 1x1 NCHW convolution of one image: pruner-tune tunes it as the linalg.matmul it is
// (filter F x C times image C x (H*W); docs/tune.md).
func.func @conv_nchw_1x1(%in: tensor<1x16x8x8xf32>, %f: tensor<24x16x1x1xf32>,
                         %out: tensor<1x24x8x8xf32>) -> tensor<1x24x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%out : tensor<1x24x8x8xf32>) -> tensor<1x24x8x8xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %f : tensor<1x16x8x8xf32>, tensor<24x16x1x1xf32>)
      outs(%acc : tensor<1x24x8x8xf32>) -> tensor<1x24x8x8xf32>
  return %r : tensor<1x24x8x8xf32>
}

// The bundled model the README's main command tunes: static-shape linalg on tensors, f32.
//
// @transformer_layer: a BERT-base sized slice (sequence 128, hidden 768, 12 heads of 64,
// feed-forward 3072): the feed-forward up-projection (matmul 128x3072x768) with its bias
// add and ReLU, a gate projection of the same shape (a duplicated workload: both matmuls
// get the same workload key), attention scores (batch_matmul 12x128x128x64) and the
// row max of the scores (a reduction, the first step of a softmax).
//
// @resnet_block: the ResNet-50 stem (conv_2d_nchw_fchw 7x7 stride 2, 1x3x230x230 ->
// 1x64x112x112, input already padded by 3) and a conv2_x 3x3 convolution
// (conv_2d_nhwc_hwcf 1x58x58x64 * 3x3x64x64 -> 1x56x56x64, input padded by 1) with its
// ReLU.

#bias_map = affine_map<(d0, d1) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

func.func @transformer_layer(%x: tensor<128x768xf32>, %w_up: tensor<768x3072xf32>,
                             %b_up: tensor<3072xf32>, %w_gate: tensor<768x3072xf32>,
                             %q: tensor<12x128x64xf32>, %kt: tensor<12x64x128xf32>)
    -> (tensor<128x3072xf32>, tensor<128x3072xf32>, tensor<12x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32

  // Feed-forward up-projection: x * W_up + b_up, then ReLU.
  %e0 = tensor.empty() : tensor<128x3072xf32>
  %acc0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  %up = linalg.matmul ins(%x, %w_up : tensor<128x768xf32>, tensor<768x3072xf32>)
                      outs(%acc0 : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  %e1 = tensor.empty() : tensor<128x3072xf32>
  %biased = linalg.generic {indexing_maps = [#id2, #bias_map, #id2],
                            iterator_types = ["parallel", "parallel"]}
      ins(%up, %b_up : tensor<128x3072xf32>, tensor<3072xf32>)
      outs(%e1 : tensor<128x3072xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<128x3072xf32>
  %e2 = tensor.empty() : tensor<128x3072xf32>
  %relu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<128x3072xf32>) outs(%e2 : tensor<128x3072xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<128x3072xf32>

  // Gate projection: the same workload as the up-projection.
  %e3 = tensor.empty() : tensor<128x3072xf32>
  %acc3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  %gate = linalg.matmul ins(%x, %w_gate : tensor<128x768xf32>, tensor<768x3072xf32>)
                        outs(%acc3 : tensor<128x3072xf32>) -> tensor<128x3072xf32>

  // Attention scores Q * K^T per head, then the row max of each score row.
  %e4 = tensor.empty() : tensor<12x128x128xf32>
  %acc4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  %scores = linalg.batch_matmul ins(%q, %kt : tensor<12x128x64xf32>, tensor<12x64x128xf32>)
                                outs(%acc4 : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  %e5 = tensor.empty() : tensor<12x128xf32>
  %acc5 = linalg.fill ins(%ninf : f32) outs(%e5 : tensor<12x128xf32>) -> tensor<12x128xf32>
  %rowmax = linalg.generic {indexing_maps = [#id3, #row3],
                            iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%scores : tensor<12x128x128xf32>) outs(%acc5 : tensor<12x128xf32>) {
  ^bb0(%v: f32, %m: f32):
    %r = arith.maximumf %v, %m : f32
    linalg.yield %r : f32
  } -> tensor<12x128xf32>

  return %relu, %gate, %rowmax : tensor<128x3072xf32>, tensor<128x3072xf32>, tensor<12x128xf32>
}

func.func @resnet_block(%image: tensor<1x3x230x230xf32>, %w_stem: tensor<64x3x7x7xf32>,
                        %act: tensor<1x58x58x64xf32>, %w_3x3: tensor<3x3x64x64xf32>)
    -> (tensor<1x64x112x112xf32>, tensor<1x56x56x64xf32>) {
  %zero = arith.constant 0.0 : f32

  // Stem: 7x7 stride-2 convolution, NCHW.
  %e0 = tensor.empty() : tensor<1x64x112x112xf32>
  %acc0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32>
  %stem = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>,
                                    strides = dense<2> : tensor<2xi64>}
      ins(%image, %w_stem : tensor<1x3x230x230xf32>, tensor<64x3x7x7xf32>)
      outs(%acc0 : tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32>

  // conv2_x: 3x3 convolution, NHWC, then ReLU.
  %e1 = tensor.empty() : tensor<1x56x56x64xf32>
  %acc1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
                                    strides = dense<1> : tensor<2xi64>}
      ins(%act, %w_3x3 : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>)
      outs(%acc1 : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %e2 = tensor.empty() : tensor<1x56x56x64xf32>
  %relu = linalg.generic {indexing_maps = [#id4, #id4],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv : tensor<1x56x56x64xf32>) outs(%e2 : tensor<1x56x56x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x56x56x64xf32>

  return %stem, %relu : tensor<1x64x112x112xf32>, tensor<1x56x56x64xf32>
}

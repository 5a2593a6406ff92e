// The GPU check bundle's workloads (test/gpu, docs/gpu-session.md): one f32 matmul
// 1024x1024x1024, the attention-score batch_matmul of a BERT-base layer (12 heads,
// 128x64 . 64x128) and the ResNet-50 conv2_x 3x3 convolution (NHWC 1x58x58x64, i.e.
// 1x56x56x64 padded by 1, * 3x3x64x64).
func.func @check(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>,
                 %q: tensor<12x128x64xf32>, %kt: tensor<12x64x128xf32>,
                 %act: tensor<1x58x58x64xf32>, %w: tensor<3x3x64x64xf32>)
    -> (tensor<1024x1024xf32>, tensor<12x128x128xf32>, tensor<1x56x56x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1024x1024xf32>
  %c0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>)
                      outs(%c0 : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %e1 = tensor.empty() : tensor<12x128x128xf32>
  %c1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  %bmm = linalg.batch_matmul ins(%q, %kt : tensor<12x128x64xf32>, tensor<12x64x128xf32>)
                             outs(%c1 : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  %e2 = tensor.empty() : tensor<1x56x56x64xf32>
  %c2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
                                    strides = dense<1> : tensor<2xi64>}
      ins(%act, %w : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>)
      outs(%c2 : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  return %mm, %bmm, %conv : tensor<1024x1024xf32>, tensor<12x128x128xf32>, tensor<1x56x56x64xf32>
}

flow.executable private @ex {
  flow.executable.export public @d workgroups() -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice
    flow.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @d(%a: !flow.dispatch.tensor<readonly:tensor<128x256xf32>>, %b: !flow.dispatch.tensor<readonly:tensor<256x128xf32>>, %o: !flow.dispatch.tensor<writeonly:tensor<128x128xf32>>) {
      %0 = flow.dispatch.tensor.load %a, offsets = [0, 0], sizes = [128, 256], strides = [1, 1] : !flow.dispatch.tensor<readonly:tensor<128x256xf32>> -> tensor<128x256xf32>
      %1 = flow.dispatch.tensor.load %b, offsets = [0, 0], sizes = [256, 128], strides = [1, 1] : !flow.dispatch.tensor<readonly:tensor<256x128xf32>> -> tensor<256x128xf32>
      %e = tensor.empty() : tensor<128x128xf32>
      %r = linalg.matmul ins(%0, %1 : tensor<128x256xf32>, tensor<256x128xf32>) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
      flow.dispatch.tensor.store %r, %o, offsets = [0, 0], sizes = [128, 128], strides = [1, 1] : tensor<128x128xf32> -> !flow.dispatch.tensor<writeonly:tensor<128x128xf32>>
      return
    }
  }
}

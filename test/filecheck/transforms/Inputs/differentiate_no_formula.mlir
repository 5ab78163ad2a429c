func.func @no_formula(%x : !ts.tensor<f32, [3], requires_grad = true>) -> !ts.tensor<f32, [3], requires_grad = true> {
  %r = prim.DifferentiableGraph(%a = %x : !ts.tensor<f32, [3], requires_grad = true>) -> (!ts.tensor<f32, [3], requires_grad = true>) {
    %m = aten.i0 %a : (!ts.tensor<f32, [3], requires_grad = true>) -> !ts.tensor<f32, [3], requires_grad = true>
    prim.Yield %m : !ts.tensor<f32, [3], requires_grad = true>
  }
  func.return %r : !ts.tensor<f32, [3], requires_grad = true>
}

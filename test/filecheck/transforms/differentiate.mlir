// RUN: ts-opt %s --split-input-file -p differentiate | filecheck %s
// RUN: not ts-opt %S/Inputs/differentiate_no_formula.mlir -p differentiate 2>&1 | filecheck %s --check-prefix=ERROR

// ERROR: differentiate_no_formula.mlir:3:5: error: cannot differentiate aten::i0: the gradient table has no formula for it

!T = !ts.tensor<f32, [2, 3], requires_grad = true>

// One op: its formula's forward half computes the result, which the backward half reads.
func.func @tanh(%x : !T) -> !T {
  %r = prim.DifferentiableGraph(%a = %x : !T) -> (!T) {
    %y = aten.tanh %a : (!T) -> !T
    prim.Yield %y : !T
  }
  func.return %r : !T
}

// CHECK-LABEL: func.func @tanh
// CHECK-NEXT:    %r = prim.DifferentiableGraph(%a = %x : !ts.tensor<f32, [2, 3], requires_grad = true>) -> (!ts.tensor<f32, [2, 3], requires_grad = true>) {
// CHECK-NEXT:      %y = aten.tanh %a
// CHECK-NEXT:      prim.Yield %y : !ts.tensor<f32, [2, 3], requires_grad = true>
// CHECK-NEXT:    } backward[grad_outputs = [0], grad_inputs = [0], captured_inputs = [], captured_outputs = [0]] {
// CHECK-NEXT:    ^bb0(%grad_y: !ts.tensor<f32, [2, 3], requires_grad = false>, %y_1: !ts.tensor<f32, [2, 3], requires_grad = false>):
// CHECK-NEXT:      %0 = aten.tanh_backward %grad_y, %y_1
// CHECK-NEXT:      prim.Yield %0 : !ts.tensor<f32, [2, 3], requires_grad = false>
// CHECK-NEXT:    }

// -----

!T = !ts.tensor<f32, [2, 3], requires_grad = true>
!V = !ts.tensor<f32, [3], requires_grad = true>
!C = !ts.tensor<f32, [2, 3], requires_grad = false>

// Broadcasting: the bias's gradient is summed to its size, scaled by alpha; a tensor
// that requires no grad gets none, and is captured only because the backward reads it.
func.func @broadcast(%x : !T, %b : !V, %c : !C) -> !T {
  %r = prim.DifferentiableGraph(%a = %x : !T, %bias = %b : !V, %k = %c : !C) -> (!T) {
    %alpha = prim.Constant 2 : !ts.int
    %y = aten.add %a, %bias, %alpha : (!T, !V, !ts.int) -> !T
    %z = aten.mul %y, %k : (!T, !C) -> !T
    prim.Yield %z : !T
  }
  func.return %r : !T
}

// CHECK-LABEL: func.func @broadcast
// CHECK:         %y = aten.add %a, %bias, %alpha
// CHECK-NEXT:    %z = aten.mul %y, %k
// CHECK-NEXT:    prim.Yield %z
// CHECK-NEXT:  } backward[grad_outputs = [0], grad_inputs = [0, 1], captured_inputs = [2], captured_outputs = []] {
// CHECK-NEXT:  ^bb0(%grad_z: !ts.tensor<f32, [2, 3], requires_grad = false>, %k_1: !ts.tensor<f32, [2, 3], requires_grad = false>):
// CHECK-NEXT:    %other_size = prim.Constant [3] : !ts.list<!ts.int>
// CHECK-NEXT:    %0 = aten.mul %grad_z, %k_1
// CHECK-NEXT:    %1 = prim.Constant 2.0 : !ts.float
// CHECK-NEXT:    %2 = aten.mul %0, %1
// CHECK-NEXT:    %3 = aten._grad_sum_to_size %2, %other_size : (!ts.tensor<f32, [2, 3], requires_grad = false>, !ts.list<!ts.int>) -> !ts.tensor<f32, [3], requires_grad = false>
// CHECK-NEXT:    prim.Yield %0, %3

// -----

!T = !ts.tensor<f32, [2, 3], requires_grad = true>
!R = !ts.tensor<f32, [4, 3], requires_grad = true>

// A list literal routes gradients to its elements: cat's gradient is split by the
// parts' sizes (folded to a constant), then unpacked.
func.func @cat(%x : !T, %y : !T) -> !R {
  %r = prim.DifferentiableGraph(%a = %x : !T, %b = %y : !T) -> (!R) {
    %zero = prim.Constant 0 : !ts.int
    %e = aten.exp %b : (!T) -> !T
    %l = prim.ListConstruct %a, %e : (!T, !T) -> !ts.list<!ts.tensor>
    %c = aten.cat %l, %zero : (!ts.list<!ts.tensor>, !ts.int) -> !R
    prim.Yield %c : !R
  }
  func.return %r : !R
}

// CHECK-LABEL: func.func @cat
// CHECK:         %c = aten.cat %l, %zero
// CHECK-NEXT:    prim.Yield %c, %e
// CHECK-NEXT:  } backward[grad_outputs = [0], grad_inputs = [0, 1], captured_inputs = [], captured_outputs = [1]] {
// CHECK-NEXT:  ^bb0(%grad_c: !ts.tensor<f32, [4, 3], requires_grad = false>, %e_1: !ts.tensor<f32, [2, 3], requires_grad = false>):
// CHECK-NEXT:    %sizes = prim.Constant [2, 2] : !ts.list<!ts.int>
// CHECK-NEXT:    %zero_1 = prim.Constant 0 : !ts.int
// CHECK-NEXT:    %0 = aten.split_with_sizes %grad_c, %sizes, %zero_1
// CHECK-NEXT:    %1, %2 = prim.ListUnpack %0
// CHECK-NEXT:    %3 = aten.mul %2, %e_1
// CHECK-NEXT:    prim.Yield %1, %3

// -----

!X = !ts.tensor<f32, [2, 3], requires_grad = false>
!W = !ts.tensor<f32, [4, 3], requires_grad = true>
!Y = !ts.tensor<f32, [2, 4], requires_grad = true>

// The gradient of a transposed weight, `t(x.t().mm(grad))`, is taken as
// `grad.t().mm(x)`: the weight's row-major layout, with no transposed view to accumulate.
func.func @transposed_weight(%x : !X, %w : !W) -> !Y {
  %r = prim.DifferentiableGraph(%a = %x : !X, %b = %w : !W) -> (!Y) {
    %t = aten.t %b : (!W) -> !ts.tensor<f32, [3, 4], requires_grad = true>
    %y = aten.mm %a, %t : (!X, !ts.tensor<f32, [3, 4], requires_grad = true>) -> !Y
    prim.Yield %y : !Y
  }
  func.return %r : !Y
}

// CHECK-LABEL: func.func @transposed_weight
// CHECK:       } backward[grad_outputs = [0], grad_inputs = [1], captured_inputs = [0], captured_outputs = []] {
// CHECK-NEXT:  ^bb0(%grad_y: !ts.tensor<f32, [2, 4], requires_grad = false>, %a_1: !ts.tensor<f32, [2, 3], requires_grad = false>):
// CHECK-NEXT:    %0 = aten.t %grad_y : (!ts.tensor<f32, [2, 4], requires_grad = false>) -> !ts.tensor<f32, [4, 2], requires_grad = false>
// CHECK-NEXT:    %1 = aten.mm %0, %a_1 : (!ts.tensor<f32, [4, 2], requires_grad = false>, !ts.tensor<f32, [2, 3], requires_grad = false>) -> !ts.tensor<f32, [4, 3], requires_grad = false>
// CHECK-NEXT:    prim.Yield %1

// -----

!X = !ts.tensor<f32, [3, 3], requires_grad = true>

// A forward graph keeps its layouts (user code can observe a view's strides): the
// transposed product stays a view there.
func.func @forward_layout(%x : !X, %y : !X) -> !X {
  %r = prim.DifferentiableGraph(%a = %x : !X, %b = %y : !X) -> (!X) {
    %p = aten.mm %a, %b : (!X, !X) -> !X
    %t = aten.t %p : (!X) -> !X
    prim.Yield %t : !X
  }
  func.return %r : !X
}

// CHECK-LABEL: func.func @forward_layout
// CHECK-NEXT:    %r = prim.DifferentiableGraph
// CHECK-NEXT:      %p = aten.mm %a, %b
// CHECK-NEXT:      %t = aten.t %p
// CHECK-NEXT:      prim.Yield %t
// CHECK-NEXT:    } backward[

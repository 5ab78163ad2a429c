// RUN: ts-opt %s --split-input-file -p create-autodiff-subgraphs | filecheck %s
// RUN: ts-opt %s --split-input-file -p create-autodiff-subgraphs{min-size=1} | filecheck %s --check-prefix=ONE

!W = !ts.tensor<f32, [?, ?], requires_grad = true>
!X = !ts.tensor<f32, [?, ?], requires_grad = false>
!F = !ts.tensor<f32, [?, ?]>

// Differentiable ops reading a tensor that may require grad form one subgraph, placed
// at its last op; constants are copied in, values used after it are its results.
func.func @chain(%x: !X, %w: !W) -> !F {
  %one = prim.Constant 1 : !ts.int
  %m = aten.mm %x, %w : (!X, !W) -> !F
  %t = aten.tanh %m : (!F) -> !F
  %s = aten.add %t, %m, %one : (!F, !F, !ts.int) -> !F
  func.return %s : !F
}

// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %s = prim.DifferentiableGraph(%x_1 = %x : !ts.tensor<f32, [?, ?], requires_grad = false>, %w_1 = %w : !ts.tensor<f32, [?, ?], requires_grad = true>) -> (!ts.tensor<f32, [?, ?]>) {
// CHECK-NEXT:      %one_1 = prim.Constant 1 : !ts.int
// CHECK-NEXT:      %m = aten.mm %x_1, %w_1
// CHECK-NEXT:      %t = aten.tanh %m
// CHECK-NEXT:      %s_1 = aten.add %t, %m, %one_1
// CHECK-NEXT:      prim.Yield %s_1 : !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s : !ts.tensor<f32, [?, ?]>

// -----

!W = !ts.tensor<f32, [?, ?], requires_grad = true>
!X = !ts.tensor<f32, [?, ?], requires_grad = false>

// PyTorch's min-size rule: one op is no subgraph (unless min-size says so); ops on
// tensors that require no grad are never differentiated.
func.func @small(%x: !X, %w: !W) -> !ts.tuple<!W, !X> {
  %a = aten.tanh %w : (!W) -> !W
  %b = aten.tanh %x : (!X) -> !X
  %c = aten.sigmoid %b : (!X) -> !X
  %t = prim.TupleConstruct %a, %c : (!W, !X) -> !ts.tuple<!W, !X>
  func.return %t : !ts.tuple<!W, !X>
}

// CHECK-LABEL: func.func @small
// CHECK-NEXT:    %a = aten.tanh %w
// CHECK-NEXT:    %b = aten.tanh %x
// CHECK-NEXT:    %c = aten.sigmoid %b
// ONE-LABEL:   func.func @small
// ONE-NEXT:      %a = prim.DifferentiableGraph(%w_1 = %w : !ts.tensor<f32, [?, ?], requires_grad = true>)
// ONE-NEXT:        %a_1 = aten.tanh %w_1
// ONE-NEXT:        prim.Yield %a_1
// ONE-NEXT:      }
// ONE-NEXT:      %b = aten.tanh %x

// -----

!W = !ts.tensor<f32, [?, ?], requires_grad = true>

// An op with side effects ends a subgraph: what follows it forms another.
func.func @barrier(%w: !W, %message: !ts.str) -> !W {
  %a = aten.tanh %w : (!W) -> !W
  %b = aten.sigmoid %a : (!W) -> !W
  prim.Print(%message) : !ts.str
  %c = aten.exp %b : (!W) -> !W
  %d = aten.neg %c : (!W) -> !W
  func.return %d : !W
}

// CHECK-LABEL: func.func @barrier
// CHECK-NEXT:    %b = prim.DifferentiableGraph(%w_1 = %w
// CHECK-NEXT:      %a = aten.tanh %w_1
// CHECK-NEXT:      %b_1 = aten.sigmoid %a
// CHECK-NEXT:      prim.Yield %b_1
// CHECK-NEXT:    }
// CHECK-NEXT:    prim.Print(%message)
// CHECK-NEXT:    %d = prim.DifferentiableGraph(%b_1 = %b
// CHECK-NEXT:      %c = aten.exp %b_1
// CHECK-NEXT:      %d_1 = aten.neg %c
// CHECK-NEXT:      prim.Yield %d_1
// CHECK-NEXT:    }

// -----

!W = !ts.tensor<f32, [?, ?], requires_grad = true>

// A view leaves a subgraph as a view: it is made again after the subgraph, from the
// value it views, so that an in-place write through it reaches that value's history.
func.func @view_output(%w: !W) -> !ts.tuple<!W, !W> {
  %a = aten.tanh %w : (!W) -> !W
  %b = aten.sigmoid %a : (!W) -> !W
  %v = aten.t %b : (!W) -> !W
  %t = prim.TupleConstruct %b, %v : (!W, !W) -> !ts.tuple<!W, !W>
  func.return %t : !ts.tuple<!W, !W>
}

// CHECK-LABEL: func.func @view_output
// CHECK-NEXT:    %b = prim.DifferentiableGraph(%w_1 = %w
// CHECK-NEXT:      %a = aten.tanh %w_1
// CHECK-NEXT:      %b_1 = aten.sigmoid %a
// CHECK-NEXT:      prim.Yield %b_1
// CHECK-NEXT:    }
// CHECK-NEXT:    %v = aten.t %b
// CHECK-NEXT:    %t = prim.TupleConstruct %b, %v

// -----

!W = !ts.tensor<f32, [?, ?], requires_grad = true>

// A list of tensors does not leave a subgraph: what computes it stays outside, where
// the runtime differentiates lists op by op.
func.func @list_output(%w: !W) -> !ts.list<!ts.tensor> {
  %two = prim.Constant 2 : !ts.int
  %zero = prim.Constant 0 : !ts.int
  %a = aten.tanh %w : (!W) -> !W
  %b = aten.sigmoid %a : (!W) -> !W
  %parts = aten.chunk %b, %two, %zero : (!W, !ts.int, !ts.int) -> !ts.list<!ts.tensor>
  func.return %parts : !ts.list<!ts.tensor>
}

// CHECK-LABEL: func.func @list_output
// CHECK:         %a = aten.tanh %w
// CHECK-NEXT:    %b = aten.sigmoid %a
// CHECK-NEXT:    %parts = aten.chunk %b, %two, %zero
// CHECK-NOT:     prim.DifferentiableGraph

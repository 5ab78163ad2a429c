// RUN: ts-translate --script %S/../../../examples/lstm_cell.py --entry LSTMCellS | ts-opt -p torchscript-cleanup,create-autodiff-subgraphs | filecheck %s --check-prefix=SUBGRAPH
// RUN: ts-opt %s -p shape-propagation,create-autodiff-subgraphs,differentiate | filecheck %s
// RUN: ts-opt %s -p "shape-propagation,create-autodiff-subgraphs,differentiate,fuse-pointwise{autograd=true}" | filecheck %s --check-prefix=FUSED

// The JIT overview's LSTM cell (examples/lstm_cell.py) when gradients are needed.

// Scripted from the example, every op of the cell is differentiable: one
// DifferentiableGraph (PyTorch's prim::DifferentiableGraph_0).
// SUBGRAPH-LABEL: func.func @LSTMCellS
// SUBGRAPH:         %cy, %hy = prim.DifferentiableGraph(%w_ih_1 = %w_ih : !ts.tensor, %x_1 = %x : !ts.tensor, %w_hh_1 = %w_hh : !ts.tensor, %hx_1 = %hx : !ts.tensor, %b_ih_1 = %b_ih : !ts.tensor, %b_hh_1 = %b_hh : !ts.tensor, %cx_1 = %cx : !ts.tensor) -> (!ts.tensor, !ts.tensor) {
// SUBGRAPH:           %gates = aten.add
// SUBGRAPH-NEXT:      %ingate, %forgetgate, %cellgate, %outgate = prim.ConstantChunk[chunks = 4, dim = 1] %gates
// SUBGRAPH:           %hy_1 = aten.mul %outgate_1
// SUBGRAPH-NEXT:      prim.Yield %cy_1, %hy_1
// SUBGRAPH-NEXT:    }
// SUBGRAPH-NEXT:    %{{.*}} = prim.TupleConstruct %hy, %cy

// The graph an executor specializes for a batch of 2 (inputs 3, hidden 4) where the
// weights require grad and the data does not: the forward computes the cell and yields
// what the backward reads (tanh(cy), the four gates); the backward takes the output
// gradients, the data and those values, and returns the gradients of the four weights
// (those of the matrices as `grad.t().mm(x)`: row-major, as the weights are).
func.func @LSTMCellS(%x : !ts.tensor<f32, [2, 3], requires_grad = false>, %hx : !ts.tensor<f32, [2, 4], requires_grad = false>, %cx : !ts.tensor<f32, [2, 4], requires_grad = false>, %w_ih : !ts.tensor<f32, [16, 3], requires_grad = true>, %w_hh : !ts.tensor<f32, [16, 4], requires_grad = true>, %b_ih : !ts.tensor<f32, [16], requires_grad = true>, %b_hh : !ts.tensor<f32, [16], requires_grad = true>) -> (!ts.tensor, !ts.tensor) {
  %one = prim.Constant 1 : !ts.int
  %t1 = aten.t %w_ih : (!ts.tensor<f32, [16, 3], requires_grad = true>) -> !ts.tensor
  %m1 = aten.mm %x, %t1 : (!ts.tensor<f32, [2, 3], requires_grad = false>, !ts.tensor) -> !ts.tensor
  %t2 = aten.t %w_hh : (!ts.tensor<f32, [16, 4], requires_grad = true>) -> !ts.tensor
  %m2 = aten.mm %hx, %t2 : (!ts.tensor<f32, [2, 4], requires_grad = false>, !ts.tensor) -> !ts.tensor
  %a1 = aten.add %m1, %m2, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %a2 = aten.add %a1, %b_ih, %one : (!ts.tensor, !ts.tensor<f32, [16], requires_grad = true>, !ts.int) -> !ts.tensor
  %gates = aten.add %a2, %b_hh, %one : (!ts.tensor, !ts.tensor<f32, [16], requires_grad = true>, !ts.int) -> !ts.tensor
  %i, %f, %g, %o = prim.ConstantChunk[chunks = 4, dim = 1] %gates : !ts.tensor -> !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor
  %ingate = aten.sigmoid %i : (!ts.tensor) -> !ts.tensor
  %forgetgate = aten.sigmoid %f : (!ts.tensor) -> !ts.tensor
  %cellgate = aten.tanh %g : (!ts.tensor) -> !ts.tensor
  %outgate = aten.sigmoid %o : (!ts.tensor) -> !ts.tensor
  %c1 = aten.mul %forgetgate, %cx : (!ts.tensor, !ts.tensor<f32, [2, 4], requires_grad = false>) -> !ts.tensor
  %c2 = aten.mul %ingate, %cellgate : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %cy = aten.add %c1, %c2, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %tc = aten.tanh %cy : (!ts.tensor) -> !ts.tensor
  %hy = aten.mul %outgate, %tc : (!ts.tensor, !ts.tensor) -> !ts.tensor
  func.return %hy, %cy : !ts.tensor, !ts.tensor
}

// CHECK-LABEL: func.func @LSTMCellS
// CHECK-NEXT:    %cy, %hy = prim.DifferentiableGraph(%w_ih_1 = %w_ih : !ts.tensor<f32, [16, 3], requires_grad = true>, %x_1 = %x : !ts.tensor<f32, [2, 3], requires_grad = false>, %w_hh_1 = %w_hh : !ts.tensor<f32, [16, 4], requires_grad = true>, %hx_1 = %hx : !ts.tensor<f32, [2, 4], requires_grad = false>, %b_ih_1 = %b_ih : !ts.tensor<f32, [16], requires_grad = true>, %b_hh_1 = %b_hh : !ts.tensor<f32, [16], requires_grad = true>, %cx_1 = %cx : !ts.tensor<f32, [2, 4], requires_grad = false>) -> (!ts.tensor<f32, [2, 4], requires_grad = true>, !ts.tensor<f32, [2, 4], requires_grad = true>) {
// CHECK-NEXT:      %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:      %t1 = aten.t %w_ih_1
// CHECK-NEXT:      %m1 = aten.mm %x_1, %t1
// CHECK-NEXT:      %t2 = aten.t %w_hh_1
// CHECK-NEXT:      %m2 = aten.mm %hx_1, %t2
// CHECK-NEXT:      %a1 = aten.add %m1, %m2, %one
// CHECK-NEXT:      %a2 = aten.add %a1, %b_ih_1, %one
// CHECK-NEXT:      %gates = aten.add %a2, %b_hh_1, %one
// CHECK-NEXT:      %i, %f, %g, %o = prim.ConstantChunk[chunks = 4, dim = 1] %gates
// CHECK-NEXT:      %ingate = aten.sigmoid %i
// CHECK-NEXT:      %forgetgate = aten.sigmoid %f
// CHECK-NEXT:      %cellgate = aten.tanh %g
// CHECK-NEXT:      %outgate = aten.sigmoid %o
// CHECK-NEXT:      %c1 = aten.mul %forgetgate, %cx_1
// CHECK-NEXT:      %c2 = aten.mul %ingate, %cellgate
// CHECK-NEXT:      %cy_1 = aten.add %c1, %c2, %one
// CHECK-NEXT:      %tc = aten.tanh %cy_1
// CHECK-NEXT:      %hy_1 = aten.mul %outgate, %tc
// CHECK-NEXT:      prim.Yield %cy_1, %hy_1, %tc, %outgate, %cellgate, %ingate, %forgetgate
// CHECK-NEXT:    } backward[grad_outputs = [0, 1], grad_inputs = [0, 2, 4, 5], captured_inputs = [6, 3, 1], captured_outputs = [2, 3, 4, 5, 6]] {
// CHECK-NEXT:    ^bb0(%grad_cy: !ts.tensor<f32, [2, 4], requires_grad = false>, %grad_hy: !ts.tensor<f32, [2, 4], requires_grad = false>, %cx_2: !ts.tensor<f32, [2, 4], requires_grad = false>, %hx_2: !ts.tensor<f32, [2, 4], requires_grad = false>, %x_2: !ts.tensor<f32, [2, 3], requires_grad = false>, %tc_1: !ts.tensor<f32, [2, 4], requires_grad = false>, %outgate_1: !ts.tensor<f32, [2, 4], requires_grad = false>, %cellgate_1: !ts.tensor<f32, [2, 4], requires_grad = false>, %ingate_1: !ts.tensor<f32, [2, 4], requires_grad = false>, %forgetgate_1: !ts.tensor<f32, [2, 4], requires_grad = false>):
// CHECK-NEXT:      %other_size = prim.Constant [16] : !ts.list<!ts.int>
// CHECK-NEXT:      %0 = aten.mul %grad_hy, %tc_1
// CHECK-NEXT:      %1 = aten.mul %grad_hy, %outgate_1
// CHECK-NEXT:      %2 = aten.tanh_backward %1, %tc_1
// CHECK-NEXT:      %one_1 = prim.Constant 1 : !ts.int
// CHECK-NEXT:      %3 = aten.add %grad_cy, %2, %one_1
// CHECK-NEXT:      %4 = aten.mul %3, %cellgate_1
// CHECK-NEXT:      %5 = aten.mul %3, %ingate_1
// CHECK-NEXT:      %6 = aten.mul %3, %cx_2
// CHECK-NEXT:      %7 = aten.sigmoid_backward %0, %outgate_1
// CHECK-NEXT:      %8 = aten.tanh_backward %5, %cellgate_1
// CHECK-NEXT:      %9 = aten.sigmoid_backward %6, %forgetgate_1
// CHECK-NEXT:      %10 = aten.sigmoid_backward %4, %ingate_1
// CHECK-NEXT:      %11 = prim.ListConstruct %10, %9, %8, %7
// CHECK-NEXT:      %12 = aten.cat %11, %one_1
// CHECK-NEXT:      %13 = aten._grad_sum_to_size %12, %other_size
// CHECK-NEXT:      %14 = aten.t %12
// CHECK-NEXT:      %15 = aten.mm %14, %hx_2
// CHECK-NEXT:      %16 = aten.mm %14, %x_2
// CHECK-NEXT:      prim.Yield %16, %15, %13, %13
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %hy, %cy

// With the llvm backend's fusion, each half's pointwise ops become one kernel: the
// backward's from the output gradients to the gates' gradient, written in place by cat.
// FUSED:       } backward[
// FUSED:         %0 = prim.FusionGroup(
// FUSED:           aten.tanh_backward
// FUSED:           aten.sigmoid_backward
// FUSED:           %{{.*}} = aten.cat
// FUSED-NEXT:      prim.Yield
// FUSED-NEXT:    }
// FUSED-NEXT:    %1 = aten._grad_sum_to_size %0, %other_size
// FUSED-NEXT:    %2 = aten.t %0
// FUSED-NEXT:    %3 = aten.mm %2, %hx_2
// FUSED-NEXT:    %4 = aten.mm %2, %x_2
// FUSED-NEXT:    prim.Yield %4, %3, %1, %1

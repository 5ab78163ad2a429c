// RUN: TS_ROUNDTRIP
// RUN: TS_GENERIC_ROUNDTRIP

// The IR examples of PyTorch's JIT overview (torch/csrc/jit/OVERVIEW.md), written by
// hand in tsjit's syntax. TorchScript's numeric value names (%2, %3, ...) are kept in
// the input; the printer renumbers them in order. Name hints such as %z.1 survive.

// `f(a, b)` from "Graph": Double(2) is !ts.tensor<f64, [2]>.
func.func @f(%0 : !ts.tensor<f64, [2]>, %1 : !ts.tensor<f64, [2]>) -> !ts.tensor<f64, [2]> {
  %2 = prim.Constant 1 : !ts.int
  %3 = aten.add %0, %1, %2 : (!ts.tensor<f64, [2]>, !ts.tensor<f64, [2]>, !ts.int) -> !ts.tensor<f64, [2]>
  %4 = aten.mul %3, %3 : (!ts.tensor<f64, [2]>, !ts.tensor<f64, [2]>) -> !ts.tensor<f64, [2]>
  %5 = aten.mul %4, %3 : (!ts.tensor<f64, [2]>, !ts.tensor<f64, [2]>) -> !ts.tensor<f64, [2]>
  %6 = aten.tanh %5 : (!ts.tensor<f64, [2]>) -> !ts.tensor<f64, [2]>
  %7 = aten.add %6, %6, %2 : (!ts.tensor<f64, [2]>, !ts.tensor<f64, [2]>, !ts.int) -> !ts.tensor<f64, [2]>
  %8 = aten.add %5, %7, %2 : (!ts.tensor<f64, [2]>, !ts.tensor<f64, [2]>, !ts.int) -> !ts.tensor<f64, [2]>
  func.return %8 : !ts.tensor<f64, [2]>
}

// CHECK-LABEL: func.func @f(%0: !ts.tensor<f64, [2]>, %1: !ts.tensor<f64, [2]>) -> !ts.tensor<f64, [2]> {
// CHECK-NEXT:    %2 = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %3 = aten.add %0, %1, %2 : (!ts.tensor<f64, [2]>, !ts.tensor<f64, [2]>, !ts.int) -> !ts.tensor<f64, [2]>
// CHECK-NEXT:    %4 = aten.mul %3, %3 : (!ts.tensor<f64, [2]>, !ts.tensor<f64, [2]>) -> !ts.tensor<f64, [2]>
// CHECK-NEXT:    %5 = aten.mul %4, %3 : (!ts.tensor<f64, [2]>, !ts.tensor<f64, [2]>) -> !ts.tensor<f64, [2]>
// CHECK-NEXT:    %6 = aten.tanh %5 : (!ts.tensor<f64, [2]>) -> !ts.tensor<f64, [2]>
// CHECK-NEXT:    %7 = aten.add %6, %6, %2 : (!ts.tensor<f64, [2]>, !ts.tensor<f64, [2]>, !ts.int) -> !ts.tensor<f64, [2]>
// CHECK-NEXT:    %8 = aten.add %5, %7, %2 : (!ts.tensor<f64, [2]>, !ts.tensor<f64, [2]>, !ts.int) -> !ts.tensor<f64, [2]>
// CHECK-NEXT:    func.return %8 : !ts.tensor<f64, [2]>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "f"
// CHECK-GENERIC:       ^bb0(%0: !ts.tensor<f64, [2]>, %1: !ts.tensor<f64, [2]>):
// CHECK-GENERIC-NEXT:  %2 = "prim.Constant"() <{value = 1 : i64}> : () -> !ts.int

// -----

// The If example from "Block": `d = a + b; e = d + d if c else b + d`. The overview's
// old graph types %c as Dynamic; prim::If needs a bool.
func.func @if_example(%a : !ts.tensor, %b : !ts.tensor, %c : !ts.bool) -> !ts.tensor {
  %2 = prim.Constant 1 : !ts.int
  %3 = aten.add %a, %b, %2 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %5 = prim.If %c -> (!ts.tensor) {
    %6 = prim.Constant 1 : !ts.int
    %7 = aten.add %3, %3, %6 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
    prim.Yield %7 : !ts.tensor
  } else {
    %8 = prim.Constant 1 : !ts.int
    %9 = aten.add %b, %3, %8 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
    prim.Yield %9 : !ts.tensor
  }
  func.return %5 : !ts.tensor
}

// CHECK-LABEL: func.func @if_example(%a: !ts.tensor, %b: !ts.tensor, %c: !ts.bool) -> !ts.tensor {
// CHECK-NEXT:    %0 = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %1 = aten.add %a, %b, %0 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %2 = prim.If %c -> (!ts.tensor) {
// CHECK-NEXT:      %3 = prim.Constant 1 : !ts.int
// CHECK-NEXT:      %4 = aten.add %1, %1, %3 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %4 : !ts.tensor
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %5 = prim.Constant 1 : !ts.int
// CHECK-NEXT:      %6 = aten.add %b, %1, %5 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %6 : !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %2 : !ts.tensor
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "if_example"
// CHECK-GENERIC:       %2 = "prim.If"(%c) ({
// CHECK-GENERIC:       "prim.Yield"(%4) : (!ts.tensor) -> ()
// CHECK-GENERIC-NEXT:  }, {
// CHECK-GENERIC:       "prim.Yield"(%6) : (!ts.tensor) -> ()
// CHECK-GENERIC-NEXT:  }) : (!ts.bool) -> !ts.tensor

// -----

// The Loop example from "Loops": `for i in range(x.size(0)): z = z * z`.
func.func @loop_example(%z.1 : !ts.tensor) -> !ts.tensor {
  %3 = prim.Constant true : !ts.bool
  %1 = prim.Constant 0 : !ts.int
  %2 = aten.size %z.1, %1 : (!ts.tensor, !ts.int) -> !ts.int
  %z = prim.Loop %2, %3 iter(%i) carried(%5 = %z.1 : !ts.tensor) -> (!ts.tensor) {
    %z.2 = aten.mul %5, %5 : (!ts.tensor, !ts.tensor) -> !ts.tensor
    prim.Yield %3, %z.2 : !ts.bool, !ts.tensor
  }
  func.return %z : !ts.tensor
}

// CHECK-LABEL: func.func @loop_example(%z.1: !ts.tensor) -> !ts.tensor {
// CHECK-NEXT:    %0 = prim.Constant true : !ts.bool
// CHECK-NEXT:    %1 = prim.Constant 0 : !ts.int
// CHECK-NEXT:    %2 = aten.size %z.1, %1 : (!ts.tensor, !ts.int) -> !ts.int
// CHECK-NEXT:    %z = prim.Loop %2, %0 iter(%i) carried(%3 = %z.1 : !ts.tensor) -> (!ts.tensor) {
// CHECK-NEXT:      %z.2 = aten.mul %3, %3 : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %0, %z.2 : !ts.bool, !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %z : !ts.tensor
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "loop_example"
// CHECK-GENERIC:       %z = "prim.Loop"(%2, %0, %z.1) ({
// CHECK-GENERIC-NEXT:  ^bb0(%i: !ts.int, %3: !ts.tensor):
// CHECK-GENERIC:       "prim.Yield"(%0, %z.2) : (!ts.bool, !ts.tensor) -> ()
// CHECK-GENERIC-NEXT:  }) : (!ts.int, !ts.bool, !ts.tensor) -> !ts.tensor

// -----

// The LSTM cell of "Graph Executor", as the frontend emits it.
func.func @LSTMCellS(%x : !ts.tensor, %hx : !ts.tensor, %cx : !ts.tensor, %w_ih : !ts.tensor, %w_hh : !ts.tensor, %b_ih : !ts.tensor, %b_hh : !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.tensor> {
  %7 = prim.Constant 4 : !ts.int
  %8 = prim.Constant 1 : !ts.int
  %9 = aten.t %w_ih : (!ts.tensor) -> !ts.tensor
  %10 = aten.mm %x, %9 : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %11 = aten.t %w_hh : (!ts.tensor) -> !ts.tensor
  %12 = aten.mm %hx, %11 : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %13 = aten.add %10, %12, %8 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %14 = aten.add %13, %b_ih, %8 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %gates = aten.add %14, %b_hh, %8 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %16 = aten.chunk %gates, %7, %8 : (!ts.tensor, !ts.int, !ts.int) -> !ts.list<!ts.tensor>
  %ingate.1, %forgetgate.1, %cellgate.1, %outgate.1 = prim.ListUnpack %16 : !ts.list<!ts.tensor> -> !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor
  %ingate = aten.sigmoid %ingate.1 : (!ts.tensor) -> !ts.tensor
  %forgetgate = aten.sigmoid %forgetgate.1 : (!ts.tensor) -> !ts.tensor
  %cellgate = aten.tanh %cellgate.1 : (!ts.tensor) -> !ts.tensor
  %outgate = aten.sigmoid %outgate.1 : (!ts.tensor) -> !ts.tensor
  %25 = aten.mul %forgetgate, %cx : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %26 = aten.mul %ingate, %cellgate : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %cy = aten.add %25, %26, %8 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %28 = aten.tanh %cy : (!ts.tensor) -> !ts.tensor
  %hy = aten.mul %outgate, %28 : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %30 = prim.TupleConstruct %hy, %cy : (!ts.tensor, !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.tensor>
  func.return %30 : !ts.tuple<!ts.tensor, !ts.tensor>
}

// CHECK-LABEL: func.func @LSTMCellS(%x: !ts.tensor, %hx: !ts.tensor, %cx: !ts.tensor, %w_ih: !ts.tensor, %w_hh: !ts.tensor, %b_ih: !ts.tensor, %b_hh: !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.tensor> {
// CHECK-NEXT:    %0 = prim.Constant 4 : !ts.int
// CHECK-NEXT:    %1 = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %2 = aten.t %w_ih : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %3 = aten.mm %x, %2 : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %4 = aten.t %w_hh : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %5 = aten.mm %hx, %4 : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %6 = aten.add %3, %5, %1 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %7 = aten.add %6, %b_ih, %1 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %gates = aten.add %7, %b_hh, %1 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %8 = aten.chunk %gates, %0, %1 : (!ts.tensor, !ts.int, !ts.int) -> !ts.list<!ts.tensor>
// CHECK-NEXT:    %ingate.1, %forgetgate.1, %cellgate.1, %outgate.1 = prim.ListUnpack %8 : !ts.list<!ts.tensor> -> !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor
// CHECK-NEXT:    %ingate = aten.sigmoid %ingate.1 : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %forgetgate = aten.sigmoid %forgetgate.1 : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %cellgate = aten.tanh %cellgate.1 : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %outgate = aten.sigmoid %outgate.1 : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %9 = aten.mul %forgetgate, %cx : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %10 = aten.mul %ingate, %cellgate : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %cy = aten.add %9, %10, %1 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %11 = aten.tanh %cy : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %hy = aten.mul %outgate, %11 : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %12 = prim.TupleConstruct %hy, %cy : (!ts.tensor, !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.tensor>
// CHECK-NEXT:    func.return %12 : !ts.tuple<!ts.tensor, !ts.tensor>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "LSTMCellS"
// CHECK-GENERIC:       %ingate.1, %forgetgate.1, %cellgate.1, %outgate.1 = "prim.ListUnpack"(%8) : (!ts.list<!ts.tensor>) -> (!ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor)
// CHECK-GENERIC:       %12 = "prim.TupleConstruct"(%hy, %cy) : (!ts.tensor, !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.tensor>

// -----

// The LSTM cell after post-derivative optimization: pointwise ops fused into
// prim::FusionGroup_0, whose subgraph is the region (Float(*, *) is
// !ts.tensor<f32, [?, ?]>). PyTorch's subgraph is a separate Graph; here its values
// that share a number with the outer graph's are spelled %g77 ... %g82, %g11.
func.func @LSTMCellS_fused(%x : !ts.tensor<f32, [?, ?]>, %hx : !ts.tensor<f32, [?, ?]>, %cx : !ts.tensor<f32, [?, ?]>, %w_ih : !ts.tensor<f32, [?, ?]>, %w_hh : !ts.tensor<f32, [?, ?]>, %b_ih : !ts.tensor<f32, [?]>, %b_hh : !ts.tensor<f32, [?]>) -> !ts.tuple<!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>> {
  %9 = aten.t %w_ih : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
  %10 = aten.mm %x, %9 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
  %11 = aten.t %w_hh : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
  %12 = aten.mm %hx, %11 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
  %77 = prim.ListConstruct %b_hh, %b_ih, %10, %12 : (!ts.tensor<f32, [?]>, !ts.tensor<f32, [?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.list<!ts.tensor>
  %78 = aten.broadcast_tensors %77 : (!ts.list<!ts.tensor>) -> !ts.list<!ts.tensor>
  %79, %80, %81, %82 = prim.ListUnpack %78 : !ts.list<!ts.tensor> -> !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor
  %hy, %cy = prim.FusionGroup(%13 = %cx : !ts.tensor<f32, [?, ?]>, %71 = %82 : !ts.tensor, %76 = %81 : !ts.tensor, %g81 = %80 : !ts.tensor, %86 = %79 : !ts.tensor) -> (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) {
    %87, %88, %89, %90 = prim.ConstantChunk[chunks = 4, dim = 1] %86 : !ts.tensor -> !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>
    %g82, %83, %84, %85 = prim.ConstantChunk[chunks = 4, dim = 1] %g81 : !ts.tensor -> !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>
    %g77, %g78, %g79, %g80 = prim.ConstantChunk[chunks = 4, dim = 1] %76 : !ts.tensor -> !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>
    %72, %73, %74, %75 = prim.ConstantChunk[chunks = 4, dim = 1] %71 : !ts.tensor -> !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>
    %69 = prim.Constant 1 : !ts.int
    %70 = aten.add %g77, %72, %69 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
    %66 = aten.add %g78, %73, %69 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
    %62 = aten.add %g79, %74, %69 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
    %58 = aten.add %g80, %75, %69 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
    %54 = aten.add %70, %g82, %69 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
    %50 = aten.add %66, %83, %69 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
    %46 = aten.add %62, %84, %69 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
    %42 = aten.add %58, %85, %69 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
    %38 = aten.add %54, %87, %69 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
    %34 = aten.add %50, %88, %69 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
    %30 = aten.add %46, %89, %69 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
    %26 = aten.add %42, %90, %69 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
    %ingate = aten.sigmoid %38 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    %forgetgate = aten.sigmoid %34 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    %cellgate = aten.tanh %30 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    %outgate = aten.sigmoid %26 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    %14 = aten.mul %forgetgate, %13 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    %g11 = aten.mul %ingate, %cellgate : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    %cy.1 = aten.add %14, %g11, %69 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
    %4 = aten.tanh %cy.1 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    %hy.1 = aten.mul %outgate, %4 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    prim.Yield %hy.1, %cy.1 : !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>
  }
  %30 = prim.TupleConstruct %hy, %cy : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tuple<!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>>
  func.return %30 : !ts.tuple<!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>>
}

// CHECK-LABEL: func.func @LSTMCellS_fused(%x: !ts.tensor<f32, [?, ?]>, %hx: !ts.tensor<f32, [?, ?]>, %cx: !ts.tensor<f32, [?, ?]>, %w_ih: !ts.tensor<f32, [?, ?]>, %w_hh: !ts.tensor<f32, [?, ?]>, %b_ih: !ts.tensor<f32, [?]>, %b_hh: !ts.tensor<f32, [?]>) -> !ts.tuple<!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>> {
// CHECK-NEXT:    %0 = aten.t %w_ih : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:    %1 = aten.mm %x, %0 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:    %2 = aten.t %w_hh : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:    %3 = aten.mm %hx, %2 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:    %4 = prim.ListConstruct %b_hh, %b_ih, %1, %3 : (!ts.tensor<f32, [?]>, !ts.tensor<f32, [?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.list<!ts.tensor>
// CHECK-NEXT:    %5 = aten.broadcast_tensors %4 : (!ts.list<!ts.tensor>) -> !ts.list<!ts.tensor>
// CHECK-NEXT:    %6, %7, %8, %9 = prim.ListUnpack %5 : !ts.list<!ts.tensor> -> !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor
// CHECK-NEXT:    %hy, %cy = prim.FusionGroup(%10 = %cx : !ts.tensor<f32, [?, ?]>, %11 = %9 : !ts.tensor, %12 = %8 : !ts.tensor, %g81 = %7 : !ts.tensor, %13 = %6 : !ts.tensor) -> (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) {
// CHECK-NEXT:      %14, %15, %16, %17 = prim.ConstantChunk[chunks = 4, dim = 1] %13 : !ts.tensor -> !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %g82, %18, %19, %20 = prim.ConstantChunk[chunks = 4, dim = 1] %g81 : !ts.tensor -> !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %g77, %g78, %g79, %g80 = prim.ConstantChunk[chunks = 4, dim = 1] %12 : !ts.tensor -> !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %21, %22, %23, %24 = prim.ConstantChunk[chunks = 4, dim = 1] %11 : !ts.tensor -> !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %25 = prim.Constant 1 : !ts.int
// CHECK-NEXT:      %26 = aten.add %g77, %21, %25 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %27 = aten.add %g78, %22, %25 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %28 = aten.add %g79, %23, %25 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %29 = aten.add %g80, %24, %25 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %30 = aten.add %26, %g82, %25 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %31 = aten.add %27, %18, %25 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %32 = aten.add %28, %19, %25 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %33 = aten.add %29, %20, %25 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %34 = aten.add %30, %14, %25 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %35 = aten.add %31, %15, %25 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %36 = aten.add %32, %16, %25 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %37 = aten.add %33, %17, %25 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %ingate = aten.sigmoid %34 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %forgetgate = aten.sigmoid %35 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %cellgate = aten.tanh %36 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %outgate = aten.sigmoid %37 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %38 = aten.mul %forgetgate, %10 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %g11 = aten.mul %ingate, %cellgate : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %cy.1 = aten.add %38, %g11, %25 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %39 = aten.tanh %cy.1 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %hy.1 = aten.mul %outgate, %39 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      prim.Yield %hy.1, %cy.1 : !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:    }
// CHECK-NEXT:    %10 = prim.TupleConstruct %hy, %cy : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tuple<!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>>
// CHECK-NEXT:    func.return %10 : !ts.tuple<!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "LSTMCellS_fused"
// CHECK-GENERIC:       %hy, %cy = "prim.FusionGroup"(%cx, %9, %8, %7, %6) ({
// CHECK-GENERIC-NEXT:  ^bb0(%10: !ts.tensor<f32, [?, ?]>, %11: !ts.tensor, %12: !ts.tensor, %g81: !ts.tensor, %13: !ts.tensor):
// CHECK-GENERIC-NEXT:  %14, %15, %16, %17 = "prim.ConstantChunk"(%13) <{chunks = 4 : i64, dim = 1 : i64}> : (!ts.tensor) -> (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>)

// -----

// The LSTM cell when gradients are needed: prim::DifferentiableGraph_0.
func.func @LSTMCellS_differentiable(%x : !ts.tensor<f32, [?, ?]>, %hx : !ts.tensor<f32, [?, ?]>, %cx : !ts.tensor<f32, [?, ?]>, %w_ih : !ts.tensor<f32, [?, ?]>, %w_hh : !ts.tensor<f32, [?, ?]>, %b_ih : !ts.tensor<f32, [?]>, %b_hh : !ts.tensor<f32, [?]>) -> !ts.tuple<!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>> {
  %8 = prim.Constant 1 : !ts.int
  %hy, %cy = prim.DifferentiableGraph(%13 = %cx : !ts.tensor<f32, [?, ?]>, %29 = %b_hh : !ts.tensor<f32, [?]>, %33 = %b_ih : !ts.tensor<f32, [?]>, %40 = %hx : !ts.tensor<f32, [?, ?]>, %43 = %w_hh : !ts.tensor<f32, [?, ?]>, %45 = %x : !ts.tensor<f32, [?, ?]>, %48 = %w_ih : !ts.tensor<f32, [?, ?]>) -> (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) {
    %49 = aten.t %48 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    %47 = aten.mm %45, %49 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    %44 = aten.t %43 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    %42 = aten.mm %40, %44 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    %38 = prim.Constant 1 : !ts.int
    %39 = aten.add %47, %42, %38 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
    %35 = aten.add %39, %33, %38 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
    %gates = aten.add %35, %29, %38 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
    %24, %25, %26, %27 = prim.ConstantChunk[chunks = 4, dim = 1] %gates : !ts.tensor<f32, [?, ?]> -> !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>
    %ingate = aten.sigmoid %24 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    %forgetgate = aten.sigmoid %25 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    %cellgate = aten.tanh %26 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    %outgate = aten.sigmoid %27 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    %14 = aten.mul %forgetgate, %13 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    %11 = aten.mul %ingate, %cellgate : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    %cy.1 = aten.add %14, %11, %38 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
    %4 = aten.tanh %cy.1 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    %hy.1 = aten.mul %outgate, %4 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    prim.Yield %hy.1, %cy.1 : !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>
  }
  %30 = prim.TupleConstruct %hy, %cy : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tuple<!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>>
  func.return %30 : !ts.tuple<!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>>
}

// CHECK-LABEL: func.func @LSTMCellS_differentiable(%x: !ts.tensor<f32, [?, ?]>, %hx: !ts.tensor<f32, [?, ?]>, %cx: !ts.tensor<f32, [?, ?]>, %w_ih: !ts.tensor<f32, [?, ?]>, %w_hh: !ts.tensor<f32, [?, ?]>, %b_ih: !ts.tensor<f32, [?]>, %b_hh: !ts.tensor<f32, [?]>) -> !ts.tuple<!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>> {
// CHECK-NEXT:    %0 = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %hy, %cy = prim.DifferentiableGraph(%1 = %cx : !ts.tensor<f32, [?, ?]>, %2 = %b_hh : !ts.tensor<f32, [?]>, %3 = %b_ih : !ts.tensor<f32, [?]>, %4 = %hx : !ts.tensor<f32, [?, ?]>, %5 = %w_hh : !ts.tensor<f32, [?, ?]>, %6 = %x : !ts.tensor<f32, [?, ?]>, %7 = %w_ih : !ts.tensor<f32, [?, ?]>) -> (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) {
// CHECK-NEXT:      %8 = aten.t %7 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %9 = aten.mm %6, %8 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %10 = aten.t %5 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %11 = aten.mm %4, %10 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %12 = prim.Constant 1 : !ts.int
// CHECK-NEXT:      %13 = aten.add %9, %11, %12 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %14 = aten.add %13, %3, %12 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %gates = aten.add %14, %2, %12 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %15, %16, %17, %18 = prim.ConstantChunk[chunks = 4, dim = 1] %gates : !ts.tensor<f32, [?, ?]> -> !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %ingate = aten.sigmoid %15 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %forgetgate = aten.sigmoid %16 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %cellgate = aten.tanh %17 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %outgate = aten.sigmoid %18 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %19 = aten.mul %forgetgate, %1 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %20 = aten.mul %ingate, %cellgate : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %cy.1 = aten.add %19, %20, %12 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %21 = aten.tanh %cy.1 : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %hy.1 = aten.mul %outgate, %21 : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      prim.Yield %hy.1, %cy.1 : !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:    }
// CHECK-NEXT:    %1 = prim.TupleConstruct %hy, %cy : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tuple<!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>>
// CHECK-NEXT:    func.return %1 : !ts.tuple<!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "LSTMCellS_differentiable"
// CHECK-GENERIC:       %hy, %cy = "prim.DifferentiableGraph"(%cx, %b_hh, %b_ih, %hx, %w_hh, %x, %w_ih) ({
// CHECK-GENERIC-NEXT:  ^bb0(%1: !ts.tensor<f32, [?, ?]>, %2: !ts.tensor<f32, [?]>, %3: !ts.tensor<f32, [?]>, %4: !ts.tensor<f32, [?, ?]>, %5: !ts.tensor<f32, [?, ?]>, %6: !ts.tensor<f32, [?, ?]>, %7: !ts.tensor<f32, [?, ?]>):

// RUN: ts-opt %s -p fuse-pointwise | filecheck %s
// RUN: ts-opt %s -p fuse-pointwise{min-ops=1} | filecheck %s --check-prefix=ONE


!F = !ts.tensor<f32, [?, ?]>
!V = !ts.tensor<f32, [?]>
!I = !ts.tensor<i64, [?]>

// A chain of elementwise ops is one group; a value used after it is a result too.
func.func @chain(%x: !F, %y: !F) -> !ts.tuple<!F, !F> {
  %one = prim.Constant 1 : !ts.int
  %a = aten.mul %x, %y : (!F, !F) -> !F
  %b = aten.tanh %a : (!F) -> !F
  %c = aten.add %b, %x, %one : (!F, !F, !ts.int) -> !F
  %t = prim.TupleConstruct %a, %c : (!F, !F) -> !ts.tuple<!F, !F>
  func.return %t : !ts.tuple<!F, !F>
}

// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %a, %c = prim.FusionGroup(%x_1 = %x : !ts.tensor<f32, [?, ?]>, %y_1 = %y : !ts.tensor<f32, [?, ?]>) -> (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) {
// CHECK-NEXT:      %one_1 = prim.Constant 1 : !ts.int
// CHECK-NEXT:      %a_1 = aten.mul %x_1, %y_1
// CHECK-NEXT:      %b = aten.tanh %a_1
// CHECK-NEXT:      %c_1 = aten.add %b, %x_1, %one_1
// CHECK-NEXT:      prim.Yield %a_1, %c_1
// CHECK-NEXT:    }
// CHECK-NEXT:    %t = prim.TupleConstruct %a, %c

// One elementwise op alone is no group unless min-ops says so.
func.func @single(%x: !F) -> !F {
  %r = aten.sigmoid %x : (!F) -> !F
  func.return %r : !F
}

// CHECK-LABEL: func.func @single
// CHECK-NEXT:    %r = aten.sigmoid %x
// ONE-LABEL:   func.func @single
// ONE-NEXT:      %r = prim.FusionGroup(%x_1 = %x : !ts.tensor<f32, [?, ?]>) -> (!ts.tensor<f32, [?, ?]>) {
// ONE-NEXT:        %r_1 = aten.sigmoid %x_1
// ONE-NEXT:        prim.Yield %r_1

// Unknown dtype or rank: nothing is fused.
func.func @unknown_types(%x: !ts.tensor, %y: !ts.tensor<*, [?]>) -> !ts.tensor {
  %a = aten.neg %x : (!ts.tensor) -> !ts.tensor
  %b = aten.exp %a : (!ts.tensor) -> !ts.tensor
  %c = aten.exp %y : (!ts.tensor<*, [?]>) -> !ts.tensor<*, [?]>
  %d = aten.neg %c : (!ts.tensor<*, [?]>) -> !ts.tensor<*, [?]>
  func.return %b : !ts.tensor
}

// CHECK-LABEL: func.func @unknown_types
// CHECK-NEXT:    %a = aten.neg %x
// CHECK-NEXT:    %b = aten.exp %a
// CHECK-NEXT:    %c = aten.exp %y
// CHECK-NEXT:    %d = aten.neg %c

// An in-place write to what the group reads: ops before it cannot move past it.
func.func @write_between(%x: !V, %y: !V) -> !V {
  %one = prim.Constant 1 : !ts.int
  %a = aten.exp %x : (!V) -> !V
  %b = aten.mul %a, %a : (!V, !V) -> !V
  %w = aten.add_ %x, %y, %one : (!V, !V, !ts.int) -> !V
  %c = aten.mul %b, %x : (!V, !V) -> !V
  %d = aten.sin %c : (!V) -> !V
  func.return %d : !V
}

// CHECK-LABEL: func.func @write_between
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %b = prim.FusionGroup(%x_1 = %x : !ts.tensor<f32, [?]>) -> (!ts.tensor<f32, [?]>) {
// CHECK-NEXT:      %a = aten.exp %x_1
// CHECK-NEXT:      %b_1 = aten.mul %a, %a
// CHECK-NEXT:      prim.Yield %b_1
// CHECK-NEXT:    }
// CHECK-NEXT:    %w = aten.add_ %x, %y, %one
// CHECK-NEXT:    %d = prim.FusionGroup(%b_1 = %b : !ts.tensor<f32, [?]>, %x_1 = %x : !ts.tensor<f32, [?]>) -> (!ts.tensor<f32, [?]>) {
// CHECK-NEXT:      %c = aten.mul %b_1, %x_1
// CHECK-NEXT:      %d_1 = aten.sin %c

// Integer division fuses only by a non-zero literal; scalars: constants are copied in,
// other numbers become inputs.
func.func @scalars(%x: !I, %y: !I, %s: !ts.float) -> !ts.tuple<!V, !I> {
  %two = prim.Constant 2 : !ts.int
  %q = aten.floor_divide %x, %two : (!I, !ts.int) -> !I
  %r = aten.mul %q, %s : (!I, !ts.float) -> !V
  %t = aten.exp %r : (!V) -> !V
  %u = aten.floor_divide %x, %y : (!I, !I) -> !I
  %v = aten.neg %u : (!I) -> !I
  %w = prim.TupleConstruct %t, %v : (!V, !I) -> !ts.tuple<!V, !I>
  func.return %w : !ts.tuple<!V, !I>
}

// CHECK-LABEL: func.func @scalars
// CHECK-NEXT:    %two = prim.Constant 2 : !ts.int
// CHECK-NEXT:    %t = prim.FusionGroup(%x_1 = %x : !ts.tensor<i64, [?]>, %s_1 = %s : !ts.float) -> (!ts.tensor<f32, [?]>) {
// CHECK-NEXT:      %two_1 = prim.Constant 2 : !ts.int
// CHECK-NEXT:      %q = aten.floor_divide %x_1, %two_1
// CHECK-NEXT:      %r = aten.mul %q, %s_1
// CHECK-NEXT:      %t_1 = aten.exp %r
// CHECK-NEXT:      prim.Yield %t_1
// CHECK-NEXT:    }
// CHECK-NEXT:    %u = aten.floor_divide %x, %y
// CHECK-NEXT:    %v = aten.neg %u

// The LSTM cell's tail: the chunk moves to the gates' inputs, broadcast together.
func.func @lstm_tail(%mm1: !F, %mm2: !F, %bias: !V, %cx: !F) -> !ts.tuple<!F, !F> {
  %one = prim.Constant 1 : !ts.int
  %s = aten.add %mm1, %mm2, %one : (!F, !F, !ts.int) -> !F
  %gates = aten.add %s, %bias, %one : (!F, !V, !ts.int) -> !F
  %i, %f, %g, %o = prim.ConstantChunk[chunks = 4, dim = 1] %gates : !F -> !F, !F, !F, !F
  %i1 = aten.sigmoid %i : (!F) -> !F
  %f1 = aten.sigmoid %f : (!F) -> !F
  %g1 = aten.tanh %g : (!F) -> !F
  %o1 = aten.sigmoid %o : (!F) -> !F
  %fc = aten.mul %f1, %cx : (!F, !F) -> !F
  %ig = aten.mul %i1, %g1 : (!F, !F) -> !F
  %cy = aten.add %fc, %ig, %one : (!F, !F, !ts.int) -> !F
  %tc = aten.tanh %cy : (!F) -> !F
  %hy = aten.mul %o1, %tc : (!F, !F) -> !F
  %r = prim.TupleConstruct %hy, %cy : (!F, !F) -> !ts.tuple<!F, !F>
  func.return %r : !ts.tuple<!F, !F>
}

// CHECK-LABEL: func.func @lstm_tail
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %cy, %hy = prim.FusionGroup(%mm1_1 = %mm1 : {{.*}}, %mm2_1 = %mm2 : {{.*}}, %bias_1 = %bias : !ts.tensor<f32, [?]>, %cx_1 = %cx : {{.*}}) -> {{.*}} {
// CHECK-NEXT:      %one_1 = prim.Constant 1 : !ts.int
// CHECK-NEXT:      %0 = prim.ListConstruct %mm1_1, %mm2_1, %bias_1
// CHECK-NEXT:      %1 = aten.broadcast_tensors %0
// CHECK-NEXT:      %2, %3, %4 = prim.ListUnpack %1 : !ts.list<!ts.tensor> -> !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      %5, %6, %7, %8 = prim.ConstantChunk[chunks = 4, dim = 1] %2
// CHECK-NEXT:      %9, %10, %11, %12 = prim.ConstantChunk[chunks = 4, dim = 1] %3
// CHECK-NEXT:      %13, %14, %15, %16 = prim.ConstantChunk[chunks = 4, dim = 1] %4
// CHECK-NEXT:      %17 = aten.add %5, %9, %one_1
// CHECK-NEXT:      %i = aten.add %17, %13, %one_1
// CHECK-NEXT:      %18 = aten.add %6, %10, %one_1
// CHECK-NEXT:      %f = aten.add %18, %14, %one_1
// CHECK-NEXT:      %19 = aten.add %7, %11, %one_1
// CHECK-NEXT:      %g = aten.add %19, %15, %one_1
// CHECK-NEXT:      %20 = aten.add %8, %12, %one_1
// CHECK-NEXT:      %o = aten.add %20, %16, %one_1
// CHECK-NEXT:      %i1 = aten.sigmoid %i
// CHECK:           %hy_1 = aten.mul %o1, %tc
// CHECK-NEXT:      prim.Yield %cy_1, %hy_1
// CHECK-NEXT:    }
// CHECK-NEXT:    %r = prim.TupleConstruct %hy, %cy

// A cat of group values ends the group: the kernel writes the parts in place.
func.func @cat_output(%x: !F, %y: !F) -> !F {
  %one = prim.Constant 1 : !ts.int
  %a = aten.mul %x, %y : (!F, !F) -> !F
  %b = aten.add %x, %y, %one : (!F, !F, !ts.int) -> !F
  %l = prim.ListConstruct %a, %b : (!F, !F) -> !ts.list<!ts.tensor>
  %c = aten.cat %l, %one : (!ts.list<!ts.tensor>, !ts.int) -> !F
  func.return %c : !F
}

// CHECK-LABEL: func.func @cat_output
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %c = prim.FusionGroup(%x_1 = %x : {{.*}}, %y_1 = %y : {{.*}}) -> (!ts.tensor<f32, [?, ?]>) {
// CHECK-NEXT:      %one_1 = prim.Constant 1 : !ts.int
// CHECK-NEXT:      %a = aten.mul %x_1, %y_1
// CHECK-NEXT:      %b = aten.add %x_1, %y_1, %one_1
// CHECK-NEXT:      %l = prim.ListConstruct %a, %b
// CHECK-NEXT:      %c_1 = aten.cat %l, %one_1
// CHECK-NEXT:      prim.Yield %c_1

// Blocks nested in control flow are fused on their own; a dtype conversion fuses,
// `to` of the same dtype (a view of its input) does not.
func.func @nested(%x: !V, %c: !ts.bool) -> !ts.tensor<f64, [?]> {
  %f64 = prim.Constant 7 : !ts.int
  %f32 = prim.Constant 6 : !ts.int
  %false = prim.Constant false : !ts.bool
  %none = prim.Constant : !ts.none
  %r = prim.If %c -> (!ts.tensor<f64, [?]>) {
    %a = aten.exp %x : (!V) -> !V
    %b = aten.to %a, %f64, %false, %false, %none : (!V, !ts.int, !ts.bool, !ts.bool, !ts.none) -> !ts.tensor<f64, [?]>
    prim.Yield %b : !ts.tensor<f64, [?]>
  } else {
    %a = aten.to %x, %f32, %false, %false, %none : (!V, !ts.int, !ts.bool, !ts.bool, !ts.none) -> !V
    %b = aten.relu %a : (!V) -> !V
    %d = aten.to %b, %f64, %false, %false, %none : (!V, !ts.int, !ts.bool, !ts.bool, !ts.none) -> !ts.tensor<f64, [?]>
    prim.Yield %d : !ts.tensor<f64, [?]>
  }
  func.return %r : !ts.tensor<f64, [?]>
}

// CHECK-LABEL: func.func @nested
// CHECK:         %r = prim.If %c -> (!ts.tensor<f64, [?]>) {
// CHECK-NEXT:      %b = prim.FusionGroup(%x_1 = %x : !ts.tensor<f32, [?]>) -> (!ts.tensor<f64, [?]>) {
// CHECK:             %a = aten.exp %x_1
// CHECK-NEXT:        %b_1 = aten.to %a, %f64_1, %false_1, %false_1, %none_1
// CHECK-NEXT:        prim.Yield %b_1
// CHECK-NEXT:      }
// CHECK-NEXT:      prim.Yield %b
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %a = aten.to %x, %f32, %false, %false, %none
// CHECK-NEXT:      %d = prim.FusionGroup(%a_1 = %a : !ts.tensor<f32, [?]>) -> (!ts.tensor<f64, [?]>) {
// CHECK:             %b_1 = aten.relu %a_1
// CHECK-NEXT:        %d_1 = aten.to %b_1, %f64_1, %false_1, %false_1, %none_1

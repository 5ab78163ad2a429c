// RUN: ts-opt %s --split-input-file -p insert-guards | filecheck %s
// RUN: ts-opt %s --split-input-file -p 'insert-guards{dynamic=true}' | filecheck %s --check-prefix=DYNAMIC

// The inputs are checked against what their profiles saw; the graph runs specialized
// to those types when they match, else bails out to fallback 0: the graph as it was,
// unprofiled, beside it. Profiles of other values go (nothing checks them).
// CHECK-LABEL: func.func @static(%x: !ts.tensor, %y: !ts.tensor, %n: !ts.int) -> !ts.tensor {
// CHECK-NEXT:    %x_1, %y_1, %0 = profile.type_check %x, %y : (!ts.tensor, !ts.tensor) -> (!ts.tensor<f32, [2, 3], strides = [3, 1], device = "cpu", requires_grad = false>, !ts.tensor<f32, [3], strides = [1], device = "cpu", requires_grad = false>)
// CHECK-NEXT:    %a = prim.If %0 -> (!ts.tensor) {
// CHECK-NEXT:      %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:      %a_1 = aten.add %x_1, %y_1, %one : (!ts.tensor<f32, [2, 3], strides = [3, 1], device = "cpu", requires_grad = false>, !ts.tensor<f32, [3], strides = [1], device = "cpu", requires_grad = false>, !ts.int) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %a_1 : !ts.tensor
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %1 = profile.bailout[index = 0] %x, %y, %n : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %1 : !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %a : !ts.tensor
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @static.fallback0(%x: !ts.tensor, %y: !ts.tensor, %n: !ts.int) -> !ts.tensor {
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %a = aten.add %x, %y, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    func.return %a : !ts.tensor
// CHECK-NEXT:  }

// DYNAMIC behaviour: dtype, rank, device and requires_grad only.
// DYNAMIC-LABEL: func.func @static
// DYNAMIC-NEXT:    %x_1, %y_1, %0 = profile.type_check %x, %y : (!ts.tensor, !ts.tensor) -> (!ts.tensor<f32, [?, ?], device = "cpu", requires_grad = false>, !ts.tensor<f32, [?], device = "cpu", requires_grad = false>)
func.func @static(%x : !ts.tensor, %y : !ts.tensor, %n : !ts.int) -> !ts.tensor {
  %one = prim.Constant 1 : !ts.int
  %px = profile.profile[seen_types = [!ts.tensor<f32, [2, 3], strides = [3, 1], device = "cpu", requires_grad = false>]] %x : !ts.tensor
  %py = profile.profile[seen_types = [!ts.tensor<f32, [3], strides = [1], device = "cpu", requires_grad = false>]] %y : !ts.tensor
  %a = aten.add %px, %py, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %pa = profile.profile[seen_types = [!ts.tensor<f32, [2, 3], strides = [3, 1], device = "cpu", requires_grad = false>]] %a : !ts.tensor
  func.return %pa : !ts.tensor
}

// -----

// What the uses of one input saw is merged: sizes that differ become `?` (and the
// strides go with them).
// CHECK-LABEL: func.func @merged
// CHECK-NEXT:    %x_1, %0 = profile.type_check %x : (!ts.tensor) -> (!ts.tensor<f32, [2, ?], device = "cpu", requires_grad = false>)
// CHECK:         profile.bailout[index = 0] %x : (!ts.tensor) -> !ts.tensor
// CHECK:       func.func @merged.fallback0
func.func @merged(%x : !ts.tensor) -> !ts.tensor {
  %p1 = profile.profile[seen_types = [!ts.tensor<f32, [2, 3], strides = [3, 1], device = "cpu", requires_grad = false>]] %x : !ts.tensor
  %a = aten.neg %p1 : (!ts.tensor) -> !ts.tensor
  %p2 = profile.profile[seen_types = [!ts.tensor<f32, [2, 4], strides = [4, 1], device = "cpu", requires_grad = false>]] %x : !ts.tensor
  %b = aten.neg %p2 : (!ts.tensor) -> !ts.tensor
  func.return %b : !ts.tensor
}

// -----

// An input whose uses never ran saw nothing: no check, no fallback; the profiles go.
// CHECK-LABEL: func.func @unseen
// CHECK-NEXT:    %r = prim.If %c -> (!ts.tensor) {
// CHECK-NEXT:      %a = aten.neg %x : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %a : !ts.tensor
// CHECK-NEXT:    } else {
// CHECK-NEXT:      prim.Yield %x : !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : !ts.tensor
// CHECK-NEXT:  }
// CHECK-NOT:   fallback
func.func @unseen(%x : !ts.tensor, %c : !ts.bool) -> !ts.tensor {
  %r = prim.If %c -> (!ts.tensor) {
    %p = profile.profile %x : !ts.tensor
    %a = aten.neg %p : (!ts.tensor) -> !ts.tensor
    prim.Yield %a : !ts.tensor
  } else {
    prim.Yield %x : !ts.tensor
  }
  func.return %r : !ts.tensor
}

// -----

// A declared type keeps what it knows (the DYNAMIC check keeps the declared size);
// requires_grad is checked as seen; a graph without results bails out to one too.
// CHECK-LABEL: func.func @declared
// CHECK-NEXT:    %x_1, %0 = profile.type_check %x : (!ts.tensor<f32, [2, ?]>) -> (!ts.tensor<f32, [2, 5], strides = [5, 1], device = "cpu", requires_grad = true>)
// CHECK-NEXT:    prim.If %0 {
// CHECK-NEXT:      %a = aten.neg %x_1
// CHECK-NEXT:      prim.Yield
// CHECK-NEXT:    } else {
// CHECK-NEXT:      profile.bailout[index = 0] %x : (!ts.tensor<f32, [2, ?]>) -> ()
// CHECK-NEXT:      prim.Yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// DYNAMIC-LABEL: func.func @declared
// DYNAMIC-NEXT:    %x_1, %0 = profile.type_check %x : (!ts.tensor<f32, [2, ?]>) -> (!ts.tensor<f32, [2, ?], device = "cpu", requires_grad = true>)
func.func @declared(%x : !ts.tensor<f32, [2, ?]>) {
  %p = profile.profile[seen_types = [!ts.tensor<f32, [2, 5], strides = [5, 1], device = "cpu", requires_grad = true>]] %x : !ts.tensor<f32, [2, ?]>
  %a = aten.neg %p : (!ts.tensor<f32, [2, ?]>) -> !ts.tensor
  func.return
}

// -----

// A second run names the next fallback free; `function` picks one graph.
// RUN: ts-opt %s --split-input-file -p 'insert-guards{function=picked}' | filecheck %s --check-prefix=PICKED
// PICKED-LABEL: func.func @picked
// PICKED:         profile.bailout[index = 1]
// PICKED-LABEL: func.func @picked.fallback1
// PICKED-LABEL: func.func @left
// PICKED-NEXT:    %p = profile.profile[seen_types
func.func @picked(%x : !ts.tensor) -> !ts.tensor {
  %p = profile.profile[seen_types = [!ts.tensor<f32, [2]>]] %x : !ts.tensor
  func.return %p : !ts.tensor
}
func.func private @picked.fallback0(!ts.tensor) -> !ts.tensor
func.func @left(%x : !ts.tensor) -> !ts.tensor {
  %p = profile.profile[seen_types = [!ts.tensor<f32, [2]>]] %x : !ts.tensor
  func.return %p : !ts.tensor
}

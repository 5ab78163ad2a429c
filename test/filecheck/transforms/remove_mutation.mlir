// RUN: ts-opt %s -p remove-mutation | filecheck %s

// In-place ops on a tensor this graph created become functional; later uses take the
// new value. The chain stops where another mutation of the same tensor sits in
// between (%m is mutated twice), and at graph inputs and views.

// CHECK-LABEL: func.func @fresh_tensor
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %none = prim.Constant : !ts.none
// CHECK-NEXT:    %z = aten.clone %x, %none : (!ts.tensor, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %a = aten.add %z, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %r = aten.relu %a : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %s = aten.sum %r, %none : (!ts.tensor, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %in = aten.mul_ %x, %one : (!ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %v = aten.select %r, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %v2 = aten.neg_ %v : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    func.return %r, %s : !ts.tensor, !ts.tensor
func.func @fresh_tensor(%x : !ts.tensor) -> (!ts.tensor, !ts.tensor) {
  %one = prim.Constant 1 : !ts.int
  %none = prim.Constant : !ts.none
  %z = aten.clone %x, %none : (!ts.tensor, !ts.none) -> !ts.tensor
  %a = aten.add_ %z, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  %r = aten.relu_ %z : (!ts.tensor) -> !ts.tensor
  %s = aten.sum %z, %none : (!ts.tensor, !ts.none) -> !ts.tensor
  %in = aten.mul_ %x, %one : (!ts.tensor, !ts.int) -> !ts.tensor
  %v = aten.select %z, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  %v2 = aten.neg_ %v : (!ts.tensor) -> !ts.tensor
  func.return %z, %s : !ts.tensor, !ts.tensor
}

// A read between the creation and the mutation pins the mutation: moving the
// creation down would make the read see the new value.

// CHECK-LABEL: func.func @read_in_between
// CHECK:         %early = aten.sum %z, %none
// CHECK-NEXT:    %a = aten.add_ %z, %one, %one
func.func @read_in_between(%x : !ts.tensor) -> (!ts.tensor, !ts.tensor) {
  %one = prim.Constant 1 : !ts.int
  %none = prim.Constant : !ts.none
  %z = aten.clone %x, %none : (!ts.tensor, !ts.none) -> !ts.tensor
  %early = aten.sum %z, %none : (!ts.tensor, !ts.none) -> !ts.tensor
  %a = aten.add_ %z, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  func.return %z, %early : !ts.tensor, !ts.tensor
}

// An independent op between the creation and the mutation does not matter: the
// creation moves down to the mutation.

// CHECK-LABEL: func.func @creation_moves
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %none = prim.Constant : !ts.none
// CHECK-NEXT:    %other = aten.exp %x : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %z = aten.clone %x, %none : (!ts.tensor, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %a = aten.mul %z, %one : (!ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    func.return %a, %other : !ts.tensor, !ts.tensor
func.func @creation_moves(%x : !ts.tensor) -> (!ts.tensor, !ts.tensor) {
  %one = prim.Constant 1 : !ts.int
  %none = prim.Constant : !ts.none
  %z = aten.clone %x, %none : (!ts.tensor, !ts.none) -> !ts.tensor
  %other = aten.exp %x : (!ts.tensor) -> !ts.tensor
  %a = aten.mul_ %z, %one : (!ts.tensor, !ts.int) -> !ts.tensor
  func.return %z, %other : !ts.tensor, !ts.tensor
}

// Another tensor operand: only with the same known dtype (the functional op would
// promote). `copy_` keeps the destination's dtype by definition; `zero_` maps to
// `zeros_like`.

// CHECK-LABEL: func.func @dtypes
// CHECK:         %a = aten.add %z, %f, %one : (!ts.tensor<f32>, !ts.tensor<f32>, !ts.int) -> !ts.tensor<f32>
// CHECK:         %b = aten.add_ %w, %d, %one : (!ts.tensor<f32>, !ts.tensor<f64>, !ts.int) -> !ts.tensor<f32>
// CHECK:         %c = aten.copy %u, %d, %false : (!ts.tensor, !ts.tensor<f64>, !ts.bool) -> !ts.tensor
// CHECK:         %[[NONE:.*]] = prim.Constant : !ts.none
// CHECK-NEXT:    %e = aten.zeros_like %c, %[[NONE]], %[[NONE]], %[[NONE]], %[[NONE]], %[[NONE]] : (!ts.tensor, !ts.none, !ts.none, !ts.none, !ts.none, !ts.none) -> !ts.tensor
func.func @dtypes(%f : !ts.tensor<f32>, %d : !ts.tensor<f64>, %x : !ts.tensor) -> (!ts.tensor<f32>, !ts.tensor<f32>, !ts.tensor) {
  %one = prim.Constant 1 : !ts.int
  %false = prim.Constant false : !ts.bool
  %none = prim.Constant : !ts.none
  %z = aten.clone %f, %none : (!ts.tensor<f32>, !ts.none) -> !ts.tensor<f32>
  %a = aten.add_ %z, %f, %one : (!ts.tensor<f32>, !ts.tensor<f32>, !ts.int) -> !ts.tensor<f32>
  %w = aten.clone %f, %none : (!ts.tensor<f32>, !ts.none) -> !ts.tensor<f32>
  %b = aten.add_ %w, %d, %one : (!ts.tensor<f32>, !ts.tensor<f64>, !ts.int) -> !ts.tensor<f32>
  %u = aten.clone %x, %none : (!ts.tensor, !ts.none) -> !ts.tensor
  %c = aten.copy_ %u, %d, %false : (!ts.tensor, !ts.tensor<f64>, !ts.bool) -> !ts.tensor
  %e = aten.zero_ %u : (!ts.tensor) -> !ts.tensor
  func.return %z, %w, %u : !ts.tensor<f32>, !ts.tensor<f32>, !ts.tensor
}

// A mutated If output made in both branches is new memory: the If moves down.

// CHECK-LABEL: func.func @if_output
// CHECK:         %t = prim.If %c -> (!ts.tensor)
// CHECK:         %a = aten.mul %t, %one
func.func @if_output(%x : !ts.tensor, %c : !ts.bool) -> !ts.tensor {
  %one = prim.Constant 1 : !ts.int
  %t = prim.If %c -> (!ts.tensor) {
    %p = aten.exp %x : (!ts.tensor) -> !ts.tensor
    prim.Yield %p : !ts.tensor
  } else {
    %q = aten.neg %x : (!ts.tensor) -> !ts.tensor
    prim.Yield %q : !ts.tensor
  }
  %a = aten.mul_ %t, %one : (!ts.tensor, !ts.int) -> !ts.tensor
  func.return %t : !ts.tensor
}

// Appends right after the ListConstruct join it; not once the list was read.

// CHECK-LABEL: func.func @list_appends
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %two = prim.Constant 2 : !ts.int
// CHECK-NEXT:    %l = prim.ListConstruct %one, %two, %one : (!ts.int, !ts.int, !ts.int) -> !ts.list<!ts.int>
// CHECK-NEXT:    %n = aten.len %l : (!ts.list<!ts.int>) -> !ts.int
// CHECK-NEXT:    %l4 = aten.append %l, %n : (!ts.list<!ts.int>, !ts.int) -> !ts.list<!ts.int>
// CHECK-NEXT:    func.return %l : !ts.list<!ts.int>
func.func @list_appends() -> !ts.list<!ts.int> {
  %one = prim.Constant 1 : !ts.int
  %two = prim.Constant 2 : !ts.int
  %l = prim.ListConstruct %one : (!ts.int) -> !ts.list<!ts.int>
  %l2 = aten.append %l, %two : (!ts.list<!ts.int>, !ts.int) -> !ts.list<!ts.int>
  %l3 = aten.append %l, %one : (!ts.list<!ts.int>, !ts.int) -> !ts.list<!ts.int>
  %n = aten.len %l : (!ts.list<!ts.int>) -> !ts.int
  %l4 = aten.append %l, %n : (!ts.list<!ts.int>, !ts.int) -> !ts.list<!ts.int>
  func.return %l : !ts.list<!ts.int>
}

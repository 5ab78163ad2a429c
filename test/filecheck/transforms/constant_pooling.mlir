// RUN: ts-opt %s --split-input-file -p constant-pooling | filecheck %s

// Equal constants become one, hoisted with all others to the top of the graph in the
// order of first appearance, nested blocks included.
// CHECK-LABEL: func.func @pool_and_hoist
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %s = prim.Constant "s" : !ts.str
// CHECK-NEXT:    %none = prim.Constant : !ts.none
// CHECK-NEXT:    %two = prim.Constant 2 : !ts.int
// CHECK-NEXT:    %a = aten.add %x, %x, %one
// CHECK-NEXT:    %r = prim.If %c -> (!ts.tensor) {
// CHECK-NEXT:      %b = aten.add %a, %x, %one
// CHECK-NEXT:      %d = aten.mul %b, %two
// CHECK-NEXT:      prim.Yield %d : !ts.tensor
// CHECK-NEXT:    } else {
// CHECK-NEXT:      prim.Yield %x : !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r, %s, %none, %none
func.func @pool_and_hoist(%x : !ts.tensor, %c : !ts.bool) -> (!ts.tensor, !ts.str, !ts.none, !ts.none) {
  %one = prim.Constant 1 : !ts.int
  %s = prim.Constant "s" : !ts.str
  %none = prim.Constant : !ts.none
  %a = aten.add %x, %x, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %r = prim.If %c -> (!ts.tensor) {
    %one2 = prim.Constant 1 : !ts.int
    %b = aten.add %a, %x, %one2 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
    %two = prim.Constant 2 : !ts.int
    %d = aten.mul %b, %two : (!ts.tensor, !ts.int) -> !ts.tensor
    prim.Yield %d : !ts.tensor
  } else {
    prim.Yield %x : !ts.tensor
  }
  %none2 = prim.Constant : !ts.none
  func.return %r, %s, %none, %none2 : !ts.tensor, !ts.str, !ts.none, !ts.none
}

// -----

// Constants of different types, or of values that only compare equal (0.0 and -0.0),
// stay apart.
// CHECK-LABEL: func.func @distinct
// CHECK-NEXT:    %i = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %f = prim.Constant 1.0 : !ts.float
// CHECK-NEXT:    %b = prim.Constant true : !ts.bool
// CHECK-NEXT:    %zero = prim.Constant 0.0 : !ts.float
// CHECK-NEXT:    %minus_zero = prim.Constant -0.0 : !ts.float
// CHECK-NEXT:    %n = prim.Constant : !ts.none
// CHECK-NEXT:    %o = prim.Constant : !ts.optional<!ts.int>
// CHECK-NEXT:    func.return
func.func @distinct() -> (!ts.int, !ts.float, !ts.bool, !ts.float, !ts.float, !ts.none, !ts.optional<!ts.int>) {
  %i = prim.Constant 1 : !ts.int
  %f = prim.Constant 1.0 : !ts.float
  %b = prim.Constant true : !ts.bool
  %zero = prim.Constant 0.0 : !ts.float
  %minus_zero = prim.Constant -0.0 : !ts.float
  %n = prim.Constant : !ts.none
  %o = prim.Constant : !ts.optional<!ts.int>
  func.return %i, %f, %b, %zero, %minus_zero, %n, %o : !ts.int, !ts.float, !ts.bool, !ts.float, !ts.float, !ts.none, !ts.optional<!ts.int>
}

// -----

// Equal tensor and list constants merge only when nothing writes either.
// CHECK-LABEL: func.func @mutable_constants
// CHECK-NEXT:    %t1 = prim.Constant dense<[1.0, 2.0]> : tensor<2xf32> : !ts.tensor
// CHECK-NEXT:    %t2 = prim.Constant dense<[1.0, 2.0]> : tensor<2xf32> : !ts.tensor
// CHECK-NEXT:    %l1 = prim.Constant [1, 2] : !ts.list<!ts.int>
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %w = aten.add_ %t2, %x, %one
// CHECK-NEXT:    %s = aten.add %t1, %w, %one
// CHECK-NEXT:    %a = aten.sum %l1
// CHECK-NEXT:    %b = aten.sum %l1
func.func @mutable_constants(%x : !ts.tensor) -> (!ts.tensor, !ts.int, !ts.int) {
  %t1 = prim.Constant dense<[1.0, 2.0]> : tensor<2xf32> : !ts.tensor
  %t2 = prim.Constant dense<[1.0, 2.0]> : tensor<2xf32> : !ts.tensor
  %l1 = prim.Constant [1, 2] : !ts.list<!ts.int>
  %l2 = prim.Constant [1, 2] : !ts.list<!ts.int>
  %one = prim.Constant 1 : !ts.int
  %w = aten.add_ %t2, %x, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %s = aten.add %t1, %w, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %a = aten.sum %l1 : (!ts.list<!ts.int>) -> !ts.int
  %b = aten.sum %l2 : (!ts.list<!ts.int>) -> !ts.int
  func.return %s, %a, %b : !ts.tensor, !ts.int, !ts.int
}

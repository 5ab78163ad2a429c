// RUN: ts-opt %s --split-input-file -p constant-propagation | filecheck %s

// Scalar ops on constants run at compile time; results are constants of the result
// type, at the op's place. The inputs are left to dead-code elimination.
// CHECK-LABEL: func.func @scalars
// CHECK-NEXT:    %a = prim.Constant 7 : !ts.int
// CHECK-NEXT:    %b = prim.Constant 3 : !ts.int
// CHECK-NEXT:    %sum = prim.Constant 10 : !ts.int
// CHECK-NEXT:    %quotient = prim.Constant 2.3333333333333335 : !ts.float
// CHECK-NEXT:    %less = prim.Constant false : !ts.bool
// CHECK-NEXT:    %t = prim.Constant [10, false] : !ts.tuple<!ts.int, !ts.bool>
// CHECK-NEXT:    func.return %t : !ts.tuple<!ts.int, !ts.bool>
func.func @scalars() -> !ts.tuple<!ts.int, !ts.bool> {
  %a = prim.Constant 7 : !ts.int
  %b = prim.Constant 3 : !ts.int
  %sum = aten.add %a, %b : (!ts.int, !ts.int) -> !ts.int
  %quotient = aten.div %a, %b : (!ts.int, !ts.int) -> !ts.float
  %less = aten.lt %a, %b : (!ts.int, !ts.int) -> !ts.bool
  %t = prim.TupleConstruct %sum, %less : (!ts.int, !ts.bool) -> !ts.tuple<!ts.int, !ts.bool>
  func.return %t : !ts.tuple<!ts.int, !ts.bool>
}

// -----

// A factory on constants becomes a tensor constant (small tensors only); a list
// literal nothing writes folds too, but not one that leaves the graph.
// CHECK-LABEL: func.func @tensors
// CHECK:         %sizes = prim.Constant [2, 3] : !ts.list<!ts.int>
// CHECK-NEXT:    %z = prim.Constant dense<0.0> : tensor<2x3xf32> : !ts.tensor
// CHECK-NEXT:    %big_sizes = prim.Constant [100, 100] : !ts.list<!ts.int>
// CHECK-NEXT:    %big = aten.zeros %big_sizes
// CHECK-NEXT:    %returned = prim.ListConstruct %two, %three
// CHECK-NEXT:    func.return %z, %big, %returned
func.func @tensors() -> (!ts.tensor, !ts.tensor, !ts.list<!ts.int>) {
  %two = prim.Constant 2 : !ts.int
  %three = prim.Constant 3 : !ts.int
  %hundred = prim.Constant 100 : !ts.int
  %none = prim.Constant : !ts.none
  %sizes = prim.ListConstruct %two, %three : (!ts.int, !ts.int) -> !ts.list<!ts.int>
  %z = aten.zeros %sizes, %none, %none, %none, %none : (!ts.list<!ts.int>, !ts.none, !ts.none, !ts.none, !ts.none) -> !ts.tensor
  %big_sizes = prim.ListConstruct %hundred, %hundred : (!ts.int, !ts.int) -> !ts.list<!ts.int>
  %big = aten.zeros %big_sizes, %none, %none, %none, %none : (!ts.list<!ts.int>, !ts.none, !ts.none, !ts.none, !ts.none) -> !ts.tensor
  %returned = prim.ListConstruct %two, %three : (!ts.int, !ts.int) -> !ts.list<!ts.int>
  func.return %z, %big, %returned : !ts.tensor, !ts.tensor, !ts.list<!ts.int>
}

// -----

// Not folded: random ops and dropout in training, ops with side effects, ops on a
// tensor something writes (and the write itself), and ops whose kernel raises.
// CHECK-LABEL: func.func @not_folded
// CHECK:         %r = aten.rand
// CHECK:         %d = aten.dropout %c, %half, %true
// CHECK:         aten.warn
// CHECK:         %s = aten.sum %c, %none
// CHECK:         %w = aten.add_ %c, %c, %one
// CHECK:         %e = aten.floordiv %one, %zero : (!ts.int, !ts.int) -> !ts.int
// CHECK:         %l = prim.ListConstruct %one
// CHECK-NEXT:    %grown = aten.append %l, %one
// CHECK-NEXT:    %n = aten.len %l
func.func @not_folded() -> (!ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.int, !ts.int) {
  %one = prim.Constant 1 : !ts.int
  %zero = prim.Constant 0 : !ts.int
  %none = prim.Constant : !ts.none
  %true = prim.Constant true : !ts.bool
  %half = prim.Constant 0.5 : !ts.float
  %msg = prim.Constant "careful" : !ts.str
  %c = prim.Constant dense<[1.0, 2.0]> : tensor<2xf32> : !ts.tensor
  %sizes = prim.Constant [2] : !ts.list<!ts.int>
  %r = aten.rand %sizes, %none, %none, %none, %none : (!ts.list<!ts.int>, !ts.none, !ts.none, !ts.none, !ts.none) -> !ts.tensor
  %d = aten.dropout %c, %half, %true : (!ts.tensor, !ts.float, !ts.bool) -> !ts.tensor
  aten.warn %msg, %one : (!ts.str, !ts.int) -> ()
  %s = aten.sum %c, %none : (!ts.tensor, !ts.none) -> !ts.tensor
  %w = aten.add_ %c, %c, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %e = aten.floordiv %one, %zero : (!ts.int, !ts.int) -> !ts.int
  %l = prim.ListConstruct %one : (!ts.int) -> !ts.list<!ts.int>
  %grown = aten.append %l, %one : (!ts.list<!ts.int>, !ts.int) -> !ts.list<!ts.int>
  %n = aten.len %l : (!ts.list<!ts.int>) -> !ts.int
  func.return %r, %d, %s, %w, %e, %n : !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.int, !ts.int
}

// -----

// Dropout outside training is deterministic: it folds.
// CHECK-LABEL: func.func @dropout_eval
// CHECK:         %d = prim.Constant dense<[1.0, 2.0]> : tensor<2xf32> : !ts.tensor
// CHECK-NEXT:    func.return %d
func.func @dropout_eval() -> !ts.tensor {
  %false = prim.Constant false : !ts.bool
  %half = prim.Constant 0.5 : !ts.float
  %c = prim.Constant dense<[1.0, 2.0]> : tensor<2xf32> : !ts.tensor
  %d = aten.dropout %c, %half, %false : (!ts.tensor, !ts.float, !ts.bool) -> !ts.tensor
  func.return %d : !ts.tensor
}

// -----

// An If on a constant condition is the branch taken; propagation continues through
// what the branch computed.
// CHECK-LABEL: func.func @constant_if
// CHECK-NEXT:    %true = prim.Constant true : !ts.bool
// CHECK-NEXT:    %two = prim.Constant 2 : !ts.int
// CHECK-NEXT:    %y = aten.mul %x, %two : (!ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %four = prim.Constant 4 : !ts.int
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %k = prim.Constant 5 : !ts.int
// CHECK-NEXT:    func.return %y, %k : !ts.tensor, !ts.int
func.func @constant_if(%x : !ts.tensor) -> (!ts.tensor, !ts.int) {
  %true = prim.Constant true : !ts.bool
  %two = prim.Constant 2 : !ts.int
  %r, %n = prim.If %true -> (!ts.tensor, !ts.int) {
    %y = aten.mul %x, %two : (!ts.tensor, !ts.int) -> !ts.tensor
    %four = prim.Constant 4 : !ts.int
    prim.Yield %y, %four : !ts.tensor, !ts.int
  } else {
    prim.Yield %x, %two : !ts.tensor, !ts.int
  }
  %one = prim.Constant 1 : !ts.int
  %k = aten.add %n, %one : (!ts.int, !ts.int) -> !ts.int
  func.return %r, %k : !ts.tensor, !ts.int
}

// -----

// If outputs both branches yield alike leave the If: the same value, or equal
// constants (a new constant takes their place).
// CHECK-LABEL: func.func @uniform_if_outputs
// CHECK-NEXT:    %[[ZERO:.*]] = prim.Constant 0 : !ts.int
// CHECK-NEXT:    %a = prim.If %c -> (!ts.tensor) {
// CHECK-NEXT:      %n = aten.neg %x
// CHECK-NEXT:      %{{.*}} = prim.Constant 0 : !ts.int
// CHECK-NEXT:      prim.Yield %n : !ts.tensor
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %zero2 = prim.Constant 0 : !ts.int
// CHECK-NEXT:      prim.Yield %x : !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %a, %x, %[[ZERO]] : !ts.tensor, !ts.tensor, !ts.int
func.func @uniform_if_outputs(%c : !ts.bool, %x : !ts.tensor) -> (!ts.tensor, !ts.tensor, !ts.int) {
  %a, %b, %z = prim.If %c -> (!ts.tensor, !ts.tensor, !ts.int) {
    %n = aten.neg %x : (!ts.tensor) -> !ts.tensor
    %zero = prim.Constant 0 : !ts.int
    prim.Yield %n, %x, %zero : !ts.tensor, !ts.tensor, !ts.int
  } else {
    %zero2 = prim.Constant 0 : !ts.int
    prim.Yield %x, %x, %zero2 : !ts.tensor, !ts.tensor, !ts.int
  }
  func.return %a, %b, %z : !ts.tensor, !ts.tensor, !ts.int
}

// -----

// A loop that never starts (a trip count of zero, or a false initial condition) is
// its initial values; a carried value the body passes through unchanged is its
// initial value.
// CHECK-LABEL: func.func @loops
// CHECK-NEXT:    %true = prim.Constant true : !ts.bool
// CHECK-NEXT:    %false = prim.Constant false : !ts.bool
// CHECK-NEXT:    %zero = prim.Constant 0 : !ts.int
// CHECK-NEXT:    %r = prim.Loop %n, %true iter(%i) carried(%a = %x : !ts.tensor) -> (!ts.tensor) {
// CHECK-NEXT:      %m = aten.mul %a, %k : (!ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %true, %m : !ts.bool, !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %x, %x, %r, %k : !ts.tensor, !ts.tensor, !ts.tensor, !ts.int
func.func @loops(%x : !ts.tensor, %n : !ts.int, %k : !ts.int) -> (!ts.tensor, !ts.tensor, !ts.tensor, !ts.int) {
  %true = prim.Constant true : !ts.bool
  %false = prim.Constant false : !ts.bool
  %zero = prim.Constant 0 : !ts.int
  %never = prim.Loop %zero, %true iter(%i0) carried(%a0 = %x : !ts.tensor) -> (!ts.tensor) {
    %m0 = aten.mul %a0, %a0 : (!ts.tensor, !ts.tensor) -> !ts.tensor
    prim.Yield %true, %m0 : !ts.bool, !ts.tensor
  }
  %not_started = prim.Loop %n, %false iter(%i1) carried(%a1 = %x : !ts.tensor) -> (!ts.tensor) {
    %m1 = aten.mul %a1, %a1 : (!ts.tensor, !ts.tensor) -> !ts.tensor
    prim.Yield %true, %m1 : !ts.bool, !ts.tensor
  }
  %r, %same = prim.Loop %n, %true iter(%i) carried(%a = %x : !ts.tensor, %b = %k : !ts.int) -> (!ts.tensor, !ts.int) {
    %m = aten.mul %a, %b : (!ts.tensor, !ts.int) -> !ts.tensor
    prim.Yield %true, %m, %b : !ts.bool, !ts.tensor, !ts.int
  }
  func.return %never, %not_started, %r, %same : !ts.tensor, !ts.tensor, !ts.tensor, !ts.int
}

// -----

// `is` and `is not` against None fold when both sides are constants.
// CHECK-LABEL: func.func @is_none
// CHECK:         %is = prim.Constant true : !ts.bool
// CHECK-NEXT:    %isnot = prim.Constant true : !ts.bool
// CHECK-NEXT:    %same = aten.__is__ %one, %one
func.func @is_none() -> (!ts.bool, !ts.bool, !ts.bool) {
  %none = prim.Constant : !ts.none
  %one = prim.Constant 1 : !ts.int
  %is = aten.__is__ %none, %none : (!ts.none, !ts.none) -> !ts.bool
  %isnot = aten.__isnot__ %one, %none : (!ts.int, !ts.none) -> !ts.bool
  %same = aten.__is__ %one, %one : (!ts.int, !ts.int) -> !ts.bool
  func.return %is, %isnot, %same : !ts.bool, !ts.bool, !ts.bool
}

// -----

// The branch taken moves before the If whole (an If inside it too); a value of a
// narrower type than the If output is cast back where a return needs the exact type
// (then the cast of a constant folds); a branch that only yields leaves its values.
// CHECK-LABEL: func.func @inlined_branches
// CHECK-NEXT:    %false = prim.Constant false : !ts.bool
// CHECK-NEXT:    %two = prim.Constant 2 : !ts.int
// CHECK-NEXT:    %three = prim.Constant 3 : !ts.int
// CHECK-NEXT:    %inner = prim.If %c -> (!ts.tensor) {
// CHECK-NEXT:      %r = aten.relu %x : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %r : !ts.tensor
// CHECK-NEXT:    } else {
// CHECK-NEXT:      prim.Yield %x : !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    %o = prim.Constant 3 : !ts.optional<!ts.int>
// CHECK-NEXT:    %k = prim.Constant 4 : !ts.int
// CHECK-NEXT:    func.return %o, %inner, %k : !ts.optional<!ts.int>, !ts.tensor, !ts.int
func.func @inlined_branches(%x : !ts.tensor, %c : !ts.bool) -> (!ts.optional<!ts.int>, !ts.tensor, !ts.int) {
  %false = prim.Constant false : !ts.bool
  %two = prim.Constant 2 : !ts.int
  %o, %t = prim.If %false -> (!ts.optional<!ts.int>, !ts.tensor) {
    %n = aten.neg %x : (!ts.tensor) -> !ts.tensor
    prim.Yield %two, %n : !ts.int, !ts.tensor
  } else {
    %three = prim.Constant 3 : !ts.int
    %inner = prim.If %c -> (!ts.tensor) {
      %r = aten.relu %x : (!ts.tensor) -> !ts.tensor
      prim.Yield %r : !ts.tensor
    } else {
      prim.Yield %x : !ts.tensor
    }
    prim.Yield %three, %inner : !ts.int, !ts.tensor
  }
  %e = prim.If %false -> (!ts.int) {
    prim.Yield %two : !ts.int
  } else {
    prim.Yield %two : !ts.int
  }
  %k = aten.add %e, %two : (!ts.int, !ts.int) -> !ts.int
  func.return %o, %t, %k : !ts.optional<!ts.int>, !ts.tensor, !ts.int
}

// -----

// Several invariant carried values leave one Loop: the body's arguments after each
// move down, and its uses inside and after the loop take the initial values.
// CHECK-LABEL: func.func @invariants
// CHECK-NEXT:    %true = prim.Constant true : !ts.bool
// CHECK-NEXT:    %r, %c = prim.Loop %n, %true iter(%i) carried(%a = %x : !ts.tensor, %c0 = %k : !ts.int) -> (!ts.tensor, !ts.int) {
// CHECK-NEXT:      %m = aten.mul %a, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:      %v = aten.add %k, %c0 : (!ts.int, !ts.int) -> !ts.int
// CHECK-NEXT:      prim.Yield %true, %m, %v : !ts.bool, !ts.tensor, !ts.int
// CHECK-NEXT:    }
// CHECK-NEXT:    %w = aten.add %k, %c : (!ts.int, !ts.int) -> !ts.int
// CHECK-NEXT:    func.return %r, %k, %x, %w : !ts.tensor, !ts.int, !ts.tensor, !ts.int
func.func @invariants(%x : !ts.tensor, %n : !ts.int, %k : !ts.int) -> (!ts.tensor, !ts.int, !ts.tensor, !ts.int) {
  %true = prim.Constant true : !ts.bool
  %b, %r, %same, %c = prim.Loop %n, %true iter(%i) carried(%b0 = %k : !ts.int, %a = %x : !ts.tensor, %s = %x : !ts.tensor, %c0 = %k : !ts.int) -> (!ts.int, !ts.tensor, !ts.tensor, !ts.int) {
    %m = aten.mul %a, %s : (!ts.tensor, !ts.tensor) -> !ts.tensor
    %v = aten.add %b0, %c0 : (!ts.int, !ts.int) -> !ts.int
    prim.Yield %true, %b0, %m, %s, %v : !ts.bool, !ts.int, !ts.tensor, !ts.tensor, !ts.int
  }
  %w = aten.add %b, %c : (!ts.int, !ts.int) -> !ts.int
  func.return %r, %b, %same, %w : !ts.tensor, !ts.int, !ts.tensor, !ts.int
}

// -----

// FoldConstantOp is offered only ops whose operands all come from constants: an op
// whose operand becomes a constant through another rewrite (an If folded, a carried
// value that is its initial constant) is offered again then, and folds.
// CHECK-LABEL: func.func @operands_made_constant
// CHECK-NEXT:    %true = prim.Constant true : !ts.bool
// CHECK-NEXT:    %two = prim.Constant 2 : !ts.int
// CHECK-NEXT:    %four = prim.Constant 4 : !ts.int
// CHECK-NEXT:    %mixed = aten.add %four, %x : (!ts.int, !ts.int) -> !ts.int
// CHECK-NEXT:    %sum = prim.Loop %n, %true iter(%i) carried(%s = %x : !ts.int) -> (!ts.int) {
// CHECK-NEXT:      %six = prim.Constant 6 : !ts.int
// CHECK-NEXT:      %stepped = aten.add %s, %six : (!ts.int, !ts.int) -> !ts.int
// CHECK-NEXT:      prim.Yield %true, %stepped : !ts.bool, !ts.int
// CHECK-NEXT:    }
// CHECK-NEXT:    %t = prim.TupleConstruct %four, %mixed, %two, %sum : (!ts.int, !ts.int, !ts.int, !ts.int) -> !ts.tuple<!ts.int, !ts.int, !ts.int, !ts.int>
// CHECK-NEXT:    func.return %t : !ts.tuple<!ts.int, !ts.int, !ts.int, !ts.int>
func.func @operands_made_constant(%x : !ts.int, %n : !ts.int) -> !ts.tuple<!ts.int, !ts.int, !ts.int, !ts.int> {
  %true = prim.Constant true : !ts.bool
  %two = prim.Constant 2 : !ts.int
  %picked = prim.If %true -> (!ts.int) {
    prim.Yield %two : !ts.int
  } else {
    prim.Yield %x : !ts.int
  }
  %four = aten.mul %picked, %two : (!ts.int, !ts.int) -> !ts.int
  %mixed = aten.add %four, %x : (!ts.int, !ts.int) -> !ts.int
  %kept, %sum = prim.Loop %n, %true iter(%i) carried(%carried = %two : !ts.int, %s = %x : !ts.int) -> (!ts.int, !ts.int) {
    %six = aten.add %carried, %four : (!ts.int, !ts.int) -> !ts.int
    %stepped = aten.add %s, %six : (!ts.int, !ts.int) -> !ts.int
    prim.Yield %true, %carried, %stepped : !ts.bool, !ts.int, !ts.int
  }
  %t = prim.TupleConstruct %four, %mixed, %kept, %sum : (!ts.int, !ts.int, !ts.int, !ts.int) -> !ts.tuple<!ts.int, !ts.int, !ts.int, !ts.int>
  func.return %t : !ts.tuple<!ts.int, !ts.int, !ts.int, !ts.int>
}

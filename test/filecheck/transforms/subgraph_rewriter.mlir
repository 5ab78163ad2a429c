// RUN: ts-opt %s --split-input-file -p 'rewrite-subgraphs{rules="%S/../../../docs/examples/mul_add.rules"}' | filecheck %s
// RUN: ts-opt %s --split-input-file -p 'rewrite-subgraphs{rules="%S/Inputs/two_outputs.rules"}' | filecheck %s --check-prefix=TWO
// RUN: not ts-opt %s -p 'rewrite-subgraphs{rules="%S/Inputs/unpaired.rules"}' 2>&1 | filecheck %s --check-prefix=UNPAIRED
// RUN: not ts-opt %s -p 'rewrite-subgraphs{rules="%S/Inputs/malformed.rules"}' 2>&1 | filecheck %s --check-prefix=MALFORMED
// RUN: not ts-opt %s -p 'rewrite-subgraphs{rules="%S/Inputs/missing.rules"}' 2>&1 | filecheck %s --check-prefix=MISSING

// The rules of docs/examples/mul_add.rules: `a * b + c` becomes one addcmul, keeping
// the replaced value's name; `relu(x) * 1.0` becomes `relu(x)`.
// CHECK-LABEL: func.func @matches
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %r = aten.addcmul %z, %x, %y, %one : (!ts.tensor, !ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %w = aten.relu %r : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    func.return %r, %w : !ts.tensor, !ts.tensor
func.func @matches(%x : !ts.tensor, %y : !ts.tensor, %z : !ts.tensor) -> (!ts.tensor, !ts.tensor) {
  %one = prim.Constant 1 : !ts.int
  %m = aten.mul %x, %y : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %r = aten.add %m, %z, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %fone = prim.Constant 1.0 : !ts.float
  %q = aten.relu %r : (!ts.tensor) -> !ts.tensor
  %w = aten.mul %q, %fone : (!ts.tensor, !ts.float) -> !ts.tensor
  func.return %r, %w : !ts.tensor, !ts.tensor
}

// -----

// Two pattern inputs may match one value.
// CHECK-LABEL: func.func @same_value_twice
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %r = aten.addcmul %z, %x, %x, %one
// CHECK-NEXT:    func.return %r
func.func @same_value_twice(%x : !ts.tensor, %z : !ts.tensor) -> !ts.tensor {
  %one = prim.Constant 1 : !ts.int
  %m = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %r = aten.add %m, %z, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  func.return %r : !ts.tensor
}

// -----

// A pattern with two outputs replaces both values.
// TWO-LABEL: func.func @two_outputs
// TWO-NEXT:    %[[X:.*]] = aten.exp %a : (!ts.tensor) -> !ts.tensor
// TWO-NEXT:    %e = aten.reciprocal %[[X]] : (!ts.tensor) -> !ts.tensor
// TWO-NEXT:    %n = aten.neg %a : (!ts.tensor) -> !ts.tensor
// TWO-NEXT:    %s = aten.mul %e, %n : (!ts.tensor, !ts.tensor) -> !ts.tensor
// TWO-NEXT:    func.return %s : !ts.tensor
func.func @two_outputs(%a : !ts.tensor) -> !ts.tensor {
  %n = aten.neg %a : (!ts.tensor) -> !ts.tensor
  %e = aten.exp %n : (!ts.tensor) -> !ts.tensor
  %s = aten.mul %e, %n : (!ts.tensor, !ts.tensor) -> !ts.tensor
  func.return %s : !ts.tensor
}

// -----

// No match: the product is used elsewhere too, alpha is not the pattern's constant,
// the pattern's inputs are tensors (ints do not match), and a write to an input
// between the product and the sum (the addcmul would read it too late).
// CHECK-LABEL: func.func @no_matches
// CHECK-NOT:     aten.addcmul
// CHECK:         func.return
func.func @no_matches(%x : !ts.tensor, %y : !ts.tensor, %z : !ts.tensor, %i : !ts.int) -> (!ts.tensor, !ts.tensor, !ts.tensor, !ts.int, !ts.tensor) {
  %one = prim.Constant 1 : !ts.int
  %two = prim.Constant 2 : !ts.int
  %m = aten.mul %x, %y : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %shared = aten.add %m, %z, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %m2 = aten.mul %y, %z : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %alpha = aten.add %m2, %x, %two : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %k = aten.mul %i, %i : (!ts.int, !ts.int) -> !ts.int
  %ints = aten.add %k, %i : (!ts.int, !ts.int) -> !ts.int
  %m3 = aten.mul %x, %z : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %written = aten.add_ %x, %y, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %late = aten.add %m3, %y, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  func.return %shared, %m, %alpha, %ints, %late : !ts.tensor, !ts.tensor, !ts.tensor, !ts.int, !ts.tensor
}

// UNPAIRED: unpaired.rules:1: error: a 'pattern:' section must be followed by a 'replacement:' section
// MALFORMED: malformed.rules:4:{{[0-9]+}}: error:
// MISSING: error: rules file '{{.*}}missing.rules' does not exist

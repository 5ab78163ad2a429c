// RUN: ts-opt --disable-verify %s -p dead-code-elimination | filecheck %s

// An operator no overload accepts (here `relu` of a str, which the verifier would
// reject) has unknown effects: the alias analysis says it may write anything, so it is
// not quiet and stays, unused, as in a graph that writes; the quiet read before it and
// the one that only uses it go.

// CHECK-LABEL: func.func @unresolved_operator_stays
// CHECK-NEXT:    %r = aten.relu %s : (!ts.str) -> !ts.tensor
// CHECK-NEXT:    func.return %x : !ts.tensor
// CHECK-NEXT:  }
func.func @unresolved_operator_stays(%x : !ts.tensor, %s : !ts.str) -> !ts.tensor {
  %y = aten.neg %x : (!ts.tensor) -> !ts.tensor
  %r = aten.relu %s : (!ts.str) -> !ts.tensor
  %z = aten.neg %r : (!ts.tensor) -> !ts.tensor
  func.return %x : !ts.tensor
}

// The same when an unused If output needs the marking: the op, unused but for a dead
// read, stays, and so does the If holding it (its unused output goes).

// CHECK-LABEL: func.func @unresolved_operator_stays_marked
// CHECK-NEXT:    prim.If %c {
// CHECK-NEXT:      %r = aten.relu %s : (!ts.str) -> !ts.tensor
// CHECK-NEXT:      prim.Yield
// CHECK-NEXT:    } else {
// CHECK-NEXT:      prim.Yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %x : !ts.tensor
// CHECK-NEXT:  }
func.func @unresolved_operator_stays_marked(%x : !ts.tensor, %s : !ts.str, %c : !ts.bool) -> !ts.tensor {
  %o = prim.If %c -> (!ts.tensor) {
    %r = aten.relu %s : (!ts.str) -> !ts.tensor
    %z = aten.neg %r : (!ts.tensor) -> !ts.tensor
    prim.Yield %x : !ts.tensor
  } else {
    prim.Yield %x : !ts.tensor
  }
  func.return %x : !ts.tensor
}

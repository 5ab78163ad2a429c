// RUN: ts-opt %s -p lower-tuples | filecheck %s

// Unpacking, indexing and slicing a tuple built in the graph forward its elements;
// the constructs left without users are erased.
// CHECK-LABEL: func.func @forward_elements
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %s = prim.TupleConstruct %b, %c : (!ts.int, !ts.tensor) -> !ts.tuple<!ts.int, !ts.tensor>
// CHECK-NEXT:    func.return %a, %b, %s : !ts.tensor, !ts.int, !ts.tuple<!ts.int, !ts.tensor>
func.func @forward_elements(%a : !ts.tensor, %b : !ts.int, %c : !ts.tensor) -> (!ts.tensor, !ts.int, !ts.tuple<!ts.int, !ts.tensor>) {
  %one = prim.Constant 1 : !ts.int
  %t = prim.TupleConstruct %a, %b, %c : (!ts.tensor, !ts.int, !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.int, !ts.tensor>
  %p, %q, %r = prim.TupleUnpack %t : !ts.tuple<!ts.tensor, !ts.int, !ts.tensor> -> !ts.tensor, !ts.int, !ts.tensor
  %i = prim.TupleIndex %t[%one] : !ts.tuple<!ts.tensor, !ts.int, !ts.tensor> -> !ts.int
  %s = prim.TupleSlice[begin = 1, end = 3] %t : !ts.tuple<!ts.tensor, !ts.int, !ts.tensor> -> !ts.tuple<!ts.int, !ts.tensor>
  func.return %p, %i, %s : !ts.tensor, !ts.int, !ts.tuple<!ts.int, !ts.tensor>
}

// Nested tuples unpack level by level; a negative constant index counts from the end.
// CHECK-LABEL: func.func @nested
// CHECK-NEXT:    %last = prim.Constant -1 : !ts.int
// CHECK-NEXT:    func.return %b : !ts.int
func.func @nested(%a : !ts.tensor, %b : !ts.int) -> !ts.int {
  %last = prim.Constant -1 : !ts.int
  %inner = prim.TupleConstruct %a, %b : (!ts.tensor, !ts.int) -> !ts.tuple<!ts.tensor, !ts.int>
  %outer = prim.TupleConstruct %a, %inner : (!ts.tensor, !ts.tuple<!ts.tensor, !ts.int>) -> !ts.tuple<!ts.tensor, !ts.tuple<!ts.tensor, !ts.int>>
  %x, %y = prim.TupleUnpack %outer : !ts.tuple<!ts.tensor, !ts.tuple<!ts.tensor, !ts.int>> -> !ts.tensor, !ts.tuple<!ts.tensor, !ts.int>
  %z = prim.TupleIndex %y[%last] : !ts.tuple<!ts.tensor, !ts.int> -> !ts.int
  func.return %z : !ts.int
}

// Tuples of unknown origin and a dynamic index stay.
// CHECK-LABEL: func.func @stays
// CHECK-NEXT:    %p, %q = prim.TupleUnpack %t
// CHECK-NEXT:    %c = prim.TupleConstruct %p, %q
// CHECK-NEXT:    %d = prim.TupleIndex %c[%i]
// CHECK-NEXT:    func.return
func.func @stays(%t : !ts.tuple<!ts.int, !ts.int>, %i : !ts.int) -> (!ts.int, !ts.int) {
  %p, %q = prim.TupleUnpack %t : !ts.tuple<!ts.int, !ts.int> -> !ts.int, !ts.int
  %c = prim.TupleConstruct %p, %q : (!ts.int, !ts.int) -> !ts.tuple<!ts.int, !ts.int>
  %d = prim.TupleIndex %c[%i] : !ts.tuple<!ts.int, !ts.int> -> !ts.int
  func.return %p, %d : !ts.int, !ts.int
}

// A tuple output of an If flattens into one output per element when both branches
// build it; the unpack after the If then folds.
// CHECK-LABEL: func.func @if_output
// CHECK-NEXT:    %k, %r.0, %r.1 = prim.If %c -> (!ts.int, !ts.tensor, !ts.tensor) {
// CHECK-NEXT:      prim.Yield %n, %x, %y : !ts.int, !ts.tensor, !ts.tensor
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %neg = aten.neg %x : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %n, %y, %neg : !ts.int, !ts.tensor, !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    %sum = aten.add %r.0, %r.1, %n : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    func.return %k, %sum : !ts.int, !ts.tensor
func.func @if_output(%c : !ts.bool, %n : !ts.int, %x : !ts.tensor, %y : !ts.tensor) -> (!ts.int, !ts.tensor) {
  %k, %r = prim.If %c -> (!ts.int, !ts.tuple<!ts.tensor, !ts.tensor>) {
    %t = prim.TupleConstruct %x, %y : (!ts.tensor, !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.tensor>
    prim.Yield %n, %t : !ts.int, !ts.tuple<!ts.tensor, !ts.tensor>
  } else {
    %neg = aten.neg %x : (!ts.tensor) -> !ts.tensor
    %u = prim.TupleConstruct %y, %neg : (!ts.tensor, !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.tensor>
    prim.Yield %n, %u : !ts.int, !ts.tuple<!ts.tensor, !ts.tensor>
  }
  %a, %b = prim.TupleUnpack %r : !ts.tuple<!ts.tensor, !ts.tensor> -> !ts.tensor, !ts.tensor
  %sum = aten.add %a, %b, %n : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  func.return %k, %sum : !ts.int, !ts.tensor
}

// A branch yielding a tuple it did not build keeps the output a tuple.
// CHECK-LABEL: func.func @if_output_stays
// CHECK-NEXT:    %r = prim.If %c -> (!ts.tuple<!ts.int, !ts.int>) {
func.func @if_output_stays(%c : !ts.bool, %t : !ts.tuple<!ts.int, !ts.int>, %n : !ts.int) -> !ts.tuple<!ts.int, !ts.int> {
  %r = prim.If %c -> (!ts.tuple<!ts.int, !ts.int>) {
    prim.Yield %t : !ts.tuple<!ts.int, !ts.int>
  } else {
    %u = prim.TupleConstruct %n, %n : (!ts.int, !ts.int) -> !ts.tuple<!ts.int, !ts.int>
    prim.Yield %u : !ts.tuple<!ts.int, !ts.int>
  }
  func.return %r : !ts.tuple<!ts.int, !ts.int>
}

// A tuple carried by a loop becomes one carried value per element; the tuple returned
// from the graph is rebuilt after the loop.
// CHECK-LABEL: func.func @loop_carried
// CHECK-NEXT:    %true = prim.Constant true : !ts.bool
// CHECK-NEXT:    %r.0, %r.1 = prim.Loop %n, %true iter(%i) carried(%acc.0 = %x : !ts.tensor, %acc.1 = %n : !ts.int) -> (!ts.tensor, !ts.int) {
// CHECK-NEXT:      %x2 = aten.mul %acc.0, %acc.0 : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:      %k2 = aten.add %acc.1, %i : (!ts.int, !ts.int) -> !ts.int
// CHECK-NEXT:      prim.Yield %true, %x2, %k2 : !ts.bool, !ts.tensor, !ts.int
// CHECK-NEXT:    }
// CHECK-NEXT:    %r = prim.TupleConstruct %r.0, %r.1 : (!ts.tensor, !ts.int) -> !ts.tuple<!ts.tensor, !ts.int>
// CHECK-NEXT:    func.return %r : !ts.tuple<!ts.tensor, !ts.int>
func.func @loop_carried(%x : !ts.tensor, %n : !ts.int) -> !ts.tuple<!ts.tensor, !ts.int> {
  %true = prim.Constant true : !ts.bool
  %init = prim.TupleConstruct %x, %n : (!ts.tensor, !ts.int) -> !ts.tuple<!ts.tensor, !ts.int>
  %r = prim.Loop %n, %true iter(%i) carried(%acc = %init : !ts.tuple<!ts.tensor, !ts.int>) -> (!ts.tuple<!ts.tensor, !ts.int>) {
    %xa, %ka = prim.TupleUnpack %acc : !ts.tuple<!ts.tensor, !ts.int> -> !ts.tensor, !ts.int
    %x2 = aten.mul %xa, %xa : (!ts.tensor, !ts.tensor) -> !ts.tensor
    %k2 = aten.add %ka, %i : (!ts.int, !ts.int) -> !ts.int
    %next = prim.TupleConstruct %x2, %k2 : (!ts.tensor, !ts.int) -> !ts.tuple<!ts.tensor, !ts.int>
    prim.Yield %true, %next : !ts.bool, !ts.tuple<!ts.tensor, !ts.int>
  }
  func.return %r : !ts.tuple<!ts.tensor, !ts.int>
}

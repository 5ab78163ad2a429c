// RUN: ts-opt %s -p common-subexpression-elimination | filecheck %s

// Equal ops merge; a write to the memory an op reads (here through a view of %x)
// separates it from the earlier computation, a write elsewhere does not.

// CHECK-LABEL: func.func @aliasing_write
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %none = prim.Constant : !ts.none
// CHECK-NEXT:    %a = aten.mul %x, %y : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %t = aten.clone %y, %none : (!ts.tensor, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %t2 = aten.add_ %t, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %v = aten.select %x, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %v2 = aten.add_ %v, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %c = aten.mul %x, %y : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %s = aten.sub %a, %a, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %s2 = aten.sub %c, %c, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %r = prim.TupleConstruct %s, %s2, %t : (!ts.tensor, !ts.tensor, !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.tensor, !ts.tensor>
// CHECK-NEXT:    func.return %r : !ts.tuple<!ts.tensor, !ts.tensor, !ts.tensor>
func.func @aliasing_write(%x : !ts.tensor, %y : !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.tensor, !ts.tensor> {
  %one = prim.Constant 1 : !ts.int
  %none = prim.Constant : !ts.none
  %a = aten.mul %x, %y : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %t = aten.clone %y, %none : (!ts.tensor, !ts.none) -> !ts.tensor
  %t2 = aten.add_ %t, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  %b = aten.mul %x, %y : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %v = aten.select %x, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  %v2 = aten.add_ %v, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  %c = aten.mul %x, %y : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %d = aten.mul %x, %y : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %s = aten.sub %a, %b, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %s2 = aten.sub %c, %d, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %r = prim.TupleConstruct %s, %s2, %t : (!ts.tensor, !ts.tensor, !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.tensor, !ts.tensor>
  func.return %r : !ts.tuple<!ts.tensor, !ts.tensor, !ts.tensor>
}

// Values of an enclosing block are reused inside If and Loop bodies; a value from the
// then-block is not visible in the else-block; inside a loop, a write later in the
// body separates a read from the value computed before the loop.

// CHECK-LABEL: func.func @nested_blocks
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %true = prim.Constant true : !ts.bool
// CHECK-NEXT:    %none = prim.Constant : !ts.none
// CHECK-NEXT:    %e = aten.exp %x : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %r = prim.If %c -> (!ts.tensor) {
// CHECK-NEXT:      %neg = aten.neg %x : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:      %sum1 = aten.add %e, %neg, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %sum1 : !ts.tensor
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %n2 = aten.neg %x : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %n2 : !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    %buf = aten.clone %x, %none : (!ts.tensor, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %sq = aten.mul %buf, %buf : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %out = prim.Loop %n, %true iter(%i) carried(%acc = %r : !ts.tensor) -> (!ts.tensor) {
// CHECK-NEXT:      %p = aten.mul %acc, %e : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:      %sq2 = aten.mul %buf, %buf : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:      %q = aten.add %p, %sq2, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:      %bump = aten.add_ %buf, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %true, %q : !ts.bool, !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    %t = prim.TupleConstruct %out, %sq : (!ts.tensor, !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.tensor>
// CHECK-NEXT:    func.return %t : !ts.tuple<!ts.tensor, !ts.tensor>
func.func @nested_blocks(%x : !ts.tensor, %c : !ts.bool, %n : !ts.int) -> !ts.tuple<!ts.tensor, !ts.tensor> {
  %one = prim.Constant 1 : !ts.int
  %true = prim.Constant true : !ts.bool
  %none = prim.Constant : !ts.none
  %e = aten.exp %x : (!ts.tensor) -> !ts.tensor
  %r = prim.If %c -> (!ts.tensor) {
    %e2 = aten.exp %x : (!ts.tensor) -> !ts.tensor
    %neg = aten.neg %x : (!ts.tensor) -> !ts.tensor
    %sum1 = aten.add %e2, %neg, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
    prim.Yield %sum1 : !ts.tensor
  } else {
    %n2 = aten.neg %x : (!ts.tensor) -> !ts.tensor
    prim.Yield %n2 : !ts.tensor
  }
  %buf = aten.clone %x, %none : (!ts.tensor, !ts.none) -> !ts.tensor
  %sq = aten.mul %buf, %buf : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %out = prim.Loop %n, %true iter(%i) carried(%acc = %r : !ts.tensor) -> (!ts.tensor) {
    %e3 = aten.exp %x : (!ts.tensor) -> !ts.tensor
    %p = aten.mul %acc, %e3 : (!ts.tensor, !ts.tensor) -> !ts.tensor
    %sq2 = aten.mul %buf, %buf : (!ts.tensor, !ts.tensor) -> !ts.tensor
    %q = aten.add %p, %sq2, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
    %bump = aten.add_ %buf, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
    prim.Yield %true, %q : !ts.bool, !ts.tensor
  }
  %t = prim.TupleConstruct %out, %sq : (!ts.tensor, !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.tensor>
  func.return %t : !ts.tuple<!ts.tensor, !ts.tensor>
}

// Never merged: new mutable objects (lists, tensor factories), random ops, and results
// that are written later. Constants merge by value: 1 and 1.0 differ, 0.0 and -0.0
// too. Dropout without training draws nothing and merges.

// CHECK-LABEL: func.func @not_merged
// CHECK-NEXT:    %i1 = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %f1 = prim.Constant 1.0 : !ts.float
// CHECK-NEXT:    %z = prim.Constant 0.0 : !ts.float
// CHECK-NEXT:    %nz = prim.Constant -0.0 : !ts.float
// CHECK-NEXT:    %false = prim.Constant false : !ts.bool
// CHECK-NEXT:    %true = prim.Constant true : !ts.bool
// CHECK-NEXT:    %none = prim.Constant : !ts.none
// CHECK-NEXT:    %l1 = prim.ListConstruct %i1 : (!ts.int) -> !ts.list<!ts.int>
// CHECK-NEXT:    %l2 = prim.ListConstruct %i1 : (!ts.int) -> !ts.list<!ts.int>
// CHECK-NEXT:    %ll = aten.add %l1, %l2 : (!ts.list<!ts.int>, !ts.list<!ts.int>) -> !ts.list<!ts.int>
// CHECK-NEXT:    %z1 = aten.zeros %ll, %none, %none, %none, %none : (!ts.list<!ts.int>, !ts.none, !ts.none, !ts.none, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %z2 = aten.zeros %ll, %none, %none, %none, %none : (!ts.list<!ts.int>, !ts.none, !ts.none, !ts.none, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %zz = aten.add %z1, %z2, %i1 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %r1 = aten.rand_like %x, %none, %none, %none, %none, %none : (!ts.tensor, !ts.none, !ts.none, !ts.none, !ts.none, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %r2 = aten.rand_like %x, %none, %none, %none, %none, %none : (!ts.tensor, !ts.none, !ts.none, !ts.none, !ts.none, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %rr = aten.add %r1, %r2, %i1 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %d1 = aten.dropout %x, %f1, %true : (!ts.tensor, !ts.float, !ts.bool) -> !ts.tensor
// CHECK-NEXT:    %d2 = aten.dropout %x, %f1, %true : (!ts.tensor, !ts.float, !ts.bool) -> !ts.tensor
// CHECK-NEXT:    %dd = aten.add %d1, %d2, %i1 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %e1 = aten.dropout %x, %f1, %false : (!ts.tensor, !ts.float, !ts.bool) -> !ts.tensor
// CHECK-NEXT:    %ee = aten.add %e1, %e1, %i1 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %m1 = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %m2 = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %w = aten.mul_ %m2, %i1 : (!ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %mm = aten.add %m1, %m2, %i1 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %t = prim.TupleConstruct %i1, %i1, %f1, %z, %nz, %zz, %rr, %dd, %ee, %mm : {{.*}}
func.func @not_merged(%x : !ts.tensor) -> !ts.tuple<!ts.int, !ts.int, !ts.float, !ts.float, !ts.float, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor> {
  %i1 = prim.Constant 1 : !ts.int
  %i1b = prim.Constant 1 : !ts.int
  %f1 = prim.Constant 1.0 : !ts.float
  %z = prim.Constant 0.0 : !ts.float
  %nz = prim.Constant -0.0 : !ts.float
  %false = prim.Constant false : !ts.bool
  %true = prim.Constant true : !ts.bool
  %none = prim.Constant : !ts.none
  %l1 = prim.ListConstruct %i1 : (!ts.int) -> !ts.list<!ts.int>
  %l2 = prim.ListConstruct %i1 : (!ts.int) -> !ts.list<!ts.int>
  %ll = aten.add %l1, %l2 : (!ts.list<!ts.int>, !ts.list<!ts.int>) -> !ts.list<!ts.int>
  %z1 = aten.zeros %ll, %none, %none, %none, %none : (!ts.list<!ts.int>, !ts.none, !ts.none, !ts.none, !ts.none) -> !ts.tensor
  %z2 = aten.zeros %ll, %none, %none, %none, %none : (!ts.list<!ts.int>, !ts.none, !ts.none, !ts.none, !ts.none) -> !ts.tensor
  %zz = aten.add %z1, %z2, %i1 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %r1 = aten.rand_like %x, %none, %none, %none, %none, %none : (!ts.tensor, !ts.none, !ts.none, !ts.none, !ts.none, !ts.none) -> !ts.tensor
  %r2 = aten.rand_like %x, %none, %none, %none, %none, %none : (!ts.tensor, !ts.none, !ts.none, !ts.none, !ts.none, !ts.none) -> !ts.tensor
  %rr = aten.add %r1, %r2, %i1 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %d1 = aten.dropout %x, %f1, %true : (!ts.tensor, !ts.float, !ts.bool) -> !ts.tensor
  %d2 = aten.dropout %x, %f1, %true : (!ts.tensor, !ts.float, !ts.bool) -> !ts.tensor
  %dd = aten.add %d1, %d2, %i1 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %e1 = aten.dropout %x, %f1, %false : (!ts.tensor, !ts.float, !ts.bool) -> !ts.tensor
  %e2 = aten.dropout %x, %f1, %false : (!ts.tensor, !ts.float, !ts.bool) -> !ts.tensor
  %ee = aten.add %e1, %e2, %i1 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %m1 = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %m2 = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %w = aten.mul_ %m2, %i1 : (!ts.tensor, !ts.int) -> !ts.tensor
  %mm = aten.add %m1, %m2, %i1 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %t = prim.TupleConstruct %i1, %i1b, %f1, %z, %nz, %zz, %rr, %dd, %ee, %mm : (!ts.int, !ts.int, !ts.float, !ts.float, !ts.float, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor) -> !ts.tuple<!ts.int, !ts.int, !ts.float, !ts.float, !ts.float, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor>
  func.return %t : !ts.tuple<!ts.int, !ts.int, !ts.float, !ts.float, !ts.float, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor>
}

// Two results that are both returned stay two tensors; one returned and one local
// merge.

// CHECK-LABEL: func.func @graph_outputs
// CHECK-NEXT:    %a = aten.relu %x : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %b = aten.relu %x : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %s = aten.sum %b, %none : (!ts.tensor, !ts.none) -> !ts.tensor
// CHECK-NEXT:    func.return %a, %b, %s : !ts.tensor, !ts.tensor, !ts.tensor
func.func @graph_outputs(%x : !ts.tensor, %none : !ts.none) -> (!ts.tensor, !ts.tensor, !ts.tensor) {
  %a = aten.relu %x : (!ts.tensor) -> !ts.tensor
  %b = aten.relu %x : (!ts.tensor) -> !ts.tensor
  %c = aten.relu %x : (!ts.tensor) -> !ts.tensor
  %s = aten.sum %c, %none : (!ts.tensor, !ts.none) -> !ts.tensor
  func.return %a, %b, %s : !ts.tensor, !ts.tensor, !ts.tensor
}

// Two lists nothing can tell apart (only `cat` and `stack` read them) merge.

// CHECK-LABEL: func.func @lists_only_read
// CHECK-NEXT:    %zero = prim.Constant 0 : !ts.int
// CHECK-NEXT:    %l1 = prim.ListConstruct %x, %y : (!ts.tensor, !ts.tensor) -> !ts.list<!ts.tensor>
// CHECK-NEXT:    %a = aten.cat %l1, %zero : (!ts.list<!ts.tensor>, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %b = aten.stack %l1, %zero : (!ts.list<!ts.tensor>, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %s = aten.sub %a, %b, %zero : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    func.return %s : !ts.tensor
func.func @lists_only_read(%x : !ts.tensor, %y : !ts.tensor) -> !ts.tensor {
  %zero = prim.Constant 0 : !ts.int
  %l1 = prim.ListConstruct %x, %y : (!ts.tensor, !ts.tensor) -> !ts.list<!ts.tensor>
  %a = aten.cat %l1, %zero : (!ts.list<!ts.tensor>, !ts.int) -> !ts.tensor
  %l2 = prim.ListConstruct %x, %y : (!ts.tensor, !ts.tensor) -> !ts.list<!ts.tensor>
  %b = aten.stack %l2, %zero : (!ts.list<!ts.tensor>, !ts.int) -> !ts.tensor
  %s = aten.sub %a, %b, %zero : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  func.return %s : !ts.tensor
}

// A graph's outputs are counted as they are after the merges before: once %b is
// replaced by %a, %a is returned, and %c, returned too, stays apart (PyTorch asks
// the graph's outputs at each merge).

// CHECK-LABEL: func.func @outputs_after_merge
// CHECK-NEXT:    %a = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %c = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %d = aten.relu %a : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    func.return %d, %a, %c : !ts.tensor, !ts.tensor, !ts.tensor
func.func @outputs_after_merge(%x : !ts.tensor) -> (!ts.tensor, !ts.tensor, !ts.tensor) {
  %a = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %b = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %c = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %d = aten.relu %a : (!ts.tensor) -> !ts.tensor
  func.return %d, %b, %c : !ts.tensor, !ts.tensor, !ts.tensor
}

// A result reaches an output through what uses it, not only by being returned: a
// view of it, a list holding it, a loop carrying it. Views of one input all alias
// it, so a view kept local still shares memory with a returned equal view.

// CHECK-LABEL: func.func @outputs_through_uses
// CHECK-NEXT:    %zero = prim.Constant 0 : !ts.int
// CHECK-NEXT:    %true = prim.Constant true : !ts.bool
// CHECK-NEXT:    %a = aten.relu %x : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %b = aten.relu %x : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %vb = aten.select %b, %zero, %zero : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %c = aten.relu %x : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %l = prim.ListConstruct %c : (!ts.tensor) -> !ts.list<!ts.tensor>
// CHECK-NEXT:    %d = aten.relu %x : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %o = prim.Loop %n, %true iter(%i) carried(%acc = %d : !ts.tensor) -> (!ts.tensor) {
// CHECK-NEXT:      prim.Yield %true, %acc : !ts.bool, !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    %v1 = aten.select %x, %zero, %zero : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %v2 = aten.select %x, %zero, %zero : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %s = aten.sum %v2, %none : (!ts.tensor, !ts.none) -> !ts.tensor
// CHECK-NEXT:    func.return %a, %vb, %l, %o, %v1, %s : !ts.tensor, !ts.tensor, !ts.list<!ts.tensor>, !ts.tensor, !ts.tensor, !ts.tensor
func.func @outputs_through_uses(%x : !ts.tensor, %n : !ts.int, %none : !ts.none) -> (!ts.tensor, !ts.tensor, !ts.list<!ts.tensor>, !ts.tensor, !ts.tensor, !ts.tensor) {
  %zero = prim.Constant 0 : !ts.int
  %true = prim.Constant true : !ts.bool
  %a = aten.relu %x : (!ts.tensor) -> !ts.tensor
  %b = aten.relu %x : (!ts.tensor) -> !ts.tensor
  %vb = aten.select %b, %zero, %zero : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  %c = aten.relu %x : (!ts.tensor) -> !ts.tensor
  %l = prim.ListConstruct %c : (!ts.tensor) -> !ts.list<!ts.tensor>
  %d = aten.relu %x : (!ts.tensor) -> !ts.tensor
  %o = prim.Loop %n, %true iter(%i) carried(%acc = %d : !ts.tensor) -> (!ts.tensor) {
    prim.Yield %true, %acc : !ts.bool, !ts.tensor
  }
  %v1 = aten.select %x, %zero, %zero : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  %v2 = aten.select %x, %zero, %zero : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  %s = aten.sum %v2, %none : (!ts.tensor, !ts.none) -> !ts.tensor
  func.return %a, %vb, %l, %o, %v1, %s : !ts.tensor, !ts.tensor, !ts.list<!ts.tensor>, !ts.tensor, !ts.tensor, !ts.tensor
}

// A result merges only when nothing ever writes it: a write that comes after the
// equal ops (here inside an If, and to a view) still counts.

// CHECK-LABEL: func.func @written_later
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %a = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %b = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %s = aten.add %a, %b, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %e = aten.exp %y : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %t = aten.add %e, %e, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %r = prim.If %c -> (!ts.tensor) {
// CHECK-NEXT:      %v = aten.select %a, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-NEXT:      %w = aten.add_ %v, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %s : !ts.tensor
// CHECK-NEXT:    } else {
// CHECK-NEXT:      prim.Yield %t : !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : !ts.tensor
func.func @written_later(%x : !ts.tensor, %y : !ts.tensor, %c : !ts.bool) -> !ts.tensor {
  %one = prim.Constant 1 : !ts.int
  %a = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %b = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %s = aten.add %a, %b, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %e = aten.exp %y : (!ts.tensor) -> !ts.tensor
  %e2 = aten.exp %y : (!ts.tensor) -> !ts.tensor
  %t = aten.add %e, %e2, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %r = prim.If %c -> (!ts.tensor) {
    %v = aten.select %a, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
    %w = aten.add_ %v, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
    prim.Yield %s : !ts.tensor
  } else {
    prim.Yield %t : !ts.tensor
  }
  func.return %r : !ts.tensor
}

// Merges follow chains: once %b is %a, %d uses what %c uses and is %c too, although
// %c is the only op that uses %a itself.

// CHECK-LABEL: func.func @chains
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %a = aten.relu %x : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %c = aten.neg %a : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %e = aten.exp %c : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %s = aten.add %e, %e, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    func.return %s : !ts.tensor
func.func @chains(%x : !ts.tensor) -> !ts.tensor {
  %one = prim.Constant 1 : !ts.int
  %a = aten.relu %x : (!ts.tensor) -> !ts.tensor
  %b = aten.relu %x : (!ts.tensor) -> !ts.tensor
  %c = aten.neg %a : (!ts.tensor) -> !ts.tensor
  %d = aten.neg %b : (!ts.tensor) -> !ts.tensor
  %e = aten.exp %c : (!ts.tensor) -> !ts.tensor
  %f = aten.exp %d : (!ts.tensor) -> !ts.tensor
  %s = aten.add %e, %f, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  func.return %s : !ts.tensor
}

// RUN: ts-opt %s -p dead-code-elimination | filecheck %s

// Unused reads go; so do writes to memory nobody observes afterwards.

// CHECK-LABEL: func.func @unused_ops
// CHECK-NEXT:    func.return %x : !ts.tensor
func.func @unused_ops(%x : !ts.tensor, %y : !ts.tensor) -> !ts.tensor {
  %one = prim.Constant 1 : !ts.int
  %none = prim.Constant : !ts.none
  %m = aten.mul %x, %y : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %t = aten.clone %x, %none : (!ts.tensor, !ts.none) -> !ts.tensor
  %t2 = aten.add_ %t, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  %l = prim.ListConstruct %x, %y : (!ts.tensor, !ts.tensor) -> !ts.list<!ts.tensor>
  %s = aten.size %x : (!ts.tensor) -> !ts.list<!ts.int>
  func.return %x : !ts.tensor
}

// `a.add_(b)` stays when `a` is a graph input, is returned, or is aliased by a live
// value; the write to %dead, after its last read, goes.

// CHECK-LABEL: func.func @escaping_writes
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %none = prim.Constant : !ts.none
// CHECK-NEXT:    %w = aten.add_ %a, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %r = aten.clone %a, %none : (!ts.tensor, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %r2 = aten.mul_ %r, %one : (!ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %base = aten.clone %a, %none : (!ts.tensor, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %view = aten.select %base, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %v2 = aten.neg_ %view : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %dead = aten.clone %a, %none : (!ts.tensor, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %read = aten.sum %dead, %none : (!ts.tensor, !ts.none) -> !ts.tensor
// CHECK-NEXT:    func.return %r, %base, %read : !ts.tensor, !ts.tensor, !ts.tensor
func.func @escaping_writes(%a : !ts.tensor) -> (!ts.tensor, !ts.tensor, !ts.tensor) {
  %one = prim.Constant 1 : !ts.int
  %none = prim.Constant : !ts.none
  %w = aten.add_ %a, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  %r = aten.clone %a, %none : (!ts.tensor, !ts.none) -> !ts.tensor
  %r2 = aten.mul_ %r, %one : (!ts.tensor, !ts.int) -> !ts.tensor
  %base = aten.clone %a, %none : (!ts.tensor, !ts.none) -> !ts.tensor
  %view = aten.select %base, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  %v2 = aten.neg_ %view : (!ts.tensor) -> !ts.tensor
  %dead = aten.clone %a, %none : (!ts.tensor, !ts.none) -> !ts.tensor
  %read = aten.sum %dead, %none : (!ts.tensor, !ts.none) -> !ts.tensor
  %late = aten.add_ %dead, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  func.return %r, %base, %read : !ts.tensor, !ts.tensor, !ts.tensor
}

// Side effects stay: printing, raising, calls, operators the schema table lacks, and
// region ops holding any of them.

// CHECK-LABEL: func.func @side_effects
// CHECK-NEXT:    prim.Print(%x) : !ts.tensor
// CHECK-NEXT:    %u = aten.my_custom_op %x : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %f = func.call @helper(%x) : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    prim.If %c {
// CHECK-NEXT:      %msg = prim.Constant "boom" : !ts.str
// CHECK-NEXT:      prim.RaiseException %msg
// CHECK-NEXT:      prim.Yield
// CHECK-NEXT:    } else {
// CHECK-NEXT:      prim.Yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @side_effects(%x : !ts.tensor, %c : !ts.bool) {
  prim.Print(%x) : !ts.tensor
  %u = aten.my_custom_op %x : (!ts.tensor) -> !ts.tensor
  %f = func.call @helper(%x) : (!ts.tensor) -> !ts.tensor
  prim.If %c {
    %msg = prim.Constant "boom" : !ts.str
    prim.RaiseException %msg
    prim.Yield
  } else {
    prim.Yield
  }
  func.return
}

func.func private @helper(!ts.tensor) -> !ts.tensor

// Dead If outputs go with what computed them; a pure If nobody uses goes whole.

// CHECK-LABEL: func.func @dead_if_outputs
// CHECK-NEXT:    %r = prim.If %c -> (!ts.tensor) {
// CHECK-NEXT:      prim.Yield %x : !ts.tensor
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %n = aten.neg %x : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %n : !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : !ts.tensor
func.func @dead_if_outputs(%x : !ts.tensor, %c : !ts.bool) -> !ts.tensor {
  %r, %unused = prim.If %c -> (!ts.tensor, !ts.tensor) {
    %e = aten.exp %x : (!ts.tensor) -> !ts.tensor
    prim.Yield %x, %e : !ts.tensor, !ts.tensor
  } else {
    %n = aten.neg %x : (!ts.tensor) -> !ts.tensor
    %s = aten.sin %x : (!ts.tensor) -> !ts.tensor
    prim.Yield %n, %s : !ts.tensor, !ts.tensor
  }
  %gone = prim.If %c -> (!ts.tensor) {
    prim.Yield %x : !ts.tensor
  } else {
    %m = aten.relu %x : (!ts.tensor) -> !ts.tensor
    prim.Yield %m : !ts.tensor
  }
  func.return %r : !ts.tensor
}

// A carried value whose result is unused and that only feeds itself dies; a for loop
// left with nothing live goes whole.

// CHECK-LABEL: func.func @dead_carried_values
// CHECK-NEXT:    %true = prim.Constant true : !ts.bool
// CHECK-NEXT:    %acc = prim.Loop %n, %true iter(%i) carried(%a = %x : !ts.tensor) -> (!ts.tensor) {
// CHECK-NEXT:      %a2 = aten.mul %a, %a : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %true, %a2 : !ts.bool, !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %acc : !ts.tensor
func.func @dead_carried_values(%x : !ts.tensor, %n : !ts.int) -> !ts.tensor {
  %true = prim.Constant true : !ts.bool
  %zero = prim.Constant 0 : !ts.int
  %acc, %count = prim.Loop %n, %true iter(%i) carried(%a = %x : !ts.tensor, %k = %zero : !ts.int) -> (!ts.tensor, !ts.int) {
    %a2 = aten.mul %a, %a : (!ts.tensor, !ts.tensor) -> !ts.tensor
    %k2 = aten.add %k, %i : (!ts.int, !ts.int) -> !ts.int
    prim.Yield %true, %a2, %k2 : !ts.bool, !ts.tensor, !ts.int
  }
  %unused = prim.Loop %n, %true iter(%j) carried(%b = %x : !ts.tensor) -> (!ts.tensor) {
    %b2 = aten.exp %b : (!ts.tensor) -> !ts.tensor
    prim.Yield %true, %b2 : !ts.bool, !ts.tensor
  }
  func.return %acc : !ts.tensor
}

// PyTorch's loop example: `b = a[0]; b[0] += 1` writes memory that the next
// iteration reads through `a`, so the write is live although nothing after it reads
// `b` in the same iteration. A while loop (condition computed in the body) stays even
// when its results are unused: it might not terminate.

// CHECK-LABEL: func.func @write_read_by_next_iteration
// CHECK:         %tot = prim.Loop
// CHECK:           %s = aten.sum %a, %none
// CHECK:           %b = aten.select %a, %zero, %zero
// CHECK-NEXT:      %b2 = aten.add_ %b, %one, %one
// CHECK:         %spin = prim.Loop %n, %true iter(%j) carried(%c = %x : !ts.tensor) -> (!ts.tensor) {
// CHECK-NEXT:      %more = aten.is_nonzero %c : (!ts.tensor) -> !ts.bool
// CHECK-NEXT:      prim.Yield %more, %c : !ts.bool, !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %tot : !ts.tensor
func.func @write_read_by_next_iteration(%x : !ts.tensor, %n : !ts.int) -> !ts.tensor {
  %true = prim.Constant true : !ts.bool
  %zero = prim.Constant 0 : !ts.int
  %one = prim.Constant 1 : !ts.int
  %none = prim.Constant : !ts.none
  %a = aten.clone %x, %none : (!ts.tensor, !ts.none) -> !ts.tensor
  %tot = prim.Loop %n, %true iter(%i) carried(%t = %x : !ts.tensor) -> (!ts.tensor) {
    %s = aten.sum %a, %none : (!ts.tensor, !ts.none) -> !ts.tensor
    %t2 = aten.add %t, %s, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
    %b = aten.select %a, %zero, %zero : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
    %b2 = aten.add_ %b, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
    prim.Yield %true, %t2 : !ts.bool, !ts.tensor
  }
  %spin = prim.Loop %n, %true iter(%j) carried(%c = %x : !ts.tensor) -> (!ts.tensor) {
    %more = aten.is_nonzero %c : (!ts.tensor) -> !ts.bool
    prim.Yield %more, %c : !ts.bool, !ts.tensor
  }
  func.return %tot : !ts.tensor
}

// A quiet graph (no op writes memory or has effects) loses its unused ops and what
// they alone use, across blocks: an If whose only user goes goes too.

// CHECK-LABEL: func.func @unused_chains
// CHECK-NEXT:    func.return %x : !ts.tensor
func.func @unused_chains(%x : !ts.tensor, %c : !ts.bool) -> !ts.tensor {
  %a = aten.neg %x : (!ts.tensor) -> !ts.tensor
  %b = aten.exp %a : (!ts.tensor) -> !ts.tensor
  %one = prim.Constant 1 : !ts.int
  %t = prim.TupleConstruct %b, %one : (!ts.tensor, !ts.int) -> !ts.tuple<!ts.tensor, !ts.int>
  %r = prim.If %c -> (!ts.tensor) {
    %m = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
    prim.Yield %m : !ts.tensor
  } else {
    prim.Yield %x : !ts.tensor
  }
  %u = aten.neg %r : (!ts.tensor) -> !ts.tensor
  func.return %x : !ts.tensor
}

// Removing an unused op can leave an If output or a loop-carried value unused; those
// go as well, with what computed them, and a carried value that only feeds itself dies
// with its result's last user.

// CHECK-LABEL: func.func @freed_outputs
// CHECK-NEXT:    %true = prim.Constant true : !ts.bool
// CHECK-NEXT:    %a = prim.If %c -> (!ts.tensor) {
// CHECK-NEXT:      %e = aten.exp %x : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %e : !ts.tensor
// CHECK-NEXT:    } else {
// CHECK-NEXT:      prim.Yield %x : !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    %acc = prim.Loop %n, %true iter(%i) carried(%p = %a : !ts.tensor) -> (!ts.tensor) {
// CHECK-NEXT:      %p2 = aten.mul %p, %p : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %true, %p2 : !ts.bool, !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %acc : !ts.tensor
func.func @freed_outputs(%x : !ts.tensor, %c : !ts.bool, %n : !ts.int) -> !ts.tensor {
  %true = prim.Constant true : !ts.bool
  %zero = prim.Constant 0 : !ts.int
  %a, %b = prim.If %c -> (!ts.tensor, !ts.tensor) {
    %e = aten.exp %x : (!ts.tensor) -> !ts.tensor
    %s = aten.sin %x : (!ts.tensor) -> !ts.tensor
    prim.Yield %e, %s : !ts.tensor, !ts.tensor
  } else {
    prim.Yield %x, %x : !ts.tensor, !ts.tensor
  }
  %nb = aten.neg %b : (!ts.tensor) -> !ts.tensor
  %acc, %count = prim.Loop %n, %true iter(%i) carried(%p = %a : !ts.tensor, %k = %zero : !ts.int) -> (!ts.tensor, !ts.int) {
    %p2 = aten.mul %p, %p : (!ts.tensor, !ts.tensor) -> !ts.tensor
    %k2 = aten.add %k, %i : (!ts.int, !ts.int) -> !ts.int
    prim.Yield %true, %p2, %k2 : !ts.bool, !ts.tensor, !ts.int
  }
  %twice = aten.mul %count, %count : (!ts.int, !ts.int) -> !ts.int
  func.return %acc : !ts.tensor
}

// Nested Ifs: unused ops and outputs go at every depth; an If nobody uses stays when
// it holds a while loop (which might not terminate), and the ops the loop needs stay.

// CHECK-LABEL: func.func @nested_ifs
// CHECK-NEXT:    %r = prim.If %c -> (!ts.tensor) {
// CHECK-NEXT:      %a = prim.If %d -> (!ts.tensor) {
// CHECK-NEXT:        %e = aten.exp %x : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:        prim.Yield %e : !ts.tensor
// CHECK-NEXT:      } else {
// CHECK-NEXT:        prim.Yield %x : !ts.tensor
// CHECK-NEXT:      }
// CHECK-NEXT:      prim.Yield %a : !ts.tensor
// CHECK-NEXT:    } else {
// CHECK-NEXT:      prim.Yield %x : !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    prim.If %d {
// CHECK-NEXT:      %spin = prim.Loop %n, %c iter(%j) carried(%v = %x : !ts.tensor) -> (!ts.tensor) {
// CHECK-NEXT:        %more = aten.is_nonzero %v : (!ts.tensor) -> !ts.bool
// CHECK-NEXT:        prim.Yield %more, %v : !ts.bool, !ts.tensor
// CHECK-NEXT:      }
// CHECK-NEXT:      prim.Yield
// CHECK-NEXT:    } else {
// CHECK-NEXT:      prim.Yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : !ts.tensor
func.func @nested_ifs(%x : !ts.tensor, %c : !ts.bool, %d : !ts.bool, %n : !ts.int) -> !ts.tensor {
  %r = prim.If %c -> (!ts.tensor) {
    %dead = aten.neg %x : (!ts.tensor) -> !ts.tensor
    %a, %b = prim.If %d -> (!ts.tensor, !ts.tensor) {
      %e = aten.exp %x : (!ts.tensor) -> !ts.tensor
      %s = aten.sin %x : (!ts.tensor) -> !ts.tensor
      prim.Yield %e, %s : !ts.tensor, !ts.tensor
    } else {
      prim.Yield %x, %x : !ts.tensor, !ts.tensor
    }
    prim.Yield %a : !ts.tensor
  } else {
    %gone = prim.If %d -> (!ts.tensor) {
      %m = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
      prim.Yield %m : !ts.tensor
    } else {
      prim.Yield %x : !ts.tensor
    }
    prim.Yield %x : !ts.tensor
  }
  prim.If %d {
    %unused = aten.relu %x : (!ts.tensor) -> !ts.tensor
    %spin = prim.Loop %n, %c iter(%j) carried(%v = %x : !ts.tensor) -> (!ts.tensor) {
      %more = aten.is_nonzero %v : (!ts.tensor) -> !ts.bool
      prim.Yield %more, %v : !ts.bool, !ts.tensor
    }
    prim.Yield
  } else {
    prim.Yield
  }
  func.return %r : !ts.tensor
}

// A write to a local tensor nobody reads goes, unless an op of the graph, even an
// unused one, makes its memory a wildcard (here `__getitem__` of a list holding it):
// the alias analysis covers the whole graph before anything goes, as PyTorch's does.

// CHECK-LABEL: func.func @write_to_local
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %w = aten.add_ %x, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-NEXT:    func.return %x : !ts.tensor
func.func @write_to_local(%x : !ts.tensor) -> !ts.tensor {
  %none = prim.Constant : !ts.none
  %one = prim.Constant 1 : !ts.int
  %t = aten.clone %x, %none : (!ts.tensor, !ts.none) -> !ts.tensor
  %n = aten.neg %t : (!ts.tensor) -> !ts.tensor
  %v = aten.add_ %t, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  %w = aten.add_ %x, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  func.return %x : !ts.tensor
}

// CHECK-LABEL: func.func @write_to_wildcard
// CHECK-NEXT:    %none = prim.Constant : !ts.none
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %t = aten.clone %x, %none : (!ts.tensor, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %v = aten.add_ %t, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-NEXT:    func.return %x : !ts.tensor
func.func @write_to_wildcard(%x : !ts.tensor) -> !ts.tensor {
  %none = prim.Constant : !ts.none
  %one = prim.Constant 1 : !ts.int
  %zero = prim.Constant 0 : !ts.int
  %t = aten.clone %x, %none : (!ts.tensor, !ts.none) -> !ts.tensor
  %l = prim.ListConstruct %t : (!ts.tensor) -> !ts.list<!ts.tensor>
  %g = aten.__getitem__ %l, %zero : (!ts.list<!ts.tensor>, !ts.int) -> !ts.tensor
  %v = aten.add_ %t, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  func.return %x : !ts.tensor
}

// A carried value that a live one receives in the next iteration is live, however
// long the chain: here %c decides whether the while loop goes on, takes %b's value,
// which takes %a's, which takes %e's.

// CHECK-LABEL: func.func @carried_chain
// CHECK-NEXT:    %true = prim.Constant true : !ts.bool
// CHECK-NEXT:    %p, %q, %r = prim.Loop %n, %true iter(%i) carried(%a = %x : !ts.tensor, %b = %x : !ts.tensor, %c = %x : !ts.tensor) -> (!ts.tensor, !ts.tensor, !ts.tensor) {
// CHECK-NEXT:      %e = aten.neg %x : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:      %more = aten.is_nonzero %c : (!ts.tensor) -> !ts.bool
// CHECK-NEXT:      prim.Yield %more, %e, %a, %b : !ts.bool, !ts.tensor, !ts.tensor, !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %x : !ts.tensor
func.func @carried_chain(%x : !ts.tensor, %n : !ts.int) -> !ts.tensor {
  %true = prim.Constant true : !ts.bool
  %p, %q, %r = prim.Loop %n, %true iter(%i) carried(%a = %x : !ts.tensor, %b = %x : !ts.tensor, %c = %x : !ts.tensor) -> (!ts.tensor, !ts.tensor, !ts.tensor) {
    %e = aten.neg %x : (!ts.tensor) -> !ts.tensor
    %more = aten.is_nonzero %c : (!ts.tensor) -> !ts.bool
    prim.Yield %more, %e, %a, %b : !ts.bool, !ts.tensor, !ts.tensor, !ts.tensor
  }
  func.return %x : !ts.tensor
}

// A live carried value makes its initial value live even when what the body yields
// for it was live already: the outer loop's %a reaches the inner while loop's
// condition through %v, so %a's next value, %k, stays.

// CHECK-LABEL: func.func @live_initial_value
// CHECK:         %z = prim.Loop %n, %true iter(%i) carried(%a = %y : !ts.tensor) -> (!ts.tensor) {
// CHECK-NEXT:      %k = aten.neg %y : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:      prim.If %d {
// CHECK:             %s, %t = prim.Loop %n, %true iter(%j) carried(%u = %x : !ts.tensor, %v = %a : !ts.tensor) -> (!ts.tensor, !ts.tensor) {
// CHECK-NEXT:          %m = aten.mul %k, %u : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:          %more = aten.is_nonzero %m : (!ts.tensor) -> !ts.bool
// CHECK-NEXT:          prim.Yield %more, %v, %y : !ts.bool, !ts.tensor, !ts.tensor
// CHECK:           prim.Yield %c, %k : !ts.bool, !ts.tensor
func.func @live_initial_value(%x : !ts.tensor, %y : !ts.tensor, %c : !ts.bool, %d : !ts.bool, %n : !ts.int) -> !ts.tensor {
  %true = prim.Constant true : !ts.bool
  %z = prim.Loop %n, %true iter(%i) carried(%a = %y : !ts.tensor) -> (!ts.tensor) {
    %k = aten.neg %y : (!ts.tensor) -> !ts.tensor
    prim.If %d {
      prim.Yield
    } else {
      %s, %t = prim.Loop %n, %true iter(%j) carried(%u = %x : !ts.tensor, %v = %a : !ts.tensor) -> (!ts.tensor, !ts.tensor) {
        %m = aten.mul %k, %u : (!ts.tensor, !ts.tensor) -> !ts.tensor
        %more = aten.is_nonzero %m : (!ts.tensor) -> !ts.bool
        prim.Yield %more, %v, %y : !ts.bool, !ts.tensor, !ts.tensor
      }
      prim.Yield
    }
    prim.Yield %c, %k : !ts.bool, !ts.tensor
  }
  func.return %y : !ts.tensor
}

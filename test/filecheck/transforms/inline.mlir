// RUN: ts-opt %s -p inline --print-debuginfo | filecheck %s

// Calls are replaced by the callee's body, transitively; the callee's ops are
// located at their call sites, `callsite(own at call)`, as MLIR's inliner does.

// CHECK-LABEL: func.func @forward
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int loc(callsite("helper.py":2:4 at "main.py":1:1))
// CHECK-NEXT:    %s = aten.add %x, %y, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor loc(callsite("helper.py":3:4 at "main.py":1:1))
// CHECK-NEXT:    %m = aten.mul %s, %s : (!ts.tensor, !ts.tensor) -> !ts.tensor loc(callsite("twice.py":7:8 at callsite("{{.*}}inline.mlir":25:3 at "main.py":1:1)))
// CHECK-NEXT:    func.return %m : !ts.tensor
func.func @forward(%x : !ts.tensor, %y : !ts.tensor) -> !ts.tensor {
  %a = func.call @scale_add(%x, %y) : (!ts.tensor, !ts.tensor) -> !ts.tensor loc("main.py":1:1)
  func.return %a : !ts.tensor
}

// The callees themselves stay (other graphs may call them) and are inlined into too.
// CHECK-LABEL: func.func @scale_add
// CHECK-NEXT:    prim.Constant
// CHECK-NEXT:    aten.add
// CHECK-NEXT:    aten.mul
// CHECK-NEXT:    func.return
func.func @scale_add(%p : !ts.tensor, %q : !ts.tensor) -> !ts.tensor {
  %one = prim.Constant 1 : !ts.int loc("helper.py":2:4)
  %s = aten.add %p, %q, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor loc("helper.py":3:4)
  %r = func.call @twice(%s) : (!ts.tensor) -> !ts.tensor
  func.return %r : !ts.tensor
}

func.func @twice(%t : !ts.tensor) -> !ts.tensor {
  %m = aten.mul %t, %t : (!ts.tensor, !ts.tensor) -> !ts.tensor loc("twice.py":7:8)
  func.return %m : !ts.tensor
}

// Several results, a callee that returns an argument, and regions in the body.
// CHECK-LABEL: func.func @multiple_results
// CHECK-NEXT:    %{{.*}} = prim.If %c -> (!ts.int) {
// CHECK-NEXT:      prim.Yield %n : !ts.int
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %{{.*}} = prim.Constant 0 : !ts.int
// CHECK-NEXT:      prim.Yield %{{.*}} : !ts.int
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %n, %{{.*}} : !ts.int, !ts.int
func.func @multiple_results(%n : !ts.int, %c : !ts.bool) -> (!ts.int, !ts.int) {
  %a, %b = func.call @pick(%n, %c) : (!ts.int, !ts.bool) -> (!ts.int, !ts.int)
  func.return %a, %b : !ts.int, !ts.int
}

func.func @pick(%v : !ts.int, %flag : !ts.bool) -> (!ts.int, !ts.int) {
  %r = prim.If %flag -> (!ts.int) {
    prim.Yield %v : !ts.int
  } else {
    %zero = prim.Constant 0 : !ts.int
    prim.Yield %zero : !ts.int
  }
  func.return %v, %r : !ts.int, !ts.int
}

// A declared function has no body to inline; a recursive one is not inlined.
// CHECK-LABEL: func.func @calls_that_stay
// CHECK-NEXT:    %d = func.call @declared(%x) : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %r = func.call @recursive(%d) : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    func.return %r : !ts.tensor
func.func @calls_that_stay(%x : !ts.tensor) -> !ts.tensor {
  %d = func.call @declared(%x) : (!ts.tensor) -> !ts.tensor
  %r = func.call @recursive(%d) : (!ts.tensor) -> !ts.tensor
  func.return %r : !ts.tensor
}

func.func private @declared(!ts.tensor) -> !ts.tensor

// CHECK-LABEL: func.func @recursive
// CHECK:         func.call @recursive
func.func @recursive(%t : !ts.tensor) -> !ts.tensor {
  %r = func.call @recursive(%t) : (!ts.tensor) -> !ts.tensor
  func.return %r : !ts.tensor
}

// A method call whose receiver class has a method function in the module.
// CHECK-LABEL: func.func @method_call
// CHECK-NEXT:    %w = prim.GetAttr[name = "weight"] %self : !ts.class<"__torch__.M"> -> !ts.tensor
// CHECK-NEXT:    %y = aten.mul %x, %w : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %z = prim.CallMethod[name = "other"] %self, %y : (!ts.class<"__torch__.M">, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    func.return %z : !ts.tensor
func.func @method_call(%self : !ts.class<"__torch__.M">, %x : !ts.tensor) -> !ts.tensor {
  %y = prim.CallMethod[name = "scale"] %self, %x : (!ts.class<"__torch__.M">, !ts.tensor) -> !ts.tensor
  %z = prim.CallMethod[name = "other"] %self, %y : (!ts.class<"__torch__.M">, !ts.tensor) -> !ts.tensor
  func.return %z : !ts.tensor
}

func.func @__torch__.M.scale(%s : !ts.class<"__torch__.M">, %v : !ts.tensor) -> !ts.tensor {
  %w = prim.GetAttr[name = "weight"] %s : !ts.class<"__torch__.M"> -> !ts.tensor
  %y = aten.mul %v, %w : (!ts.tensor, !ts.tensor) -> !ts.tensor
  func.return %y : !ts.tensor
}

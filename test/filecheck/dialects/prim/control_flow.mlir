// RUN: TS_ROUNDTRIP
// RUN: TS_GENERIC_ROUNDTRIP

// prim.If, prim.Loop, prim.With, prim.Enter, prim.Exit and prim.Yield.

func.func @if(%c : !ts.bool, %a : !ts.tensor<f32>, %b : !ts.tensor) -> !ts.tensor {
  %r = prim.If %c -> (!ts.tensor) {
    prim.Yield %a : !ts.tensor<f32>
  } else {
    prim.Yield %b : !ts.tensor
  }
  prim.If %c {
    prim.Yield
  } else {
    prim.Yield
  } {note = "no results"}
  func.return %r : !ts.tensor
}

// CHECK-LABEL: func.func @if(%c: !ts.bool, %a: !ts.tensor<f32>, %b: !ts.tensor) -> !ts.tensor {
// CHECK-NEXT:    %r = prim.If %c -> (!ts.tensor) {
// CHECK-NEXT:      prim.Yield %a : !ts.tensor<f32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      prim.Yield %b : !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    prim.If %c {
// CHECK-NEXT:      prim.Yield
// CHECK-NEXT:    } else {
// CHECK-NEXT:      prim.Yield
// CHECK-NEXT:    } {note = "no results"}
// CHECK-NEXT:    func.return %r : !ts.tensor
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "if"
// CHECK-GENERIC:         %r = "prim.If"(%c) ({
// CHECK-GENERIC-NEXT:      "prim.Yield"(%a) : (!ts.tensor<f32>) -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:      "prim.Yield"(%b) : (!ts.tensor) -> ()
// CHECK-GENERIC-NEXT:    }) : (!ts.bool) -> !ts.tensor
// CHECK-GENERIC-NEXT:    "prim.If"(%c) ({
// CHECK-GENERIC-NEXT:      "prim.Yield"() : () -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:      "prim.Yield"() : () -> ()
// CHECK-GENERIC-NEXT:    }) {note = "no results"} : (!ts.bool) -> ()

// -----

func.func @loop(%n : !ts.int, %true : !ts.bool, %x.1 : !ts.tensor<f32>, %k : !ts.int) -> !ts.tensor {
  %z, %sum = prim.Loop %n, %true iter(%i) carried(%z.2 = %x.1 : !ts.tensor<f32>, %acc = %k : !ts.int) -> (!ts.tensor, !ts.int) {
    %next = "test.op"(%z.2, %acc, %i) : (!ts.tensor, !ts.int, !ts.int) -> !ts.int
    prim.Yield %true, %z.2, %next : !ts.bool, !ts.tensor, !ts.int
  }
  prim.Loop %n, %true iter(%j) {
    prim.Yield %true : !ts.bool
  }
  func.return %z : !ts.tensor
}

// CHECK-LABEL: func.func @loop(%n: !ts.int, %true: !ts.bool, %x.1: !ts.tensor<f32>, %k: !ts.int) -> !ts.tensor {
// CHECK-NEXT:    %z, %sum = prim.Loop %n, %true iter(%i) carried(%z.2 = %x.1 : !ts.tensor<f32>, %acc = %k : !ts.int) -> (!ts.tensor, !ts.int) {
// CHECK-NEXT:      %next = "test.op"(%z.2, %acc, %i) : (!ts.tensor, !ts.int, !ts.int) -> !ts.int
// CHECK-NEXT:      prim.Yield %true, %z.2, %next : !ts.bool, !ts.tensor, !ts.int
// CHECK-NEXT:    }
// CHECK-NEXT:    prim.Loop %n, %true iter(%j) {
// CHECK-NEXT:      prim.Yield %true : !ts.bool
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %z : !ts.tensor
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "loop"
// CHECK-GENERIC:         %z, %sum = "prim.Loop"(%n, %true, %x.1, %k) ({
// CHECK-GENERIC-NEXT:    ^bb0(%i: !ts.int, %z.2: !ts.tensor, %acc: !ts.int):
// CHECK-GENERIC-NEXT:      %next = "test.op"(%z.2, %acc, %i) : (!ts.tensor, !ts.int, !ts.int) -> !ts.int
// CHECK-GENERIC-NEXT:      "prim.Yield"(%true, %z.2, %next) : (!ts.bool, !ts.tensor, !ts.int) -> ()
// CHECK-GENERIC-NEXT:    }) : (!ts.int, !ts.bool, !ts.tensor<f32>, !ts.int) -> (!ts.tensor, !ts.int)
// CHECK-GENERIC-NEXT:    "prim.Loop"(%n, %true) ({
// CHECK-GENERIC-NEXT:    ^bb0(%j: !ts.int):
// CHECK-GENERIC-NEXT:      "prim.Yield"(%true) : (!ts.bool) -> ()
// CHECK-GENERIC-NEXT:    }) : (!ts.int, !ts.bool) -> ()

// -----

// The overview's `with c as increment: y = x + increment`, before and during the exit
// transform.

func.func @with(%c.1 : !ts.class<"__torch__.Ctx">, %x.1 : !ts.tensor) -> !ts.tensor {
  %increment.1 = prim.Enter %c.1 : !ts.class<"__torch__.Ctx"> -> !ts.int
  %y.1 = prim.With %c.1 : !ts.class<"__torch__.Ctx"> -> (!ts.tensor) {
    %y.2 = "test.op"(%x.1, %increment.1) : (!ts.tensor, !ts.int) -> !ts.tensor
    prim.Yield %y.2 : !ts.tensor
  } exit {
    %e = prim.Exit %c.1 : !ts.class<"__torch__.Ctx"> -> !ts.tensor
    prim.Yield
  }
  prim.With {
    prim.Yield
  } exit {
    prim.Yield
  }
  func.return %y.1 : !ts.tensor
}

// CHECK-LABEL: func.func @with(%c.1: !ts.class<"__torch__.Ctx">, %x.1: !ts.tensor) -> !ts.tensor {
// CHECK-NEXT:    %increment.1 = prim.Enter %c.1 : !ts.class<"__torch__.Ctx"> -> !ts.int
// CHECK-NEXT:    %y.1 = prim.With %c.1 : !ts.class<"__torch__.Ctx"> -> (!ts.tensor) {
// CHECK-NEXT:      %y.2 = "test.op"(%x.1, %increment.1) : (!ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %y.2 : !ts.tensor
// CHECK-NEXT:    } exit {
// CHECK-NEXT:      %e = prim.Exit %c.1 : !ts.class<"__torch__.Ctx"> -> !ts.tensor
// CHECK-NEXT:      prim.Yield
// CHECK-NEXT:    }
// CHECK-NEXT:    prim.With {
// CHECK-NEXT:      prim.Yield
// CHECK-NEXT:    } exit {
// CHECK-NEXT:      prim.Yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %y.1 : !ts.tensor
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "with"
// CHECK-GENERIC:         %increment.1 = "prim.Enter"(%c.1) : (!ts.class<"__torch__.Ctx">) -> !ts.int
// CHECK-GENERIC-NEXT:    %y.1 = "prim.With"(%c.1) ({
// CHECK-GENERIC-NEXT:      %y.2 = "test.op"(%x.1, %increment.1) : (!ts.tensor, !ts.int) -> !ts.tensor
// CHECK-GENERIC-NEXT:      "prim.Yield"(%y.2) : (!ts.tensor) -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:      %e = "prim.Exit"(%c.1) : (!ts.class<"__torch__.Ctx">) -> !ts.tensor
// CHECK-GENERIC-NEXT:      "prim.Yield"() : () -> ()
// CHECK-GENERIC-NEXT:    }) : (!ts.class<"__torch__.Ctx">) -> !ts.tensor
// CHECK-GENERIC-NEXT:    "prim.With"() ({
// CHECK-GENERIC-NEXT:      "prim.Yield"() : () -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:      "prim.Yield"() : () -> ()
// CHECK-GENERIC-NEXT:    }) : () -> ()

// -----

// Regions nest; inner regions see the values of outer blocks.

func.func @nested(%c : !ts.bool, %n : !ts.int, %x : !ts.tensor) -> !ts.tensor {
  %r = prim.Loop %n, %c iter(%i) carried(%acc = %x : !ts.tensor) -> (!ts.tensor) {
    %picked = prim.If %c -> (!ts.tensor) {
      prim.Yield %acc : !ts.tensor
    } else {
      prim.Yield %x : !ts.tensor
    }
    prim.Yield %c, %picked : !ts.bool, !ts.tensor
  }
  func.return %r : !ts.tensor
}

// CHECK-LABEL: func.func @nested(%c: !ts.bool, %n: !ts.int, %x: !ts.tensor) -> !ts.tensor {
// CHECK-NEXT:    %r = prim.Loop %n, %c iter(%i) carried(%acc = %x : !ts.tensor) -> (!ts.tensor) {
// CHECK-NEXT:      %picked = prim.If %c -> (!ts.tensor) {
// CHECK-NEXT:        prim.Yield %acc : !ts.tensor
// CHECK-NEXT:      } else {
// CHECK-NEXT:        prim.Yield %x : !ts.tensor
// CHECK-NEXT:      }
// CHECK-NEXT:      prim.Yield %c, %picked : !ts.bool, !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : !ts.tensor
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "nested"
// CHECK-GENERIC:         %r = "prim.Loop"(%n, %c, %x) ({
// CHECK-GENERIC-NEXT:    ^bb0(%i: !ts.int, %acc: !ts.tensor):
// CHECK-GENERIC-NEXT:      %picked = "prim.If"(%c) ({

// RUN: TS_ROUNDTRIP
// RUN: TS_GENERIC_ROUNDTRIP

// The script frontend's scaffolding before SSA conversion and the exit transform:
//   while i < 5:
//     if i == 3:
//       i += 1
//       continue
//     i += 2
//   return i

func.func @loop_with_continue(%i.1 : !ts.int, %max : !ts.int, %true : !ts.bool) -> !ts.int {
  prim.Store[name = "i"] %i.1 : !ts.int
  prim.Loop %max, %true iter(%trip) {
    %i.2 = prim.Load[name = "i"] : !ts.int
    %again = "test.op"(%i.2) : (!ts.int) -> !ts.bool
    prim.If %again {
      %i.3 = "test.op"(%i.2) : (!ts.int) -> !ts.int
      prim.Store[name = "i"] %i.3 : !ts.int
      prim.LoopContinuation %true : !ts.bool
      prim.Yield
    } else {
      prim.Yield
    }
    prim.Yield %true : !ts.bool
  }
  %carried = prim.Loop %max, %true iter(%trip2) carried(%acc = %i.1 : !ts.int) -> (!ts.int) {
    prim.LoopContinuation %true, %acc : !ts.bool, !ts.int
    prim.Yield %true, %acc : !ts.bool, !ts.int
  }
  %i.4 = prim.Load[name = "i"] : !ts.int
  prim.ReturnStmt(%i.4) : !ts.int
  prim.ReturnStmt()
  func.return %i.4 : !ts.int
}

// CHECK-LABEL: func.func @loop_with_continue(%i.1: !ts.int, %max: !ts.int, %true: !ts.bool) -> !ts.int {
// CHECK-NEXT:    prim.Store[name = "i"] %i.1 : !ts.int
// CHECK-NEXT:    prim.Loop %max, %true iter(%trip) {
// CHECK-NEXT:      %i.2 = prim.Load[name = "i"] : !ts.int
// CHECK-NEXT:      %again = "test.op"(%i.2) : (!ts.int) -> !ts.bool
// CHECK-NEXT:      prim.If %again {
// CHECK-NEXT:        %i.3 = "test.op"(%i.2) : (!ts.int) -> !ts.int
// CHECK-NEXT:        prim.Store[name = "i"] %i.3 : !ts.int
// CHECK-NEXT:        prim.LoopContinuation %true : !ts.bool
// CHECK-NEXT:        prim.Yield
// CHECK-NEXT:      } else {
// CHECK-NEXT:        prim.Yield
// CHECK-NEXT:      }
// CHECK-NEXT:      prim.Yield %true : !ts.bool
// CHECK-NEXT:    }
// CHECK-NEXT:    %carried = prim.Loop %max, %true iter(%trip2) carried(%acc = %i.1 : !ts.int) -> (!ts.int) {
// CHECK-NEXT:      prim.LoopContinuation %true, %acc : !ts.bool, !ts.int
// CHECK-NEXT:      prim.Yield %true, %acc : !ts.bool, !ts.int
// CHECK-NEXT:    }
// CHECK-NEXT:    %i.4 = prim.Load[name = "i"] : !ts.int
// CHECK-NEXT:    prim.ReturnStmt(%i.4) : !ts.int
// CHECK-NEXT:    prim.ReturnStmt()
// CHECK-NEXT:    func.return %i.4 : !ts.int
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "loop_with_continue"
// CHECK-GENERIC:         "prim.Store"(%i.1) <{name = "i"}> : (!ts.int) -> ()
// CHECK-GENERIC:           %i.2 = "prim.Load"() <{name = "i"}> : () -> !ts.int
// CHECK-GENERIC:             "prim.LoopContinuation"(%true) : (!ts.bool) -> ()
// CHECK-GENERIC:           "prim.LoopContinuation"(%true, %acc) : (!ts.bool, !ts.int) -> ()
// CHECK-GENERIC:         "prim.ReturnStmt"(%i.4) : (!ts.int) -> ()
// CHECK-GENERIC-NEXT:    "prim.ReturnStmt"() : () -> ()

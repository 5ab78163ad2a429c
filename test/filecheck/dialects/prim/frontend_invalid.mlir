// RUN: ts-opt %s --split-input-file --verify-diagnostics | filecheck %s

// A continue or break only exists inside a loop.

%c = "test.op"() : () -> !ts.bool
prim.If %c {
  prim.LoopContinuation %c : !ts.bool
  prim.Yield
} else {
  prim.Yield
}
// CHECK: error: 'prim.LoopContinuation' expects ancestor op 'prim.Loop'

// -----

%n, %c, %i = "test.op"() : () -> (!ts.int, !ts.bool, !ts.int)
prim.Loop %n, %c iter(%trip) {
  "prim.LoopContinuation"(%i) : (!ts.int) -> ()
  prim.Yield %c : !ts.bool
}
// CHECK: error: 'prim.LoopContinuation' op operand 'condition' at position 0 does not verify:

// -----

%x = "prim.Load"() : () -> !ts.int
// CHECK: error: 'prim.Load' op property 'name' expected

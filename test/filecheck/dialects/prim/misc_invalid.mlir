// RUN: ts-opt %s --split-input-file --verify-diagnostics | filecheck %s

%m = "test.op"() : () -> !ts.int
"prim.RaiseException"(%m) : (!ts.int) -> ()
// CHECK: error: 'prim.RaiseException' op operand 'message' at position 0 does not verify:

// -----

%m, %c = "test.op"() : () -> (!ts.str, !ts.int)
"prim.RaiseException"(%m, %c) : (!ts.str, !ts.int) -> ()
// CHECK: error: 'prim.RaiseException' op operand 'exception_class' at position 1 does not verify:

// -----

%x = "test.op"() : () -> !ts.tensor
%y = "prim.unchecked_cast"(%x, %x) : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK: error: 'prim.unchecked_cast' op Expected 1 operand, but got 2

// -----

"prim.Uninitialized"() : () -> ()
// CHECK: error: 'prim.Uninitialized' op Expected 1 result, but got 0

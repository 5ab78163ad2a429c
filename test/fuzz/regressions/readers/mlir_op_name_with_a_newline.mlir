

%m, %c = "test.op"() : () -> (!ts.str, !ts.int)
"prim.\nRaiseException"(%m, %c) : (!ts.str, !ts.int) -> ()
// CHECK: error: 'prim.RaiseException' op operand 'exception_class' at position 1 does not verify:


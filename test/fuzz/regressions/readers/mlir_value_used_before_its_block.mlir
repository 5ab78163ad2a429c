
prim.If %c {
%c = "test.op"() : () -> !ts.bool

^bb00(%z : !ts.int):
  prim.Yield
} else {
  prim.Yield
}
// CHECK: error:- 'prim.If' op then-region must not take arguments



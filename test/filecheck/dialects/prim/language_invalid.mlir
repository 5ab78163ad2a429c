// RUN: ts-opt %s --split-input-file --verify-diagnostics | filecheck %s

// A fork's result is a future of what its subgraph yields.

%x = "test.op"() : () -> !ts.tensor
%f = prim.fork(%a = %x : !ts.tensor) -> (!ts.future<!ts.int>) {
  prim.Yield %a : !ts.tensor
}
// CHECK: error: 'prim.fork' op body yields !ts.tensor at position 0, which is not a subtype of !ts.int

// -----

%x = "test.op"() : () -> !ts.tensor
%f = prim.fork(%a = %x : !ts.tensor) -> (!ts.tensor) {
  prim.Yield %a : !ts.tensor
}
// CHECK: error: 'prim.fork' op has one result, a !ts.future

// -----

// The subgraph is isolated: what it uses from outside must be one of its inputs.

%x = "test.op"() : () -> !ts.tensor
%f = prim.fork() -> (!ts.future<!ts.tensor>) {
  prim.Yield %x : !ts.tensor
}
// CHECK: error: 'prim.fork' op Operation using value defined out of its IsolatedFromAbove parent

// -----

// Enum values share one type of int, float or str; member names are unique.

"prim.Enum"() <{name = "__torch__.E", value_type = !ts.int, members = ["A", "B"], values = [1 : i64, "b"]}> : () -> ()
// CHECK: error: 'prim.Enum' op member B has value "b", not a !ts.int

// -----

"prim.Enum"() <{name = "__torch__.E", value_type = !ts.tensor, members = ["A"], values = [1 : i64]}> : () -> ()
// CHECK: error: 'prim.Enum' op enum values must be int, float or str, not !ts.tensor

// -----

"prim.Enum"() <{name = "__torch__.E", value_type = !ts.int, members = ["A", "A"], values = [1 : i64, 2 : i64]}> : () -> ()
// CHECK: error: 'prim.Enum' op member names must be unique

// -----

prim.Enum "__torch__.E" : !ts.int [A = "a"]
// CHECK: error: enum member A needs a value of type !ts.int

// -----

%x = "test.op"() : () -> !ts.int
%b = "prim.isinstance"(%x) <{types = [!ts.int]}> : (!ts.int) -> !ts.int
// CHECK: error: 'prim.isinstance' op result 'result' at position 0 does not verify:

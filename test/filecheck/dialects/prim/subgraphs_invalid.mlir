// RUN: ts-opt %s --split-input-file --verify-diagnostics | filecheck %s

%x = "test.op"() : () -> !ts.tensor
"prim.FusionGroup"(%x) ({
^bb0:
  prim.Yield
}) : (!ts.tensor) -> ()
// CHECK: error: 'prim.FusionGroup' op body takes 0 arguments but the op has 1 input

// -----

%x = "test.op"() : () -> !ts.tensor
%r = "prim.DifferentiableGraph"(%x) ({
^bb0(%a : !ts.int):
  prim.Yield %a : !ts.int
}) : (!ts.tensor) -> !ts.int
// CHECK: error: 'prim.DifferentiableGraph' op input 0 has type !ts.tensor but body argument 0 has type !ts.int

// -----

%x = "test.op"() : () -> !ts.tensor
%r, %s = prim.FusionGroup(%a = %x : !ts.tensor) -> (!ts.tensor, !ts.tensor) {
  prim.Yield %a : !ts.tensor
}
// CHECK: error: 'prim.FusionGroup' op body yields 1 value but the op has 2 results

// -----

%x = "test.op"() : () -> !ts.tensor
%r = prim.FusionGroup(%a = %x : !ts.tensor) -> (!ts.int) {
  prim.Yield %a : !ts.tensor
}
// CHECK: error: 'prim.FusionGroup' op body yields !ts.tensor at position 0, which is not a subtype of !ts.int

// -----

// A subgraph is isolated: its inputs are its only view of the enclosing graph.

%x = "test.op"() : () -> !ts.tensor
%r = prim.FusionGroup() -> (!ts.tensor) {
  prim.Yield %x : !ts.tensor
}
// CHECK: error: 'prim.FusionGroup' op Operation using value defined out of its IsolatedFromAbove parent: YieldOp(prim.Yield %x : !ts.tensor)

// -----

%x = "test.op"() : () -> !ts.tensor
%a, %b = prim.ConstantChunk[chunks = 3, dim = 0] %x : !ts.tensor -> !ts.tensor, !ts.tensor
// CHECK: error: 'prim.ConstantChunk' op has 2 results but chunks = 3

// -----

%x = "test.op"() : () -> !ts.tensor
"prim.ConstantChunk"(%x) <{chunks = 0 : i64, dim = 0 : i64}> : (!ts.tensor) -> ()
// CHECK: error: 'prim.ConstantChunk' op chunks must be positive, got 0

// -----

%x = "test.op"() : () -> !ts.int
%a = "prim.ConstantChunk"(%x) <{chunks = 1 : i64, dim = 0 : i64}> : (!ts.int) -> !ts.tensor
// CHECK: error: 'prim.ConstantChunk' op operand 'input' at position 0 does not verify:

// -----

%x = "test.op"() : () -> !ts.tensor
%y = prim.DifferentiableGraph(%a = %x : !ts.tensor) -> (!ts.tensor) {
  prim.Yield %a : !ts.tensor
} backward[grad_outputs = [0], grad_inputs = [0], captured_inputs = [], captured_outputs = [3]] {
^bb0(%g : !ts.tensor, %s : !ts.tensor):
  prim.Yield %g : !ts.tensor
}
// CHECK: error: 'prim.DifferentiableGraph' op captured_outputs names yielded value 3, which does not exist

// -----

%x = "test.op"() : () -> !ts.tensor
%y = prim.DifferentiableGraph(%a = %x : !ts.tensor) -> (!ts.tensor) {
  prim.Yield %a : !ts.tensor
} backward[grad_outputs = [0], grad_inputs = [0], captured_inputs = [0], captured_outputs = []] {
^bb0(%g : !ts.tensor):
  prim.Yield %g : !ts.tensor
}
// CHECK: error: 'prim.DifferentiableGraph' op backward takes 1 argument but its properties name 2

// -----

%x = "test.op"() : () -> !ts.tensor
%y = prim.DifferentiableGraph(%a = %x : !ts.tensor) -> (!ts.tensor) {
  prim.Yield %a : !ts.tensor
} backward[grad_outputs = [0], grad_inputs = [], captured_inputs = [], captured_outputs = []] {
^bb0(%g : !ts.tensor):
  prim.Yield %g : !ts.tensor
}
// CHECK: error: 'prim.DifferentiableGraph' op backward yields 1 value but grad_inputs names 0

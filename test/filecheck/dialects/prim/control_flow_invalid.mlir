// RUN: ts-opt %s --split-input-file --verify-diagnostics | filecheck %s

%c = "test.op"() : () -> !ts.bool
%r = prim.If %c -> (!ts.int) {
  %a = prim.Constant 1 : !ts.int
  prim.Yield %a, %a : !ts.int, !ts.int
} else {
  %b = prim.Constant 2 : !ts.int
  prim.Yield %b : !ts.int
}
// CHECK: error: 'prim.If' op then-region yields 2 values but the op has 1 result

// -----

%c = "test.op"() : () -> !ts.bool
%r = prim.If %c -> (!ts.int) {
  %a = prim.Constant 1 : !ts.int
  prim.Yield %a : !ts.int
} else {
  %b = prim.Constant 1.0 : !ts.float
  prim.Yield %b : !ts.float
}
// CHECK: error: 'prim.If' op else-region yields !ts.float at position 0, which is not a subtype of !ts.int

// -----

%c = "test.op"() : () -> !ts.bool
prim.If %c {
  prim.Print()
} else {
  prim.Yield
}
// CHECK: error: 'prim.If' op then-region must end with 'prim.Yield'

// -----

%c = "test.op"() : () -> !ts.bool
prim.If %c {
^bb0(%z : !ts.int):
  prim.Yield
} else {
  prim.Yield
}
// CHECK: error: 'prim.If' op then-region must not take arguments

// -----

%c = "test.op"() : () -> !ts.bool
"prim.If"(%c) ({
  prim.Yield
}) : (!ts.bool) -> ()
// CHECK: error: 'prim.If' op Expected 2 regions, but got 1

// -----

%c = "test.op"() : () -> !ts.bool
"prim.If"(%c) ({
  prim.Yield
}, {
}) : (!ts.bool) -> ()
// CHECK: error: 'prim.If' op Region 'else_region' at position 1 expected a single block, but got 0 blocks

// -----

%c = "test.op"() : () -> !ts.int
"prim.If"(%c) ({
  prim.Yield
}, {
  prim.Yield
}) : (!ts.int) -> ()
// CHECK: error: 'prim.If' op operand 'cond' at position 0 does not verify:

// -----

// Values are block-scoped: a value of a branch is not visible after the If.

%c = "test.op"() : () -> !ts.bool
prim.If %c {
  %inner = prim.Constant 1 : !ts.int
  prim.Yield
} else {
  prim.Yield
}
prim.Print(%inner) : !ts.int
// CHECK: error: values used but not defined: [%inner]

// -----

%n, %c = "test.op"() : () -> (!ts.int, !ts.bool)
%r = "prim.Loop"(%n, %c) ({
^bb0(%i : !ts.int):
  prim.Yield %c : !ts.bool
}) : (!ts.int, !ts.bool) -> !ts.int
// CHECK: error: 'prim.Loop' op has 1 result but 0 carried values

// -----

%n, %c, %x = "test.op"() : () -> (!ts.int, !ts.bool, !ts.tensor)
%r = "prim.Loop"(%n, %c, %x) ({
^bb0(%i : !ts.int):
  prim.Yield %c, %x : !ts.bool, !ts.tensor
}) : (!ts.int, !ts.bool, !ts.tensor) -> !ts.tensor
// CHECK: error: 'prim.Loop' op body takes 1 argument but needs 2 (the trip counter and 1 carried value)

// -----

%n, %c = "test.op"() : () -> (!ts.int, !ts.bool)
"prim.Loop"(%n, %c) ({
^bb0(%i : !ts.float):
  prim.Yield %c : !ts.bool
}) : (!ts.int, !ts.bool) -> ()
// CHECK: error: 'prim.Loop' op body argument 0 (the trip counter) must be !ts.int, got !ts.float

// -----

%n, %c, %x = "test.op"() : () -> (!ts.int, !ts.bool, !ts.tensor)
%r = "prim.Loop"(%n, %c, %x) ({
^bb0(%i : !ts.int, %a : !ts.tensor<f32>):
  prim.Yield %c, %a : !ts.bool, !ts.tensor<f32>
}) : (!ts.int, !ts.bool, !ts.tensor) -> !ts.tensor
// CHECK: error: 'prim.Loop' op body argument 1 has type !ts.tensor<f32> but result 0 has type !ts.tensor

// -----

%n, %c, %x = "test.op"() : () -> (!ts.int, !ts.bool, !ts.int)
%r = prim.Loop %n, %c iter(%i) carried(%a = %x : !ts.int) -> (!ts.float) {
  prim.Yield %c, %a : !ts.bool, !ts.float
}
// CHECK: error: 'prim.Loop' op carried value 0 of type !ts.int is not a subtype of result type !ts.float

// -----

%n, %c, %x = "test.op"() : () -> (!ts.int, !ts.bool, !ts.tensor)
%r = prim.Loop %n, %c iter(%i) carried(%a = %x : !ts.tensor) -> (!ts.tensor) {
  prim.Yield %i, %a : !ts.int, !ts.tensor
}
// CHECK: error: 'prim.Loop' op body must yield the !ts.bool loop condition first, got !ts.int

// -----

%n, %c, %x = "test.op"() : () -> (!ts.int, !ts.bool, !ts.tensor)
%r = prim.Loop %n, %c iter(%i) carried(%a = %x : !ts.tensor) -> (!ts.tensor) {
  prim.Yield %c : !ts.bool
}
// CHECK: error: 'prim.Loop' op body yields 1 value but needs 2 (the loop condition and 1 carried value)

// -----

%n, %c, %x = "test.op"() : () -> (!ts.int, !ts.bool, !ts.tensor<f32>)
%r = prim.Loop %n, %c iter(%i) carried(%a = %x : !ts.tensor<f32>) -> (!ts.tensor<f32>) {
  %wider = "test.op"() : () -> !ts.tensor
  prim.Yield %c, %wider : !ts.bool, !ts.tensor
}
// CHECK: error: 'prim.Loop' op body yields !ts.tensor at position 1, which is not a subtype of !ts.tensor<f32>

// -----

%n, %c = "test.op"() : () -> (!ts.int, !ts.bool)
prim.Loop %n, %c iter(%i) {
  prim.Print()
}
// CHECK: error: 'prim.Loop' op body must end with 'prim.Yield'

// -----

%n, %c, %x = "test.op"() : () -> (!ts.int, !ts.bool, !ts.tensor)
%r = prim.Loop %n, %c iter(%i) carried(%a = %x : !ts.tensor) -> (!ts.tensor, !ts.int) {
  prim.Yield %c, %a : !ts.bool, !ts.tensor
}
// CHECK: error: expected 1 result type, one per carried value

// -----

%ctx = "test.op"() : () -> !ts.class<"__torch__.Ctx">
%r = prim.With %ctx : !ts.class<"__torch__.Ctx"> -> (!ts.int) {
  prim.Yield
} exit {
  prim.Yield
}
// CHECK: error: 'prim.With' op body yields 0 values but the op has 1 result

// -----

%x = "test.op"() : () -> !ts.tensor
prim.With {
  prim.Yield
} exit {
  prim.Yield %x : !ts.tensor
}
// CHECK: error: 'prim.With' op exit-region yields 1 value but it must yield none

// -----

prim.With {
  prim.Yield
} exit {
^bb0(%a : !ts.int):
  prim.Yield
}
// CHECK: error: 'prim.With' op exit-region must not take arguments

// -----

prim.With {
  prim.Print()
} exit {
  prim.Yield
}
// CHECK: error: 'prim.With' op body must end with 'prim.Yield'

// -----

func.func @yield_outside_region() {
  prim.Yield
}
// CHECK: error: 'prim.Yield' expects parent op to be one of 'prim.If', 'prim.Loop', 'prim.With', 'prim.FusionGroup', 'prim.DifferentiableGraph'

// RUN: ts-opt %s --split-input-file -p insert-profiling | filecheck %s

// Every tensor use gets its own profile, in front of the op using it (values used in
// a branch are profiled in that branch); the return is a use too. Non-tensors are not
// profiled; an op using one tensor twice gets one profile.
// CHECK-LABEL: func.func @uses
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %x_1 = profile.profile %x : !ts.tensor
// CHECK-NEXT:    %a = aten.mul %x_1, %x_1 : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %c = aten.gt %n, %one : (!ts.int, !ts.int) -> !ts.bool
// CHECK-NEXT:    %r = prim.If %c -> (!ts.tensor) {
// CHECK-NEXT:      %a_1 = profile.profile %a : !ts.tensor
// CHECK-NEXT:      %y_1 = profile.profile %y : !ts.tensor
// CHECK-NEXT:      %b = aten.add %a_1, %y_1, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:      %b_1 = profile.profile %b : !ts.tensor
// CHECK-NEXT:      prim.Yield %b_1 : !ts.tensor
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %a_2 = profile.profile %a : !ts.tensor
// CHECK-NEXT:      prim.Yield %a_2 : !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    %r_1 = profile.profile %r : !ts.tensor
// CHECK-NEXT:    func.return %r_1 : !ts.tensor
func.func @uses(%x : !ts.tensor, %y : !ts.tensor, %n : !ts.int) -> !ts.tensor {
  %one = prim.Constant 1 : !ts.int
  %a = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %c = aten.gt %n, %one : (!ts.int, !ts.int) -> !ts.bool
  %r = prim.If %c -> (!ts.tensor) {
    %b = aten.add %a, %y, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
    prim.Yield %b : !ts.tensor
  } else {
    prim.Yield %a : !ts.tensor
  }
  func.return %r : !ts.tensor
}

// -----

// Loops: the initial carried value is profiled before the loop, the body's uses
// inside it (each trip records into the same profile).
// CHECK-LABEL: func.func @loop
// CHECK:         %x_1 = profile.profile %x : !ts.tensor
// CHECK-NEXT:    %r = prim.Loop %n, %true iter(%i) carried(%acc = %x_1 : !ts.tensor) -> (!ts.tensor) {
// CHECK-NEXT:      %acc_1 = profile.profile %acc : !ts.tensor
// CHECK-NEXT:      %next = aten.neg %acc_1 : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:      %next_1 = profile.profile %next : !ts.tensor
// CHECK-NEXT:      prim.Yield %true, %next_1 : !ts.bool, !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    %r_1 = profile.profile %r : !ts.tensor
func.func @loop(%x : !ts.tensor, %n : !ts.int) -> !ts.tensor {
  %true = prim.Constant true : !ts.bool
  %r = prim.Loop %n, %true iter(%i) carried(%acc = %x : !ts.tensor) -> (!ts.tensor) {
    %next = aten.neg %acc : (!ts.tensor) -> !ts.tensor
    prim.Yield %true, %next : !ts.bool, !ts.tensor
  }
  func.return %r : !ts.tensor
}

// -----

// Subgraphs run whole: their bodies are not instrumented, their tensor inputs are.
// CHECK-LABEL: func.func @group
// CHECK-NEXT:    %x_1 = profile.profile %x : !ts.tensor
// CHECK-NEXT:    %g = prim.FusionGroup(%a = %x_1 : !ts.tensor) -> (!ts.tensor) {
// CHECK-NEXT:      %b = aten.neg %a : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %b : !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    %g_1 = profile.profile %g : !ts.tensor
// CHECK-NEXT:    func.return %g_1 : !ts.tensor
func.func @group(%x : !ts.tensor) -> !ts.tensor {
  %g = prim.FusionGroup(%a = %x : !ts.tensor) -> (!ts.tensor) {
    %b = aten.neg %a : (!ts.tensor) -> !ts.tensor
    prim.Yield %b : !ts.tensor
  }
  func.return %g : !ts.tensor
}

// -----

// `function` restricts the pass to one graph.
// RUN: ts-opt %s --split-input-file -p 'insert-profiling{function=only}' | filecheck %s --check-prefix=ONE
// ONE-LABEL: func.func @only
// ONE-NEXT:    %x_1 = profile.profile %x : !ts.tensor
// ONE-LABEL: func.func @other
// ONE-NEXT:    func.return %x : !ts.tensor
func.func @only(%x : !ts.tensor) -> !ts.tensor {
  func.return %x : !ts.tensor
}
func.func @other(%x : !ts.tensor) -> !ts.tensor {
  func.return %x : !ts.tensor
}

// RUN: TS_ROUNDTRIP
// RUN: TS_GENERIC_ROUNDTRIP

// Placeholders, exceptions, refinement casts and printing.

func.func @misc(%x : !ts.optional<!ts.tensor>, %msg : !ts.str, %cls : !ts.str, %n : !ts.int) -> !ts.tensor {
  %u = prim.Uninitialized : !ts.tensor
  prim.RaiseException %msg
  prim.RaiseException %msg, %cls : !ts.str
  %none = prim.Constant : !ts.none
  prim.RaiseException %msg, %none : !ts.none
  %t = prim.unchecked_cast %x : !ts.optional<!ts.tensor> -> !ts.tensor
  prim.Print(%msg, %n) : !ts.str, !ts.int
  prim.Print()
  %after = prim.Uninitialized : !ts.int
  func.return %t : !ts.tensor
}

// CHECK-LABEL: func.func @misc(%x: !ts.optional<!ts.tensor>, %msg: !ts.str, %cls: !ts.str, %n: !ts.int) -> !ts.tensor {
// CHECK-NEXT:    %u = prim.Uninitialized : !ts.tensor
// CHECK-NEXT:    prim.RaiseException %msg
// CHECK-NEXT:    prim.RaiseException %msg, %cls : !ts.str
// CHECK-NEXT:    %none = prim.Constant : !ts.none
// CHECK-NEXT:    prim.RaiseException %msg, %none : !ts.none
// CHECK-NEXT:    %t = prim.unchecked_cast %x : !ts.optional<!ts.tensor> -> !ts.tensor
// CHECK-NEXT:    prim.Print(%msg, %n) : !ts.str, !ts.int
// CHECK-NEXT:    prim.Print()
// CHECK-NEXT:    %after = prim.Uninitialized : !ts.int
// CHECK-NEXT:    func.return %t : !ts.tensor
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "misc"
// CHECK-GENERIC:         %u = "prim.Uninitialized"() : () -> !ts.tensor
// CHECK-GENERIC-NEXT:    "prim.RaiseException"(%msg) : (!ts.str) -> ()
// CHECK-GENERIC-NEXT:    "prim.RaiseException"(%msg, %cls) : (!ts.str, !ts.str) -> ()
// CHECK-GENERIC-NEXT:    %none = "prim.Constant"() : () -> !ts.none
// CHECK-GENERIC-NEXT:    "prim.RaiseException"(%msg, %none) : (!ts.str, !ts.none) -> ()
// CHECK-GENERIC-NEXT:    %t = "prim.unchecked_cast"(%x) : (!ts.optional<!ts.tensor>) -> !ts.tensor
// CHECK-GENERIC-NEXT:    "prim.Print"(%msg, %n) : (!ts.str, !ts.int) -> ()
// CHECK-GENERIC-NEXT:    "prim.Print"() : () -> ()
// CHECK-GENERIC-NEXT:    %after = "prim.Uninitialized"() : () -> !ts.int

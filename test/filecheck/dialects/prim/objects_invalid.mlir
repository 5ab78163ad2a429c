// RUN: ts-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Attributes and methods belong to objects of class type.

%x = "test.op"() : () -> !ts.tensor
%w = "prim.GetAttr"(%x) <{name = "weight"}> : (!ts.tensor) -> !ts.tensor
// CHECK: error: 'prim.GetAttr' op operand 'obj' at position 0 does not verify:

// -----

%x = "test.op"() : () -> !ts.tensor
"prim.SetAttr"(%x, %x) <{name = "weight"}> : (!ts.tensor, !ts.tensor) -> ()
// CHECK: error: 'prim.SetAttr' op operand 'obj' at position 0 does not verify:

// -----

%self = "test.op"() : () -> !ts.class<"__torch__.M">
%w = "prim.GetAttr"(%self) : (!ts.class<"__torch__.M">) -> !ts.tensor
// CHECK: error: 'prim.GetAttr' op property 'name' expected

// -----

%x = "test.op"() : () -> !ts.tensor
%r = "prim.CallMethod"(%x) <{name = "forward"}> : (!ts.tensor) -> !ts.tensor
// CHECK: error: 'prim.CallMethod' op operand 'obj' at position 0 does not verify:

// -----

%o = "prim.CreateObject"() : () -> !ts.tensor
// CHECK: error: 'prim.CreateObject' op result 'result' at position 0 does not verify:

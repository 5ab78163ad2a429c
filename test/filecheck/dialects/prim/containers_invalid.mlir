// RUN: ts-opt %s --split-input-file --verify-diagnostics | filecheck %s

%x = "test.op"() : () -> !ts.tensor
%t = prim.TupleConstruct %x : (!ts.tensor) -> !ts.tuple<!ts.tensor, !ts.int>
// CHECK: error: 'prim.TupleConstruct' op has 1 element but its type has 2

// -----

%x = "test.op"() : () -> !ts.tensor
%t = prim.TupleConstruct %x : (!ts.tensor) -> !ts.tuple<!ts.tensor<f32>>
// CHECK: error: 'prim.TupleConstruct' op element 0 has type !ts.tensor, which is not a subtype of tuple element type !ts.tensor<f32>

// -----

%t = "test.op"() : () -> !ts.tuple<!ts.tensor, !ts.int>
%a = prim.TupleUnpack %t : !ts.tuple<!ts.tensor, !ts.int> -> !ts.tensor
// CHECK: error: 'prim.TupleUnpack' op has 1 result but the tuple has 2 elements

// -----

%t = "test.op"() : () -> !ts.tuple<!ts.tensor, !ts.int>
%a, %b = prim.TupleUnpack %t : !ts.tuple<!ts.tensor, !ts.int> -> !ts.tensor, !ts.float
// CHECK: error: 'prim.TupleUnpack' op tuple element 1 of type !ts.int is not a subtype of result type !ts.float

// -----

%x = "test.op"() : () -> !ts.tensor
%a = "prim.TupleUnpack"(%x) : (!ts.tensor) -> !ts.tensor
// CHECK: error: 'prim.TupleUnpack' op operand 'tuple' at position 0 does not verify:

// -----

%t = "test.op"() : () -> !ts.tuple<!ts.tensor, !ts.int>
%i = prim.Constant 2 : !ts.int
%a = prim.TupleIndex %t[%i] : !ts.tuple<!ts.tensor, !ts.int> -> !ts.int
// CHECK: error: 'prim.TupleIndex' op index 2 is out of range for a tuple of 2 elements

// -----

%t = "test.op"() : () -> !ts.tuple<!ts.tensor, !ts.int>
%i = prim.Constant 0 : !ts.int
%a = prim.TupleIndex %t[%i] : !ts.tuple<!ts.tensor, !ts.int> -> !ts.int
// CHECK: error: 'prim.TupleIndex' op tuple element 0 of type !ts.tensor is not a subtype of result type !ts.int

// -----

%t = "test.op"() : () -> !ts.tuple<!ts.tensor, !ts.int>
%s = prim.TupleSlice[begin = 1, end = 3] %t : !ts.tuple<!ts.tensor, !ts.int> -> !ts.tuple<!ts.int>
// CHECK: error: 'prim.TupleSlice' op slice [1, 3) is out of range for a tuple of 2 elements

// -----

%t = "test.op"() : () -> !ts.tuple<!ts.tensor, !ts.int>
%s = prim.TupleSlice[begin = 0, end = 2] %t : !ts.tuple<!ts.tensor, !ts.int> -> !ts.tuple<!ts.tensor>
// CHECK: error: 'prim.TupleSlice' op result has 1 element but the slice has 2

// -----

%t = "test.op"() : () -> !ts.tuple<!ts.tensor, !ts.int>
%s = prim.TupleSlice[begin = 1, end = 2] %t : !ts.tuple<!ts.tensor, !ts.int> -> !ts.tuple<!ts.str>
// CHECK: error: 'prim.TupleSlice' op tuple element 1 of type !ts.int is not a subtype of result element type !ts.str

// -----

%x, %n = "test.op"() : () -> (!ts.tensor, !ts.int)
%l = prim.ListConstruct %x, %n : (!ts.tensor, !ts.int) -> !ts.list<!ts.tensor>
// CHECK: error: 'prim.ListConstruct' op element 1 has type !ts.int, which is not a subtype of list element type !ts.tensor

// -----

%x = "test.op"() : () -> !ts.tensor
%l = "prim.ListConstruct"(%x) : (!ts.tensor) -> !ts.tuple<!ts.tensor>
// CHECK: error: 'prim.ListConstruct' op result 'result' at position 0 does not verify:

// -----

%l = "test.op"() : () -> !ts.list<!ts.tensor>
%a, %b = prim.ListUnpack %l : !ts.list<!ts.tensor> -> !ts.tensor, !ts.int
// CHECK: error: 'prim.ListUnpack' op result 1 of type !ts.int is incompatible with list element type !ts.tensor

// -----

%k, %v = "test.op"() : () -> (!ts.str, !ts.tensor)
%d = prim.DictConstruct %k, %v, %k : (!ts.str, !ts.tensor, !ts.str) -> !ts.dict<!ts.str, !ts.tensor>
// CHECK: error: 'prim.DictConstruct' op needs key-value pairs, got 3 operands

// -----

%k, %v = "test.op"() : () -> (!ts.int, !ts.tensor)
%d = prim.DictConstruct %k, %v : (!ts.int, !ts.tensor) -> !ts.dict<!ts.str, !ts.tensor>
// CHECK: error: 'prim.DictConstruct' op key 0 has type !ts.int, which is not a subtype of key type !ts.str

// -----

%k, %v = "test.op"() : () -> (!ts.str, !ts.float)
%d = prim.DictConstruct %k, %v : (!ts.str, !ts.float) -> !ts.dict<!ts.str, !ts.tensor>
// CHECK: error: 'prim.DictConstruct' op value 0 has type !ts.float, which is not a subtype of value type !ts.tensor

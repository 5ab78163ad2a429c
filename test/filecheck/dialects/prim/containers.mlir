// RUN: TS_ROUNDTRIP
// RUN: TS_GENERIC_ROUNDTRIP

// Tuples, lists and dicts.

func.func @tuples(%x : !ts.tensor<f32>, %n : !ts.int, %s : !ts.str) {
  %t = prim.TupleConstruct %x, %n, %s : (!ts.tensor<f32>, !ts.int, !ts.str) -> !ts.tuple<!ts.tensor, !ts.int, !ts.str>
  %unit = prim.TupleConstruct : () -> !ts.tuple
  %a, %b, %c = prim.TupleUnpack %t : !ts.tuple<!ts.tensor, !ts.int, !ts.str> -> !ts.tensor, !ts.int, !ts.str
  prim.TupleUnpack %unit : !ts.tuple
  %one = prim.Constant 1 : !ts.int
  %second = prim.TupleIndex %t[%one] : !ts.tuple<!ts.tensor, !ts.int, !ts.str> -> !ts.int
  %dynamic = prim.TupleIndex %t[%n] : !ts.tuple<!ts.tensor, !ts.int, !ts.str> -> !ts.any
  %tail = prim.TupleSlice[begin = 1, end = 3] %t : !ts.tuple<!ts.tensor, !ts.int, !ts.str> -> !ts.tuple<!ts.int, !ts.str>
  %p = prim.TupleConstruct %n, %n : (!ts.int, !ts.int) -> !ts.tuple<"__torch__.P", "x": !ts.int, "y": !ts.int>
  func.return
}

// CHECK-LABEL: func.func @tuples(%x: !ts.tensor<f32>, %n: !ts.int, %s: !ts.str) {
// CHECK-NEXT:    %t = prim.TupleConstruct %x, %n, %s : (!ts.tensor<f32>, !ts.int, !ts.str) -> !ts.tuple<!ts.tensor, !ts.int, !ts.str>
// CHECK-NEXT:    %unit = prim.TupleConstruct : () -> !ts.tuple
// CHECK-NEXT:    %a, %b, %c = prim.TupleUnpack %t : !ts.tuple<!ts.tensor, !ts.int, !ts.str> -> !ts.tensor, !ts.int, !ts.str
// CHECK-NEXT:    prim.TupleUnpack %unit : !ts.tuple
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %second = prim.TupleIndex %t[%one] : !ts.tuple<!ts.tensor, !ts.int, !ts.str> -> !ts.int
// CHECK-NEXT:    %dynamic = prim.TupleIndex %t[%n] : !ts.tuple<!ts.tensor, !ts.int, !ts.str> -> !ts.any
// CHECK-NEXT:    %tail = prim.TupleSlice[begin = 1, end = 3] %t : !ts.tuple<!ts.tensor, !ts.int, !ts.str> -> !ts.tuple<!ts.int, !ts.str>
// CHECK-NEXT:    %p = prim.TupleConstruct %n, %n : (!ts.int, !ts.int) -> !ts.tuple<"__torch__.P", "x": !ts.int, "y": !ts.int>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "tuples"
// CHECK-GENERIC:         %t = "prim.TupleConstruct"(%x, %n, %s) : (!ts.tensor<f32>, !ts.int, !ts.str) -> !ts.tuple<!ts.tensor, !ts.int, !ts.str>
// CHECK-GENERIC-NEXT:    %unit = "prim.TupleConstruct"() : () -> !ts.tuple
// CHECK-GENERIC-NEXT:    %a, %b, %c = "prim.TupleUnpack"(%t) : (!ts.tuple<!ts.tensor, !ts.int, !ts.str>) -> (!ts.tensor, !ts.int, !ts.str)
// CHECK-GENERIC-NEXT:    "prim.TupleUnpack"(%unit) : (!ts.tuple) -> ()
// CHECK-GENERIC-NEXT:    %one = "prim.Constant"() <{value = 1 : i64}> : () -> !ts.int
// CHECK-GENERIC-NEXT:    %second = "prim.TupleIndex"(%t, %one) : (!ts.tuple<!ts.tensor, !ts.int, !ts.str>, !ts.int) -> !ts.int
// CHECK-GENERIC-NEXT:    %dynamic = "prim.TupleIndex"(%t, %n) : (!ts.tuple<!ts.tensor, !ts.int, !ts.str>, !ts.int) -> !ts.any
// CHECK-GENERIC-NEXT:    %tail = "prim.TupleSlice"(%t) <{begin = 1 : i64, end = 3 : i64}> : (!ts.tuple<!ts.tensor, !ts.int, !ts.str>) -> !ts.tuple<!ts.int, !ts.str>
// CHECK-GENERIC-NEXT:    %p = "prim.TupleConstruct"(%n, %n) : (!ts.int, !ts.int) -> !ts.tuple<"__torch__.P", "x": !ts.int, "y": !ts.int>

// -----

func.func @lists_and_dicts(%x : !ts.tensor, %y : !ts.tensor<f32>, %k : !ts.str) {
  %l = prim.ListConstruct %x, %y : (!ts.tensor, !ts.tensor<f32>) -> !ts.list<!ts.tensor>
  %empty = prim.ListConstruct : () -> !ts.list<!ts.int>
  %a, %b = prim.ListUnpack %l : !ts.list<!ts.tensor> -> !ts.tensor<f32, [?, ?]>, !ts.tensor
  prim.ListUnpack %empty : !ts.list<!ts.int>
  %d = prim.DictConstruct %k, %x, %k, %y : (!ts.str, !ts.tensor, !ts.str, !ts.tensor<f32>) -> !ts.dict<!ts.str, !ts.tensor>
  %empty_dict = prim.DictConstruct : () -> !ts.dict<!ts.int, !ts.float>
  func.return
}

// CHECK-LABEL: func.func @lists_and_dicts(%x: !ts.tensor, %y: !ts.tensor<f32>, %k: !ts.str) {
// CHECK-NEXT:    %l = prim.ListConstruct %x, %y : (!ts.tensor, !ts.tensor<f32>) -> !ts.list<!ts.tensor>
// CHECK-NEXT:    %empty = prim.ListConstruct : () -> !ts.list<!ts.int>
// CHECK-NEXT:    %a, %b = prim.ListUnpack %l : !ts.list<!ts.tensor> -> !ts.tensor<f32, [?, ?]>, !ts.tensor
// CHECK-NEXT:    prim.ListUnpack %empty : !ts.list<!ts.int>
// CHECK-NEXT:    %d = prim.DictConstruct %k, %x, %k, %y : (!ts.str, !ts.tensor, !ts.str, !ts.tensor<f32>) -> !ts.dict<!ts.str, !ts.tensor>
// CHECK-NEXT:    %empty_dict = prim.DictConstruct : () -> !ts.dict<!ts.int, !ts.float>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "lists_and_dicts"
// CHECK-GENERIC:         %l = "prim.ListConstruct"(%x, %y) : (!ts.tensor, !ts.tensor<f32>) -> !ts.list<!ts.tensor>
// CHECK-GENERIC-NEXT:    %empty = "prim.ListConstruct"() : () -> !ts.list<!ts.int>
// CHECK-GENERIC-NEXT:    %a, %b = "prim.ListUnpack"(%l) : (!ts.list<!ts.tensor>) -> (!ts.tensor<f32, [?, ?]>, !ts.tensor)
// CHECK-GENERIC-NEXT:    "prim.ListUnpack"(%empty) : (!ts.list<!ts.int>) -> ()
// CHECK-GENERIC-NEXT:    %d = "prim.DictConstruct"(%k, %x, %k, %y) : (!ts.str, !ts.tensor, !ts.str, !ts.tensor<f32>) -> !ts.dict<!ts.str, !ts.tensor>
// CHECK-GENERIC-NEXT:    %empty_dict = "prim.DictConstruct"() : () -> !ts.dict<!ts.int, !ts.float>

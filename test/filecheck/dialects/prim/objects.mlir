// RUN: TS_ROUNDTRIP
// RUN: TS_GENERIC_ROUNDTRIP

// Objects and calls: attributes of modules and classes, methods, functions.

func.func @forward(%self : !ts.class<"__torch__.M">, %x.1 : !ts.tensor, %fn : !ts.opaque<"Function">) -> !ts.tensor {
  %weight = prim.GetAttr[name = "weight"] %self : !ts.class<"__torch__.M"> -> !ts.tensor
  %sub = prim.GetAttr[name = "sub"] %self : !ts.class<"__torch__.M"> -> !ts.class<"__torch__.Sub">
  prim.SetAttr[name = "last"] %self, %x.1 : !ts.class<"__torch__.M">, !ts.tensor
  %y = prim.CallMethod[name = "forward"] %sub, %x.1, %weight : (!ts.class<"__torch__.Sub">, !ts.tensor, !ts.tensor) -> !ts.tensor
  prim.CallMethod[name = "reset"] %sub : (!ts.class<"__torch__.Sub">) -> ()
  %p = prim.CreateObject : !ts.class<"__torch__.Point">
  %z = prim.CallFunction %fn, %y : (!ts.opaque<"Function">, !ts.tensor) -> !ts.tensor
  %a, %b = prim.CallFunction %fn : (!ts.opaque<"Function">) -> (!ts.int, !ts.int)
  func.return %z : !ts.tensor
}

// CHECK-LABEL: func.func @forward(%self: !ts.class<"__torch__.M">, %x.1: !ts.tensor, %fn: !ts.opaque<"Function">) -> !ts.tensor {
// CHECK-NEXT:    %weight = prim.GetAttr[name = "weight"] %self : !ts.class<"__torch__.M"> -> !ts.tensor
// CHECK-NEXT:    %sub = prim.GetAttr[name = "sub"] %self : !ts.class<"__torch__.M"> -> !ts.class<"__torch__.Sub">
// CHECK-NEXT:    prim.SetAttr[name = "last"] %self, %x.1 : !ts.class<"__torch__.M">, !ts.tensor
// CHECK-NEXT:    %y = prim.CallMethod[name = "forward"] %sub, %x.1, %weight : (!ts.class<"__torch__.Sub">, !ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    prim.CallMethod[name = "reset"] %sub : (!ts.class<"__torch__.Sub">) -> ()
// CHECK-NEXT:    %p = prim.CreateObject : !ts.class<"__torch__.Point">
// CHECK-NEXT:    %z = prim.CallFunction %fn, %y : (!ts.opaque<"Function">, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %a, %b = prim.CallFunction %fn : (!ts.opaque<"Function">) -> (!ts.int, !ts.int)
// CHECK-NEXT:    func.return %z : !ts.tensor
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "forward"
// CHECK-GENERIC:         %weight = "prim.GetAttr"(%self) <{name = "weight"}> : (!ts.class<"__torch__.M">) -> !ts.tensor
// CHECK-GENERIC-NEXT:    %sub = "prim.GetAttr"(%self) <{name = "sub"}> : (!ts.class<"__torch__.M">) -> !ts.class<"__torch__.Sub">
// CHECK-GENERIC-NEXT:    "prim.SetAttr"(%self, %x.1) <{name = "last"}> : (!ts.class<"__torch__.M">, !ts.tensor) -> ()
// CHECK-GENERIC-NEXT:    %y = "prim.CallMethod"(%sub, %x.1, %weight) <{name = "forward"}> : (!ts.class<"__torch__.Sub">, !ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-GENERIC-NEXT:    "prim.CallMethod"(%sub) <{name = "reset"}> : (!ts.class<"__torch__.Sub">) -> ()
// CHECK-GENERIC-NEXT:    %p = "prim.CreateObject"() : () -> !ts.class<"__torch__.Point">
// CHECK-GENERIC-NEXT:    %z = "prim.CallFunction"(%fn, %y) : (!ts.opaque<"Function">, !ts.tensor) -> !ts.tensor
// CHECK-GENERIC-NEXT:    %a, %b = "prim.CallFunction"(%fn) : (!ts.opaque<"Function">) -> (!ts.int, !ts.int)

// RUN: TS_ROUNDTRIP
// RUN: TS_GENERIC_ROUNDTRIP

// The ops of classes, enums, interfaces, unions and fork/wait.

prim.Enum "__torch__.m.Color" : !ts.int [RED = 1, GREEN = 2]
prim.Enum "__torch__.m.Mode" : !ts.str [FAST = "fast", SLOW = "slow"]
func.func private @helper(!ts.tensor, !ts.int) -> !ts.tensor
func.func @forward(%x : !ts.tensor, %u : !ts.union<!ts.int, !ts.str>, %sub : !ts.interface<"__torch__.m.OneArg">) -> !ts.tensor {
  %red = prim.Constant "__torch__.m.Color.RED" : !ts.enum<"__torch__.m.Color">
  %all = prim.Constant ["__torch__.m.Color.RED", "__torch__.m.Color.GREEN"] : !ts.list<!ts.enum<"__torch__.m.Color">>
  %value = prim.EnumValue %red : (!ts.enum<"__torch__.m.Color">) -> !ts.int
  %is_int = prim.isinstance %u [!ts.int, !ts.list<!ts.int>] : !ts.union<!ts.int, !ts.str>
  %p = prim.CreateObject : !ts.class<"__torch__.m.Pair">
  prim.SetAttr[name = "a"] %p, %value : !ts.class<"__torch__.m.Pair">, !ts.int
  %a = prim.GetAttr[name = "a"] %p : !ts.class<"__torch__.m.Pair"> -> !ts.int
  %y = prim.CallMethod[name = "forward"] %sub, %x : (!ts.interface<"__torch__.m.OneArg">, !ts.tensor) -> !ts.tensor
  %fut = prim.fork(%b = %y : !ts.tensor, %k = %a : !ts.int) -> (!ts.future<!ts.tensor>) {
    %r = func.call @helper(%b, %k) : (!ts.tensor, !ts.int) -> !ts.tensor
    prim.Yield %r : !ts.tensor
  }
  %w = aten.wait %fut : (!ts.future<!ts.tensor>) -> !ts.tensor
  func.return %w : !ts.tensor
}

// CHECK:      prim.Enum "__torch__.m.Color" : !ts.int [RED = 1, GREEN = 2]
// CHECK-NEXT: prim.Enum "__torch__.m.Mode" : !ts.str [FAST = "fast", SLOW = "slow"]
// CHECK-LABEL: func.func @forward(%x: !ts.tensor, %u: !ts.union<!ts.int, !ts.str>, %sub: !ts.interface<"__torch__.m.OneArg">) -> !ts.tensor {
// CHECK-NEXT:    %red = prim.Constant "__torch__.m.Color.RED" : !ts.enum<"__torch__.m.Color">
// CHECK-NEXT:    %all = prim.Constant ["__torch__.m.Color.RED", "__torch__.m.Color.GREEN"] : !ts.list<!ts.enum<"__torch__.m.Color">>
// CHECK-NEXT:    %value = prim.EnumValue %red : (!ts.enum<"__torch__.m.Color">) -> !ts.int
// CHECK-NEXT:    %is_int = prim.isinstance %u [!ts.int, !ts.list<!ts.int>] : !ts.union<!ts.int, !ts.str>
// CHECK-NEXT:    %p = prim.CreateObject : !ts.class<"__torch__.m.Pair">
// CHECK-NEXT:    prim.SetAttr[name = "a"] %p, %value : !ts.class<"__torch__.m.Pair">, !ts.int
// CHECK-NEXT:    %a = prim.GetAttr[name = "a"] %p : !ts.class<"__torch__.m.Pair"> -> !ts.int
// CHECK-NEXT:    %y = prim.CallMethod[name = "forward"] %sub, %x : (!ts.interface<"__torch__.m.OneArg">, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %fut = prim.fork(%b = %y : !ts.tensor, %k = %a : !ts.int) -> (!ts.future<!ts.tensor>) {
// CHECK-NEXT:      %r = func.call @helper(%b, %k) : (!ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %r : !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    %w = aten.wait %fut : (!ts.future<!ts.tensor>) -> !ts.tensor
// CHECK-NEXT:    func.return %w : !ts.tensor
// CHECK-NEXT:  }

// CHECK-GENERIC:      "prim.Enum"() <{name = "__torch__.m.Color", value_type = !ts.int, members = ["RED", "GREEN"], values = [1 : i64, 2 : i64]}> : () -> ()
// CHECK-GENERIC:      %is_int = "prim.isinstance"(%u) <{types = [!ts.int, !ts.list<!ts.int>]}> : (!ts.union<!ts.int, !ts.str>) -> !ts.bool
// CHECK-GENERIC:      %fut = "prim.fork"(%y, %a) ({
// CHECK-GENERIC-NEXT:  ^bb0(%b: !ts.tensor, %k: !ts.int):

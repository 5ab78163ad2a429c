# RUN: ts-translate --script %s | filecheck %s
# A user class: `__init__` defines the attributes (typed by what it assigns, or by an
# annotation), methods are `prim.CallMethod`s, a property its getter and setter methods,
# a static method a function; constructing is `prim.CreateObject` then `__init__`.
import torch
from torch import Tensor
from typing import List


class Pair:
    def __init__(self, a: int, b: Tensor):
        self.a = a
        self.b = b
        self.seen: List[int] = []

    @property
    def scale(self) -> int:
        return self.a

    @scale.setter
    def scale(self, value: int):
        self.a = value

    def __len__(self) -> int:
        return len(self.seen)

    @staticmethod
    def unit(b: Tensor) -> "Pair":
        return Pair(1, b)


def forward(x: Tensor, k: int) -> Tensor:
    p = Pair(k, x)
    p.scale = k + 1
    q = Pair.unit(x)
    return p.b * p.scale + len(q)


# CHECK-LABEL: func.func @__torch__.classes.Pair.__init__(%self: !ts.class<"__torch__.classes.Pair">, %a: !ts.int, %b: !ts.tensor) -> !ts.none {
# CHECK:         prim.SetAttr[name = "a"] %self, %a : !ts.class<"__torch__.classes.Pair">, !ts.int
# CHECK-NEXT:    prim.SetAttr[name = "b"] %self, %b : !ts.class<"__torch__.classes.Pair">, !ts.tensor
# CHECK-NEXT:    %[[SEEN:.*]] = prim.ListConstruct : () -> !ts.list<!ts.int>
# CHECK-NEXT:    prim.SetAttr[name = "seen"] %self, %[[SEEN]] : !ts.class<"__torch__.classes.Pair">, !ts.list<!ts.int>
# CHECK-LABEL: func.func @__torch__.classes.Pair.__scale_getter(%self: !ts.class<"__torch__.classes.Pair">) -> !ts.int {
# CHECK-LABEL: func.func @__torch__.classes.Pair.__scale_setter(%self: !ts.class<"__torch__.classes.Pair">, %value: !ts.int) -> !ts.none {
# CHECK-LABEL: func.func @__torch__.classes.Pair.__len__(%self: !ts.class<"__torch__.classes.Pair">) -> !ts.int {
# CHECK-LABEL: func.func @__torch__.classes.Pair.unit(%b: !ts.tensor) -> !ts.class<"__torch__.classes.Pair"> {
# CHECK:         %[[NEW:.*]] = prim.CreateObject : !ts.class<"__torch__.classes.Pair">
# CHECK-NEXT:    %{{.*}} = prim.CallMethod[name = "__init__"] %[[NEW]], %{{.*}}, %b : (!ts.class<"__torch__.classes.Pair">, !ts.int, !ts.tensor) -> !ts.none
# CHECK-NEXT:    func.return %[[NEW]] : !ts.class<"__torch__.classes.Pair">
# CHECK-LABEL: func.func @forward(%x: !ts.tensor, %k: !ts.int) -> !ts.tensor {
# CHECK:         %p = prim.CreateObject : !ts.class<"__torch__.classes.Pair">
# CHECK-NEXT:    %{{.*}} = prim.CallMethod[name = "__init__"] %p, %k, %x : (!ts.class<"__torch__.classes.Pair">, !ts.int, !ts.tensor) -> !ts.none
# CHECK-NEXT:    %[[K1:.*]] = aten.add %k, %{{.*}} : (!ts.int, !ts.int) -> !ts.int
# CHECK-NEXT:    %{{.*}} = prim.CallMethod[name = "__scale_setter"] %p, %[[K1]] : (!ts.class<"__torch__.classes.Pair">, !ts.int) -> !ts.none
# CHECK-NEXT:    %q = func.call @__torch__.classes.Pair.unit(%x) : (!ts.tensor) -> !ts.class<"__torch__.classes.Pair">
# CHECK-NEXT:    %b = prim.GetAttr[name = "b"] %p : !ts.class<"__torch__.classes.Pair"> -> !ts.tensor
# CHECK-NEXT:    %[[S:.*]] = prim.CallMethod[name = "__scale_getter"] %p : (!ts.class<"__torch__.classes.Pair">) -> !ts.int
# CHECK-NEXT:    %[[M:.*]] = aten.mul %b, %[[S]] : (!ts.tensor, !ts.int) -> !ts.tensor
# CHECK-NEXT:    %[[L:.*]] = prim.CallMethod[name = "__len__"] %q : (!ts.class<"__torch__.classes.Pair">) -> !ts.int

# RUN: ts-translate --script %s | filecheck %s
# A torch.nn.Module: `self.x` reads parameters, buffers and attributes with
# prim.GetAttr, constants (`__constants__`, Final) are inlined, submodules are called
# with prim.CallMethod on their class's compiled `forward`, and a Sequential is
# iterated by unrolling. Classes are named as PyTorch names them.
import torch
from typing import Final


class Scale(torch.nn.Module):
    factor: Final[float] = 0.5

    def forward(self, x):
        return x * self.factor


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU(), Scale())
        self.register_buffer("offset", torch.ones(4))
        self.steps = 2

    def shift(self, x):
        return x + self.offset

    def forward(self, x):
        for _ in range(self.steps):
            x = self.body(x)
        return self.shift(x)


# CHECK-LABEL: func.func @__torch__.torch.nn.modules.linear.Linear.forward(%self: !ts.class<"__torch__.torch.nn.modules.linear.Linear">, %input: !ts.tensor) -> !ts.tensor
# CHECK-NEXT:    %weight = prim.GetAttr[name = "weight"] %self : !ts.class<"__torch__.torch.nn.modules.linear.Linear"> -> !ts.tensor
# CHECK-NEXT:    %bias = prim.GetAttr[name = "bias"] %self : !ts.class<"__torch__.torch.nn.modules.linear.Linear"> -> !ts.tensor
# CHECK-NEXT:    %[[Y:.*]] = aten.linear %input, %weight, %bias : (!ts.tensor, !ts.tensor, !ts.tensor) -> !ts.tensor
# CHECK-NEXT:    func.return %[[Y]] : !ts.tensor
# ReLU.forward calls F.relu, compiled from tsjit's TorchScript source.
# CHECK-LABEL: func.func @torch.nn.functional.relu(%input: !ts.tensor, %inplace: !ts.bool) -> !ts.tensor
# CHECK-LABEL: func.func @__torch__.torch.nn.modules.activation.ReLU.forward
# CHECK:         func.call @torch.nn.functional.relu(%input, %{{.*}}) : (!ts.tensor, !ts.bool) -> !ts.tensor
# The Final attribute is a constant.
# CHECK-LABEL: func.func @__torch__.module.Scale.forward(%self: !ts.class<"__torch__.module.Scale">, %x: !ts.tensor) -> !ts.tensor
# CHECK-NEXT:    %[[HALF:.*]] = prim.Constant 0.5 : !ts.float
# CHECK-NEXT:    %[[R:.*]] = aten.mul %x, %[[HALF]] : (!ts.tensor, !ts.float) -> !ts.tensor
# The Sequential's loop over its modules is unrolled.
# CHECK-LABEL: func.func @__torch__.torch.nn.modules.container.Sequential.forward
# CHECK-DAG:     %[[M0:.*]] = prim.GetAttr[name = "0"] %self : {{.*}} -> !ts.class<"__torch__.torch.nn.modules.linear.Linear">
# CHECK-DAG:     %[[M1:.*]] = prim.GetAttr[name = "1"] %self : {{.*}} -> !ts.class<"__torch__.torch.nn.modules.activation.ReLU">
# CHECK-DAG:     %[[M2:.*]] = prim.GetAttr[name = "2"] %self : {{.*}} -> !ts.class<"__torch__.module.Scale">
# CHECK:         %[[A:.*]] = prim.CallMethod[name = "forward"] %[[M0]], %input
# CHECK-NEXT:    %[[B:.*]] = prim.CallMethod[name = "forward"] %[[M1]], %[[A]]
# CHECK-NEXT:    %[[C:.*]] = prim.CallMethod[name = "forward"] %[[M2]], %[[B]]
# CHECK-NEXT:    func.return %[[C]] : !ts.tensor
# CHECK-LABEL: func.func @__torch__.module.Model.shift(%self: !ts.class<"__torch__.module.Model">, %x: !ts.tensor) -> !ts.tensor
# CHECK-NEXT:    %[[ONE:.*]] = prim.Constant 1 : !ts.int
# CHECK-NEXT:    %offset = prim.GetAttr[name = "offset"] %self : !ts.class<"__torch__.module.Model"> -> !ts.tensor
# The entry method keeps its plain name; other methods are `<class>.<method>`.
# CHECK-LABEL: func.func @forward(%self: !ts.class<"__torch__.module.Model">, %x: !ts.tensor) -> !ts.tensor
# CHECK:         %steps = prim.GetAttr[name = "steps"] %self : !ts.class<"__torch__.module.Model"> -> !ts.int
# CHECK-NEXT:    %[[X:.*]] = prim.Loop %steps, %{{.*}} iter(%{{.*}}) carried(%[[XC:.*]] = %x : !ts.tensor) -> (!ts.tensor) {
# CHECK-NEXT:      %body = prim.GetAttr[name = "body"] %self : !ts.class<"__torch__.module.Model"> -> !ts.class<"__torch__.torch.nn.modules.container.Sequential">
# CHECK-NEXT:      %[[XN:.*]] = prim.CallMethod[name = "forward"] %body, %[[XC]] : (!ts.class<"__torch__.torch.nn.modules.container.Sequential">, !ts.tensor) -> !ts.tensor
# CHECK:         %{{.*}} = prim.CallMethod[name = "shift"] %self, %[[X]] : (!ts.class<"__torch__.module.Model">, !ts.tensor) -> !ts.tensor

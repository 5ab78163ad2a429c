# RUN: ts-translate --script %s | filecheck %s
# `torch.jit.fork(fn, args)`: the arguments are evaluated where the fork is, the call
# runs in the region of a `prim.fork` whose inputs are the values it captures; the
# fork gives a future, which `torch.jit.wait` (`aten.wait`) reads.
import torch
from torch import Tensor


def scaled(x: Tensor, k: int) -> Tensor:
    return x * k


def forward(x: Tensor, n: int) -> Tensor:
    fut = torch.jit.fork(scaled, x + 1, k=n)
    y = x - 1
    return torch.jit.wait(fut) + y


# CHECK-LABEL: func.func @forward(%x: !ts.tensor, %n: !ts.int) -> !ts.tensor {
# CHECK:         %[[X1:.*]] = aten.add %x, %{{.*}}, %{{.*}} : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
# CHECK-NEXT:    %fut = prim.fork(%[[A:.*]] = %[[X1]] : !ts.tensor, %[[K:.*]] = %n : !ts.int) -> (!ts.future<!ts.tensor>) {
# CHECK-NEXT:      %[[R:.*]] = func.call @scaled(%[[A]], %[[K]]) : (!ts.tensor, !ts.int) -> !ts.tensor
# CHECK-NEXT:      prim.Yield %[[R]] : !ts.tensor
# CHECK-NEXT:    }
# CHECK-NEXT:    %y = aten.sub %x, %{{.*}}, %{{.*}} : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
# CHECK-NEXT:    %[[W:.*]] = aten.wait %fut : (!ts.future<!ts.tensor>) -> !ts.tensor
# CHECK-NEXT:    %{{.*}} = aten.add %[[W]], %y, %{{.*}} : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor

# RUN: ts-translate --script %s | filecheck %s
# torch.* functions and Tensor methods resolve through the schema table: the most
# specific overload wins, every argument (defaults and keyword-only ones included) is
# an operand, a single int fills `int[N]`, trailing ints pack into `int[]`, a tuple
# becomes a list; `x.float()`-style casts are `aten.to`, `x.shape` is `aten.size`.
import math
import torch


def forward(x, y, n: int):
    a = torch.add(x, y, alpha=2)
    b = x.sum(1, keepdim=True)
    c = x.view(3, 4)
    d = torch.zeros((2, n), dtype=torch.int64)
    e = x.float()
    f = x.shape[0]
    g = math.sqrt(float(n)) + math.pi
    return a, b, c, d, e, f, g


# CHECK-LABEL: func.func @forward
# CHECK-DAG:     %[[NONE:.*]] = prim.Constant : !ts.none
# CHECK-DAG:     %[[TWO:.*]] = prim.Constant 2 : !ts.int
# CHECK-DAG:     %[[TRUE:.*]] = prim.Constant true : !ts.bool
# CHECK-DAG:     %[[FALSE:.*]] = prim.Constant false : !ts.bool
# CHECK-DAG:     %[[LONG:.*]] = prim.Constant 4 : !ts.int
# CHECK-DAG:     %[[FLOAT:.*]] = prim.Constant 6 : !ts.int
# CHECK-DAG:     %[[PI:.*]] = prim.Constant 3.141592653589793 : !ts.float
# add.Tensor with its keyword-only alpha.
# CHECK:         %a = aten.add %x, %y, %[[TWO]] : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
# sum.dim_IntList: 1 fills int[1] dim; the keyword-only dtype defaults to None.
# CHECK-NEXT:    %[[DIM:.*]] = prim.ListConstruct %{{.*}} : (!ts.int) -> !ts.list<!ts.int>
# CHECK-NEXT:    %b = aten.sum %x, %[[DIM]], %[[TRUE]], %[[NONE]] : (!ts.tensor, !ts.list<!ts.int>, !ts.bool, !ts.none) -> !ts.tensor
# view(3, 4): the ints pack into SymInt[] size.
# CHECK-NEXT:    %[[SIZE:.*]] = prim.ListConstruct %{{.*}}, %{{.*}} : (!ts.int, !ts.int) -> !ts.list<!ts.int>
# CHECK-NEXT:    %c = aten.view %x, %[[SIZE]] : (!ts.tensor, !ts.list<!ts.int>) -> !ts.tensor
# zeros((2, n)): the tuple becomes a list; dtype is the ScalarType code of torch.int64.
# CHECK-NEXT:    %[[SHAPE:.*]] = prim.ListConstruct %[[TWO]], %n : (!ts.int, !ts.int) -> !ts.list<!ts.int>
# CHECK-NEXT:    %d = aten.zeros %[[SHAPE]], %[[LONG]], %[[NONE]], %[[NONE]], %[[NONE]] : (!ts.list<!ts.int>, !ts.int, !ts.none, !ts.none, !ts.none) -> !ts.tensor
# x.float() is to.dtype(x, 6, non_blocking=False, copy=False, memory_format=None).
# CHECK-NEXT:    %e = aten.to %x, %[[FLOAT]], %[[FALSE]], %[[FALSE]], %[[NONE]] : (!ts.tensor, !ts.int, !ts.bool, !ts.bool, !ts.none) -> !ts.tensor
# x.shape is TorchScript's builtin `shape(a)`, inlined: `a.size()`.
# CHECK-NEXT:    %[[SHAPEOF:.*]] = aten.size %x : (!ts.tensor) -> !ts.list<!ts.int>
# CHECK-NEXT:    %f = aten.__getitem__ %[[SHAPEOF]], %{{.*}} : (!ts.list<!ts.int>, !ts.int) -> !ts.int
# CHECK-NEXT:    %[[FN:.*]] = aten.Float %n : (!ts.int) -> !ts.float
# CHECK-NEXT:    %[[ROOT:.*]] = aten.sqrt %[[FN]] : (!ts.float) -> !ts.float
# CHECK-NEXT:    %g = aten.add %[[ROOT]], %[[PI]] : (!ts.float, !ts.float) -> !ts.float

# RUN: ts-translate --script %s | filecheck %s
# Calls to other functions of the file are `func.call`s of their compiled graphs
# (callees first in the module); keyword arguments and defaults are matched against
# the callee's signature, and an argument of a subtype is cast to the parameter type.
import torch
from typing import Optional


def scale_add(x, y, alpha: float = 1.0, bias: Optional[int] = None):
    if bias is None:
        return x * alpha + y
    return x * alpha + y + bias


def forward(x, y):
    a = scale_add(x, y, 0.5)
    b = scale_add(y=y, x=a, bias=3)
    return a, b


# CHECK-LABEL: func.func @scale_add(%x: !ts.tensor, %y: !ts.tensor, %alpha: !ts.float, %bias: !ts.optional<!ts.int>) -> !ts.tensor
# CHECK-LABEL: func.func @forward(%x: !ts.tensor, %y: !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.tensor>
# CHECK-DAG:     %[[HALF:.*]] = prim.Constant 0.5 : !ts.float
# CHECK-DAG:     %[[NONE:.*]] = prim.Constant : !ts.none
# CHECK-DAG:     %[[ONE:.*]] = prim.Constant 1.0 : !ts.float
# CHECK-DAG:     %[[THREE:.*]] = prim.Constant 3 : !ts.int
# CHECK:         %[[NOBIAS:.*]] = prim.unchecked_cast %[[NONE]] : !ts.none -> !ts.optional<!ts.int>
# CHECK-NEXT:    %a = func.call @scale_add(%x, %y, %[[HALF]], %[[NOBIAS]]) : (!ts.tensor, !ts.tensor, !ts.float, !ts.optional<!ts.int>) -> !ts.tensor
# CHECK-NEXT:    %[[BIAS:.*]] = prim.unchecked_cast %[[THREE]] : !ts.int -> !ts.optional<!ts.int>
# CHECK-NEXT:    %b = func.call @scale_add(%a, %y, %[[ONE]], %[[BIAS]]) : (!ts.tensor, !ts.tensor, !ts.float, !ts.optional<!ts.int>) -> !ts.tensor

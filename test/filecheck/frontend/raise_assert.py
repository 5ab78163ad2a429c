# RUN: ts-translate --script %s | filecheck %s
# `raise X(msg)` is `prim.RaiseException(msg, "builtins.X")`; a bare class raises an
# empty message; `assert` raises "AssertionError: msg" (class None) when false.
import torch


def forward(x, n: int, s: str):
    assert x.dim() == 1, "expected a vector"
    assert n != 7, "bad " + s
    if n < 0:
        raise ValueError("n must be non-negative")
    if n > 100:
        raise RuntimeError
    return x * n


# CHECK-LABEL: func.func @forward
# CHECK-DAG:   %[[NONE:.*]] = prim.Constant : !ts.none
# CHECK-DAG:   %[[VECTOR:.*]] = prim.Constant "AssertionError: expected a vector" : !ts.str
# CHECK-DAG:   %[[PREFIX:.*]] = prim.Constant "AssertionError: " : !ts.str
# CHECK-DAG:   %[[NEGATIVE:.*]] = prim.Constant "n must be non-negative" : !ts.str
# CHECK-DAG:   %[[VALUEERROR:.*]] = prim.Constant "builtins.ValueError" : !ts.str
# CHECK-DAG:   %[[EMPTY:.*]] = prim.Constant "" : !ts.str
# CHECK:       %[[DIM:.*]] = aten.dim %x : (!ts.tensor) -> !ts.int
# CHECK-NEXT:  %[[EQ:.*]] = aten.eq %[[DIM]], %{{.*}} : (!ts.int, !ts.int) -> !ts.bool
# CHECK-NEXT:  prim.If %[[EQ]] {
# CHECK-NEXT:    prim.Yield
# CHECK-NEXT:  } else {
# CHECK-NEXT:    prim.RaiseException %[[VECTOR]], %[[NONE]] : !ts.none
# CHECK-NEXT:    prim.Yield
# CHECK-NEXT:  }
# CHECK:       prim.If %{{.*}} {
# CHECK-NEXT:    prim.Yield
# CHECK-NEXT:  } else {
# CHECK-NEXT:    %[[BAD:.*]] = aten.add %{{.*}}, %s : (!ts.str, !ts.str) -> !ts.str
# CHECK-NEXT:    %[[MSG:.*]] = aten.add %[[PREFIX]], %[[BAD]] : (!ts.str, !ts.str) -> !ts.str
# CHECK-NEXT:    prim.RaiseException %[[MSG]], %[[NONE]] : !ts.none
# CHECK:       prim.If %{{.*}} {
# CHECK-NEXT:    prim.RaiseException %[[NEGATIVE]], %[[VALUEERROR]] : !ts.str
# CHECK:       prim.If %{{.*}} {
# CHECK-NEXT:    prim.RaiseException %[[EMPTY]], %[[NONE]] : !ts.none

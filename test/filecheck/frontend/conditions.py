# RUN: ts-translate --script %s | filecheck %s
# `and`/`or` short-circuit into prim.If, `not`, `is`/`is not` None, `in`, chained
# comparisons (the middle operand in both comparisons, as TorchScript emits it).
import torch
from typing import List, Optional


def forward(a: int, b: int, flag: bool, xs: List[int], o: Optional[int]):
    c1 = a < b and flag
    c2 = a == b or not flag
    c3 = 0 <= a < 4
    c4 = a in xs
    c5 = a not in xs
    c6 = o is None
    return c1, c2, c3, c4, c5, c6


# CHECK-LABEL: func.func @forward
# CHECK-DAG:   %[[FALSE:.*]] = prim.Constant false : !ts.bool
# CHECK-DAG:   %[[TRUE:.*]] = prim.Constant true : !ts.bool
# CHECK-DAG:   %[[NONE:.*]] = prim.Constant : !ts.none
# CHECK:       %[[LT:.*]] = aten.lt %a, %b : (!ts.int, !ts.int) -> !ts.bool
# CHECK-NEXT:  %c1 = prim.If %[[LT]] -> (!ts.bool) {
# CHECK-NEXT:    prim.Yield %flag : !ts.bool
# CHECK-NEXT:  } else {
# CHECK-NEXT:    prim.Yield %[[FALSE]] : !ts.bool
# CHECK-NEXT:  }
# CHECK-NEXT:  %[[EQ:.*]] = aten.eq %a, %b : (!ts.int, !ts.int) -> !ts.bool
# CHECK-NEXT:  %c2 = prim.If %[[EQ]] -> (!ts.bool) {
# CHECK-NEXT:    prim.Yield %[[TRUE]] : !ts.bool
# CHECK-NEXT:  } else {
# CHECK-NEXT:    %[[NOT:.*]] = aten.__not__ %flag : (!ts.bool) -> !ts.bool
# CHECK-NEXT:    prim.Yield %[[NOT]] : !ts.bool
# CHECK-NEXT:  }
# CHECK-NEXT:  %[[LE:.*]] = aten.le %{{.*}}, %a : (!ts.int, !ts.int) -> !ts.bool
# CHECK-NEXT:  %c3 = prim.If %[[LE]] -> (!ts.bool) {
# CHECK-NEXT:    %[[LT4:.*]] = aten.lt %a, %{{.*}} : (!ts.int, !ts.int) -> !ts.bool
# CHECK-NEXT:    prim.Yield %[[LT4]] : !ts.bool
# CHECK-NEXT:  } else {
# CHECK-NEXT:    prim.Yield %[[FALSE]] : !ts.bool
# CHECK-NEXT:  }
# `a in xs` is `xs.__contains__(a)`.
# CHECK-NEXT:  %c4 = aten.__contains__ %xs, %a : (!ts.list<!ts.int>, !ts.int) -> !ts.bool
# CHECK-NEXT:  %[[IN:.*]] = aten.__contains__ %xs, %a : (!ts.list<!ts.int>, !ts.int) -> !ts.bool
# CHECK-NEXT:  %c5 = aten.__not__ %[[IN]] : (!ts.bool) -> !ts.bool
# CHECK-NEXT:  %c6 = aten.__is__ %o, %[[NONE]] : (!ts.optional<!ts.int>, !ts.none) -> !ts.bool

# RUN: ts-translate --script %s | filecheck %s
# Types come from PEP 484 annotations, `# type:` comments, or default to Tensor for
# parameters; locals are inferred; an annotated empty list has its element type.
import torch
from typing import Dict, List, Optional, Tuple


def annotated(a: int, b: List[float], c: Optional[Dict[str, int]], d: Tuple[int, str]) -> float:
    return b[a]


def commented(x, n, flag):
    # type: (Tensor, int, bool) -> Tuple[Tensor, List[int]]
    ys = []  # type: List[int]
    ys.append(n)
    return x, ys


def forward(x, a: int):
    unannotated = x
    inferred = a * 2.5
    return annotated(a, [inferred], None, (a, "s")), commented(unannotated, a, True)


# CHECK-LABEL: func.func @annotated(%a: !ts.int, %b: !ts.list<!ts.float>, %c: !ts.optional<!ts.dict<!ts.str, !ts.int>>, %d: !ts.tuple<!ts.int, !ts.str>) -> !ts.float
# CHECK-LABEL: func.func @commented(%x: !ts.tensor, %n: !ts.int, %flag: !ts.bool) -> !ts.tuple<!ts.tensor, !ts.list<!ts.int>>
# CHECK:         %ys = prim.ListConstruct : () -> !ts.list<!ts.int>
# CHECK-LABEL: func.func @forward(%x: !ts.tensor, %a: !ts.int)
# CHECK:         %inferred = aten.mul %a, %{{.*}} : (!ts.int, !ts.float) -> !ts.float
# CHECK-NEXT:    %[[LIST:.*]] = prim.ListConstruct %inferred : (!ts.float) -> !ts.list<!ts.float>
# The None is cast to the Optional parameter type of the call.
# CHECK:         prim.unchecked_cast %{{.*}} : !ts.none -> !ts.optional<!ts.dict<!ts.str, !ts.int>>

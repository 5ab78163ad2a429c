# RUN: ts-translate --script %s | filecheck %s
# Optional refinement: `is not None` in an if, `assert ... is not None`, `isinstance`;
# the refined value is a `prim.unchecked_cast` to the element type.
import torch
from typing import Optional


def forward(x, bias: Optional[torch.Tensor], scale: Optional[float], n: Optional[int]):
    y = x
    if bias is not None:
        y = y + bias
    assert n is not None
    k = n + 1
    if isinstance(scale, float):
        y = y * scale
    return y, k, x if scale is None else x * 2


# CHECK-LABEL: func.func @forward(%x: !ts.tensor, %bias: !ts.optional<!ts.tensor>, %scale: !ts.optional<!ts.float>, %n: !ts.optional<!ts.int>)
# CHECK:         %[[NB:.*]] = aten.__isnot__ %bias, %{{.*}} : (!ts.optional<!ts.tensor>, !ts.none) -> !ts.bool
# CHECK-NEXT:    %y = prim.If %[[NB]] -> (!ts.tensor) {
# CHECK-NEXT:      %[[B:.*]] = prim.unchecked_cast %bias : !ts.optional<!ts.tensor> -> !ts.tensor
# CHECK-NEXT:      %[[Y:.*]] = aten.add %x, %[[B]], %{{.*}} : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
# The assert refines `n` for the rest of the function.
# CHECK:         %[[NN:.*]] = aten.__isnot__ %n, %{{.*}} : (!ts.optional<!ts.int>, !ts.none) -> !ts.bool
# CHECK-NEXT:    %[[N:.*]] = prim.If %[[NN]] -> (!ts.int) {
# CHECK-NEXT:      %[[CAST:.*]] = prim.unchecked_cast %n : !ts.optional<!ts.int> -> !ts.int
# CHECK-NEXT:      prim.Yield %[[CAST]] : !ts.int
# CHECK-NEXT:    } else {
# CHECK-NEXT:      prim.RaiseException %{{.*}}, %{{.*}} : !ts.none
# CHECK:         %k = aten.add %[[N]], %{{.*}} : (!ts.int, !ts.int) -> !ts.int
# An Optional[float] is a float exactly when it is not None; the branch sees a float.
# CHECK:         %[[IS:.*]] = aten.__isnot__ %scale, %{{.*}} : (!ts.optional<!ts.float>, !ts.none) -> !ts.bool
# CHECK-NEXT:    %{{.*}}, %[[Y2:.*]] = prim.If %[[IS]] -> (!ts.optional<!ts.float>, !ts.tensor) {
# CHECK-NEXT:      %[[S:.*]] = prim.unchecked_cast %scale : !ts.optional<!ts.float> -> !ts.float
# CHECK-NEXT:      %{{.*}} = aten.mul %y, %[[S]] : (!ts.tensor, !ts.float) -> !ts.tensor
# A ternary on `scale is None`.
# CHECK:         %{{.*}} = aten.__is__ %{{.*}}, %{{.*}} : (!ts.optional<!ts.float>, !ts.none) -> !ts.bool

# RUN: ts-translate --script %s | filecheck %s
# An Enum class is declared (`prim.Enum`) with its values; iterating it is a loop over
# the constant list of its members, `m.value` is `prim.EnumValue`. `isinstance` on a
# Union is `prim.isinstance` and refines the variable to the matching members in the
# true branch, to the others in the false branch.
import torch
from enum import Enum
from typing import List, Union


class Color(Enum):
    RED = 1
    GREEN = 2


def forward(c: Color, v: Union[int, List[int]]) -> int:
    total = 0
    for m in Color:
        if m == c:
            total += m.value
    if isinstance(v, int):
        return total + v
    return total + len(v)


# CHECK:       prim.Enum "__torch__.enums_unions.Color" : !ts.int [RED = 1, GREEN = 2]
# CHECK-LABEL: func.func @forward(%c: !ts.enum<"__torch__.enums_unions.Color">, %v: !ts.union<!ts.list<!ts.int>, !ts.int>) -> !ts.int {
# CHECK:         %[[ALL:.*]] = prim.Constant ["__torch__.enums_unions.Color.RED", "__torch__.enums_unions.Color.GREEN"] : !ts.list<!ts.enum<"__torch__.enums_unions.Color">>
# CHECK:           %m = aten.__getitem__ %[[ALL]], %{{.*}} : (!ts.list<!ts.enum<"__torch__.enums_unions.Color">>, !ts.int) -> !ts.enum<"__torch__.enums_unions.Color">
# CHECK-NEXT:      %[[EQ:.*]] = aten.eq %m, %c : (!ts.enum<"__torch__.enums_unions.Color">, !ts.enum<"__torch__.enums_unions.Color">) -> !ts.bool
# CHECK:             %{{.*}} = prim.EnumValue %m : (!ts.enum<"__torch__.enums_unions.Color">) -> !ts.int
# CHECK:         %[[IS:.*]] = prim.isinstance %v [!ts.int] : !ts.union<!ts.list<!ts.int>, !ts.int>
# CHECK-NEXT:    %{{.*}} = prim.If %[[IS]] -> (!ts.int) {
# CHECK-NEXT:      %{{.*}} = prim.unchecked_cast %v : !ts.union<!ts.list<!ts.int>, !ts.int> -> !ts.int
# CHECK:         } else {
# CHECK-NEXT:      %{{.*}} = prim.unchecked_cast %v : !ts.union<!ts.list<!ts.int>, !ts.int> -> !ts.list<!ts.int>

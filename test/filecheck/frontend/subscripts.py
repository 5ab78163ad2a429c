# RUN: ts-translate --script %s | filecheck %s
# Tensor indexing: ints select, slices slice (absent bounds are None), None adds a
# dimension, `...` skips dimensions, a tensor indexes through aten.index; assignment
# copies into the indexed view (a number becomes a tensor of its dtype and device).
import torch


def forward(x, i):
    a = x[0, 1:3]
    b = x[..., None, ::2]
    c = x[i]
    x[0] = 1.5
    x[1:] += 2
    return a, b, c


# CHECK-LABEL: func.func @forward(%x: !ts.tensor, %i: !ts.tensor)
# CHECK-DAG:     %[[ZERO:.*]] = prim.Constant 0 : !ts.int
# CHECK-DAG:     %[[ONE:.*]] = prim.Constant 1 : !ts.int
# CHECK-DAG:     %[[NONE:.*]] = prim.Constant : !ts.none
# x[0, 1:3]: select dim 0, then slice what is now dim 0.
# CHECK:         %[[SEL:.*]] = aten.select %x, %[[ZERO]], %[[ZERO]] : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
# CHECK-NEXT:    %a = aten.slice %[[SEL]], %[[ZERO]], %[[ONE]], %{{.*}}, %[[ONE]] : (!ts.tensor, !ts.int, !ts.int, !ts.int, !ts.int) -> !ts.tensor
# x[..., None, ::2]: counted from the end, None unsqueezes at -1 and the slice is dim -1.
# CHECK-NEXT:    %[[UNSQ:.*]] = aten.unsqueeze %x, %{{.*}} : (!ts.tensor, !ts.int) -> !ts.tensor
# CHECK-NEXT:    %b = aten.slice %[[UNSQ]], %{{.*}}, %[[NONE]], %[[NONE]], %{{.*}} : (!ts.tensor, !ts.int, !ts.none, !ts.none, !ts.int) -> !ts.tensor
# x[i] with a tensor index.
# CHECK-NEXT:    %[[IDX:.*]] = prim.ListConstruct %i : (!ts.tensor) -> !ts.list<!ts.optional<!ts.tensor>>
# CHECK-NEXT:    %c = aten.index %x, %[[IDX]] : (!ts.tensor, !ts.list<!ts.optional<!ts.tensor>>) -> !ts.tensor
# x[0] = 1.5
# CHECK-NEXT:    %[[ROW:.*]] = aten.select %x, %[[ZERO]], %[[ZERO]]
# CHECK-NEXT:    %[[DTYPE:.*]] = prim.dtype %[[ROW]] : (!ts.tensor) -> !ts.int
# CHECK-NEXT:    %[[DEVICE:.*]] = prim.device %[[ROW]] : (!ts.tensor) -> !ts.device
# CHECK-NEXT:    %[[VALUE:.*]] = aten.tensor %{{.*}}, %[[DTYPE]], %[[DEVICE]], %{{.*}} : (!ts.float, !ts.int, !ts.device, !ts.bool) -> !ts.tensor
# CHECK-NEXT:    %{{.*}} = aten.copy_ %[[ROW]], %[[VALUE]], %{{.*}} : (!ts.tensor, !ts.tensor, !ts.bool) -> !ts.tensor
# x[1:] += 2: the in-place op on the view.
# CHECK-NEXT:    %[[TAIL:.*]] = aten.slice %x, %[[ZERO]], %[[ONE]], %[[NONE]], %[[ONE]]
# CHECK-NEXT:    %{{.*}} = aten.add_ %[[TAIL]], %{{.*}}, %[[ONE]] : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor

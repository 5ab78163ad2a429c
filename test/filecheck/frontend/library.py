# RUN: ts-translate --script %s | filecheck %s
# torch.nn.functional: functions PyTorch binds to operators are one op (`F.linear`),
# the others are TorchScript source tsjit ships, called with func.call (`F.softmax`,
# whose `dim is None` branch warns like PyTorch's).
import torch
import torch.nn.functional as F


def forward(x, w, b):
    return F.linear(x, w, b), F.softmax(x, dim=1), F.gelu(x)


# CHECK-LABEL: func.func @torch.nn.functional._get_softmax_dim(%name: !ts.str, %ndim: !ts.int, %stacklevel: !ts.int) -> !ts.int
# CHECK:         aten.warn %{{.*}}, %stacklevel : (!ts.str, !ts.int) -> ()
# CHECK-LABEL: func.func @torch.nn.functional.softmax(%input: !ts.tensor, %dim: !ts.optional<!ts.int>, %_stacklevel: !ts.int, %dtype: !ts.optional<!ts.int>) -> !ts.tensor
# CHECK:         %[[ISNONE:.*]] = aten.__is__ %dim, %{{.*}} : (!ts.optional<!ts.int>, !ts.none) -> !ts.bool
# CHECK-NEXT:    %[[DIM:.*]] = prim.If %[[ISNONE]] -> (!ts.int) {
# CHECK:           func.call @torch.nn.functional._get_softmax_dim
# CHECK:         } else {
# CHECK-NEXT:      %[[D:.*]] = prim.unchecked_cast %dim : !ts.optional<!ts.int> -> !ts.int
# CHECK-NEXT:      prim.Yield %[[D]] : !ts.int
# CHECK:         aten.softmax %input, %[[DIM]], %{{.*}} : (!ts.tensor, !ts.int, !ts.none) -> !ts.tensor
# CHECK-LABEL: func.func @forward(%x: !ts.tensor, %w: !ts.tensor, %b: !ts.tensor)
# CHECK:         %[[L:.*]] = aten.linear %x, %w, %b : (!ts.tensor, !ts.tensor, !ts.tensor) -> !ts.tensor
# CHECK-NEXT:    %[[DIM1:.*]] = prim.unchecked_cast %{{.*}} : !ts.int -> !ts.optional<!ts.int>
# CHECK-NEXT:    %[[NODTYPE:.*]] = prim.unchecked_cast %{{.*}} : !ts.none -> !ts.optional<!ts.int>
# CHECK-NEXT:    %[[S:.*]] = func.call @torch.nn.functional.softmax(%x, %[[DIM1]], %{{.*}}, %[[NODTYPE]]) : (!ts.tensor, !ts.optional<!ts.int>, !ts.int, !ts.optional<!ts.int>) -> !ts.tensor
# CHECK-NEXT:    %[[G:.*]] = aten.gelu %x, %{{.*}} : (!ts.tensor, !ts.str) -> !ts.tensor

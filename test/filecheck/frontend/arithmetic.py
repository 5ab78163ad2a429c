# RUN: ts-translate --script %s | filecheck %s
# Scalar and tensor arithmetic: overloads by type, the implicit Scalar of `alpha`,
# TorchScript-source builtins for `number op Tensor`, folded negative literals.
import torch


def forward(x, a: int, b: float):
    i = a * 2 + a // 3 - a % 5
    f = b / a
    g = float(a) ** 2
    t = 2 * x - 1.5
    return i, f, g, t, -3


# CHECK-LABEL: func.func @forward(%x: !ts.tensor, %a: !ts.int, %b: !ts.float) -> !ts.tuple<!ts.int, !ts.float, !ts.float, !ts.tensor, !ts.int>
# CHECK:       %[[MUL:.*]] = aten.mul %a, %{{.*}} : (!ts.int, !ts.int) -> !ts.int
# CHECK-NEXT:  %[[DIV:.*]] = aten.floordiv %a, %{{.*}} : (!ts.int, !ts.int) -> !ts.int
# CHECK-NEXT:  %[[SUM:.*]] = aten.add %[[MUL]], %[[DIV]] : (!ts.int, !ts.int) -> !ts.int
# CHECK-NEXT:  %[[MOD:.*]] = aten.remainder %a, %{{.*}} : (!ts.int, !ts.int) -> !ts.int
# CHECK-NEXT:  %i = aten.sub %[[SUM]], %[[MOD]] : (!ts.int, !ts.int) -> !ts.int
# CHECK-NEXT:  %f = aten.div %b, %a : (!ts.float, !ts.int) -> !ts.float
# CHECK-NEXT:  %[[FLOAT:.*]] = aten.Float %a : (!ts.int) -> !ts.float
# CHECK-NEXT:  %g = aten.pow %[[FLOAT]], %{{.*}} : (!ts.float, !ts.int) -> !ts.float
# `2 * x` is the builtin `mul(a: int, b: Tensor)`, inlined: `b * a`.
# CHECK-NEXT:  %[[SCALED:.*]] = aten.mul %x, %{{.*}} : (!ts.tensor, !ts.int) -> !ts.tensor
# CHECK-NEXT:  %t = aten.sub %[[SCALED]], %{{.*}}, %{{.*}} : (!ts.tensor, !ts.float, !ts.int) -> !ts.tensor
# CHECK:       prim.TupleConstruct %i, %f, %g, %t, %{{.*}} : (!ts.int, !ts.float, !ts.float, !ts.tensor, !ts.int)

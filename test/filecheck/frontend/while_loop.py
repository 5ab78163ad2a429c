# RUN: ts-translate --script %s | filecheck %s
# A while loop: the condition is evaluated before the loop and again at the end of
# the body; the loop runs up to INT64_MAX times.
import torch


def forward(x, n: int):
    i = 0
    y = x
    while i < n:
        y = y + i
        i += 2
    return y, i


# CHECK-LABEL: func.func @forward(%x: !ts.tensor, %n: !ts.int) -> !ts.tuple<!ts.tensor, !ts.int>
# CHECK-DAG:   %i = prim.Constant 0 : !ts.int
# CHECK-DAG:   %[[MAX:.*]] = prim.Constant 9223372036854775807 : !ts.int
# CHECK:       %[[C0:.*]] = aten.lt %i, %n : (!ts.int, !ts.int) -> !ts.bool
# CHECK-NEXT:  %y, %[[I:.*]] = prim.Loop %[[MAX]], %[[C0]] iter(%{{.*}}) carried(%[[Y0:.*]] = %x : !ts.tensor, %[[I0:.*]] = %i : !ts.int) -> (!ts.tensor, !ts.int) {
# CHECK-NEXT:    %[[Y1:.*]] = aten.add %[[Y0]], %[[I0]], %{{.*}} : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
# CHECK-NEXT:    %[[I1:.*]] = aten.add %[[I0]], %{{.*}} : (!ts.int, !ts.int) -> !ts.int
# CHECK-NEXT:    %[[C:.*]] = aten.lt %[[I1]], %n : (!ts.int, !ts.int) -> !ts.bool
# CHECK-NEXT:    prim.Yield %[[C]], %[[Y1]], %[[I1]] : !ts.bool, !ts.tensor, !ts.int
# CHECK-NEXT:  }
# CHECK-NEXT:  prim.TupleConstruct %y, %[[I]]

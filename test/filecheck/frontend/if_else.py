# RUN: ts-translate --script %s | filecheck %s
# if/elif/else: variables assigned in the branches become the If's outputs (SSA
# conversion); a ternary is an If with one output.
import torch


def forward(x, n: int):
    if n > 10:
        y = x * 3
        label = "big"
    elif n > 0:
        y = x * 2
        label = "small"
    else:
        y = -x
        label = "negative"
    z = y if n % 2 == 0 else x
    return z, label


# CHECK-LABEL: func.func @forward(%x: !ts.tensor, %n: !ts.int) -> !ts.tuple<!ts.tensor, !ts.str>
# CHECK-DAG:   %[[BIG:.*]] = prim.Constant "big" : !ts.str
# CHECK-DAG:   %[[SMALL:.*]] = prim.Constant "small" : !ts.str
# CHECK-DAG:   %[[NEG:.*]] = prim.Constant "negative" : !ts.str
# CHECK:       %[[C:.*]] = aten.gt %n, %{{.*}} : (!ts.int, !ts.int) -> !ts.bool
# CHECK-NEXT:  %[[LABEL:.*]], %y = prim.If %[[C]] -> (!ts.str, !ts.tensor) {
# CHECK-NEXT:    %[[Y3:.*]] = aten.mul %x, %{{.*}} : (!ts.tensor, !ts.int) -> !ts.tensor
# CHECK-NEXT:    prim.Yield %[[BIG]], %[[Y3]] : !ts.str, !ts.tensor
# CHECK-NEXT:  } else {
# CHECK-NEXT:    %[[C2:.*]] = aten.gt %n, %{{.*}} : (!ts.int, !ts.int) -> !ts.bool
# CHECK-NEXT:    %[[L2:.*]], %[[Y2:.*]] = prim.If %[[C2]] -> (!ts.str, !ts.tensor) {
# CHECK-NEXT:      %[[Y2A:.*]] = aten.mul %x, %{{.*}} : (!ts.tensor, !ts.int) -> !ts.tensor
# CHECK-NEXT:      prim.Yield %[[SMALL]], %[[Y2A]] : !ts.str, !ts.tensor
# CHECK-NEXT:    } else {
# CHECK-NEXT:      %[[Y2B:.*]] = aten.neg %x : (!ts.tensor) -> !ts.tensor
# CHECK-NEXT:      prim.Yield %[[NEG]], %[[Y2B]] : !ts.str, !ts.tensor
# CHECK-NEXT:    }
# CHECK-NEXT:    prim.Yield %[[L2]], %[[Y2]] : !ts.str, !ts.tensor
# CHECK-NEXT:  }
# CHECK:       %z = prim.If %{{.*}} -> (!ts.tensor) {
# CHECK-NEXT:    prim.Yield %y : !ts.tensor
# CHECK-NEXT:  } else {
# CHECK-NEXT:    prim.Yield %x : !ts.tensor
# CHECK-NEXT:  }
# CHECK-NEXT:  prim.TupleConstruct %z, %[[LABEL]]

# RUN: ts-translate --script %s | filecheck %s
# for over range(n), range(a, b, step), lists, dict keys and items, enumerate and zip;
# a tuple is iterated by unrolling. Variables of the enclosing scope assigned in the
# body are loop-carried.
import torch
from typing import Dict, List


def forward(n: int, xs: List[int], d: Dict[str, int], x):
    total = 0
    for i in range(n):
        total += i
    for j in range(2, n, 3):
        total += j
    for v in xs:
        total += v
    for k, v in d.items():
        total += v
    for i, v in enumerate(xs):
        total += i * v
    for a, b in zip(xs, xs):
        total += a - b
    for t in (x, x):
        x = x + t
    return total, x


# CHECK-LABEL: func.func @forward
# CHECK-DAG:   %[[TRUE:.*]] = prim.Constant true : !ts.bool
# CHECK-DAG:   %[[MAX:.*]] = prim.Constant 9223372036854775807 : !ts.int
# range(n): the counter is the element.
# CHECK:       %[[T1:.*]] = prim.Loop %n, %[[TRUE]] iter(%i) carried(%[[A1:.*]] = %total : !ts.int) -> (!ts.int) {
# CHECK-NEXT:    %[[S1:.*]] = aten.add %[[A1]], %i : (!ts.int, !ts.int) -> !ts.int
# CHECK-NEXT:    prim.Yield %[[TRUE]], %[[S1]] : !ts.bool, !ts.int
# CHECK-NEXT:  }
# range(2, n, 3): a trip count from __range_length, the element from __derive_index.
# CHECK-NEXT:  %[[LEN:.*]] = aten.__range_length %{{.*}}, %n, %{{.*}} : (!ts.int, !ts.int, !ts.int) -> !ts.int
# CHECK-NEXT:  %[[T2:.*]] = prim.Loop %[[LEN]], %[[TRUE]] iter(%[[K:.*]]) carried(%[[A2:.*]] = %[[T1]] : !ts.int) -> (!ts.int) {
# CHECK-NEXT:    %j = aten.__derive_index %[[K]], %{{.*}}, %{{.*}} : (!ts.int, !ts.int, !ts.int) -> !ts.int
# A list: its length, and __getitem__ of the counter.
# CHECK:       %[[N:.*]] = aten.len %xs : (!ts.list<!ts.int>) -> !ts.int
# CHECK-NEXT:  %{{.*}} = prim.Loop %[[N]], %[[TRUE]] iter(%[[K2:.*]]) carried
# CHECK-NEXT:    %v = aten.__getitem__ %xs, %[[K2]] : (!ts.list<!ts.int>, !ts.int) -> !ts.int
# Dict items are a list of tuples, unpacked into the targets.
# CHECK:       %[[ITEMS:.*]] = aten.items %d : (!ts.dict<!ts.str, !ts.int>) -> !ts.list<!ts.tuple<!ts.str, !ts.int>>
# CHECK:         %[[ITEM:.*]] = aten.__getitem__ %[[ITEMS]], %{{.*}}
# CHECK-NEXT:    %k, %{{.*}} = prim.TupleUnpack %[[ITEM]] : !ts.tuple<!ts.str, !ts.int> -> !ts.str, !ts.int
# enumerate: a range up to INT64_MAX zipped with the list; the loop runs min(lengths) times.
# CHECK:       %[[L:.*]] = aten.len %xs
# CHECK-NEXT:  %[[LENS:.*]] = prim.ListConstruct %[[MAX]], %[[L]] : (!ts.int, !ts.int) -> !ts.list<!ts.int>
# CHECK-NEXT:  %[[MIN:.*]] = prim.min %[[LENS]] : (!ts.list<!ts.int>) -> !ts.int
# CHECK-NEXT:  %{{.*}} = prim.Loop %[[MIN]], %[[TRUE]] iter(%[[I2:.*]]) carried
# CHECK-NEXT:    %{{.*}} = aten.__getitem__ %xs, %[[I2]]
# zip of two lists.
# CHECK:       prim.ListConstruct %{{.*}}, %{{.*}} : (!ts.int, !ts.int) -> !ts.list<!ts.int>
# CHECK-NEXT:  prim.min
# CHECK-NEXT:  prim.Loop
# CHECK-NEXT:    %a = aten.__getitem__ %xs
# CHECK-NEXT:    %b = aten.__getitem__ %xs
# The tuple loop is unrolled: no prim.Loop, two additions.
# CHECK:       }
# CHECK-NEXT:  %[[X1:.*]] = aten.add %x, %x, %{{.*}} : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
# CHECK-NEXT:  %[[X2:.*]] = aten.add %[[X1]], %x, %{{.*}} : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
# CHECK-NEXT:  prim.TupleConstruct %{{.*}}, %[[X2]]

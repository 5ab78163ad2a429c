# RUN: ts-translate --script %s --entry early_return | filecheck %s --check-prefix=IF
# RUN: ts-translate --script %s --entry find | filecheck %s --check-prefix=LOOP
# `return` anywhere: a return in an If guards what follows; one inside a loop makes
# the loop carry `did_return` and the value, and stop.
import torch
from typing import List


def early_return(x):
    if bool(x.sum() > 0):
        return x
    y = x * 2
    return y - 1


# IF-LABEL: func.func @early_return(%x: !ts.tensor) -> !ts.tensor
# IF:         %[[B:.*]] = aten.Bool %{{.*}} : (!ts.tensor) -> !ts.bool
# IF-NEXT:    %[[R:.*]] = prim.If %[[B]] -> (!ts.tensor) {
# IF-NEXT:      prim.Yield %x : !ts.tensor
# IF-NEXT:    } else {
# IF-NEXT:      %y = aten.mul %x, %{{.*}} : (!ts.tensor, !ts.int) -> !ts.tensor
# IF-NEXT:      %[[S:.*]] = aten.sub %y, %{{.*}}, %{{.*}} : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
# IF-NEXT:      prim.Yield %[[S]] : !ts.tensor
# IF-NEXT:    }
# IF-NEXT:    func.return %[[R]] : !ts.tensor


def find(xs: List[int], target: int) -> int:
    for i in range(len(xs)):
        if xs[i] == target:
            return i
    return -1


# LOOP-LABEL: func.func @find(%xs: !ts.list<!ts.int>, %target: !ts.int) -> !ts.int
# LOOP-DAG:   %[[FALSE:.*]] = prim.Constant false : !ts.bool
# LOOP-DAG:   %[[TRUE:.*]] = prim.Constant true : !ts.bool
# LOOP-DAG:   %[[NOTFOUND:.*]] = prim.Constant -1 : !ts.int
# LOOP-DAG:   %[[UNINIT:.*]] = prim.Uninitialized : !ts.int
# The for loop can stop early, so it is canonicalized to a while loop with a counter.
# LOOP:       %[[LEN:.*]] = aten.len %xs
# LOOP:       %[[START:.*]] = aten.gt %[[LEN]], %{{.*}} : (!ts.int, !ts.int) -> !ts.bool
# LOOP-NEXT:  %[[RETURNED:.*]], %[[VALUE:.*]], %{{.*}} = prim.Loop %{{.*}}, %[[START]] iter(%{{.*}}) carried(%{{.*}} = %[[FALSE]] : !ts.bool, %{{.*}} = %[[UNINIT]] : !ts.int, %[[I:.*]] = %{{.*}} : !ts.int) -> (!ts.bool, !ts.int, !ts.int) {
# LOOP:         %[[EXITED:.*]], %[[RESULT:.*]], %[[STOP:.*]] = prim.If %{{.*}} -> (!ts.bool, !ts.int, !ts.bool) {
# LOOP-NEXT:      prim.Yield %[[TRUE]], %[[I]], %[[FALSE]] : !ts.bool, !ts.int, !ts.bool
# LOOP-NEXT:    } else {
# LOOP-NEXT:      prim.Yield %[[FALSE]], %[[UNINIT]], %[[TRUE]] : !ts.bool, !ts.int, !ts.bool
# LOOP-NEXT:    }
# LOOP:         %[[AND:.*]] = aten.__and__ %{{.*}}, %[[STOP]] : (!ts.bool, !ts.bool) -> !ts.bool
# LOOP-NEXT:    prim.Yield %[[AND]], %[[EXITED]], %[[RESULT]], %{{.*}} : !ts.bool, !ts.bool, !ts.int, !ts.int
# LOOP-NEXT:  }
# LOOP-NEXT:  %[[R:.*]] = prim.If %[[RETURNED]] -> (!ts.int) {
# LOOP-NEXT:    prim.Yield %[[VALUE]] : !ts.int
# LOOP-NEXT:  } else {
# LOOP-NEXT:    prim.Yield %[[NOTFOUND]] : !ts.int
# LOOP-NEXT:  }
# LOOP-NEXT:  func.return %[[R]] : !ts.int

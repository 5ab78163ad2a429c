# RUN: ts-translate --script %s --entry while_continue | filecheck %s --check-prefix=CONTINUE
# RUN: ts-translate --script %s --entry raise_or_return | filecheck %s --check-prefix=THROWS
# RUN: ts-translate --script %s --entry refined_after_continue | filecheck %s --check-prefix=REFINE
# The JIT overview's examples of the exit transform.
import math
import torch
from typing import Optional


# `continue` in a while loop: the rest of the body is guarded by `did_exit` and the
# loop condition is computed on both paths (the overview's first example). The guard
# If is then merged into the If that decides `did_exit`, which leaves one If whose
# branches each yield the next condition and `i`, as PyTorch's graph shows.
def while_continue(i: int) -> int:
    while i < 5:
        if i == 3:
            i += 1
            continue
        i += 2
    return i


# CONTINUE-LABEL: func.func @while_continue(%i: !ts.int) -> !ts.int
# CONTINUE-DAG:   %[[MAX:.*]] = prim.Constant 9223372036854775807 : !ts.int
# CONTINUE-DAG:   %[[FIVE:.*]] = prim.Constant 5 : !ts.int
# CONTINUE:       %[[C0:.*]] = aten.lt %i, %[[FIVE]] : (!ts.int, !ts.int) -> !ts.bool
# CONTINUE-NEXT:  %[[I:.*]] = prim.Loop %[[MAX]], %[[C0]] iter(%{{.*}}) carried(%[[IC:.*]] = %i : !ts.int) -> (!ts.int) {
# CONTINUE-NEXT:    %[[EQ:.*]] = aten.eq %[[IC]], %{{.*}} : (!ts.int, !ts.int) -> !ts.bool
# CONTINUE-NEXT:    %[[NEXT:.*]], %[[IN:.*]] = prim.If %[[EQ]] -> (!ts.bool, !ts.int) {
# CONTINUE-NEXT:      %[[I1:.*]] = aten.add %[[IC]], %{{.*}} : (!ts.int, !ts.int) -> !ts.int
# CONTINUE-NEXT:      %[[LT1:.*]] = aten.lt %[[I1]], %[[FIVE]] : (!ts.int, !ts.int) -> !ts.bool
# CONTINUE-NEXT:      prim.Yield %[[LT1]], %[[I1]] : !ts.bool, !ts.int
# CONTINUE-NEXT:    } else {
# CONTINUE-NEXT:      %[[I2:.*]] = aten.add %[[IC]], %{{.*}} : (!ts.int, !ts.int) -> !ts.int
# CONTINUE-NEXT:      %[[LT2:.*]] = aten.lt %[[I2]], %[[FIVE]] : (!ts.int, !ts.int) -> !ts.bool
# CONTINUE-NEXT:      prim.Yield %[[LT2]], %[[I2]] : !ts.bool, !ts.int
# CONTINUE-NEXT:    }
# CONTINUE-NEXT:    prim.Yield %[[NEXT]], %[[IN]] : !ts.bool, !ts.int
# CONTINUE-NEXT:  }
# CONTINUE-NEXT:  func.return %[[I]] : !ts.int


# A branch that always raises does not conditionalize the rest: the If always returns,
# with `prim.Uninitialized` on the raising side (the overview's second example).
def raise_or_return(i: float) -> float:
    if i < 0:
        raise Exception("Negative input")
    else:
        return math.sqrt(i)
    print(i)  # unreachable code


# THROWS-LABEL: func.func @raise_or_return(%i: !ts.float) -> !ts.float
# THROWS-DAG:   %[[MSG:.*]] = prim.Constant "Negative input" : !ts.str
# THROWS-DAG:   %[[CLS:.*]] = prim.Constant "builtins.Exception" : !ts.str
# THROWS-DAG:   %[[UNINIT:.*]] = prim.Uninitialized : !ts.float
# THROWS:       %[[LT:.*]] = aten.lt %i, %{{.*}} : (!ts.float, !ts.int) -> !ts.bool
# THROWS-NEXT:  %[[R:.*]] = prim.If %[[LT]] -> (!ts.float) {
# THROWS-NEXT:    prim.RaiseException %[[MSG]], %[[CLS]] : !ts.str
# THROWS-NEXT:    prim.Yield %[[UNINIT]] : !ts.float
# THROWS-NEXT:  } else {
# THROWS-NEXT:    %[[SQRT:.*]] = aten.sqrt %i : (!ts.float) -> !ts.float
# THROWS-NEXT:    prim.Yield %[[SQRT]] : !ts.float
# THROWS-NEXT:  }
# THROWS-NEXT:  func.return %[[R]] : !ts.float
# THROWS-NOT:   prim.Print


# SSA conversion runs before the exit transform, so a variable refined after a
# `continue` keeps its refined type (the overview's third example): `x` prints as int.
def refined_after_continue(cond: bool, n: int):
    for i in range(n):
        if cond:
            if i < 3:
                x = torch.jit.annotate(Optional[int], None)
                continue
            x = 1
        else:
            x = 2
        print(x)


# REFINE-LABEL: func.func @refined_after_continue(%cond: !ts.bool, %n: !ts.int) -> !ts.none
# REFINE:         %[[X:.*]], %[[EXITED:.*]], %[[CONT:.*]] = prim.If %cond -> (!ts.int, !ts.bool, !ts.bool) {
# REFINE:         %[[NEXT:.*]] = prim.If %[[EXITED]] -> (!ts.bool) {
# REFINE-NEXT:      prim.Yield %[[CONT]] : !ts.bool
# REFINE-NEXT:    } else {
# REFINE-NEXT:      prim.Print(%[[X]]) : !ts.int

# RUN: ts-translate --script %s --entry continue_in_with | filecheck %s --check-prefix=CONTINUE
# RUN: ts-translate --script %s --entry return_in_with | filecheck %s --check-prefix=RETURN
# Exits inside `with`: the rest of the body is guarded, the exit's flag and values leave
# the body as values of the block the `with` is in, prim.Exit runs on every path, and
# only then is the code after the `with` guarded.
import torch


def continue_in_with(x: torch.Tensor, n: int) -> torch.Tensor:
    for i in range(n):
        with torch.no_grad():
            if i == 1:
                continue
            x = x + 1
        x = x * 2
    return x


# CONTINUE-LABEL: func.func @continue_in_with(%x: !ts.tensor, %n: !ts.int) -> !ts.tensor
# CONTINUE:         prim.Loop %{{.*}}, %{{.*}} iter(%{{.*}}) carried(%[[X:.*]] = %x : !ts.tensor, %[[I:.*]] = %{{.*}} : !ts.int)
# CONTINUE:           %[[CTX:.*]] = prim.CreateObject
# CONTINUE:           prim.Enter %[[CTX]]
# CONTINUE-NEXT:      %[[EQ:.*]] = aten.eq %[[I]], %{{.*}}
# CONTINUE-NEXT:      %[[XW:.*]], %[[EXITED:.*]], %[[COND:.*]], %[[XE:.*]] = prim.If %[[EQ]] -> (!ts.tensor, !ts.bool, !ts.bool, !ts.tensor) {
# CONTINUE-NEXT:        prim.Yield %{{.*}}, %[[TRUE:.*]], %[[TRUE]], %[[X]]
# CONTINUE-NEXT:      } else {
# CONTINUE-NEXT:        %[[X1:.*]] = aten.add %[[X]]
# CONTINUE-NEXT:        prim.Yield %[[X1]], %[[FALSE:.*]], %{{.*}}, %{{.*}}
# CONTINUE-NEXT:      }
# CONTINUE-NEXT:      prim.Exit %[[CTX]]
# CONTINUE-NEXT:      %[[NEXT:.*]], %[[XN:.*]] = prim.If %[[EXITED]] -> (!ts.bool, !ts.tensor) {
# CONTINUE-NEXT:        prim.Yield %[[COND]], %[[XE]]
# CONTINUE-NEXT:      } else {
# CONTINUE-NEXT:        %[[X2:.*]] = aten.mul %[[XW]]
# CONTINUE-NEXT:        prim.Yield %[[TRUE]], %[[X2]]
# CONTINUE-NEXT:      }


def return_in_with(x: torch.Tensor, n: int) -> torch.Tensor:
    with torch.no_grad():
        if n > 1:
            return x
        y = x + 1
    return y * 2


# RETURN-LABEL: func.func @return_in_with(%x: !ts.tensor, %n: !ts.int) -> !ts.tensor
# RETURN:         %[[CTX:.*]] = prim.CreateObject
# RETURN:         prim.Enter %[[CTX]]
# RETURN-NEXT:    %[[GT:.*]] = aten.gt %n
# RETURN-NEXT:    %[[Y:.*]], %[[EXITED:.*]], %[[RET:.*]] = prim.If %[[GT]] -> (!ts.tensor, !ts.bool, !ts.tensor) {
# RETURN-NEXT:      prim.Yield %{{.*}}, %{{.*}}, %x
# RETURN-NEXT:    } else {
# RETURN-NEXT:      %[[Y1:.*]] = aten.add %x
# RETURN-NEXT:      prim.Yield %[[Y1]], %{{.*}}, %{{.*}}
# RETURN-NEXT:    }
# RETURN-NEXT:    prim.Exit %[[CTX]]
# RETURN-NEXT:    %[[R:.*]] = prim.If %[[EXITED]] -> (!ts.tensor) {
# RETURN-NEXT:      prim.Yield %[[RET]]
# RETURN-NEXT:    } else {
# RETURN-NEXT:      %[[M:.*]] = aten.mul %[[Y]]
# RETURN-NEXT:      prim.Yield %[[M]]
# RETURN-NEXT:    }
# RETURN-NEXT:    func.return %[[R]]

# RUN: ts-translate --script %s | filecheck %s
# `with torch.no_grad():` creates the object (its `__init__`, `__enter__` and `__exit__`
# compiled from tsjit's source) and wraps the body in prim.Enter / prim.Exit (whose
# output, unused, PyTorch leaves a Tensor).
import torch


def forward(x, y):
    with torch.no_grad():
        z = x * 2 + y
    return z + 1


# CHECK-LABEL: func.func @__torch__.torch.autograd.grad_mode.no_grad.__init__(%self: !ts.class<"__torch__.torch.autograd.grad_mode.no_grad">) -> !ts.none
# CHECK:         prim.SetAttr[name = "prev"] %self, %{{.*}} : !ts.class<"__torch__.torch.autograd.grad_mode.no_grad">, !ts.bool
# CHECK-LABEL: func.func @__torch__.torch.autograd.grad_mode.no_grad.__enter__(%self: !ts.class<"__torch__.torch.autograd.grad_mode.no_grad">) -> !ts.none
# CHECK-LABEL: func.func @__torch__.torch.autograd.grad_mode.no_grad.__exit__(%self: !ts.class<"__torch__.torch.autograd.grad_mode.no_grad">, %exc_type: !ts.any, %exc_value: !ts.any, %traceback: !ts.any) -> !ts.none
# CHECK-LABEL: func.func @forward(%x: !ts.tensor, %y: !ts.tensor) -> !ts.tensor
# CHECK:         %[[CTX:.*]] = prim.CreateObject : !ts.class<"__torch__.torch.autograd.grad_mode.no_grad">
# CHECK-NEXT:    %{{.*}} = prim.CallMethod[name = "__init__"] %[[CTX]] : (!ts.class<"__torch__.torch.autograd.grad_mode.no_grad">) -> !ts.none
# CHECK-NEXT:    %{{.*}} = prim.Enter %[[CTX]] : !ts.class<"__torch__.torch.autograd.grad_mode.no_grad"> -> !ts.none
# CHECK-NEXT:    %[[M:.*]] = aten.mul %x, %{{.*}}
# CHECK-NEXT:    %z = aten.add %[[M]], %y, %{{.*}}
# CHECK-NEXT:    %{{.*}} = prim.Exit %[[CTX]] : !ts.class<"__torch__.torch.autograd.grad_mode.no_grad"> -> !ts.tensor
# CHECK-NEXT:    %[[R:.*]] = aten.add %z, %{{.*}}, %{{.*}}
# CHECK-NEXT:    func.return %[[R]] : !ts.tensor

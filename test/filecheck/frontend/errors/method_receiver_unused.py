# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# A method's receiver binds to `self` or to nothing: `x.cosh(2)` is not `cosh(2)`, the
# overload of numbers (PyTorch: "Provided self value not used").
import torch


def forward(x: torch.Tensor):
    return x.cosh(2)


# CHECK: {{.*}}method_receiver_unused.py:8:12: error: arguments for call to aten::cosh are not valid: (Tensor, int) match no overload
# CHECK-NEXT: return x.cosh(2)
# CHECK:  aten::cosh.int(int a) -> float:
# CHECK-NEXT: provided self value not used in aten::cosh
# CHECK-NOT: Traceback

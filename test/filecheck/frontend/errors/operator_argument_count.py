# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# Too many arguments for every overload.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    return torch.relu(x, x)


# CHECK: {{.*}}operator_argument_count.py:8:12: error: arguments for call to aten::relu are not valid: (Tensor, Tensor) match no overload; candidates: aten::relu(Tensor self) -> Tensor (expected at most 1 arguments but found 2 positional arguments); aten::relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!) (argument out not provided)
# CHECK-NEXT: return torch.relu(x, x)
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

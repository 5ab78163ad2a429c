# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# Too many arguments for every overload.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    return torch.relu(x, x)


# CHECK: {{.*}}operator_argument_count.py:8:12: error: arguments for call to aten::relu are not valid: (Tensor, Tensor) match no overload
# CHECK-NEXT: return torch.relu(x, x)
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NEXT: The following variants are available:
# CHECK-NEXT:   aten::relu(Tensor self) -> Tensor:
# CHECK-NEXT:     expected at most 1 arguments but found 2 positional arguments
# CHECK-NEXT:   aten::relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!):
# CHECK-NEXT:     argument out not provided
# CHECK-NOT: Traceback

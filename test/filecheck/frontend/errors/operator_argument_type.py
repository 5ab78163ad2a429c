# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# No overload of the operator accepts the arguments: the candidates are listed.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    return torch.add(x, "a")


# CHECK: {{.*}}operator_argument_type.py:8:12: error: arguments for call to aten::add are not valid: (Tensor, str) match no overload
# CHECK-NEXT: return torch.add(x, "a")
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NEXT: The following variants are available:
# CHECK-NEXT:   aten::add(Scalar a, Scalar b) -> Scalar:
# CHECK-NEXT:     expected a value of type 'Scalar' for argument 'b' but instead found type 'str'
# CHECK-NEXT:   aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor:
# CHECK-NOT: Traceback

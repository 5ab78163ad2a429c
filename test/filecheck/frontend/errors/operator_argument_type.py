# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# No overload of the operator accepts the arguments: the candidates are listed.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    return torch.add(x, "a")


# CHECK: {{.*}}operator_argument_type.py:8:12: error: arguments for call to aten::add are not valid: (Tensor, str) match no overload; candidates: aten::add(Scalar a, Scalar b) -> Scalar (expected a value of type 'Scalar' for argument 'b' but instead found type 'str'); aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor (expected a value of type 'Scalar' for argument 'other' but instead found type 'str'); aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor (expected a value of type 'Tensor' for argument 'other' but instead found type 'str'); aten::add.complex(complex a, complex b) -> complex (expected a value of type 'complex' for argument 'b' but instead found type 'str'); and 15 more
# CHECK-NEXT: return torch.add(x, "a")
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# A keyword argument no overload has.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    return torch.sum(x, dimension=1)


# CHECK: {{.*}}unknown_keyword.py:8:12: error: arguments for call to aten::sum are not valid: (Tensor) match no overload; candidates: aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor (keyword argument dimension unknown); aten::sum.bool(bool[] self) -> int (expected a value of type 'bool' for argument '<varargs>' but instead found type 'Tensor'); aten::sum.complex(complex[] self) -> complex (keyword argument dimension unknown); aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor (argument dim not provided); and 4 more
# CHECK-NEXT: return torch.sum(x, dimension=1)
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

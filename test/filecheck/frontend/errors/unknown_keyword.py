# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# A keyword argument no overload has.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    return torch.sum(x, dimension=1)


# CHECK: {{.*}}unknown_keyword.py:8:12: error: arguments for call to aten::sum are not valid: (Tensor) match no overload
# CHECK-NEXT: return torch.sum(x, dimension=1)
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NEXT: The following variants are available:
# CHECK-NEXT:   aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor:
# CHECK-NEXT:     keyword argument dimension unknown
# CHECK-NOT: Traceback

# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# torch.X must be an operator.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    return torch.frobnicate(x)


# CHECK: {{.*}}unknown_operator.py:8:12: error: unknown builtin op: torch.frobnicate
# CHECK-NEXT: return torch.frobnicate(x)
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

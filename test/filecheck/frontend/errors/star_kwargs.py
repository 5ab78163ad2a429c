# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# **kwargs cannot be passed.
import torch
from typing import Dict, List, Optional, Tuple


def f(a: int) -> int:
    return a


def forward(x, d: Dict[str, int]):
    return f(**d)


# CHECK: {{.*}}star_kwargs.py:12:16: error: **kwargs arguments are not supported in TorchScript
# CHECK-NEXT: return f(**d)
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

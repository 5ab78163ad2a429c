# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# Recursive calls are not supported.
import torch
from typing import Dict, List, Optional, Tuple


def fact(n: int) -> int:
    if n <= 1:
        return 1
    return n * fact(n - 1)


def forward(x):
    return fact(3)


# CHECK: {{.*}}recursion.py:10:16: error: recursive calls are not supported in TorchScript ('fact' calls itself)
# CHECK-NEXT: return n * fact(n - 1)
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

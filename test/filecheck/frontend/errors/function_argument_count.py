# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# Too many positional arguments for a script function.
import torch
from typing import Dict, List, Optional, Tuple


def f(n: int) -> int:
    return n


def forward(x):
    return f(1, 2)


# CHECK: {{.*}}function_argument_count.py:12:12: error: f(): expected at most 1 arguments but found 2 positional arguments (schema: f(int n) -> int)
# CHECK-NEXT: return f(1, 2)
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

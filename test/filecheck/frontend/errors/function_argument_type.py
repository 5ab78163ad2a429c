# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# A script function's parameter type is checked.
import torch
from typing import Dict, List, Optional, Tuple


def f(n: int) -> int:
    return n


def forward(x):
    return f("a")


# CHECK: {{.*}}function_argument_type.py:12:12: error: f(): expected a value of type 'int' for argument 'n' but instead found type 'str' (schema: f(int n) -> int)
# CHECK-NEXT: return f("a")
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

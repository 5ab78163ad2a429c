# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# A parameter without a default must be given.
import torch
from typing import Dict, List, Optional, Tuple


def f(n: int, m: int) -> int:
    return n + m


def forward(x):
    return f(1)


# CHECK: {{.*}}missing_argument.py:12:12: error: f(): argument m not provided (schema: f(int n, int m) -> int)
# CHECK-NEXT: return f(1)
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

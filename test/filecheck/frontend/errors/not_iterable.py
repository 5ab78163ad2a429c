# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# An int is not iterable.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x, n: int):
    t = 0
    for i in n:
        t += i
    return t


# CHECK: {{.*}}not_iterable.py:9:14: error: 'int' object is not iterable
# CHECK-NEXT: for i in n:
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

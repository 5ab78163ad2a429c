# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# range takes ints.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    t = 0
    for i in range(2.5):
        t += i
    return t


# CHECK: {{.*}}range_float.py:9:14: error: all inputs of range must be ints, found float in argument 0
# CHECK-NEXT: for i in range(2.5):
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

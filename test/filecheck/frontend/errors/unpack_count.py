# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# Unpacking needs as many values as targets.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    a, b = (x, 1, 2)
    return a


# CHECK: {{.*}}unpack_count.py:8:5: error: too many values to unpack: need 2 but found 3
# CHECK-NEXT: a, b = (x, 1, 2)
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

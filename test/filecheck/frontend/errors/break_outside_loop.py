# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# Python rejects a break outside a loop; the error points at it.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    if x.sum() > 0:
        break
    return x


# CHECK: {{.*}}break_outside_loop.py:9:9: error: syntax error: 'break' outside loop
# CHECK-NEXT: break
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

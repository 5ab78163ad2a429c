# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# with needs a context manager object.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    with x:
        y = x
    return y


# CHECK: {{.*}}with_tensor.py:8:10: error: With item expression must return an object
# CHECK-NEXT: with x:
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# Branches that set a variable to different types cannot merge it.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x, c: bool):
    if c:
        y = 1
    else:
        y = x
    return y


# CHECK: {{.*}}branch_type_mismatch.py:12:12: error: Type mismatch: y is set to type int in the true branch and type Tensor in the false branch and was used here
# CHECK-NEXT: return y
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

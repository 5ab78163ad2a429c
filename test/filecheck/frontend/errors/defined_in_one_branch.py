# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# A variable assigned in only one branch cannot be used after the If.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x, c: bool):
    if c:
        y = x
    return y


# CHECK: {{.*}}defined_in_one_branch.py:10:12: error: y is not defined in the false branch and was used here
# CHECK-NEXT: return y
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

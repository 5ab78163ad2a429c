# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# for ... else is not TorchScript.
import torch
from typing import Dict, List, Optional, Tuple


def forward(xs: List[int]):
    t = 0
    for v in xs:
        t += v
    else:
        t = -1
    return t


# CHECK: {{.*}}for_else.py:9:5: error: else branches of for loops are not supported in TorchScript
# CHECK-NEXT: for v in xs:
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

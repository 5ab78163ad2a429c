# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# The two arms of a conditional expression need a common type.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x, c: bool):
    return x if c else "none"


# CHECK: {{.*}}ternary_types.py:8:12: error: if-expression's true branch has type Tensor but false branch has type str
# CHECK-NEXT: return x if c else "none"
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

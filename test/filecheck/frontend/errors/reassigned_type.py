# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# A variable keeps its type: reassigning another type is an error.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x, c: bool):
    y = 1
    if c:
        y = "one"
    return y


# CHECK: {{.*}}reassigned_type.py:10:9: error: Variable 'y' previously has type int but is now being assigned to a value of type str
# CHECK-NEXT: y = "one"
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# An annotated local must be assigned a value of its type.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    y: int = 1.5
    return y


# CHECK: {{.*}}annotated_assignment.py:8:5: error: Variable 'y' is annotated with type int but is being assigned to a value of type float
# CHECK-NEXT: y: int = 1.5
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# List literals hold one type.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    return [1, "a"]


# CHECK: {{.*}}mixed_list.py:8:12: error: Lists must contain only a single type, expected: int but found str instead
# CHECK-NEXT: return [1, "a"]
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# A constant tuple index is checked at compile time.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    t = (x, 1)
    return t[5]


# CHECK: {{.*}}tuple_index_range.py:9:12: error: Tuple index out of range. Tuple is length 2 and index is 5
# CHECK-NEXT: return t[5]
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# A Python syntax error is located.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    return x +


# CHECK: {{.*}}syntax_error.py:8:15: error: syntax error: invalid syntax
# CHECK-NEXT: return x +
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

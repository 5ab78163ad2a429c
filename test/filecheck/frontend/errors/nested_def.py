# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# Nested function definitions (closures) are not supported.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    def inner(v):
        return v
    return inner(x)


# CHECK: {{.*}}nested_def.py:8:5: error: nested function definition statements are not supported in TorchScript
# CHECK-NEXT: def inner(v):
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

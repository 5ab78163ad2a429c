# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# f-string format specs are not supported.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x, v: float):
    return f"{v:.2f}"


# CHECK: {{.*}}fstring_spec.py:8:12: error: f-string conversions and format specs are not supported in TorchScript
# CHECK-NEXT: return f"{v:.2f}"
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

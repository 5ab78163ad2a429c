# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# try/except is not TorchScript.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    try:
        y = x + 1
    except Exception:
        y = x
    return y


# CHECK: {{.*}}try_statement.py:8:5: error: try statements are not supported in TorchScript
# CHECK-NEXT: try:
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

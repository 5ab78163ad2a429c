# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# A name no scope defines.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    return x + y


# CHECK: {{.*}}undefined_value.py:8:16: error: undefined value y
# CHECK-NEXT: return x + y
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# global is not TorchScript.
import torch
from typing import Dict, List, Optional, Tuple


counter = 0


def forward(x):
    global counter
    return x


# CHECK: {{.*}}global_statement.py:11:5: error: global statements are not supported in TorchScript
# CHECK-NEXT: global counter
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# Nested function definitions are not supported, but for the parameterless closures
# that serialized code forks.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    def inner(v):
        return v
    return inner(x)


# CHECK: {{.*}}nested_def.py:9:5: error: nested function definition statements are not supported in TorchScript (but closures without parameters that fork runs)
# CHECK-NEXT: def inner(v):
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

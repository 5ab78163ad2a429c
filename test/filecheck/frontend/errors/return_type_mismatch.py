# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# Returns of types with no common type.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x, c: bool):
    if c:
        return 1
    return "one"


# CHECK: {{.*}}return_type_mismatch.py:10:5: error: Previous return statement returned a value of type int but this return statement returns a value of type str
# CHECK-NEXT: return "one"
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

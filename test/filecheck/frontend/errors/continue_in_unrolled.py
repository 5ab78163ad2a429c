# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# break/continue cannot be in loops over tuples (unrolled).
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    for t in (x, x):
        if t.sum() > 0:
            continue
    return x


# CHECK: {{.*}}continue_in_unrolled.py:10:13: error: Because we emit iteration over modulelists or tuples as unrolled loops, we do not support break or continue inside the body of these loops
# CHECK-NEXT: continue
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

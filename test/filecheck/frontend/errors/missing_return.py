# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# A function annotated with a non-None type must return on all paths.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x, c: bool) -> int:
    if c:
        return 1


# CHECK: {{.*}}missing_return.py:7:1: error: Function was not annotated as having type None, but does not return along all paths
# CHECK-NEXT: def forward(x, c: bool) -> int:
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

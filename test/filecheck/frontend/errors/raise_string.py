# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# Only exceptions can be raised.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    raise "bad input"


# CHECK: {{.*}}raise_string.py:8:5: error: exceptions must derive from BaseException
# CHECK-NEXT: raise "bad input"
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

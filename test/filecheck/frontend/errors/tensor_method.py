# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# Tensors have only their operators as methods.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    return x.frobnicate()


# CHECK: {{.*}}tensor_method.py:8:12: error: 'Tensor' object has no attribute or method 'frobnicate'
# CHECK-NEXT: return x.frobnicate()
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

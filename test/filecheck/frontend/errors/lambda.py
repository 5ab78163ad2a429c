# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# Lambdas are not TorchScript.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x):
    g = lambda v: v + 1
    return g(x)


# CHECK: {{.*}}lambda.py:8:9: error: lambda expressions are not supported in TorchScript
# CHECK-NEXT: g = lambda v: v + 1
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

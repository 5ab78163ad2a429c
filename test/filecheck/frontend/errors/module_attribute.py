# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# A module has only the attributes its instance has.
import torch
from typing import Dict, List, Optional, Tuple


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 2.0

    def forward(self, x):
        return x * self.shift


# CHECK: {{.*}}module_attribute.py:13:20: error: Module 'Model' has no attribute 'shift'
# CHECK-NEXT: return x * self.shift
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

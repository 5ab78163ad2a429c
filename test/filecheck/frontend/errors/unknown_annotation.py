# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# An annotation must name a type.
import torch
from typing import Dict, List, Optional, Tuple


def forward(x: Foo):
    return x


# CHECK: {{.*}}unknown_annotation.py:7:16: error: unknown type annotation 'Foo'
# CHECK-NEXT: def forward(x: Foo):
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

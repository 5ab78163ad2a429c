# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# Every return must match the annotated return type (after implicit conversions).
import torch


def forward(x) -> int:
    return "none"


# CHECK: {{.*}}return_annotation.py:7:5: error: Return value was annotated as having type int but is actually of type str
# CHECK-NEXT: return "none"
# CHECK-NEXT: {{^ *\^$}}
# CHECK-NOT: Traceback

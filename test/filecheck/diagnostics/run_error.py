# RUN: not ts-run %s 2>&1 | filecheck %s
# An error while the program runs: at the failing operation, then PyTorch's traceback
# of TorchScript, one frame per call (the call inlined or not), each with its range.
import torch


def pick(x: torch.Tensor, i: int):
    y = x + 1
    return y[i]


def forward():
    z = torch.zeros(2)
    return pick(z,
                10)


# CHECK:      run_error.py:9:12: error: RuntimeError: select(): index 10 out of range for tensor of size [2] at dimension 0
# CHECK-NEXT: {{^}}    return y[i]{{$}}
# CHECK-NEXT: {{^           \^$}}
# CHECK-NEXT: The following operation failed in the TorchScript interpreter.
# CHECK-NEXT: Traceback of TorchScript (most recent call last):
# CHECK-NEXT:   File "{{.*}}run_error.py", line 14, in forward
# CHECK-NEXT: def forward():
# CHECK-NEXT:     z = torch.zeros(2)
# CHECK-NEXT:     return pick(z,
# CHECK-NEXT: {{^           ~~~~ <--- HERE$}}
# CHECK-NEXT:                 10)
# CHECK-NEXT:   File "{{.*}}run_error.py", line 9, in pick
# CHECK-NEXT: def pick(x: torch.Tensor, i: int):
# CHECK-NEXT:     y = x + 1
# CHECK-NEXT:     return y[i]
# CHECK-NEXT: {{^           ~~~~ <--- HERE$}}
# CHECK-NEXT: RuntimeError: select(): index 10 out of range for tensor of size [2] at dimension 0

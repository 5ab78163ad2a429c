# RUN: not ts-translate --script %s 2>&1 | filecheck %s
# No overload takes these arguments: the call's types at the call, then every
# candidate and why it refused, one per line, as PyTorch lists them.
import torch


def forward(x: torch.Tensor, y: str):
    return torch.add(x, y)


# CHECK:      overload_candidates.py:8:12: error: arguments for call to aten::add are not valid: (Tensor, str) match no overload
# CHECK-NEXT: {{^}}    return torch.add(x, y){{$}}
# CHECK-NEXT: {{^           \^$}}
# CHECK-NEXT: The following variants are available:
# CHECK:        aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor:
# CHECK-NEXT:     expected a value of type 'Tensor' for argument 'other' but instead found type 'str'
# CHECK:        aten::add.str(str a, str b) -> str:
# CHECK-NEXT:     expected a value of type 'str' for argument 'a' but instead found type 'Tensor'
# CHECK:        aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!):

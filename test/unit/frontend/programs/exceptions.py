# ruff: noqa - a TorchScript program in the style PyTorch users write (typing.List, Optional, ...)
import torch
from typing import List


def check(n: int) -> int:
    if n > 100:
        raise RuntimeError("too large: " + str(n))
    return n


def forward(x: torch.Tensor, n: int, xs: List[int]):
    assert x.dim() == 2, "expected a matrix"
    if n < 0:
        raise ValueError(f"negative {n}")
    v = xs[n]
    return x * check(v)

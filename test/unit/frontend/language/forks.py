# ruff: noqa - torch.jit.fork / wait
import torch
from torch import Tensor
from typing import List


def scaled(x: Tensor, k: int) -> Tensor:
    return x * k


def checked(x: Tensor) -> Tensor:
    if bool(x.sum() > 100.0):
        raise ValueError("sum too large")
    return x + 1


def fan_out(x: Tensor, n: int) -> Tensor:
    futures = [torch.jit.fork(scaled, x, i) for i in range(n)]
    out = torch.zeros_like(x)
    for f in futures:
        out = out + torch.jit.wait(f)
    return out


class Accumulator:
    def __init__(self, base: Tensor):
        self.base = base

    def apply(self, x: Tensor) -> Tensor:
        return self.base + x


def forward(x: Tensor, n: int):
    first = torch.jit.fork(scaled, x, k=3)
    acc = Accumulator(x)
    second = torch.jit.fork(acc.apply, x * 2)
    nested = torch.jit.fork(fan_out, x, n)
    guarded = torch.jit.fork(checked, x)
    y = x - 1
    return torch.jit.wait(first) + torch.jit.wait(second) + y, torch.jit.wait(nested), torch.jit.wait(guarded)

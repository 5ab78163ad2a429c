"""Operators written as TorchScript over other operators (PyTorch's
`torch/jit/_decompositions.py`, `torch/_refs`, `torch/_decomp`).

An operator whose overload has no numpy kernel runs as its decomposition: the
`decompose-ops` pass inlines the decomposition in its place, so that what it is made of
optimizes and fuses with its neighbours, and the interpreter calls the compiled
decomposition where no pass ran (`tsjit.frontend.library_decompositions`).

Each function takes the overload's schema arguments in schema order, under the
schema's names and types, and returns its results. `@decomposes(...)` names the
overloads a function implements. The bodies are TorchScript, compiled by tsjit's own
frontend; this file is also importable Python (the shim's `torch`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import List, Optional

from tsjit.frontend import torch_shim as torch
from tsjit.frontend.torch_shim import Tensor

DECOMPOSITIONS: dict[str, Callable[..., object]] = {}
"""The function implementing each overload (`aten::xlogy.Tensor`)."""


def decomposes(*overloads: str) -> Callable[[Callable[..., object]], Callable[..., object]]:
    def register(function: Callable[..., object]) -> Callable[..., object]:
        for overload in overloads:
            if overload in DECOMPOSITIONS:
                raise ValueError(f"two decompositions of {overload}")
            DECOMPOSITIONS[overload] = function
        return function

    return register


# --------------------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------------------


@decomposes("aten::xlogy.Tensor")
def xlogy(self: Tensor, other: Tensor) -> Tensor:
    # 0 * log(y) is 0 unless y is nan
    product = self * torch.log(other)
    zero = torch.zeros_like(product)
    return torch.where(torch.isnan(other), other.to(product.dtype), torch.where(self == 0, zero, product))


@decomposes("aten::heaviside")
def heaviside(self: Tensor, values: Tensor) -> Tensor:
    positive = (self > 0).to(self.dtype)
    return torch.where(self == 0, values.to(self.dtype), positive)


@decomposes("aten::logaddexp2")
def logaddexp2(self: Tensor, other: Tensor) -> Tensor:
    high = torch.maximum(self, other)
    low = torch.minimum(self, other)
    result = high + torch.log2(1 + torch.exp2(low - high))
    # equal infinities: inf - inf would be nan
    return torch.where(high == low, high + 1.0, result)


# --------------------------------------------------------------------------------------
# Views and copies
# --------------------------------------------------------------------------------------


@decomposes("aten::fliplr")
def fliplr(self: Tensor) -> Tensor:
    if self.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return torch.flip(self, [1])


@decomposes("aten::flipud")
def flipud(self: Tensor) -> Tensor:
    if self.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return torch.flip(self, [0])

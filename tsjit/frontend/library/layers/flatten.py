"""Flattening and unflattening dimensions (`torch.nn.modules.flatten`)."""

from __future__ import annotations

from tsjit.frontend.torch_shim import Tensor
from tsjit.frontend.torch_shim.nn.module import Module


class Flatten(Module):
    __constants__ = ("start_dim", "end_dim")
    start_dim: int
    end_dim: int

    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)


class Unflatten(Module):
    __constants__ = ("dim", "unflattened_size")
    dim: int
    unflattened_size: list[int]

    def __init__(self, dim: int, unflattened_size):
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)) or not all(
            isinstance(e, int) for e in unflattened_size
        ):
            raise TypeError(f"unflattened_size must be a tuple of ints, but found {unflattened_size!r}")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, self.unflattened_size)

# ruff: noqa - Final, Any, __constants__, torch.jit.Attribute, @torch.jit.unused / ignore
import torch
from torch import Tensor
from typing import Any, Dict, Final, List


def identity(v: Any) -> Any:
    return v


class Model(torch.nn.Module):
    __constants__ = ["offset"]
    limit: Final[int] = 3

    def __init__(self):
        super().__init__()
        self.offset = 10
        self.names = torch.jit.Attribute([], List[str])
        self.counts = torch.jit.Attribute({}, Dict[str, int])

    @torch.jit.unused
    def python_only(self, x: Tensor) -> Tensor:
        return x.numpy()

    @torch.jit.ignore
    def debug(self) -> None:
        print("never scripted")

    def forward(self, x: Tensor, name: str, use_python: bool):
        self.names.append(name)
        self.counts[name] = len(self.names)
        y = x + self.offset + self.limit
        if use_python:
            y = self.python_only(y)
        kept = identity(y)
        return y, self.names, self.counts[name]

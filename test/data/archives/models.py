"""The models saved as TorchScript archives by `scripts/generate_archive_data.py`: real
`torch.nn` layers (a small CNN with BatchNorm in eval mode, a transformer encoder layer,
an LSTM model), a module that uses what a module can hold (submodules, buffers, a
ModuleList, a dict and a list attribute, a method besides forward, a view sharing its
parameter's storage), a traced model (tensor constants in `constants.pkl`, mangled
class names), a program whose operators raise the archive version, and one using
TorchScript classes, an enum and an interface. Each `MODELS` entry is the model, how
to compile it, and the inputs of each method run."""

import sys
from enum import Enum
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "traced"))
from models import Encoder, Recurrent, SmallCNN  # noqa: E402  (the traced tests' models)


class Stats(NamedTuple):
    mean: torch.Tensor
    count: int


class Block(nn.Module):
    def __init__(self, width: int, scale: float):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.scale = scale
        self.register_buffer("shift", torch.linspace(-1.0, 1.0, width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.fc(x)) * self.scale + self.shift


class Composite(nn.Module):
    """Submodules, buffers, a ModuleList, dict/list/Optional attributes, a method
    besides forward, a NamedTuple result and a buffer that views a parameter."""

    __constants__ = ["depth"]

    def __init__(self):
        super().__init__()
        self.depth = 2
        self.blocks = nn.ModuleList([Block(6, 0.5), Block(6, 2.0)])
        self.head = nn.Sequential(nn.Linear(6, 4), nn.Tanh())
        self.table = nn.Parameter(torch.randn(4, 6))
        self.register_buffer("steps", torch.tensor([3, 1, 2], dtype=torch.int64))
        self.register_buffer("mask", torch.tensor([True, False, True, True]))
        self.register_buffer("row", self.table.data[1])  # shares the parameter's storage
        self.register_buffer("table_t", self.table.data.t())  # a strided view of it
        self.weights: Dict[str, float] = {"a": 0.25, "b": 1.5}
        self.sizes: List[int] = [2, 3]
        self.offset: Optional[torch.Tensor] = torch.full([4], 0.125, dtype=torch.float64)
        self.name = "composite"

    def forward(self, x: torch.Tensor, k: int = 1) -> Stats:
        for block in self.blocks:
            x = block(x)
        y = self.head(x) + self.row[:4] * self.weights["a"]
        if self.offset is not None:
            y = y + self.offset.float()
        y = torch.where(self.mask, y, -y) * k
        return Stats(y.mean(0), self.depth + len(self.sizes))

    @torch.jit.export
    def score(self, x: torch.Tensor, names: List[str]) -> Dict[str, torch.Tensor]:
        out: Dict[str, torch.Tensor] = {}
        for i, name in enumerate(names):
            w = self.weights.get(name, 1.0)
            out[name] = (x @ self.table_t).sum(1) * w + self.steps[i % 3]
        return out


class Traced(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(3, 5)
        self.l2 = nn.Linear(5, 2)
        self.register_buffer("bias", torch.arange(5.0))

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x) + self.bias)) * torch.tensor([2.0, -1.0])


def versioned(x: torch.Tensor, n: int) -> torch.Tensor:
    """aten::div (version 4), aten::full (5), aten::linspace (8), aten::gelu (10)."""
    ramp = torch.linspace(0.0, 1.0, steps=x.shape[-1])
    filled = torch.full([x.shape[-1]], n)
    return torch.nn.functional.gelu(x / n + ramp, approximate="tanh") + filled


@torch.jit.script
class Counter:
    def __init__(self, start: int):
        self.value = start

    def bump(self, by: int) -> int:
        self.value += by
        return self.value


@torch.jit.interface
class Activation(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pass


class Halve(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 0.5


class Rounding(Enum):
    DOWN = 0
    UP = 1


class Classes(nn.Module):
    """A TorchScript class, an enum and a module interface."""

    act: Activation

    def __init__(self):
        super().__init__()
        self.act = Halve()

    def forward(self, x: torch.Tensor, mode: int) -> torch.Tensor:
        c = Counter(1)
        c.bump(mode)
        y = self.act.forward(x) * c.value
        rounding = Rounding.UP if mode > 0 else Rounding.DOWN
        if rounding == Rounding.UP:
            return torch.ceil(y)
        return torch.floor(y)


def _randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape)


MODELS = {
    # name: (make the model, "script" | "trace" | "function", [(method, [inputs...]), ...])
    "small_cnn": (
        lambda: SmallCNN().eval(),
        "script",
        [("forward", [_randn(2, 3, 8, 8)]), ("forward", [_randn(1, 3, 8, 8)])],
    ),
    "transformer_encoder": (lambda: Encoder().eval(), "script", [("forward", [_randn(2, 5, 16)])]),
    "lstm": (lambda: Recurrent().eval(), "script", [("forward", [_randn(2, 6, 8)])]),
    "composite": (
        lambda: Composite().eval(),
        "script",
        [
            ("forward", [_randn(3, 6), 1]),
            ("forward", [_randn(2, 6), -2]),
            ("score", [_randn(2, 6), ["a", "b", "c"]]),
        ],
    ),
    "traced": (lambda: Traced().eval(), "trace", [("forward", [_randn(4, 3)]), ("forward", [_randn(2, 3)])]),
    "versioned": (lambda: versioned, "function", [("forward", [_randn(2, 5), 3])]),
    "classes": (
        lambda: Classes().eval(),
        "script",
        [("forward", [_randn(2, 3), 2]), ("forward", [_randn(2, 3), 0])],
    ),
}

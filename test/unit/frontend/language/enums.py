# ruff: noqa - Enum classes in TorchScript
import torch
from torch import Tensor
from enum import Enum
from typing import List


class Color(Enum):
    RED = 1
    GREEN = 2
    BLUE = 4


class Mode(Enum):
    FAST = "fast"
    SLOW = "slow"


class Scale(Enum):
    HALF = 0.5
    DOUBLE = 2.0


def weight(c: Color) -> int:
    if c == Color.RED:
        return 10
    elif c != Color.BLUE:
        return 20
    return 30


def forward(x: Tensor, fast: bool):
    s = 0
    names: List[str] = []
    for c in Color:
        s += c.value * weight(c)
        names.append(c.name)
    m = Mode.FAST if fast else Mode.SLOW
    factor = Scale.DOUBLE.value if m == Mode.FAST else Scale.HALF.value
    return x * factor + s, names, m.value, m.name

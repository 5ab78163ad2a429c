# ruff: noqa - TorchScript user classes as PyTorch users write them
import torch
from torch import Tensor
from typing import Dict, List, Optional


class Pair:
    """Attributes from __init__, methods, a property with a setter, a static method,
    magic methods."""

    def __init__(self, a: int, b: Tensor):
        self.a = a
        self.b = b
        self.history: List[int] = []

    def total(self) -> Tensor:
        return self.b * self.a

    @property
    def scale(self) -> int:
        return self.a

    @scale.setter
    def scale(self, value: int):
        self.history.append(self.a)
        self.a = value

    @staticmethod
    def unit(b: Tensor) -> "Pair":
        return Pair(1, b)

    def __len__(self) -> int:
        return len(self.history) + 1

    def __getitem__(self, i: int) -> int:
        return self.history[i]

    def __contains__(self, v: int) -> bool:
        return v in self.history

    def __eq__(self, other: "Pair") -> bool:
        return self.a == other.a

    def __lt__(self, other: "Pair") -> bool:
        return self.a < other.a

    def __call__(self, x: Tensor) -> Tensor:
        return x + self.b * self.a


class Registry:
    """Objects of another class in a list and a dict; one found or None."""

    def __init__(self):
        self.items: List[Pair] = []
        self.by_name: Dict[str, Pair] = {}

    def add(self, name: str, p: Pair) -> None:
        self.items.append(p)
        self.by_name[name] = p

    def find(self, name: str) -> Optional[Pair]:
        if name in self.by_name:
            return self.by_name[name]
        return None

    def best(self) -> Pair:
        best = self.items[0]
        for p in self.items:
            if best < p:
                best = p
        return best

    def sorted_scales(self) -> List[int]:
        return [p.a for p in sorted(self.items)]


def forward(x: Tensor, k: int):
    p = Pair(k, x)
    q = Pair.unit(x)
    p.scale = k + 2
    p.scale = 2 * k
    r = Registry()
    r.add("p", p)
    r.add("q", q)
    r.add("s", Pair(k - 5, x + 1))
    best_scale = r.best().scale
    missing = r.find("nobody")
    found_scale = -1
    s = r.find("s")
    if missing is None and s is not None:
        found_scale = s.scale
    found = 0
    if k + 2 in p:
        found = p[0] + len(p)
    same = p == Pair(2 * k, x)
    return p.total() + q(x), r.sorted_scales(), best_scale, found, same, found_scale

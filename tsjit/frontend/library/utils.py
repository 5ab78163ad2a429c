"""`torch.nn.modules.utils` for the library: the n-tuple helpers layers and functions use
on their size arguments. In Python they normalize a value or sequence to a tuple; scripted
code calls TorchScript's builtins of the same names instead (`aten::_pair`,
`aten::list_with_default`, ...: `tsjit.frontend.builtins.PYTHON_BUILTINS`), as PyTorch does
for its own helpers.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def _ntuple(n: int, name: str) -> Any:
    def parse(x: Any) -> tuple:
        if isinstance(x, Iterable):
            return tuple(x)
        return (x,) * n

    parse.__name__ = parse.__qualname__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t: tuple, n: int) -> tuple:
    """The padding of conv and pooling layers in F.pad's order: reversed, each value n times."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size: Any, defaults: list[int]) -> Any:
    """`output_size` of the adaptive poolings: None entries take the input's size."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size) :])]

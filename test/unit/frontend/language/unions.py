# ruff: noqa - Union types, isinstance refinement, torch.jit.isinstance, Optional refinement
import torch
from torch import Tensor
from typing import Any, Dict, List, Optional, Tuple, Union


def describe(v: Union[int, str, List[int]]) -> str:
    if isinstance(v, int):
        return "int " + str(v + 1)
    elif isinstance(v, str):
        return "str " + v.upper()
    else:
        return "list of " + str(len(v))


def size_of(v: Union[Tensor, float, None]) -> float:
    if v is None:
        return -1.0
    if isinstance(v, Tensor):
        return float(v.numel())
    return v * 2.0


def count(v: Any) -> int:
    if torch.jit.isinstance(v, List[int]):
        return len(v)
    if torch.jit.isinstance(v, Dict[str, int]):
        return len(v) * 100
    return 0


def pick(flag: bool) -> Union[int, str]:
    if flag:
        return 7
    return "seven"


def forward(x: Tensor, k: int, name: str, maybe: Optional[Tensor]):
    parts = [describe(k), describe(name), describe([k, k])]
    sizes = [size_of(x), size_of(float(k)), size_of(None), size_of(maybe)]
    counts = [count([1, 2, 3]), count({"a": 1}), count("x")]
    chosen = pick(k > 0)
    as_text = chosen if isinstance(chosen, str) else str(chosen)
    return parts, sizes, counts, as_text

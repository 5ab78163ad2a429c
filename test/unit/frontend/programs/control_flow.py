# ruff: noqa - a TorchScript program in the style PyTorch users write (typing.List, Optional, ...)
import torch
from typing import List, Dict, Optional, Tuple


def helper(a: int, b: int = 3) -> int:
    return a * b


def forward(x: torch.Tensor, n: int, xs: List[int], d: Dict[str, float], o: Optional[int]):
    total = 0
    for i, v in enumerate(xs):
        if v % 2 == 0:
            continue
        total += i * v
        if total > 50:
            break
    j = 0
    while j < n:
        j += 1
        if j == 3:
            total += helper(j)
            continue
        total -= 1
    s = 0.0
    for k in sorted(d.keys()):
        s += d[k]
    rows = 0.0
    for row in x:
        rows += float(row.sum())
    m = o if o is not None else -1
    names = [k.upper() for k in d]
    squares = {v: v * v for v in xs}
    t = (total, s)
    a, b = t
    return (
        total,
        s,
        rows,
        m,
        names,
        squares,
        a + b,
        max(xs) if len(xs) > 0 else 0,
        min(n, 2),
        abs(-n),
        x[1:, ::2].sum(),
        x.t().contiguous().view(-1)[0],
    )

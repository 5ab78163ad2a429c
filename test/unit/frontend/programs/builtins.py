# ruff: noqa - a TorchScript program in the style PyTorch users write (typing.List, Optional, ...)
import torch
import math
from typing import List, Dict, NamedTuple, Optional, Tuple


class Point(NamedTuple):
    x: float
    y: float


def norm(p: Point) -> float:
    return math.sqrt(p.x * p.x + p.y * p.y)


def forward(xs: List[int], t: torch.Tensor, o: Optional[torch.Tensor], d: Dict[str, int]):
    p = Point(3.0, y=4.0)
    pairs: List[Tuple[int, int]] = []
    for i in range(len(xs) - 1, -1, -1):
        pairs.append((i, xs[i]))
    acc = 0
    for i, (a, b) in enumerate(pairs):
        acc += i * a - b
    ys = xs[::2] + xs[1::2]
    ys.sort(reverse=True)
    first = ys.index(max(ys)) if len(ys) > 0 else -1
    tensors = [t, t * 2, t + 1]
    total = torch.stack(tensors).sum()
    assert o is not None, "o must be given"
    scaled = o * 3 if torch.jit.is_scripting() else o
    v = d.pop("a", 0)
    w = d.setdefault("q", 7)
    c = 0 < acc < 100
    items = [k + str(val) for k, val in d.items()]
    with torch.no_grad():
        g = (t.long() + 1).float().mean()
    e = any([a > 3 for a in xs])
    al = all([a > -1 for a in xs])
    s = "{:.3f}".format(1.0 / 3.0) if False else "{}".format(norm(p))
    return (
        norm(p),
        p.y,
        acc,
        ys,
        first,
        total,
        scaled,
        v,
        w,
        c,
        items,
        g,
        e,
        al,
        s,
        len(d),
        xs.count(3),
        math.log(2.0, 4.0),
        math.copysign(1.5, -2.0),
        int(math.inf > 1),
        round(2.567),
    )

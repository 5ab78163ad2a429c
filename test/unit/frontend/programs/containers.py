# ruff: noqa - a TorchScript program in the style PyTorch users write (typing.List, Optional, ...)
import torch
from typing import List, Dict, Tuple, Optional


def stats(xs: List[float]) -> Tuple[float, float]:
    if len(xs) == 0:
        return 0.0, 0.0
    mean = sum(xs) / len(xs)
    var = 0.0
    for v in xs:
        var += (v - mean) ** 2
    return mean, var / len(xs)


def forward(words: List[str], x: torch.Tensor, k: int):
    counts: Dict[str, int] = {}
    for w in words:
        if w in counts:
            counts[w] += 1
        else:
            counts[w] = 1
    keys = list(counts.keys())
    keys.sort()
    lens = [len(w) for w in words]
    lens.insert(0, k)
    lens.extend([1, 2])
    popped = lens.pop()
    lens.reverse()
    found = -1
    i = 0
    while True:
        if i >= len(words):
            break
        if words[i].startswith("b"):
            found = i
            break
        i += 1
    pairs = 0
    for a in range(k):
        for b in range(k):
            if b > a:
                break
            pairs += a * b
    m, v = stats([1.5, 2.5, float(k)])
    t = torch.tensor([1.0, 2.0, 3.0]) * x.sum()
    idx = torch.tensor([0, 2])
    y = x.clone()
    y[0, 1] = 10.0
    y[1] += 1
    y[:, 0] *= 2
    picked = y[idx]
    del counts[keys[0]]
    joined = ",".join(keys)
    flag = "a" in joined and not joined.endswith("z")
    item = x[0, 0].item()
    return (
        counts,
        keys,
        lens,
        popped,
        found,
        pairs,
        m,
        v,
        t,
        picked,
        joined,
        flag,
        item,
        int(x.sum() > 0),
        float(k) / 4,
        k // 3,
        -k % 5,
        str(2.5),
        bool(k),
    )

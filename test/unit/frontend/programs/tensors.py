# ruff: noqa - a TorchScript program in the style PyTorch users write (typing.List, Optional, ...)
import torch
import math
from typing import List, Tuple


def forward(x: torch.Tensor, y: torch.Tensor, n: int):
    z = torch.zeros_like(x)
    for i in range(x.size(0)):
        z[i] = x[i] * i
    w = torch.cat([x, y], dim=0)
    parts = torch.chunk(w, 2, dim=1)
    a = parts[0] + parts[1].mean()
    b = torch.where(x > 0, x, -x) ** 0.5
    c = x.clamp(-0.5, 0.5).exp().log1p()
    q = x.masked_fill(x < 0, 0.0).sum(dim=1, keepdim=True)
    e = (x @ y.t()).softmax(dim=-1)
    f = torch.stack([x.max(dim=1)[0], x.min(dim=1).values], dim=0)
    g = math.cos(n * math.pi) + math.floor(2.7) - math.exp(0.5)
    h = x.shape[0] * x.size(1) + x.dim() + x.numel()
    k = torch.arange(n, dtype=torch.float32).reshape(1, -1) * 2
    msg = f"{n}-{h}"
    if n > 2 and h > 3:
        x = x + 1
    elif n == 0 or not (h > 1):
        x = x - 1
    else:
        x = x * 2
    return z, a, b, c, q, e, f, g, h, k, msg, x, x.argmax(dim=0), torch.tanh(x).gt(0).sum()

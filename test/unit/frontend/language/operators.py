# ruff: noqa - operators by qualified name: torch.ops.<namespace>.<name>, torch._C._nn, torch.linalg, torch.special
import torch
from torch import Tensor


def forward(x: Tensor, y: Tensor):
    a = torch.ops.aten.logical_or(x > 0, y > 0)
    b = torch.ops.aten.add(x, y, alpha=2)
    c = torch.ops.aten.clamp(x, min=-0.5)
    d = torch.ops.aten.sum(x, [0], keepdim=True)
    e = torch._C._nn.gelu(x)
    f = torch.linalg.vector_norm(x, 2.0)
    g = torch.special.expit(y)
    h = torch.ops.prim.NumToTensor(x.dim())
    return a, b, c, d, e, f, g, h

"""Distances between pairs of inputs (`torch.nn.modules.distance`)."""

from __future__ import annotations

from tsjit.frontend.library import functional as F
from tsjit.frontend.torch_shim import Tensor
from tsjit.frontend.torch_shim.nn.module import Module


class PairwiseDistance(Module):
    __constants__ = ("norm", "eps", "keepdim")
    norm: float
    eps: float
    keepdim: bool

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    __constants__ = ("dim", "eps")
    dim: int
    eps: float

    def __init__(self, dim: int = 1, eps: float = 1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)

"""Embedding tables (`torch.nn.modules.sparse`): `Embedding` and `EmbeddingBag`."""

from __future__ import annotations

from tsjit.frontend import torch_shim as torch
from tsjit.frontend.library import functional as F
from tsjit.frontend.torch_shim import Tensor
from tsjit.frontend.torch_shim.nn import init
from tsjit.frontend.torch_shim.nn.module import Module, Parameter


def _checked_padding_idx(padding_idx: int | None, num_embeddings: int) -> int | None:
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = num_embeddings + padding_idx
    return padding_idx


class Embedding(Module):
    __constants__ = ("num_embeddings", "embedding_dim", "padding_idx", "max_norm", "norm_type",
                     "scale_grad_by_freq", "sparse")  # fmt: skip
    num_embeddings: int
    embedding_dim: int
    padding_idx: int | None
    max_norm: float | None
    norm_type: float
    scale_grad_by_freq: bool
    weight: Tensor
    sparse: bool

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                 sparse: bool = False, _weight=None, _freeze: bool = False, device=None, dtype=None):  # fmt: skip
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = _checked_padding_idx(padding_idx, num_embeddings)
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if _weight is None:
            self.weight = Parameter(torch.empty(num_embeddings, embedding_dim, dtype=dtype))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight)
        self.sparse = sparse

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with torch.no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)  # fmt: skip

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, sparse=False):  # fmt: skip
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, _freeze=freeze,
                   padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)  # fmt: skip


class EmbeddingBag(Module):
    __constants__ = ("num_embeddings", "embedding_dim", "max_norm", "norm_type", "scale_grad_by_freq", "mode",
                     "sparse", "include_last_offset", "padding_idx")  # fmt: skip
    num_embeddings: int
    embedding_dim: int
    max_norm: float | None
    norm_type: float
    scale_grad_by_freq: bool
    weight: Tensor
    mode: str
    sparse: bool
    include_last_offset: bool
    padding_idx: int | None

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: float | None = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                 _weight=None, include_last_offset: bool = False, padding_idx: int | None = None, device=None,
                 dtype=None):  # fmt: skip
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.padding_idx = _checked_padding_idx(padding_idx, num_embeddings)
        if _weight is None:
            self.weight = Parameter(torch.empty(num_embeddings, embedding_dim, dtype=dtype))
            init.normal_(self.weight)
            if self.padding_idx is not None:
                with torch.no_grad():
                    self.weight[self.padding_idx].fill_(0)
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def forward(
        self, input: Tensor, offsets: Tensor | None = None, per_sample_weights: Tensor | None = None
    ) -> Tensor:
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                               self.mode, self.sparse, per_sample_weights, self.include_last_offset,
                               self.padding_idx)  # fmt: skip

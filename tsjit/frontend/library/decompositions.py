"""Operators written as TorchScript over other operators (PyTorch's
`torch/jit/_decompositions.py`, `torch/_refs`, `torch/_decomp`).

An operator whose overload has no numpy kernel runs as its decomposition: the
`decompose-ops` pass inlines the decomposition in its place, so that what it is made of
optimizes and fuses with its neighbours, and the interpreter calls the compiled
decomposition where no pass ran (`tsjit.frontend.library_decompositions`).

Each function takes the overload's schema arguments in schema order, under the
schema's names and types, and returns its results. `@decomposes(...)` names the
overloads a function implements. The bodies are TorchScript, compiled by tsjit's own
frontend; this file is also importable Python (the shim's `torch`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import List, Optional

from tsjit.frontend import torch_shim as torch
from tsjit.frontend.torch_shim import Tensor

DECOMPOSITIONS: dict[str, Callable[..., object]] = {}
"""The function implementing each overload (`aten::xlogy.Tensor`)."""


def decomposes(*overloads: str) -> Callable[[Callable[..., object]], Callable[..., object]]:
    def register(function: Callable[..., object]) -> Callable[..., object]:
        for overload in overloads:
            if overload in DECOMPOSITIONS:
                raise ValueError(f"two decompositions of {overload}")
            DECOMPOSITIONS[overload] = function
        return function

    return register


# --------------------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------------------


@decomposes("aten::xlogy.Tensor")
def xlogy(self: Tensor, other: Tensor) -> Tensor:
    # 0 * log(y) is 0 unless y is nan
    product = self * torch.log(other)
    zero = torch.zeros_like(product)
    return torch.where(torch.isnan(other), other.to(product.dtype), torch.where(self == 0, zero, product))


@decomposes("aten::heaviside")
def heaviside(self: Tensor, values: Tensor) -> Tensor:
    positive = (self > 0).to(self.dtype)
    return torch.where(self == 0, values.to(self.dtype), positive)


@decomposes("aten::logaddexp2")
def logaddexp2(self: Tensor, other: Tensor) -> Tensor:
    high = torch.maximum(self, other)
    low = torch.minimum(self, other)
    result = high + torch.log2(1 + torch.exp2(low - high))
    # equal infinities: inf - inf would be nan
    return torch.where(high == low, high + 1.0, result)


# --------------------------------------------------------------------------------------
# Views and copies
# --------------------------------------------------------------------------------------


@decomposes("aten::fliplr")
def fliplr(self: Tensor) -> Tensor:
    if self.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return torch.flip(self, [1])


@decomposes("aten::flipud")
def flipud(self: Tensor) -> Tensor:
    if self.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return torch.flip(self, [0])


@decomposes("aten::expand_copy")
def expand_copy(self: Tensor, size: List[int], implicit: bool = False) -> Tensor:
    return self.expand(size, implicit=implicit).clone()


@decomposes("aten::diagonal_copy")
def diagonal_copy(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return torch.diagonal(self, offset, dim1, dim2).clone()


@decomposes("aten::alias_copy")
def alias_copy(self: Tensor) -> Tensor:
    return self.clone()


@decomposes("aten::narrow_copy")
def narrow_copy(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    return torch.narrow(self, dim, start, length).clone()


@decomposes("aten::view_copy")
def view_copy(self: Tensor, size: List[int]) -> Tensor:
    return self.view(size).clone()


@decomposes("aten::view_copy.dtype")
def view_copy_dtype(self: Tensor, dtype: int) -> Tensor:
    return self.view(dtype).clone()


@decomposes("aten::permute_copy")
def permute_copy(self: Tensor, dims: List[int]) -> Tensor:
    return self.permute(dims).clone()


@decomposes("aten::split_with_sizes_copy")
def split_with_sizes_copy(self: Tensor, split_sizes: List[int], dim: int = 0) -> List[Tensor]:
    return [t.clone() for t in torch.split_with_sizes(self, split_sizes, dim)]


@decomposes("aten::unbind_copy.int")
def unbind_copy(self: Tensor, dim: int = 0) -> List[Tensor]:
    return [t.clone() for t in torch.unbind(self, dim)]


@decomposes("aten::unfold_copy")
def unfold_copy(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    return self.unfold(dimension, size, step).clone()


@decomposes("aten::squeeze_copy")
def squeeze_copy(self: Tensor) -> Tensor:
    return torch.squeeze(self).clone()


@decomposes("aten::squeeze_copy.dim")
def squeeze_copy_dim(self: Tensor, dim: int) -> Tensor:
    return torch.squeeze(self, dim).clone()


@decomposes("aten::squeeze_copy.dims")
def squeeze_copy_dims(self: Tensor, dim: List[int]) -> Tensor:
    return torch.squeeze(self, dim).clone()


@decomposes("aten::unsqueeze_copy")
def unsqueeze_copy(self: Tensor, dim: int) -> Tensor:
    return torch.unsqueeze(self, dim).clone()


@decomposes("aten::transpose_copy.int")
def transpose_copy(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return torch.transpose(self, dim0, dim1).clone()


@decomposes("aten::t_copy")
def t_copy(self: Tensor) -> Tensor:
    return torch.t(self).clone()


@decomposes("aten::as_strided_copy")
def as_strided_copy(self: Tensor, size: List[int], stride: List[int], storage_offset: Optional[int] = None) -> Tensor:
    return torch.as_strided(self, size, stride, storage_offset).clone()


@decomposes("aten::unsafe_chunk")
def unsafe_chunk(self: Tensor, chunks: int, dim: int = 0) -> List[Tensor]:
    return torch.chunk(self, chunks, dim)


@decomposes("aten::unsafe_split.Tensor")
def unsafe_split(self: Tensor, split_size: int, dim: int = 0) -> List[Tensor]:
    return torch.split(self, split_size, dim)


def _expandable(size: List[int], shape: List[int]) -> bool:
    """Whether a tensor of `size` broadcasts to `shape` (c10's is_expandable_to)."""
    if len(size) > len(shape):
        return False
    for i in range(len(size)):
        have = size[len(size) - 1 - i]
        want = shape[len(shape) - 1 - i]
        if have != want and have != 1:
            return False
    return True


@decomposes("aten::sum_to_size")
def sum_to_size(self: Tensor, size: List[int]) -> Tensor:
    if not _expandable(size, self.size()):
        raise RuntimeError("size " + str(size) + " is not expandable to size " + str(self.size()) + ".")
    if len(size) == 0:
        return torch.sum(self)  # c10's sum_to: a full sum, even of a 0-dim tensor
    leading = self.dim() - len(size)
    dims: List[int] = []
    for i in range(leading):
        dims.append(i)
    for i in range(len(size)):
        if size[i] == 1 and self.size(leading + i) != 1:
            dims.append(leading + i)
    if len(dims) == 0:
        return self
    return torch.sum(self, dims, keepdim=True).view(size)


# --------------------------------------------------------------------------------------
# Shapes of several tensors
# --------------------------------------------------------------------------------------


@decomposes("aten::atleast_1d")
def atleast_1d(self: Tensor) -> Tensor:
    if self.dim() == 0:
        return self.reshape([1])
    return self


@decomposes("aten::atleast_2d")
def atleast_2d(self: Tensor) -> Tensor:
    if self.dim() == 0:
        return self.reshape([1, 1])
    if self.dim() == 1:
        return self.unsqueeze(0)
    return self


@decomposes("aten::atleast_3d")
def atleast_3d(self: Tensor) -> Tensor:
    if self.dim() == 0:
        return self.reshape([1, 1, 1])
    if self.dim() == 1:
        return self.unsqueeze(0).unsqueeze(-1)
    if self.dim() == 2:
        return self.unsqueeze(-1)
    return self


@decomposes("aten::atleast_1d.Sequence")
def atleast_1d_sequence(tensors: List[Tensor]) -> List[Tensor]:
    return [torch.atleast_1d(t) for t in tensors]


@decomposes("aten::atleast_2d.Sequence")
def atleast_2d_sequence(tensors: List[Tensor]) -> List[Tensor]:
    return [torch.atleast_2d(t) for t in tensors]


@decomposes("aten::atleast_3d.Sequence")
def atleast_3d_sequence(tensors: List[Tensor]) -> List[Tensor]:
    return [torch.atleast_3d(t) for t in tensors]


@decomposes("aten::column_stack")
def column_stack(tensors: List[Tensor]) -> Tensor:
    if len(tensors) == 0:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    columns: List[Tensor] = []
    for t in tensors:
        if t.dim() <= 1:
            columns.append(t.reshape([t.numel(), 1]))
        else:
            columns.append(t)
    return torch.hstack(columns)


@decomposes("aten::dstack")
def dstack(tensors: List[Tensor]) -> Tensor:
    if len(tensors) == 0:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return torch.cat(torch.atleast_3d(tensors), 2)


def _split_dimension(self: Tensor, name: str, least: int, dim: int) -> int:
    if self.dim() < least:
        raise RuntimeError(
            "torch." + name + " requires a tensor with at least " + str(least) + " dimension, but got a tensor with "
            + str(self.dim()) + " dimensions!"
        )
    return dim


def _split_sections(self: Tensor, name: str, dim: int, sections: int) -> List[Tensor]:
    if sections != 0 and self.size(dim) % sections != 0:
        raise RuntimeError(
            "torch." + name + " attempted to split along dimension " + str(dim) + ", but the size of the dimension "
            + str(self.size(dim)) + " is not divisible by the split_size " + str(sections) + "!"
        )
    return torch.tensor_split(self, sections, dim)


@decomposes("aten::hsplit.int")
def hsplit(self: Tensor, sections: int) -> List[Tensor]:
    dim = _split_dimension(self, "hsplit", 1, 1 if self.dim() > 1 else 0)
    return _split_sections(self, "hsplit", dim, sections)


@decomposes("aten::vsplit.int")
def vsplit(self: Tensor, sections: int) -> List[Tensor]:
    return _split_sections(self, "vsplit", _split_dimension(self, "vsplit", 2, 0), sections)


@decomposes("aten::dsplit.int")
def dsplit(self: Tensor, sections: int) -> List[Tensor]:
    return _split_sections(self, "dsplit", _split_dimension(self, "dsplit", 3, 2), sections)


@decomposes("aten::hsplit.array")
def hsplit_array(self: Tensor, indices: List[int]) -> List[Tensor]:
    dim = _split_dimension(self, "hsplit", 1, 1 if self.dim() > 1 else 0)
    return torch.tensor_split(self, indices, dim)


@decomposes("aten::vsplit.array")
def vsplit_array(self: Tensor, indices: List[int]) -> List[Tensor]:
    return torch.tensor_split(self, indices, _split_dimension(self, "vsplit", 2, 0))


@decomposes("aten::dsplit.array")
def dsplit_array(self: Tensor, indices: List[int]) -> List[Tensor]:
    return torch.tensor_split(self, indices, _split_dimension(self, "dsplit", 3, 2))


@decomposes("aten::tensor_split.tensor_indices_or_sections")
def tensor_split_tensor(self: Tensor, tensor_indices_or_sections: Tensor, dim: int = 0) -> List[Tensor]:
    split = tensor_indices_or_sections
    if split.dtype != torch.long:
        raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of long")
    if split.dim() == 0:
        return torch.tensor_split(self, int(split.item()), dim)
    if split.dim() != 1:
        raise RuntimeError(
            "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional tensor, "
            "but got a tensor with " + str(split.dim()) + " dims"
        )
    indices: List[int] = [int(split[i]) for i in range(split.numel())]
    return torch.tensor_split(self, indices, dim)


@decomposes("aten::meshgrid.indexing")
def meshgrid_indexing(tensors: List[Tensor], indexing: str) -> List[Tensor]:
    if len(tensors) == 0:
        raise RuntimeError("torch.meshgrid: Expected at least one tensor")
    if indexing != "ij" and indexing != "xy":
        raise RuntimeError('torch.meshgrid: indexing must be one of "xy" or "ij", but received: ' + indexing)
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a " + str(t.dim())
                               + "D tensor")
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("torch.meshgrid: Expected all tensors in the tensor list to have the same dtype")
    swap = indexing == "xy" and len(tensors) >= 2
    ordered: List[Tensor] = []
    for t in tensors:
        ordered.append(t)
    if swap:
        ordered[0] = tensors[1]
        ordered[1] = tensors[0]
    shape: List[int] = [t.numel() for t in ordered]
    grids: List[Tensor] = []
    for i in range(len(ordered)):
        view: List[int] = [1 for _ in ordered]
        view[i] = -1
        grids.append(ordered[i].reshape(view).expand(shape))
    if swap:
        first = grids[0]
        grids[0] = grids[1]
        grids[1] = first
    return grids


@decomposes("aten::meshgrid")
def meshgrid(tensors: List[Tensor]) -> List[Tensor]:
    return torch.meshgrid(tensors, indexing="ij")


@decomposes("aten::cartesian_prod")
def cartesian_prod(tensors: List[Tensor]) -> Tensor:
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError("Expect a 1D vector, but got shape " + str(t.size()))
    if len(tensors) == 1:
        return tensors[0]
    grids = torch.meshgrid(tensors, indexing="ij")
    return torch.stack([g.flatten() for g in grids], 1)


@decomposes("aten::block_diag")
def block_diag(tensors: List[Tensor]) -> Tensor:
    if len(tensors) == 0:
        return torch.empty([1, 0])
    dtype = tensors[0].dtype
    rows = 0
    columns = 0
    matrices: List[Tensor] = []
    for i in range(len(tensors)):
        t = tensors[i]
        if t.dim() > 2:
            raise RuntimeError("torch.block_diag: Input tensors must have 2 or fewer dimensions. Input " + str(i)
                               + " has " + str(t.dim()) + " dimensions")
        if t.dim() == 0:
            t = t.reshape([1, 1])
        elif t.dim() == 1:
            t = t.reshape([1, t.numel()])
        dtype = torch.promote_types(dtype, t.dtype)
        rows += t.size(0)
        columns += t.size(1)
        matrices.append(t)
    result = torch.zeros([rows, columns], dtype=dtype)
    row = 0
    column = 0
    for t in matrices:
        result.narrow(0, row, t.size(0)).narrow(1, column, t.size(1)).copy_(t)
        row += t.size(0)
        column += t.size(1)
    return result


@decomposes("aten::combinations")
def combinations(self: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    if self.dim() != 1:
        raise RuntimeError("Expect a 1D vector, but got shape " + str(self.size()))
    if r < 0:
        raise RuntimeError("Expect a non-negative number, but got " + str(r))
    if r == 0:
        return torch.empty([0], dtype=self.dtype)
    positions = torch.arange(self.numel())
    index_grids = torch.meshgrid([positions for _ in range(r)], indexing="ij")
    mask = torch.ones_like(index_grids[0], dtype=torch.bool)
    for i in range(r - 1):
        if with_replacement:
            mask = mask & (index_grids[i] <= index_grids[i + 1])
        else:
            mask = mask & (index_grids[i] < index_grids[i + 1])
    grids = torch.meshgrid([self for _ in range(r)], indexing="ij")
    return torch.stack([g.masked_select(mask) for g in grids], 1)

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
from typing import List, Optional, Union

from tsjit.frontend import torch_shim as torch
from tsjit.frontend.torch_shim import Tensor

Number = Union[int, float, bool]  # noqa: UP007 -- torch.types.Number: TorchScript's Scalar

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
# Checks
# --------------------------------------------------------------------------------------


def _dtype_name(dtype: int) -> str:
    """c10's name of a ScalarType code, as in PyTorch's messages ("Long", "Float")."""
    names = ["Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double", "ComplexHalf", "ComplexFloat",
             "ComplexDouble", "Bool", "QInt8", "QUInt8", "QInt32", "BFloat16"]  # fmt: skip
    if 0 <= dtype < len(names):
        return names[dtype]
    return str(dtype)


def _floating_only(dtype: int, kernel: str) -> None:
    """PyTorch's error for a C++ kernel that has no integral or bool instantiation."""
    if dtype not in [5, 6, 7, 8, 9, 10, 15]:  # Half, Float, Double, the complex types, BFloat16
        raise RuntimeError('"' + kernel + '" not implemented for \'' + _dtype_name(dtype) + "'")


# --------------------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------------------


@decomposes("aten::heaviside")
def heaviside(self: Tensor, values: Tensor) -> Tensor:
    if self.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    positive = (self > 0).to(self.dtype)
    return torch.where(self == 0, values.to(self.dtype), positive)


@decomposes("aten::logaddexp2")
def logaddexp2(self: Tensor, other: Tensor) -> Tensor:
    _floating_only(torch.promote_types(self.dtype, other.dtype), "logaddexp2_cpu")
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


@decomposes("aten::select_scatter")
def select_scatter(self: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    result = self.clone()
    _scatter_slot(result.select(dim, index), src)
    return result


@decomposes("aten::slice_scatter")
def slice_scatter(self: Tensor, src: Tensor, dim: int = 0, start: Optional[int] = None, end: Optional[int] = None,
                  step: int = 1) -> Tensor:  # fmt: skip
    result = self.clone()
    _scatter_slot(torch.slice(result, dim, start, end, step), src)
    return result


@decomposes("aten::diagonal_scatter")
def diagonal_scatter(self: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    result = self.clone()
    _scatter_slot(torch.diagonal(result, offset, dim1, dim2), src)
    return result


@decomposes("aten::as_strided_scatter")
def as_strided_scatter(self: Tensor, src: Tensor, size: List[int], stride: List[int],
                       storage_offset: Optional[int] = None) -> Tensor:  # fmt: skip
    result = self.clone()
    _scatter_slot(torch.as_strided(result, size, stride, storage_offset), src)
    return result


def _scatter_slot(slot: Tensor, src: Tensor) -> None:
    """Writes `src` into a view of the result; the sizes must be equal, not broadcast."""
    if slot.size() != src.size():
        raise RuntimeError("expected src to have a size equal to the slice of self. src size = " + str(src.size())
                           + ", slice size = " + str(slot.size()))
    slot.copy_(src)


@decomposes("aten::take_along_dim")
def take_along_dim(self: Tensor, indices: Tensor, dim: Optional[int] = None) -> Tensor:
    if indices.dtype != torch.long:
        raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got "
                           + _dtype_name(indices.dtype))
    if dim is None:
        return self.reshape([-1]).gather(0, indices.reshape([-1]))
    if self.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           "but got " + str(self.dim()) + " dimensions for input, and " + str(indices.dim())
                           + " dimensions for indices")
    d = dim
    if d < 0:
        d += self.dim()
    self_sizes = self.size()
    self_sizes[d] = indices.size(d)
    shape = torch.broadcast_shapes(self_sizes, indices.size())
    indices_broadcast = indices.broadcast_to(shape)
    shape[d] = self.size(d)
    return self.broadcast_to(shape).gather(d, indices_broadcast)


@decomposes("aten::rot90")
def rot90(self: Tensor, k: int = 1, dims: List[int] = [0, 1]) -> Tensor:  # noqa: B006 -- the schema's default
    if len(dims) != 2:
        raise RuntimeError("expected total rotation dims == 2, but got dims = " + str(len(dims)))
    if self.dim() < 2:
        raise RuntimeError("expected total dims >= 2, but got total dims = " + str(self.dim()))
    if dims[0] == dims[1] or abs(dims[0] - dims[1]) == self.dim():
        raise RuntimeError("expected rotation dims to be different, but got dim0 = " + str(dims[0])
                           + " and dim1 = " + str(dims[1]))
    if dims[0] >= self.dim() or dims[0] < -self.dim():
        raise RuntimeError("Rotation dim0 out of range, dim0 = " + str(dims[0]))
    if dims[1] >= self.dim() or dims[1] < -self.dim():
        raise RuntimeError("Rotation dim1 out of range, dim1 = " + str(dims[1]))
    turns = k % 4
    if turns == 1:
        return self.flip([dims[1]]).transpose(dims[0], dims[1])
    if turns == 2:
        return self.flip(dims)
    if turns == 3:
        return self.flip([dims[0]]).transpose(dims[0], dims[1])
    return self.clone()


@decomposes("aten::msort")
def msort(self: Tensor) -> Tensor:
    return torch.sort(self, 0)[0]


@decomposes("aten::nanmean")
def nanmean(self: Tensor, dim: Optional[List[int]] = None, keepdim: bool = False,
            dtype: Optional[int] = None) -> Tensor:  # fmt: skip
    if not self.is_floating_point() and not self.is_complex():
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           + _dtype_name(self.dtype))
    count = torch.logical_not(torch.isnan(self)).sum(dim, keepdim)
    return torch.nansum(self, dim, keepdim, dtype=dtype) / count


@decomposes("aten::diff")
def diff(self: Tensor, n: int = 1, dim: int = -1, prepend: Optional[Tensor] = None,
         append: Optional[Tensor] = None) -> Tensor:  # fmt: skip
    if self.dim() < 1:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError("order must be non-negative but got " + str(n))
    parts: List[Tensor] = []
    if prepend is not None:
        parts.append(prepend)
    parts.append(self)
    if append is not None:
        parts.append(append)
    result = torch.cat(parts, dim) if len(parts) > 1 else self.clone()
    for _ in range(n):
        length = result.size(dim)
        if length == 0:
            break
        later = result.narrow(dim, 1, length - 1)
        earlier = result.narrow(dim, 0, length - 1)
        if result.dtype == torch.bool:
            result = torch.logical_xor(later, earlier)
        else:
            result = later - earlier
    return result


def _no_bool(y: Tensor, x: Tensor) -> None:
    if y.dtype == torch.bool or x.dtype == torch.bool:
        raise RuntimeError("trapezoid: received a bool input for `x` or `y`, but bool is not supported")


def _sample_spacing(y: Tensor, x: Tensor, dim: int) -> Tensor:
    """The differences of `x` along `dim`, shaped to broadcast against `y`'s."""
    if x.dim() == 1:
        if x.size(0) != y.size(dim):
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        shape: List[int] = [1 for _ in range(y.dim())]
        shape[dim] = x.size(0)
        x = x.view(shape)
    elif x.dim() < y.dim():
        shape = [1 for _ in range(y.dim() - x.dim())]
        for s in x.size():
            shape.append(s)
        x = x.view(shape)
    return x.slice(dim, 1) - x.slice(dim, 0, -1)


def _wrapped(dim: int, rank: int) -> int:
    if dim < -rank or dim >= rank:
        raise IndexError("Dimension out of range (expected to be in range of [" + str(-rank) + ", " + str(rank - 1)
                         + "], but got " + str(dim) + ")")
    return dim + rank if dim < 0 else dim


def _zeros_except(y: Tensor, dim: int) -> Tensor:
    shape = y.size()
    shape.pop(dim)
    return torch.zeros(shape, dtype=y.dtype)


@decomposes("aten::trapezoid.x")
def trapezoid_x(y: Tensor, x: Tensor, dim: int = -1) -> Tensor:
    d = _wrapped(dim, y.dim())
    if y.size(d) == 0:
        return _zeros_except(y, d)
    _no_bool(y, x)
    dx = _sample_spacing(y, x, d)
    return ((y.slice(d, 0, -1) + y.slice(d, 1)) * dx).sum(d) / 2.0


@decomposes("aten::trapezoid.dx")
def trapezoid_dx(y: Tensor, dx: Number = 1, dim: int = -1) -> Tensor:
    d = _wrapped(dim, y.dim())
    if y.size(d) == 0:
        return _zeros_except(y, d)
    _no_bool(y, y)
    return (y.sum(d) - (y.select(d, 0) + y.select(d, -1)) * 0.5) * dx


@decomposes("aten::trapz.x")
def trapz_x(y: Tensor, x: Tensor, dim: int = -1) -> Tensor:
    return torch.trapezoid(y, x, dim=dim)


@decomposes("aten::trapz.dx")
def trapz_dx(y: Tensor, dx: float = 1.0, dim: int = -1) -> Tensor:
    return torch.trapezoid(y, dx=dx, dim=dim)


@decomposes("aten::cumulative_trapezoid.x")
def cumulative_trapezoid_x(y: Tensor, x: Tensor, dim: int = -1) -> Tensor:
    d = _wrapped(dim, y.dim())
    _no_bool(y, x)
    if y.size(d) == 0:
        return torch.zeros_like(y, dtype=torch.promote_types(y.dtype, torch.float))
    dx = _sample_spacing(y, x, d)
    return ((y.slice(d, 0, -1) + y.slice(d, 1)) * dx).cumsum(d) / 2.0


@decomposes("aten::cumulative_trapezoid.dx")
def cumulative_trapezoid_dx(y: Tensor, dx: Number = 1, dim: int = -1) -> Tensor:
    d = _wrapped(dim, y.dim())
    _no_bool(y, y)
    return ((y.slice(d, 0, -1) + y.slice(d, 1)) * dx / 2.0).cumsum(d)


@decomposes("aten::kron")
def kron(self: Tensor, other: Tensor) -> Tensor:
    rank = max(self.dim(), other.dim())
    a = self.reshape([1 for _ in range(rank - self.dim())] + self.size())
    b = other.reshape([1 for _ in range(rank - other.dim())] + other.size())
    a_shape: List[int] = []
    b_shape: List[int] = []
    shape: List[int] = []
    for i in range(rank):
        a_shape += [a.size(i), 1]
        b_shape += [1, b.size(i)]
        shape.append(a.size(i) * b.size(i))
    return (a.reshape(a_shape) * b.reshape(b_shape)).reshape(shape)


@decomposes("aten::dist")
def dist(self: Tensor, other: Tensor, p: Number = 2) -> Tensor:
    return torch.linalg_vector_norm(self - other, p)


def _float_power_dtype(a: int, b: int) -> int:
    if a in [8, 9, 10] or b in [8, 9, 10]:
        return torch.complex128
    return torch.float64


@decomposes("aten::float_power.Tensor_Tensor")
def float_power(self: Tensor, exponent: Tensor) -> Tensor:
    dtype = _float_power_dtype(self.dtype, exponent.dtype)
    return torch.pow(self.to(dtype), exponent.to(dtype))


@decomposes("aten::float_power.Tensor_Scalar")
def float_power_tensor_scalar(self: Tensor, exponent: Number) -> Tensor:
    # a complex exponent makes pow's result complex128 by promotion
    return torch.pow(self.to(_float_power_dtype(self.dtype, torch.float64)), exponent)


@decomposes("aten::float_power.Scalar")
def float_power_scalar(self: Number, exponent: Tensor) -> Tensor:
    return torch.pow(self, exponent.to(_float_power_dtype(torch.float64, exponent.dtype)))


@decomposes("aten::ldexp.Tensor")
def ldexp(self: Tensor, other: Tensor) -> Tensor:
    return self * torch.pow(2.0, other)


@decomposes("aten::sinc")
def sinc(self: Tensor) -> Tensor:
    zero = self == 0
    x = self * 3.141592653589793
    x = torch.where(zero, torch.ones_like(x), x)  # a finite quotient at 0 too: its gradient there is 0, not nan
    return torch.where(zero, torch.ones_like(x), torch.sin(x) / x)


@decomposes("aten::renorm")
def renorm(self: Tensor, p: Number, dim: int, maxnorm: Number) -> Tensor:
    if self.dim() < 2:
        raise RuntimeError("renorm: input needs at least 2 dimensions, got " + str(self.dim()) + " dimensions")
    if float(p) <= 0.0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if float(maxnorm) < 0.0:
        raise RuntimeError("renorm: expected maxnorm to be >= 0 but got " + str(maxnorm))
    d = _wrapped(dim, self.dim())
    others = [i for i in range(self.dim()) if i != d]
    norms = torch.linalg_vector_norm(self, p, others, True)
    factor = torch.where(norms > maxnorm, torch.reciprocal(norms + 1e-7) * maxnorm, torch.ones_like(norms))
    return self * factor


@decomposes("aten::matrix_H")
def matrix_H(self: Tensor) -> Tensor:
    if self.dim() != 2:
        raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got " + str(self.dim())
                           + "-D tensor.")
    return self.transpose(0, 1).conj()


@decomposes("aten::mH")
def mH(self: Tensor) -> Tensor:
    if self.dim() < 2:
        raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. Got "
                           + str(self.dim()) + "-D tensor.")
    return self.transpose(-2, -1).conj()


# --------------------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------------------


@decomposes("aten::cov")
def cov(self: Tensor, correction: int = 1, fweights: Optional[Tensor] = None,
        aweights: Optional[Tensor] = None) -> Tensor:  # fmt: skip
    if self.dim() > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an input with "
                           + str(self.dim()) + " dimensions")
    if self.dtype == torch.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    observations = self.view([1, -1]) if self.dim() < 2 else self
    count = observations.size(1)
    weights: Optional[Tensor] = None
    if fweights is not None:
        if fweights.dim() > 1:
            raise RuntimeError("cov(): expected fweights to have one or fewer dimensions but got fweights with "
                               + str(fweights.dim()) + " dimensions")
        if fweights.is_floating_point() or fweights.is_complex() or fweights.dtype == torch.bool:
            raise RuntimeError("cov(): expected fweights to have integral dtype but got fweights with "
                               + _dtype_name(fweights.dtype) + " dtype")
        if fweights.numel() != count:
            raise RuntimeError("cov(): expected fweights to have the same numel as there are observations in the "
                               "input but got " + str(fweights.numel()) + " != " + str(count))
        if count > 0 and bool(fweights.min() < 0):
            raise RuntimeError("cov(): fweights cannot be negative")
        weights = fweights
    if aweights is not None:
        if aweights.dim() > 1:
            raise RuntimeError("cov(): expected aweights to have one or fewer dimensions but got aweights with "
                               + str(aweights.dim()) + " dimensions")
        if not aweights.is_floating_point():
            raise RuntimeError("cov(): expected aweights to have floating point dtype but got aweights with "
                               + _dtype_name(aweights.dtype) + " dtype")
        if aweights.numel() != count:
            raise RuntimeError("cov(): expected aweights to have the same numel as there are observations in the "
                               "input but got " + str(aweights.numel()) + " != " + str(count))
        if count > 0 and bool(aweights.min() < 0):
            raise RuntimeError("cov(): aweights cannot be negative")
        weights = aweights if weights is None else weights * aweights
    if weights is None:
        total = torch.scalar_tensor(count, dtype=torch.long)
        average = observations.sum(1) / total
        factor = total - correction
    else:
        total = weights.sum()
        if not bool(total != 0):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
        average = (observations * weights).sum(1) / total
        if aweights is not None and correction != 0:
            factor = total - correction * (weights * aweights).sum() / total
        else:
            factor = total - correction
    if bool(factor <= 0):
        factor = torch.zeros_like(factor)
    centered = observations - average.unsqueeze(1)
    weighted = centered if weights is None else centered * weights
    return torch.true_divide(torch.mm(centered, weighted.t().conj()), factor).squeeze()


@decomposes("aten::corrcoef")
def corrcoef(self: Tensor) -> Tensor:
    if self.dim() > 2:
        raise RuntimeError("corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           + str(self.dim()) + " dimensions")
    c = torch.cov(self)
    if c.dim() == 0:
        return c / c  # nan for a variance of nan, inf or 0, else 1
    deviations = torch.sqrt(torch.diagonal(c))
    c = c / deviations.view([-1, 1])
    c = c / deviations.view([1, -1])
    return c.clip(-1, 1)


# --------------------------------------------------------------------------------------
# torch.linalg over other operators
# --------------------------------------------------------------------------------------


@decomposes("aten::linalg_vecdot")
def linalg_vecdot(x: Tensor, y: Tensor, dim: int = -1) -> Tensor:
    if not x.is_floating_point() and not x.is_complex():
        raise RuntimeError("linalg.vecdot: Expected a floating point or complex tensor as input. Got "
                           + _dtype_name(x.dtype))
    if x.dtype != y.dtype:
        raise RuntimeError("linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           + _dtype_name(x.dtype) + " and y of type " + _dtype_name(y.dtype) + " instead")
    return (x.conj() * y).sum(dim)


@decomposes("aten::linalg_diagonal")
def linalg_diagonal(A: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    return torch.diagonal(A, offset, dim1, dim2)


@decomposes("aten::linalg_matrix_power")
def linalg_matrix_power(self: Tensor, n: int) -> Tensor:
    if self.dim() < 2 or self.size(-1) != self.size(-2):
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices, but they are "
                           + str(self.size(-2) if self.dim() >= 2 else 0) + " by " + str(self.size(-1)) + " matrices")
    if n == 0:  # as PyTorch: the identity written into a copy, which requires grad when self does
        return self.clone().copy_(torch.eye(self.size(-1), dtype=self.dtype).expand_as(self))
    base = self
    if n < 0:
        base = torch.linalg_inv(self)
        n = -n
    result: Optional[Tensor] = None
    while n > 0:  # binary powering, as PyTorch: the same products in the same order
        if n % 2 == 1:
            result = base if result is None else torch.matmul(result, base)
        n = n // 2
        if n > 0:
            base = torch.matmul(base, base)
    assert result is not None
    return result


@decomposes("aten::linalg_multi_dot")
def linalg_multi_dot(tensors: List[Tensor]) -> Tensor:
    count = len(tensors)
    if count < 2:
        raise RuntimeError("multi_dot(): expected at least 2 tensors but got " + str(count))
    first = tensors[0]
    last = tensors[count - 1]
    if first.dim() != 1 and first.dim() != 2:
        raise RuntimeError("multi_dot(): the first tensor must be 1D or 2D but got " + str(first.dim()) + "D")
    if last.dim() != 1 and last.dim() != 2:
        raise RuntimeError("multi_dot(): the last tensor must be 1D or 2D but got " + str(last.dim()) + "D")
    for i in range(1, count - 1):
        if tensors[i].dim() != 2:
            raise RuntimeError("multi_dot(): tensor " + str(i) + " must be 2D but got " + str(tensors[i].dim()) + "D")
    result = first.unsqueeze(0) if first.dim() == 1 else first
    for i in range(1, count):
        t = tensors[i]
        result = torch.mm(result, t.unsqueeze(1) if t.dim() == 1 else t)
    if first.dim() == 1:
        result = result.squeeze(0)
    if last.dim() == 1:
        result = result.squeeze(-1)
    return result


@decomposes("aten::linalg_vander")
def linalg_vander(x: Tensor, N: Optional[int] = None) -> Tensor:
    if x.dim() == 0:
        x = x.reshape([1])  # as PyTorch: a 0-dim x is one point
    if x.dtype == torch.bool:
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors, but got Bool")
    columns = x.size(-1) if N is None else N
    if columns <= 1:
        if columns < 0:
            raise RuntimeError("N must be greater than 1.")
        return torch.ones_like(x.unsqueeze(-1).expand(x.size() + [columns]))
    powers = x.unsqueeze(-1).expand(x.size() + [columns - 1]).cumprod(-1)
    return torch.cat([torch.ones_like(x.unsqueeze(-1)).to(powers.dtype), powers], -1)


@decomposes("aten::linalg_tensorinv")
def linalg_tensorinv(self: Tensor, ind: int = 2) -> Tensor:
    if ind <= 0:
        raise RuntimeError("Expected a strictly positive integer for 'ind', but got " + str(ind))
    shape_out = self.size()[ind:]
    shape_in = self.size()[:ind]
    rows = 1
    for s in shape_in:
        rows *= s
    inverse = torch.linalg_inv(self.reshape([rows, -1]))
    return inverse.reshape(shape_out + shape_in)


@decomposes("aten::linalg_tensorsolve")
def linalg_tensorsolve(self: Tensor, other: Tensor, dims: Optional[List[int]] = None) -> Tensor:
    A = self
    if dims is not None:
        moved: List[int] = []
        for d in dims:
            moved.append(d + A.dim() if d < 0 else d)
        kept = [i for i in range(A.dim()) if i not in moved]
        A = A.permute(kept + moved)
    result_shape = A.size()[other.dim():]
    rows = other.numel()
    solution = torch.linalg_solve(A.reshape([rows, -1]), other.reshape([-1]))
    return solution.reshape(result_shape)


@decomposes("aten::pinverse")
def pinverse(self: Tensor, rcond: float = 1e-15) -> Tensor:
    return torch.linalg_pinv(self, rcond)


@decomposes("aten::logdet")
def logdet(self: Tensor) -> Tensor:
    sign, logabsdet = torch.linalg_slogdet(self)
    if self.is_complex():
        return torch.log(sign) + logabsdet
    return torch.where(sign == -1.0, torch.full_like(logabsdet, float("nan")), logabsdet)


@decomposes("aten::nuclear_norm")
def nuclear_norm(self: Tensor, keepdim: bool = False) -> Tensor:
    if self.dim() != 2:
        raise RuntimeError("nuclear_norm: Expected a 2D tensor, but got a " + str(self.dim()) + "D tensor")
    return torch.linalg_matrix_norm(self, "nuc", [-2, -1], keepdim)


@decomposes("aten::nuclear_norm.dim")
def nuclear_norm_dim(self: Tensor, dim: List[int], keepdim: bool = False) -> Tensor:
    return torch.linalg_matrix_norm(self, "nuc", dim, keepdim)


# --------------------------------------------------------------------------------------
# Backward operators (PyTorch's torch/_decomp formulas, so autodiff's graphs run)
# --------------------------------------------------------------------------------------


@decomposes("aten::logit_backward")
def logit_backward(grad_output: Tensor, self: Tensor, eps: Optional[float] = None) -> Tensor:
    if eps is None:
        return torch.where((self >= 0) & (self <= 1), grad_output / (self * (1 - self)), float("nan"))
    return torch.where((self >= eps) & (self <= 1 - eps), grad_output / (self * (1 - self)), 0.0)


# --------------------------------------------------------------------------------------
# torch.special aliases
# --------------------------------------------------------------------------------------


@decomposes("aten::special_erf")
def special_erf(self: Tensor) -> Tensor:
    return torch.erf(self)


@decomposes("aten::special_erfc")
def special_erfc(self: Tensor) -> Tensor:
    return torch.erfc(self)


@decomposes("aten::special_erfinv")
def special_erfinv(self: Tensor) -> Tensor:
    return torch.erfinv(self)


@decomposes("aten::special_exp2")
def special_exp2(self: Tensor) -> Tensor:
    return torch.exp2(self)


@decomposes("aten::special_expit")
def special_expit(self: Tensor) -> Tensor:
    return torch.sigmoid(self)


@decomposes("aten::special_expm1")
def special_expm1(self: Tensor) -> Tensor:
    return torch.expm1(self)


@decomposes("aten::special_log1p")
def special_log1p(self: Tensor) -> Tensor:
    return torch.log1p(self)


@decomposes("aten::special_gammaln")
def special_gammaln(self: Tensor) -> Tensor:
    return torch.lgamma(self)


@decomposes("aten::special_digamma")
def special_digamma(self: Tensor) -> Tensor:
    return torch.digamma(self)


@decomposes("aten::special_psi")
def special_psi(self: Tensor) -> Tensor:
    return torch.digamma(self)


@decomposes("aten::special_i0")
def special_i0(self: Tensor) -> Tensor:
    return torch.i0(self)


@decomposes("aten::special_sinc")
def special_sinc(self: Tensor) -> Tensor:
    return torch.sinc(self)


@decomposes("aten::special_round")
def special_round(self: Tensor, decimals: int = 0) -> Tensor:
    return torch.round(self, decimals=decimals)


@decomposes("aten::special_logit")
def special_logit(self: Tensor, eps: Optional[float] = None) -> Tensor:
    return torch.logit(self, eps)


@decomposes("aten::special_logsumexp")
def special_logsumexp(self: Tensor, dim: List[int], keepdim: bool = False) -> Tensor:
    return torch.logsumexp(self, dim, keepdim)


@decomposes("aten::special_softmax")
def special_softmax(self: Tensor, dim: int, dtype: Optional[int] = None) -> Tensor:
    return torch.softmax(self, dim, dtype)


@decomposes("aten::special_log_softmax")
def special_log_softmax(self: Tensor, dim: int, dtype: Optional[int] = None) -> Tensor:
    return torch.log_softmax(self, dim, dtype=dtype)


@decomposes("aten::special_gammainc")
def special_gammainc(self: Tensor, other: Tensor) -> Tensor:
    return torch.igamma(self, other)


@decomposes("aten::special_gammaincc")
def special_gammaincc(self: Tensor, other: Tensor) -> Tensor:
    return torch.igammac(self, other)

"""Tensor indexing: select and slice (views), advanced indexing (`index`, `index_put_`),
gather/scatter and their reductions (`scatter_reduce`, `index_reduce`), masked_select and
masked_scatter, index_select/copy/add/fill, put, nonzero, item.

PyTorch's advanced indexing is numpy's (`Tensor?[] indices`: None is a full slice, bool
masks consume as many dimensions as they have), so `index` builds a numpy index tuple;
what differs is the error text and that results are always copies.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tsjit.runtime.errors import IndexCheckError, TorchScriptError
from tsjit.runtime.kernels import Kernel, kernel
from tsjit.runtime.kernels.common import as_tensor, broadcast_error, shape_str, wrap_dim
from tsjit.runtime.values import dtype_name

ndarray = np.ndarray


@kernel("aten::select.int")
def select(self: ndarray, dim: int, index: int) -> ndarray:
    ndim = self.ndim
    if dim == 0 and ndim > 1:  # `x[i]`: numpy's own index of the first dimension is a view
        try:
            return self[index]
        except IndexError:
            pass  # PyTorch's message below
    if 0 <= dim < ndim:  # inline: `x[i]` is selected often and is cheap in numpy
        d = dim
    elif ndim == 0:
        raise IndexCheckError("select() cannot be applied to a 0-dim tensor.")
    else:
        d = wrap_dim(dim, ndim)
    size = self.shape[d]
    if not -size <= index < size:
        raise IndexCheckError(
            f"select(): index {index} out of range for tensor of size {shape_str(self.shape)} at "
            f"dimension {d}"
        )
    # The trailing Ellipsis keeps numpy from returning a scalar instead of a 0-d view.
    return self[index, ...] if d == 0 else self[(slice(None),) * d + (index, Ellipsis)]


@kernel("aten::slice.Tensor")
def slice_tensor(
    self: ndarray, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1
) -> ndarray:
    if self.ndim == 0:
        raise TorchScriptError("slice() cannot be applied to a 0-dim tensor.")
    if step <= 0:
        raise TorchScriptError("slice step must be positive")
    d = wrap_dim(dim, self.ndim)
    return self[(slice(None),) * d + (slice(start, end, step),)]


# --------------------------------------------------------------------------------------
# Advanced indexing
# --------------------------------------------------------------------------------------


def index_tuple(self: ndarray, indices: Sequence[ndarray | None]) -> tuple:
    """The numpy index of a `Tensor?[] indices` argument, with PyTorch's checks."""
    consumed = 0
    result = []
    for index in indices:
        if index is None:
            result.append(slice(None))
            consumed += 1
            continue
        kind = index.dtype.kind
        if kind == "b" or index.dtype == np.uint8:
            mask = index.astype(bool, copy=False)
            for i, size in enumerate(mask.shape):
                axis = consumed + i
                if axis >= self.ndim:
                    raise TorchScriptError(f"too many indices for tensor of dimension {self.ndim}")
                if self.shape[axis] != size:
                    raise TorchScriptError(
                        f"The shape of the mask {shape_str(mask.shape)} at index {i} does not match the "
                        f"shape "
                        f"of the indexed tensor {shape_str(self.shape)} at index {axis}"
                    )
            result.append(mask)
            consumed += mask.ndim
        elif kind in "iu":
            result.append(index)
            consumed += 1
        else:
            raise TorchScriptError("tensors used as indices must be long, int, byte or bool tensors")
    if consumed > self.ndim:
        raise TorchScriptError(f"too many indices for tensor of dimension {self.ndim}")
    return tuple(result)


def _index_error(exc: IndexError, self: ndarray, index: tuple) -> TorchScriptError:
    for axis, (i, size) in enumerate(zip(index, self.shape)):
        if type(i) is ndarray and i.dtype.kind in "iu" and i.size:
            bad = i[(i >= size) | (i < -size)]
            if bad.size:
                return IndexCheckError(
                    f"index {int(bad.flat[0])} is out of bounds for dimension {axis} with size {size}"
                )
    try:
        np.broadcast_shapes(*(i.shape for i in index if type(i) is ndarray and i.dtype.kind in "iu"))
    except ValueError:
        shapes = ", ".join(shape_str(i.shape) for i in index if type(i) is ndarray)
        return TorchScriptError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}"
        )
    return TorchScriptError(str(exc))


@kernel("aten::index.Tensor", "aten::index.Tensor_hacked_twin")
def index(self: ndarray, indices: Sequence[ndarray | None]) -> ndarray:
    key = index_tuple(self, indices)
    try:
        result = self[key]
    except IndexError as exc:
        raise _index_error(exc, self, key) from None
    # 0-d integer indices alone are basic indexing in numpy (a view); PyTorch always copies.
    if not any(type(k) is ndarray and (k.ndim or k.dtype.kind == "b") for k in key):
        return np.array(result, copy=True)
    return result


def _check_put_dtype(self: ndarray, values: ndarray) -> None:
    if values.dtype != self.dtype:
        raise TorchScriptError(
            f"Index put requires the source and destination dtypes match, got {dtype_name(self.dtype)} "
            f"for the "
            f"destination and {dtype_name(values.dtype)} for the source."
        )


def index_putting(in_place: bool) -> Kernel:
    """The kernel of `index_put_(self, indices, values, accumulate)` when in place, else of
    `index_put`, which writes into a copy. Both serve `_index_put_impl[_]` too: its extra
    argument `unsafe` only lets PyTorch skip checks that numpy makes anyway."""

    def index_put(
        self: ndarray,
        indices: Sequence[ndarray | None],
        values: ndarray,
        accumulate: bool = False,
        unsafe: bool = False,
    ) -> ndarray:
        _check_put_dtype(self, values)
        out = self if in_place else self.copy()
        key = index_tuple(out, indices)
        try:
            if accumulate:
                np.add.at(out, key, values)
            else:
                out[key] = values
        except IndexError as exc:
            raise _index_error(exc, out, key) from None
        except ValueError:
            target = out[key].shape
            raise TorchScriptError(
                f"shape mismatch: value tensor of shape {shape_str(values.shape)} cannot be broadcast to "
                f"indexing "
                f"result of shape {shape_str(target)}"
            ) from None
        return out

    return index_put


kernel(
    "aten::index_put_",
    "aten::index_put_.hacked_twin",
    "aten::_index_put_impl_",
    "aten::_index_put_impl_.hacked_twin",
)(index_putting(in_place=True))
kernel("aten::index_put", "aten::index_put.hacked_twin", "aten::_index_put_impl")(
    index_putting(in_place=False)
)


@kernel("aten::masked_select")
def masked_select(self: ndarray, mask: ndarray) -> ndarray:
    if mask.dtype.kind != "b":
        raise TorchScriptError("masked_select: expected BoolTensor for mask")
    try:
        x, m = np.broadcast_arrays(self, mask)
    except ValueError:
        raise broadcast_error(self, mask) from None
    return x[m]


@kernel("aten::nonzero", "aten::argwhere")
def nonzero(self: ndarray) -> ndarray:
    return np.argwhere(self).astype(np.int64, copy=False)


@kernel("aten::take")
def take(self: ndarray, index: ndarray) -> ndarray:
    flat = self.reshape(-1)
    if index.size and (index.max() >= flat.size or index.min() < -flat.size):
        bad = index[(index >= flat.size) | (index < -flat.size)].flat[0]
        raise TorchScriptError(
            f"out of range: tried to access index {int(bad)} on a tensor of {flat.size} elements."
        )
    return as_tensor(flat[index])


@kernel("aten::index_select")
def index_select(self: ndarray, dim: int, index: ndarray) -> ndarray:
    if index.ndim > 1:
        raise TorchScriptError("index_select(): Index is supposed to be a vector")
    if index.dtype.kind not in "iu":
        raise TorchScriptError("index_select(): Expected dtype int32 or int64 for index")
    d = wrap_dim(dim, self.ndim)
    if self.ndim == 0:  # a 0-dim tensor indexes as one element along dim 0
        if index.size != 1:
            raise TorchScriptError(f"index_select(): Index to scalar can have only 1 value, got {index.size} value(s)")
        _check_index_bounds(index, 1, "index out of range in self")
        return self.copy()
    _check_index_bounds(index, self.shape[d], "index out of range in self")
    return np.take(self, index.reshape(-1), axis=d)


def _check_index_bounds(index: ndarray, size: int, message: str) -> None:
    if index.size and (index.max() >= size or index.min() < -size):
        raise IndexCheckError(message)


# --------------------------------------------------------------------------------------
# gather / scatter
# --------------------------------------------------------------------------------------


def _mesh(index: ndarray, dim: int, self: ndarray, op: str) -> tuple:
    """Indices addressing self at `index` along `dim` and at the same position elsewhere."""
    if index.dtype != np.int64 and index.dtype != np.int32:
        raise TorchScriptError(f"{op}(): Expected dtype int32/int64 for index")
    if index.ndim != self.ndim and not (index.ndim <= 1 and self.ndim <= 1):
        subject = "input" if op == "gather" else "self"
        raise TorchScriptError(f"Index tensor must have the same number of dimensions as {subject} tensor")
    for axis, (n, size) in enumerate(zip(index.shape, self.shape)):
        if axis != dim and n > size:
            raise TorchScriptError(
                f"Size does not match at dimension {axis} expected index {shape_str(index.shape)} to be "
                f"smaller "
                f"than self {shape_str(self.shape)} apart from dimension {dim}"
            )
    size = self.shape[dim] if self.ndim else 1
    if index.size and (index.max() >= size or index.min() < -size):
        bad = index[(index >= size) | (index < -size)].flat[0]
        raise TorchScriptError(f"index {int(bad)} is out of bounds for dimension {dim} with size {size}")
    rank = index.ndim
    if not rank:
        return (index,)
    # np.ogrid's open mesh, built directly (ogrid's indexing machinery costs tens of microseconds)
    mesh = [index if axis == dim else np.arange(n).reshape((1,) * axis + (n,) + (1,) * (rank - axis - 1))
            for axis, n in enumerate(index.shape)]  # fmt: skip
    return tuple(mesh)


@kernel("aten::gather")
def gather(self: ndarray, dim: int, index: ndarray, sparse_grad: bool = False) -> ndarray:
    d = wrap_dim(dim, self.ndim)
    if self.ndim == 0:
        return self.reshape(1)[_mesh(index.reshape(-1), 0, self.reshape(1), "gather")].reshape(index.shape)
    return as_tensor(self[_mesh(index, d, self, "gather")])


def _source(src: object, index: ndarray, dtype: np.dtype) -> object:
    if type(src) is not ndarray:
        return src
    if src.dtype != dtype:
        raise TorchScriptError("scatter(): Expected self.dtype to be equal to src.dtype")
    return src[tuple(slice(n) for n in index.shape)]


_REDUCTIONS = {"add": np.add, "multiply": np.multiply, "sum": np.add, "prod": np.multiply}


def _scatter_into(out: ndarray, dim: int, index: ndarray, src: object, reduce: str | None) -> ndarray:
    d = wrap_dim(dim, out.ndim)
    target = out if out.ndim else out.reshape(1)
    key = _mesh(index if out.ndim else index.reshape(-1), d, target, "scatter")
    values = _source(src, index, out.dtype)
    if type(values) is ndarray and not out.ndim:
        values = values.reshape(-1)
    if reduce is None:
        target[key] = values
    else:
        ufunc = _REDUCTIONS.get(reduce)
        if ufunc is None:
            raise TorchScriptError(f"reduce argument must be either add or multiply, got {reduce}")
        ufunc.at(target, key, values)
    return out


@kernel("aten::scatter.src", "aten::scatter.value")
def scatter(self: ndarray, dim: int, index: ndarray, src: object) -> ndarray:
    return _scatter_into(self.copy(), dim, index, src, None)


@kernel("aten::scatter_.src", "aten::scatter_.value")
def scatter_(self: ndarray, dim: int, index: ndarray, src: object) -> ndarray:
    return _scatter_into(self, dim, index, src, None)


@kernel("aten::scatter.reduce", "aten::scatter.value_reduce")
def scatter_reduce(self: ndarray, dim: int, index: ndarray, src: object, reduce: str) -> ndarray:
    return _scatter_into(self.copy(), dim, index, src, reduce)


@kernel("aten::scatter_.reduce", "aten::scatter_.value_reduce")
def scatter_reduce_(self: ndarray, dim: int, index: ndarray, src: object, reduce: str) -> ndarray:
    return _scatter_into(self, dim, index, src, reduce)


@kernel("aten::scatter_add")
def scatter_add(self: ndarray, dim: int, index: ndarray, src: ndarray) -> ndarray:
    return _scatter_into(self.copy(), dim, index, src, "add")


@kernel("aten::scatter_add_")
def scatter_add_(self: ndarray, dim: int, index: ndarray, src: ndarray) -> ndarray:
    return _scatter_into(self, dim, index, src, "add")


def _index_fill(out: ndarray, dim: int, index: ndarray, value: object) -> ndarray:
    d = wrap_dim(dim, out.ndim)
    if type(value) is ndarray and value.ndim:
        raise TorchScriptError(
            f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with {value.ndim} "
            f"dimension(s)."
        )
    if out.ndim == 0:
        out[...] = value
    else:
        out[(slice(None),) * d + (index.reshape(-1),)] = value
    return out


@kernel("aten::index_fill.int_Tensor", "aten::index_fill.int_Scalar")
def index_fill(self: ndarray, dim: int, index: ndarray, value: object) -> ndarray:
    return _index_fill(self.copy(), dim, index, value)


@kernel("aten::index_fill_.int_Tensor", "aten::index_fill_.int_Scalar")
def index_fill_(self: ndarray, dim: int, index: ndarray, value: object) -> ndarray:
    return _index_fill(self, dim, index, value)


def _along(out: ndarray, dim: int, index: ndarray, op: str) -> tuple[ndarray, tuple]:
    """`out` (a 0-dim tensor as one element) and the numpy key of `index` along `dim`."""
    d = wrap_dim(dim, out.ndim)
    if index.ndim > 1:
        raise TorchScriptError(f"{op}(): Index is supposed to be a vector")
    if index.dtype != np.int64 and index.dtype != np.int32:
        raise TorchScriptError(f"{op}(): Expected dtype int32/int64 for index")
    target = out if out.ndim else out.reshape(1)
    _check_index_bounds(index, target.shape[d], f"{op}(): index out of range")
    return target, (slice(None),) * d + (index.reshape(-1),)


def _source_along(target: ndarray, source: ndarray, key: tuple) -> ndarray:
    """`source` shaped as the selection `target[key]` (a 0-dim source as one element)."""
    shape = target[key].shape
    if source.shape != shape:
        if source.size != int(np.prod(shape)) or source.ndim > 1:
            raise TorchScriptError(
                f"source tensor shape must match self tensor shape, excluding the specified dimension. Got "
                f"self.shape = {shape_str(target.shape)} source.shape = {shape_str(source.shape)}"
            )
        source = source.reshape(shape)
    return source


def _index_add(out: ndarray, dim: int, index: ndarray, source: ndarray, alpha: object) -> ndarray:
    target, key = _along(out, dim, index, "index_add")
    values = source if alpha == 1 else source * alpha
    np.add.at(target, key, _source_along(target, values, key).astype(out.dtype, copy=False))
    return out


@kernel("aten::index_add")
def index_add(self: ndarray, dim: int, index: ndarray, source: ndarray, alpha: object = 1) -> ndarray:
    return _index_add(self.copy(), dim, index, source, alpha)


@kernel("aten::index_add_")
def index_add_(self: ndarray, dim: int, index: ndarray, source: ndarray, alpha: object = 1) -> ndarray:
    return _index_add(self, dim, index, source, alpha)


@kernel("aten::index_copy_")
def index_copy_(self: ndarray, dim: int, index: ndarray, source: ndarray) -> ndarray:
    target, key = _along(self, dim, index, "index_copy")
    if source.dtype != self.dtype:
        raise TorchScriptError(
            f"index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{dtype_name(self.dtype)} and (source) {dtype_name(source.dtype)}"
        )
    target[key] = _source_along(target, source, key)
    return self


@kernel("aten::index_copy")
def index_copy(self: ndarray, dim: int, index: ndarray, source: ndarray) -> ndarray:
    return index_copy_(self.copy(), dim, index, source)


# --------------------------------------------------------------------------------------
# Reductions into indexed positions: scatter_reduce, index_reduce
# --------------------------------------------------------------------------------------

_REDUCE_UFUNCS = {"sum": np.add, "prod": np.multiply, "mean": np.add, "amax": np.maximum, "amin": np.minimum}


def _identity(reduce: str, dtype: np.dtype) -> object:
    """The value a reduction starts from where `include_self=False` leaves self out."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "b":
        return reduce == "amin"
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    info = np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _reduce_into(target: ndarray, key: tuple, values: ndarray, reduce: str, include_self: bool,
                 counts_key: tuple, counts_shape: tuple[int, ...], counts_view: tuple[int, ...]) -> None:  # fmt: skip
    """Reduces `values` into `target[key]` (ufunc.at: repeated positions all count); a mean
    divides by how many values each position received (itself included or not), with
    PyTorch's floor division for integers."""
    if not include_self:
        target[key] = _identity(reduce, target.dtype)
    _REDUCE_UFUNCS[reduce].at(target, key, values)
    if reduce == "mean":
        counts = np.full(counts_shape, 1 if include_self else 0, dtype=np.int64)
        np.add.at(counts, counts_key, 1)
        counts = np.maximum(counts, 1).reshape(counts_view)
        if target.dtype.kind == "f":
            np.divide(target, counts, out=target, casting="unsafe")
        else:
            np.floor_divide(target, counts, out=target, casting="unsafe")


@kernel("aten::scatter_reduce.two")
def scatter_reduce_two(self: ndarray, dim: int, index: ndarray, src: ndarray, reduce: str,
                       include_self: bool = True) -> ndarray:  # fmt: skip
    if reduce not in _REDUCE_UFUNCS:
        raise TorchScriptError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if src.dtype != self.dtype:
        raise TorchScriptError("scatter(): Expected self.dtype to be equal to src.dtype")
    out = self.copy()
    d = wrap_dim(dim, out.ndim)
    target = out if out.ndim else out.reshape(1)
    flat_index = index if out.ndim else index.reshape(-1)
    key = _mesh(flat_index, d, target, "scatter")
    values = _source(src, index, out.dtype)
    values = values.reshape(-1) if not out.ndim else values
    _reduce_into(target, key, values, reduce, include_self, key, target.shape, target.shape)
    return out


@kernel("aten::index_reduce")
def index_reduce(self: ndarray, dim: int, index: ndarray, source: ndarray, reduce: str,
                 include_self: bool = True) -> ndarray:  # fmt: skip
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise TorchScriptError(
            f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}."
        )
    if source.dtype != self.dtype:
        raise TorchScriptError(
            f"index_reduce_(): self and source expected to have the same dtype, but got (self) "
            f"{dtype_name(self.dtype)} and (source) {dtype_name(source.dtype)}"
        )
    out = self.copy()
    target, key = _along(out, dim, index, "index_reduce")
    values = _source_along(target, source, key)
    d = wrap_dim(dim, out.ndim)
    view = tuple(n if axis == d else 1 for axis, n in enumerate(target.shape))
    _reduce_into(target, key, values, reduce, include_self, (index.reshape(-1),), (target.shape[d],), view)
    return out


@kernel("aten::put")
def put(self: ndarray, index: ndarray, source: ndarray, accumulate: bool = False) -> ndarray:
    if index.dtype != np.int64:
        raise TorchScriptError(f"put_(): Expected a long tensor for index, but got {dtype_name(index.dtype)}")
    if source.dtype != self.dtype:
        raise TorchScriptError(
            f"put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{dtype_name(self.dtype)} and source.dtype = {dtype_name(source.dtype)}"
        )
    if source.size != index.size:
        raise TorchScriptError(
            f"put_(): Expected source and index to have the same number of elements, but got source.numel() = "
            f"{source.size}, index.numel() = {index.size}"
        )
    out = self.copy()
    flat = out.reshape(-1)
    positions = index.reshape(-1)
    if positions.size and (positions.max() >= flat.size or positions.min() < -flat.size):
        bad = positions[(positions >= flat.size) | (positions < -flat.size)][0]
        raise TorchScriptError(f"out of range: tried to access index {bad} on a tensor of {flat.size} elements.")
    positions = np.where(positions < 0, positions + flat.size, positions)
    if accumulate:
        np.add.at(flat, positions, source.reshape(-1))
    else:
        flat[positions] = source.reshape(-1)
    return out


@kernel("aten::masked_scatter")
def masked_scatter(self: ndarray, mask: ndarray, source: ndarray) -> ndarray:
    if mask.dtype.kind != "b":
        raise TorchScriptError(f"masked_scatter_: expected BoolTensor for mask, got {dtype_name(mask.dtype)}")
    if source.dtype != self.dtype:
        raise TorchScriptError(
            f"masked_scatter: expected self and source to have same dtypes but got{dtype_name(self.dtype)} and "
            f"{dtype_name(source.dtype)}"
        )
    try:
        shape = np.broadcast_shapes(self.shape, mask.shape)
    except ValueError:
        raise broadcast_error(self, mask) from None
    out = np.broadcast_to(self, shape).copy()
    selected = np.broadcast_to(mask, shape)
    count = int(np.count_nonzero(selected))
    if count > source.size:
        raise TorchScriptError("masked_scatter: expected source to have at least as many elements as ones in mask")
    out[selected] = source.reshape(-1)[:count]
    return out


@kernel("aten::nonzero_static")
def nonzero_static(self: ndarray, size: int, fill_value: int = -1) -> ndarray:
    if size < 0:
        raise TorchScriptError(f"nonzero_static: 'size' must be an non-negative integer, but got {size}")
    found = np.argwhere(self)
    if len(found) >= size:
        return found[:size].astype(np.int64)
    padding = np.full((size - len(found), self.ndim), fill_value, dtype=np.int64)
    return np.concatenate([found.astype(np.int64), padding])


# --------------------------------------------------------------------------------------
# Tensor -> Python scalar
# --------------------------------------------------------------------------------------


@kernel("aten::item", "aten::_local_scalar_dense")
def item(self: ndarray) -> int | float | bool | complex:
    if self.size != 1:
        raise TorchScriptError(f"a Tensor with {self.size} elements cannot be converted to Scalar")
    return self.item()

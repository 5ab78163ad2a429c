"""`x[i, 1:3, None, ..., mask]` and `x[...] = v` as operators, as PyTorch applies them
(`applySlicing`): an int is `aten::select`, a slice `aten::slice` (its open ends 0 and
2**63-1), None `aten::unsqueeze`, an Ellipsis skips dimensions, and tensors, lists and
masks gather into one `aten::index` (`aten::index_put_` when assigning); assignment
writes the sliced view with `aten::fill_` (a number) or `aten::copy_` (a tensor).
So a trace of indexing records the nodes `torch.jit.trace` records.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tsjit.frontend.torch_shim._dispatch import bound_call, function
from tsjit.frontend.torch_shim._tensor import Tensor, as_array, device, wrap

INT64_MAX = 2**63 - 1

_select = function("aten::select", "Tensor.select", method=True)
_slice = function("aten::slice", "Tensor.slice", method=True)
_unsqueeze = function("aten::unsqueeze", "Tensor.unsqueeze", method=True)
_index = function("aten::index", "Tensor.index", method=True)
_index_put_ = function("aten::index_put_", "Tensor.index_put_", method=True)
_fill_ = function("aten::fill_", "Tensor.fill_", method=True)
_copy_ = function("aten::copy_", "Tensor.copy_", method=True)
_alias = function("aten::alias", "Tensor.alias", method=True)
_to = function("aten::to", "Tensor.to", method=True)
_CPU = device("cpu")


def getitem(self: Tensor, index: Any) -> Tensor:
    """`Tensor.__getitem__` until a Tensor is indexed by an int: from then on, a function
    running `aten::select`'s plan in place for that, and `indexed` for the rest."""
    if type(index) is int and type(self) is Tensor:
        Tensor.__getitem__ = bound_call(_select, (Tensor, int, int), ("self", "index"), ("self", "0", "index"), indexed)  # pyright: ignore[reportAttributeAccessIssue]
    return indexed(self, index)


def indexed(self: Tensor, index: Any) -> Tensor:
    """`self[index]`, as PyTorch's `applySlicing` indexes."""
    if type(index) is int:  # `x[i]`, the common case (traced as `_apply_slicing` would record it)
        return _select_item(self, 0, index, 0)
    result, indices = _apply_slicing(self, index)
    if indices is not None:
        return _index(result, indices)
    return _alias(result) if result is self else result


def setitem(self: Tensor, index: Any, value: Any) -> None:
    sliced, indices = _apply_slicing(self, index)
    if indices is not None:
        _index_put_(sliced, indices, value if isinstance(value, Tensor) else _value_tensor(value, self))
    elif isinstance(value, Tensor):
        _copy_(sliced, value)
    else:
        _fill_(sliced, value)


def _apply_slicing(self: Tensor, index: Any) -> tuple[Tensor, list[Tensor | None] | None]:
    """The view that basic indexing selects, and the advanced indices (per remaining
    dimension, None where a dimension is not indexed) if there are any."""
    items = index if type(index) is tuple else (index,)
    specified = sum(_dims_consumed(item) for item in items)
    rank = self.dim()
    if specified > rank:
        if not rank and type(index) is not tuple and isinstance(index, (int, np.integer)):
            _select_item(self, 0, int(index), 0)  # PyTorch's own words for a 0-dim tensor
        raise IndexError(f"too many indices for tensor of dimension {rank}")
    result = self
    dim = 0
    advanced: list[Tensor | None] = []
    has_advanced = False
    for position, item in enumerate(items):
        if item is None:
            result = _unsqueeze(result, dim)
            dim += 1
        elif item is Ellipsis:
            dim += rank - specified
        elif isinstance(item, bool):
            result = _unsqueeze(result, dim)
            if not item:
                advanced += [None] * (dim - len(advanced)) + [_value_tensor(np.zeros(0, np.int64), None)]
                has_advanced = True
            dim += 1
        elif isinstance(item, (int, np.integer)):
            result = _select_item(result, dim, int(item), position)
        elif isinstance(item, slice):
            result = _slice(
                result,
                dim,
                0 if item.start is None else item.start,
                INT64_MAX if item.stop is None else item.stop,
                1 if item.step is None else item.step,
            )
            dim += 1
        else:
            tensor = item if isinstance(item, Tensor) else _sequence_index(item)
            advanced += [None] * (dim - len(advanced)) + [tensor]
            has_advanced = True
            dim += tensor.dim() if tensor.array.dtype.kind == "b" else 1
    return result, (advanced if has_advanced else None)


def _select_item(tensor: Tensor, dim: int, index: int, position: int) -> Tensor:
    """`aten::select` of dimension `dim` for the int item at `position` of the index;
    its errors worded as PyTorch's indexing words them (`applySelect`, which names the
    item's position as the dimension), not as `select()` does."""
    shape = tensor.array.shape
    if not shape:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ "
                         "to convert a 0-dim tensor to a number")  # fmt: skip
    size = shape[dim]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {position} with size {size}")
    return _select(tensor, dim, index)


def _dims_consumed(item: Any) -> int:
    if item is None or item is Ellipsis or isinstance(item, bool):
        return 0
    if isinstance(item, Tensor) and item.array.dtype.kind == "b":
        return item.dim()
    if isinstance(item, np.ndarray) and item.dtype.kind == "b":
        return item.ndim
    return 1


def _sequence_index(item: Any) -> Tensor:
    """A list (or array) used as an index: a tensor, moved to the device and dtype an
    index has (`aten::to`, which a trace records, as PyTorch's does)."""
    array = np.asarray(item)
    if array.dtype.kind in "iu":
        array = array.astype(np.int64)
    tensor = wrap(array)
    return _to(tensor, _CPU, tensor.dtype)


def _value_tensor(value: Any, like: Tensor | None) -> Tensor:
    """A Python value used as an index or assigned value: a constant tensor (of `like`'s
    dtype for assigned numbers), as PyTorch makes one."""
    array = as_array(value)
    if like is not None and not isinstance(value, (np.ndarray, list, tuple)):
        array = array.astype(like.array.dtype)
    return wrap(np.asarray(array))

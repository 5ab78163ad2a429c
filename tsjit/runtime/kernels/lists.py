"""Lists: indexing, mutation (append, insert, pop, remove, sort, ...), concatenation and
repetition, slicing, queries (len, index, count, in, min/max/sum) and comparison.

Lists are Python lists shared by reference, so mutating kernels change the caller's list and
return it where the schema says so (`append.t` returns self, `extend.t` returns nothing).
Elements compare like TorchScript's: tensors by value (`equal`), everything else with `==`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import kernel, register_kernel
from tsjit.runtime.kernels.scalar import wrap_int
from tsjit.runtime.kernels.strings import format_value

ndarray = np.ndarray

_KINDS = ("int", "float", "bool", "str", "Tensor")


def _out_of_range() -> TorchScriptError:
    return TorchScriptError("list index out of range")


def same(a: object, b: object) -> bool:
    """Element equality for list search: tensors by shape and values."""
    if type(a) is ndarray or type(b) is ndarray:
        return type(a) is type(b) and a.shape == b.shape and bool(np.array_equal(a, b))
    return a == b


@kernel("aten::__getitem__.t", "aten::select.t")
def getitem(list: list, idx: int) -> object:
    try:
        return list[idx]
    except IndexError:
        raise _out_of_range() from None


@kernel("aten::_set_item.t")
def set_item(items: list, idx: int, el: object) -> list:
    try:
        items[idx] = el
    except IndexError:
        raise _out_of_range() from None
    return items


@kernel("aten::len.t", "aten::len.any")
def length(a: list) -> int:
    return len(a)


@kernel("aten::len.Tensor")
def tensor_length(t: ndarray) -> int:
    if t.ndim == 0:
        raise TorchScriptError("len() of a 0-d tensor")
    return t.shape[0]


@kernel("aten::append.t")
def append(self: list, el: object) -> list:
    self.append(el)
    return self


@kernel("aten::extend.t")
def extend(self: list, other: list) -> None:
    self.extend(other)


@kernel("aten::insert.t")
def insert(self: list, idx: int, el: object) -> None:
    self.insert(idx, el)


@kernel("aten::pop.t")
def pop(self: list, idx: int = -1) -> object:
    if not self:
        raise TorchScriptError("pop from empty list")
    try:
        return self.pop(idx)
    except IndexError:
        raise _out_of_range() from None


@kernel("aten::clear.t")
def clear(self: list) -> None:
    self.clear()


@kernel("aten::reverse.t")
def reverse(self: list) -> None:
    self.reverse()


@kernel("aten::copy.t", "aten::list.t")
def copy(self: list) -> list:
    return list(self)


def _position(self: list, el: object) -> int:
    if type(el) is ndarray:
        return next((i for i, x in enumerate(self) if same(x, el)), -1)
    try:
        return self.index(el)
    except ValueError:
        return -1


def _remove(self: list, el: object) -> None:
    at = _position(self, el)
    if at < 0:
        raise TorchScriptError("list.remove(x): x not in list")
    del self[at]


def _index(self: list, el: object) -> int:
    at = _position(self, el)
    if at < 0:
        raise TorchScriptError(f"'{format_value(el)}' is not in list")
    return at


def _count(self: list, el: object) -> int:
    return sum(1 for x in self if same(x, el))


def _contains(items: list, item: object) -> bool:
    return item in items


for _kind in _KINDS:
    register_kernel(f"aten::remove.{_kind}", _remove)
    register_kernel(f"aten::count.{_kind}", _count)
    register_kernel(f"aten::index.list_{_kind.lower() if _kind != 'Tensor' else 'Tensor'}", _index)
for _kind in ("int", "float", "str"):
    register_kernel(f"aten::__contains__.{_kind}_list", _contains)


# --------------------------------------------------------------------------------------
# Sorting
# --------------------------------------------------------------------------------------


def _tensor_less(a: ndarray, b: ndarray) -> int:
    return -1 if bool(a < b) else (1 if bool(b < a) else 0)


def _sorted_copy(self: list, reverse: bool = False) -> list:
    if self and type(self[0]) is ndarray:
        return sorted(self, key=functools.cmp_to_key(_tensor_less), reverse=reverse)
    return sorted(self, reverse=reverse)


def _sort(self: list, reverse: bool = False) -> None:
    self[:] = _sorted_copy(self, reverse)


for _kind in _KINDS + ("any",):
    register_kernel(f"aten::sort.{_kind}", _sort)
    register_kernel(f"aten::sorted.{_kind}", _sorted_copy)


# --------------------------------------------------------------------------------------
# Concatenation, repetition, slicing
# --------------------------------------------------------------------------------------


@kernel("aten::add.t")
def concat(a: list, b: list) -> list:
    return a + b


@kernel("aten::add_.t")
def concat_(self: list, b: list) -> list:
    self.extend(b)
    return self


def _repeat(items: list, n: int) -> list:
    if n < 0:
        raise TorchScriptError("vector::reserve")
    return items * n


@kernel("aten::mul.left_t")
def repeat_left(items: list, n: int) -> list:
    return _repeat(items, n)


@kernel("aten::mul.right_")
def repeat_right(n: int, items: list) -> list:
    return _repeat(items, n)


@kernel("aten::mul_.t")
def repeat_(items: list, n: int) -> list:
    items[:] = _repeat(items, n)
    return items


@kernel("aten::slice.t")
def slice_list(items: list, start: int | None = None, end: int | None = None, step: int = 1) -> list:
    if step == 0:
        raise TorchScriptError("List slice should have non-zero step")
    return items[start:end:step]


# --------------------------------------------------------------------------------------
# Reductions and comparisons of lists
# --------------------------------------------------------------------------------------


def _extremum(fn: Callable, name: str) -> Callable[[list], object]:
    def run(self: list) -> object:
        if not self:
            raise TorchScriptError(f"{name}() arg is an empty sequence")
        return fn(self)

    return run


for _kind in ("int", "float", "bool"):
    register_kernel(f"prim::max.self_{_kind}", _extremum(max, "max"))
    register_kernel(f"prim::min.self_{_kind}", _extremum(min, "min"))
    register_kernel(f"prim::max.{_kind}_list", max)
    register_kernel(f"prim::min.{_kind}_list", min)


@kernel("aten::sum.int", "aten::sum.bool")
def sum_int(self: list) -> int:
    return wrap_int(sum(self))


@kernel("aten::sum.float")
def sum_float(self: list) -> float:
    return float(sum(self))


@kernel("aten::any.int", "aten::any.float", "aten::any.bool", "aten::any.str")
def any_(self: list) -> bool:
    return any(self)


@kernel("aten::all.int", "aten::all.float", "aten::all.bool")
def all_(self: list) -> bool:
    return all(self)


def _lists_equal(a: list, b: list) -> bool:
    return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))


for _kind in ("int", "float", "bool", "str", "Tensor"):
    register_kernel(f"aten::eq.{_kind}_list", _lists_equal)
    register_kernel(f"aten::ne.{_kind}_list", lambda a, b: not _lists_equal(a, b))


@kernel("aten::_list_to_tensor")
def list_to_tensor(self: list) -> ndarray:
    return np.array(self, dtype=np.int64)

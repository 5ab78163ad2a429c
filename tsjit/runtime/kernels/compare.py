"""Comparisons, logical ops, where, masked_fill, isclose and equality of tensors.

Comparisons compute in the promoted dtype (`int_tensor < 0.5` compares as float32) and
return bool tensors; their in-place forms write 0/1 into self's dtype.
"""

from __future__ import annotations

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import kernel
from tsjit.runtime.kernels.arith import COMPARE, register_binary
from tsjit.runtime.kernels.common import as_tensor, broadcast_error, write_error
from tsjit.runtime.kernels.promotion import result_type
from tsjit.runtime.values import dtype_name

ndarray = np.ndarray

_COMPARISONS = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}
_ALIASES = {"ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal"}

for _name, _ufunc in _COMPARISONS.items():
    _names = [
        f"aten::{_name}.Tensor",
        f"aten::{_name}.Scalar",
        f"aten::{_name}_.Tensor",
        f"aten::{_name}_.Scalar",
    ]
    if _name in _ALIASES:
        _names += [f"aten::{_ALIASES[_name]}.Tensor", f"aten::{_ALIASES[_name]}.Scalar"]
    register_binary(tuple(_names), _ufunc, COMPARE)

register_binary(("aten::logical_and", "aten::logical_and_"), np.logical_and, COMPARE)
register_binary(("aten::logical_or", "aten::logical_or_"), np.logical_or, COMPARE)
register_binary(("aten::logical_xor", "aten::logical_xor_"), np.logical_xor, COMPARE)


def _as_dtype(x: object, dtype: np.dtype) -> ndarray:
    return x.astype(dtype, copy=False) if type(x) is ndarray else np.asarray(x).astype(dtype)


def _check_bool(tensor: ndarray, what: str) -> None:
    if tensor.dtype.kind != "b":
        raise TorchScriptError(f"{what}, but got a tensor with dtype {dtype_name(tensor.dtype)}")


@kernel("aten::where.self", "aten::where.ScalarOther", "aten::where.ScalarSelf", "aten::where.Scalar")
def where(condition: ndarray, self: object, other: object) -> ndarray:
    _check_bool(condition, "where expected condition to be a boolean tensor")
    if type(self) is ndarray and type(other) is ndarray and self.dtype is other.dtype:
        try:
            return np.where(condition, self, other)
        except ValueError:
            raise broadcast_error(condition, self, other) from None
    dtype = result_type(self, other)
    try:
        return as_tensor(np.where(condition, _as_dtype(self, dtype), _as_dtype(other, dtype)))
    except ValueError:
        raise broadcast_error(condition, self, other) from None


@kernel("aten::where")
def nonzero_tuple(condition: ndarray) -> list[ndarray]:
    return [np.asarray(index) for index in np.nonzero(condition)]


def _fill_value(value: object, what: str) -> object:
    if type(value) is ndarray and value.ndim:
        raise TorchScriptError(
            f"{what} only supports a 0-dimensional value tensor, but got tensor with {value.ndim} "
            f"dimension(s)."
        )
    return value


@kernel("aten::masked_fill.Scalar", "aten::masked_fill.Tensor")
def masked_fill(self: ndarray, mask: ndarray, value: object) -> ndarray:
    _check_bool(mask, "masked_fill_ only supports boolean masks")
    value = _as_dtype(_fill_value(value, "masked_fill_"), self.dtype)
    try:
        return as_tensor(np.where(mask, value, self))
    except ValueError:
        raise broadcast_error(self, mask) from None


@kernel("aten::masked_fill_.Scalar", "aten::masked_fill_.Tensor")
def masked_fill_(self: ndarray, mask: ndarray, value: object) -> ndarray:
    _check_bool(mask, "masked_fill_ only supports boolean masks")
    value = _as_dtype(_fill_value(value, "masked_fill_"), self.dtype)
    try:
        np.copyto(self, value, where=mask)
    except ValueError:
        raise write_error(self, mask) from None
    return self


def _same_dtype(self: ndarray, other: ndarray) -> None:
    if self.dtype != other.dtype:
        raise TorchScriptError(f"{dtype_name(self.dtype)} did not match {dtype_name(other.dtype)}")


@kernel("aten::isclose")
def isclose(self: ndarray, other: ndarray, rtol: float, atol: float, equal_nan: bool) -> ndarray:
    _same_dtype(self, other)
    try:
        return as_tensor(np.isclose(self, other, rtol=rtol, atol=atol, equal_nan=equal_nan))
    except ValueError:
        raise broadcast_error(self, other) from None


@kernel("aten::allclose")
def allclose(self: ndarray, other: ndarray, rtol: float, atol: float, equal_nan: bool) -> bool:
    return bool(isclose(self, other, rtol, atol, equal_nan).all())


@kernel("aten::equal")
def equal(self: ndarray, other: ndarray) -> bool:
    return self.shape == other.shape and bool(np.array_equal(self, other))

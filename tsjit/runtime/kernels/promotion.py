"""PyTorch's type promotion, which numpy's (NEP 50) does not reproduce.

PyTorch orders dtypes by category (bool < integral < floating < complex) and lets operands
of three priorities take part: dimensioned tensors, zero-dim tensors, then Python scalars
("wrapped numbers"). A lower priority group only changes the result when it brings a higher
category, and Python scalars only bring a category: `int64_tensor + 1.5` is float32 (the
default dtype), `float16_tensor + float64_zero_dim` stays float16. numpy differs on both.
"""

from __future__ import annotations

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.values import DEFAULT_DTYPE, DTYPE_BY_NUMPY, dtype_name

BOOL, INTEGRAL, FLOATING, COMPLEX = range(4)

CATEGORY: dict[np.dtype, int] = {
    dtype: COMPLEX
    if record.is_complex
    else FLOATING
    if record.is_floating
    else BOOL
    if dtype.kind == "b"
    else INTEGRAL
    for dtype, record in DTYPE_BY_NUMPY.items()
}

BOOL_DTYPE = np.dtype(np.bool_)
LONG_DTYPE = np.dtype(np.int64)
DOUBLE_DTYPE = np.dtype(np.float64)
COMPLEX_DEFAULT = np.dtype(np.complex64)

_WRAPPED_DTYPE: dict[type, np.dtype] = {
    bool: BOOL_DTYPE,
    int: LONG_DTYPE,
    float: DEFAULT_DTYPE,
    complex: COMPLEX_DEFAULT,
}
"""The dtype a Python scalar takes part in promotion with (floats count as the default dtype)."""

_TO_COMPLEX = {
    np.dtype(np.float16): COMPLEX_DEFAULT,
    DEFAULT_DTYPE: COMPLEX_DEFAULT,
    DOUBLE_DTYPE: np.dtype(np.complex128),
}


def promote_types(a: np.dtype | None, b: np.dtype | None) -> np.dtype | None:
    """torch.promote_types; None stands for "no operand yet"."""
    if a is None or a == b:
        return b
    if b is None:
        return a
    ca, cb = CATEGORY[a], CATEGORY[b]
    if ca != cb:
        high, low = (a, b) if ca > cb else (b, a)
        if CATEGORY[high] == COMPLEX and low == DOUBLE_DTYPE:
            return np.dtype(np.complex128)
        return high
    # Within one category numpy's lattice is PyTorch's (uint8 + int8 -> int16, ...).
    return np.promote_types(a, b)


def _combine(higher: np.dtype | None, lower: np.dtype | None) -> np.dtype | None:
    """c10's combine_categories: a lower-priority group wins only with a higher category."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    ch, cl = CATEGORY[higher], CATEGORY[lower]
    if ch == COMPLEX:
        return higher
    if cl == COMPLEX:
        return _TO_COMPLEX.get(higher, lower) if ch == FLOATING else lower
    if ch == FLOATING:
        return higher
    if ch == BOOL or cl == FLOATING:
        return promote_types(higher, lower)
    return higher


def result_type(*operands: object) -> np.dtype:
    """torch.result_type over tensors (ndarrays) and Python scalars; None operands are skipped."""
    dimensioned = zero_dim = wrapped = None
    for x in operands:
        if type(x) is np.ndarray:
            if x.ndim:
                dimensioned = promote_types(dimensioned, x.dtype)
            else:
                zero_dim = promote_types(zero_dim, x.dtype)
        elif x is not None:
            wrapped = promote_types(wrapped, _WRAPPED_DTYPE[type(x)])
    return _combine(dimensioned, _combine(zero_dim, wrapped))


def binary_dtype(a: object, b: object) -> np.dtype:
    """result_type of two operands, answering the frequent cases without the full rules."""
    if type(a) is np.ndarray:
        dtype = a.dtype
        kind = type(b)
        if kind is np.ndarray:
            if b.dtype == dtype:
                return dtype
        elif kind is float:
            if dtype.kind in "fc":
                return dtype
        elif kind is int and dtype.kind in "iufc":
            return dtype
    return result_type(a, b)


def scalar_dtype(x: object) -> np.dtype:
    """The dtype of a tensor made from a Python scalar (`torch.tensor(1.5)` is float32)."""
    return _WRAPPED_DTYPE[type(x)]


def float_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype of a floating result: integral and bool inputs compute in the default dtype."""
    return dtype if CATEGORY[dtype] >= FLOATING else DEFAULT_DTYPE


def check_cast(result: np.dtype, out: np.dtype) -> None:
    """c10::canCast: writing a result into a tensor may not lower its category."""
    if CATEGORY[result] > CATEGORY[out]:
        raise TorchScriptError(
            f"result type {dtype_name(result)} can't be cast to the desired output type {dtype_name(out)}"
        )

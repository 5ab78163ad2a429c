"""Elementwise unary tensor math, as a table: name -> (numpy function, result rule).

Rules: FLOAT ops compute integral and bool inputs in the default float dtype (`exp` of an
int64 tensor is float32); SAME ops keep the dtype; ROUNDING ops are the identity on
integers (numpy would return float64); PREDICATE ops return bool tensors. Each `name_`
in-place form writes back into self and refuses to store a float result in an integer
tensor, as PyTorch does.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import kernel, register_kernel
from tsjit.runtime.kernels.common import as_tensor, assign
from tsjit.runtime.kernels.promotion import check_cast, float_dtype
from tsjit.runtime.kernels.special import erf, erfc
from tsjit.runtime.values import DEFAULT_DTYPE, dtype_name

ndarray = np.ndarray
Unary = Callable[[ndarray], object]

FLOAT, SAME, ROUNDING, PREDICATE = "float", "same", "rounding", "predicate"


def in_float64(fn: Callable[[np.ndarray], np.ndarray]) -> Unary:
    """A float64 implementation applied to any float dtype."""
    return lambda x: fn(x.astype(np.float64)).astype(x.dtype)


def _sigmoid(x: ndarray) -> ndarray:
    # 1 / (1 + exp(-x)) in one buffer: this runs in every LSTM step.
    t = np.negative(x, out=...)
    np.exp(t, out=t)
    np.add(t, 1, out=t)
    return np.reciprocal(t, out=t)


def _rsqrt(x: ndarray) -> object:
    return np.divide(1, np.sqrt(x))


def _abs(x: ndarray) -> object:
    if x.dtype.kind == "b":
        raise TorchScriptError("\"abs_cpu\" not implemented for 'Bool'")
    return np.abs(x)


def _negative(x: ndarray) -> object:
    if x.dtype.kind == "b":
        raise TorchScriptError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert "
            "a mask, use the `~` or `logical_not()` operator instead."
        )
    return np.negative(x)


def _sign(x: ndarray) -> object:
    if x.dtype.kind == "b":
        return x.copy()
    signs = np.sign(x)
    if x.dtype.kind == "f":  # PyTorch's sign of NaN is 0 (numpy's is NaN)
        signs = np.where(np.isnan(signs), signs.dtype.type(0), signs)
    return signs


def _frac(x: ndarray) -> object:
    if x.dtype.kind != "f":
        raise TorchScriptError(f"\"frac_cpu\" not implemented for '{dtype_name(x.dtype)}'")
    return np.subtract(x, np.trunc(x))


def _bitwise_not(x: ndarray) -> object:
    if x.dtype.kind == "f" or x.dtype.kind == "c":
        raise TorchScriptError(f"\"bitwise_not_cpu\" not implemented for '{dtype_name(x.dtype)}'")
    return np.invert(x)


# A zero of each dtype: numpy resolves a Python 0 against the array on every call.
_ZEROS = {np.dtype(t): np.dtype(t).type(0) for t in "bBhHiIlLqQefdFD"}


def _zero_first_keeps_negative_zero(dtype: np.dtype) -> bool:
    """Whether `maximum(0, x)` returns x's -0.0 (numpy's loops keep one argument of two equal
    ones, which one depends on the dtype and the loop): probed at sizes that take each loop."""
    zero = dtype.type(0)
    return all(np.signbit(np.maximum(zero, np.full(n, -0.0, dtype))).all() for n in (1, 3, 8, 17, 64, 1000))


_RELU_ZERO_FIRST = {np.dtype(t): _zero_first_keeps_negative_zero(np.dtype(t)) for t in "efd"}


def _relu(x: ndarray) -> object:
    if x.dtype.kind == "b":
        raise TorchScriptError("Boolean inputs not supported for relu")
    zero = _ZEROS[x.dtype]
    if _RELU_ZERO_FIRST.get(x.dtype, x.dtype.kind not in "fc"):
        return np.maximum(zero, x, out=...)
    # -0.0 stays -0.0 as in PyTorch (np.where costs 20 maximums)
    out = np.maximum(x, zero, out=...)
    np.copyto(out, x, where=np.signbit(x) & (x == 0))
    return out


def _square(x: ndarray) -> object:
    return np.multiply(x, x) if x.dtype.kind != "b" else x.astype(np.int64)


_TABLE: dict[str, tuple[Unary, str]] = {
    "exp": (np.exp, FLOAT),
    "exp2": (np.exp2, FLOAT),
    "expm1": (np.expm1, FLOAT),
    "log": (np.log, FLOAT),
    "log2": (np.log2, FLOAT),
    "log10": (np.log10, FLOAT),
    "log1p": (np.log1p, FLOAT),
    "sqrt": (np.sqrt, FLOAT),
    "rsqrt": (_rsqrt, FLOAT),
    "reciprocal": (np.reciprocal, FLOAT),
    "sin": (np.sin, FLOAT),
    "cos": (np.cos, FLOAT),
    "tan": (np.tan, FLOAT),
    "asin": (np.arcsin, FLOAT),
    "acos": (np.arccos, FLOAT),
    "atan": (np.arctan, FLOAT),
    "sinh": (np.sinh, FLOAT),
    "cosh": (np.cosh, FLOAT),
    "tanh": (np.tanh, FLOAT),
    "asinh": (np.arcsinh, FLOAT),
    "acosh": (np.arccosh, FLOAT),
    "atanh": (np.arctanh, FLOAT),
    "sigmoid": (_sigmoid, FLOAT),
    "erf": (in_float64(erf), FLOAT),
    "erfc": (in_float64(erfc), FLOAT),
    "deg2rad": (np.deg2rad, FLOAT),
    "rad2deg": (np.rad2deg, FLOAT),
    "abs": (_abs, SAME),
    "neg": (_negative, SAME),
    "sign": (_sign, SAME),
    "sgn": (_sign, SAME),
    "square": (_square, SAME),
    "relu": (_relu, SAME),
    "bitwise_not": (_bitwise_not, SAME),
    "frac": (_frac, SAME),
    "floor": (np.floor, ROUNDING),
    "ceil": (np.ceil, ROUNDING),
    "trunc": (np.trunc, ROUNDING),
    "round": (np.rint, ROUNDING),
    "logical_not": (np.logical_not, PREDICATE),
    "isnan": (np.isnan, PREDICATE),
    "isinf": (np.isinf, PREDICATE),
    "isfinite": (np.isfinite, PREDICATE),
    "isposinf": (np.isposinf, PREDICATE),
    "isneginf": (np.isneginf, PREDICATE),
    "signbit": (np.signbit, PREDICATE),
}

_ALIASES = {
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "arcsinh": "asinh",
    "arccosh": "acosh",
    "arctanh": "atanh",
    "absolute": "abs",
    "negative": "neg",
    "fix": "trunc",
}

_NO_INPLACE = {"isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit"}


def unary(compute: Unary, rule: str, name: str) -> Callable[[ndarray], ndarray]:
    """The out-of-place kernel of the table entry `name`."""
    if isinstance(compute, np.ufunc):
        ufunc = compute

        def apply(x: ndarray) -> ndarray:
            return ufunc(x, out=...)

    else:

        def apply(x: ndarray) -> ndarray:
            return as_tensor(compute(x))

    if rule is FLOAT:

        def run(x: ndarray) -> ndarray:
            return apply(x.astype(DEFAULT_DTYPE) if x.dtype.kind in "iub" else x)

    elif rule is ROUNDING:

        def run(x: ndarray) -> ndarray:
            if x.dtype.kind == "b":
                raise TorchScriptError(f"\"{name}_vml_cpu\" not implemented for 'Bool'")
            return x.copy() if x.dtype.kind in "iu" else apply(x)

    else:
        run = apply
    return run


def unary_inplace(compute: Unary, rule: str, name: str) -> Callable[[ndarray], ndarray]:
    """The in-place kernel of a table entry: compute, then write back into self."""
    out_of_place = unary(compute, rule, name)

    def run(self: ndarray) -> ndarray:
        if rule is FLOAT:
            check_cast(float_dtype(self.dtype), self.dtype)
        return assign(self, out_of_place(self))

    return run


for _name, (_compute, _rule) in _TABLE.items():
    register_kernel(f"aten::{_name}", unary(_compute, _rule, _name))
    if _name not in _NO_INPLACE:
        register_kernel(f"aten::{_name}_", unary_inplace(_compute, _rule, _name))
for _alias, _name in _ALIASES.items():
    register_kernel(f"aten::{_alias}", unary(*_TABLE[_name], _name))
    register_kernel(f"aten::{_alias}_", unary_inplace(*_TABLE[_name], _name))


@kernel("aten::positive")
def positive(self: ndarray) -> ndarray:
    if self.dtype.kind == "b":
        raise TorchScriptError("The `+` operator, on a bool tensor is not supported.")
    return self


def _round_decimals(x: ndarray, decimals: int) -> ndarray:
    return x.copy() if x.dtype.kind in "iub" else as_tensor(np.round(x, decimals))


@kernel("aten::round.decimals")
def round_decimals(self: ndarray, decimals: int) -> ndarray:
    return _round_decimals(self, decimals)


@kernel("aten::round_.decimals")
def round_decimals_(self: ndarray, decimals: int) -> ndarray:
    return assign(self, _round_decimals(self, decimals))


def _nan_to_num(x: ndarray, nan: float | None, posinf: float | None, neginf: float | None) -> ndarray:
    if x.dtype.kind not in "fc":
        return x.copy()
    return as_tensor(np.nan_to_num(x, nan=0.0 if nan is None else nan, posinf=posinf, neginf=neginf))


@kernel("aten::nan_to_num")
def nan_to_num(self: ndarray, nan: float | None, posinf: float | None, neginf: float | None) -> ndarray:
    return _nan_to_num(self, nan, posinf, neginf)


@kernel("aten::nan_to_num_")
def nan_to_num_(self: ndarray, nan: float | None, posinf: float | None, neginf: float | None) -> ndarray:
    return assign(self, _nan_to_num(self, nan, posinf, neginf))


@kernel("aten::logit")
def logit(self: ndarray, eps: float | None) -> ndarray:
    x = self.astype(float_dtype(self.dtype), copy=False)
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    return as_tensor(np.log(x / (1 - x)))

"""Binary tensor arithmetic: add, sub, mul, div, floor_divide, remainder, fmod, pow, bitwise ops.

Every op is one compute function plus a result rule; one generic wrapper applies PyTorch's
promotion (`promotion.binary_dtype`), casts tensor operands to the computation dtype (Python
scalars stay weak, which numpy then treats exactly like PyTorch does), wraps 0-d results and
translates numpy's errors. In-place variants keep self's dtype and refuse to lower its
category, as PyTorch does.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import Kernel, kernel, register_kernel
from tsjit.runtime.kernels.common import as_tensor, assign, broadcast_error, write_error
from tsjit.runtime.kernels.promotion import (
    BOOL,
    CATEGORY,
    INTEGRAL,
    binary_dtype,
    check_cast,
    float_dtype,
    result_type,
)
from tsjit.runtime.values import dtype_name

ndarray = np.ndarray
Compute = Callable[..., object]

# Result rules: how the computation dtype follows from the promoted dtype.
PROMOTE = "promote"  # compute and return in the promoted dtype
FLOAT = "float"  # integral and bool operands compute in the default float dtype
BITWISE = "bitwise"  # promoted dtype, which must be integral or bool
COMPARE = "compare"  # promoted dtype, bool result: in-place writes cast into any self dtype


def numpy_error(exc: Exception, *operands: object) -> TorchScriptError:
    """The TorchScript error for a numpy failure: broadcasting, or numpy's own message."""
    try:
        np.broadcast_shapes(*(np.shape(x) for x in operands))
    except ValueError:
        return broadcast_error(*operands)
    return TorchScriptError(str(exc))


def computation_dtype(a: object, b: object, rule: str, op: str) -> np.dtype:
    dtype = binary_dtype(a, b)
    if rule is FLOAT:
        return float_dtype(dtype)
    if rule is BITWISE and CATEGORY[dtype] > INTEGRAL:
        raise TorchScriptError(f"\"{op}_cpu\" not implemented for '{dtype_name(dtype)}'")
    return dtype


def cast_operands(a: object, b: object, dtype: np.dtype) -> tuple[object, object]:
    """Tensors become `dtype`; Python scalars stay Python scalars (numpy keeps them weak)."""
    if type(a) is ndarray and a.dtype != dtype:
        a = a.astype(dtype)
    if type(b) is ndarray and b.dtype != dtype:
        b = b.astype(dtype)
    return a, b


def _wrap_scalar(x: object, dtype: np.dtype) -> object:
    """An int scalar out of the dtype's range wraps around, as in PyTorch's C++ cast."""
    return np.asarray(x).astype(dtype) if type(x) is int else x


_INT_RANGES = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max)) for t in np.typecodes["AllInteger"]}


def _fits(x: int, dtype: np.dtype) -> bool:
    low, high = _INT_RANGES[dtype]
    return low <= x <= high


# The dtype kinds for which a rule computes in the operands' own dtype (no promotion needed).
_OWN_DTYPE_KINDS = {PROMOTE: "biufc", COMPARE: "biufc", FLOAT: "fc", BITWISE: "biu"}


def binary(compute: Compute, rule: str = PROMOTE, op: str = "") -> Callable[[object, object], ndarray]:
    """The out-of-place kernel `(self, other) -> Tensor` of a compute function.

    The fast path covers what programs do most (two tensors of one dtype, or a tensor and a
    Python scalar of its kind); everything else, errors included, takes the general path.
    """
    kinds = _OWN_DTYPE_KINDS[rule]
    ufunc = compute if isinstance(compute, np.ufunc) else None

    def general(a: object, b: object) -> ndarray:
        dtype = computation_dtype(a, b, rule, op)
        a, b = cast_operands(a, b, dtype)
        if rule is COMPARE and dtype.kind in "iu":  # numpy compares an int out of range as is
            a, b = _wrap_scalar(a, dtype), _wrap_scalar(b, dtype)
        try:
            return as_tensor(compute(a, b))
        except OverflowError:
            return as_tensor(compute(_wrap_scalar(a, dtype), _wrap_scalar(b, dtype)))
        except ValueError as exc:
            raise numpy_error(exc, a, b) from None

    def run(a: object, b: object) -> ndarray:
        if type(a) is ndarray:
            kind = a.dtype.kind
            other = type(b)
            if kind in kinds and (
                (other is ndarray and b.dtype is a.dtype)
                or (other is float and kind in "fc")
                or (other is int and (kind in "fc" or (kind in "iu" and (rule is not COMPARE or _fits(b, a.dtype)))))
            ):
                try:
                    return ufunc(a, b, out=...) if ufunc is not None else as_tensor(compute(a, b))
                except (ValueError, OverflowError):
                    pass  # the general path reports broadcasting errors and wraps large scalars
        return general(a, b)

    return run


def binary_inplace(
    compute: Compute, rule: str = PROMOTE, op: str = ""
) -> Callable[[ndarray, object], ndarray]:
    """The in-place kernel `(self, other) -> self`: the result is cast into self's dtype."""
    kinds = _OWN_DTYPE_KINDS[rule]
    ufunc = compute if isinstance(compute, np.ufunc) else None

    def general(self: ndarray, other: object) -> ndarray:
        dtype = computation_dtype(self, other, rule, op)
        if rule is not COMPARE:
            check_cast(dtype, self.dtype)
        a, b = cast_operands(self, other, dtype)
        try:
            if ufunc is not None:
                ufunc(a, b, out=self, casting="unsafe")
            else:
                np.copyto(self, compute(a, b), casting="unsafe")
        except OverflowError:
            np.copyto(self, compute(a, _wrap_scalar(b, dtype)), casting="unsafe")
        except ValueError as exc:
            raise _inplace_error(exc, self, a, b) from None
        return self

    def run(self: ndarray, other: object) -> ndarray:
        kind = self.dtype.kind
        operand = type(other)
        if (
            ufunc is not None
            and kind in kinds
            and (
                (operand is ndarray and other.dtype is self.dtype)
                or (operand is float and kind in "fc")
                or (operand is int and kind in "iufc")
            )
        ):
            try:
                ufunc(self, other, out=self, casting="unsafe")
                return self
            except (ValueError, OverflowError):
                pass  # read-only or broadcasting self, large scalars: the general path decides
        return general(self, other)

    return run


def _inplace_error(exc: ValueError, out: ndarray, a: object, b: object) -> TorchScriptError:
    try:
        fits = np.broadcast_shapes(np.shape(a), np.shape(b)) == out.shape
    except ValueError:
        fits = False
    return TorchScriptError(str(exc)) if fits and out.flags.writeable else write_error(out, a, b)


def is_inplace(name: str) -> bool:
    """`aten::add_.Tensor` and `aten::__iand__.Scalar` write into self; `aten::__and__` does not."""
    base = name.partition("::")[2].partition(".")[0]
    return base.startswith("__i") if base.startswith("__") else base.endswith("_")


def register_binary(
    names: tuple[str, ...], compute: Compute, rule: str = PROMOTE, op: str = "", *, alpha: bool = False
) -> None:
    """Register one compute function under out-of-place names and `name_`-style in-place names;
    with `alpha`, their schemas (add, sub) scale `other` by a third argument first."""
    out_of_place, in_place = binary(compute, rule, op), binary_inplace(compute, rule, op)
    if alpha:
        out_of_place, in_place = alpha_scaled(out_of_place), alpha_scaled(in_place)
    if compute is _subtract:
        out_of_place, in_place = _checked_subtraction(out_of_place), _checked_subtraction(in_place)
    for name in names:
        register_kernel(name, in_place if is_inplace(name) else out_of_place)


# --------------------------------------------------------------------------------------
# Compute functions that numpy does not provide as one ufunc
# --------------------------------------------------------------------------------------


def _check_int_divisor(a: object, b: object) -> None:
    """Integer division by zero raises in PyTorch (when some element is divided: not
    for an empty result); float division gives inf or nan."""
    if np.result_type(a, b).kind in "iub" and not np.all(b):
        try:
            empty = math.prod(np.broadcast_shapes(np.shape(a), np.shape(b))) == 0
        except ValueError:  # not broadcastable: numpy reports it
            empty = False
        if not empty:
            raise TorchScriptError("ZeroDivisionError")


def _refuse_bools(a: object, b: object, kernel: str) -> None:
    """PyTorch has no kernel of the divisions and remainders for bool (a bool tensor
    with an int scalar promotes to int and has one)."""
    if np.result_type(a, b) == np.bool_:
        raise TorchScriptError(f"\"{kernel}\" not implemented for 'Bool'")


def _floor_divide(a: object, b: object) -> object:
    _refuse_bools(a, b, "div_floor_cpu")
    _check_int_divisor(a, b)
    return np.floor_divide(a, b)


def _remainder(a: object, b: object) -> object:
    """Python's `%`, with PyTorch's formula for floats: C's fmod moved to the divisor's
    side unless it is zero (so `-4.0 % 2.0` is -0.0, where numpy's is 0.0)."""
    _refuse_bools(a, b, "remainder_cpu")
    _check_int_divisor(a, b)
    if np.result_type(a, b).kind != "f":
        return np.remainder(a, b)
    mod = np.fmod(a, b)
    return np.where((mod != 0) & (np.less(b, 0) != (mod < 0)), mod + b, mod)


def _fmod(a: object, b: object) -> object:
    _refuse_bools(a, b, "fmod_cpu")
    _check_int_divisor(a, b)
    return np.fmod(a, b)


def _trunc_divide(a: object, b: object) -> object:
    _refuse_bools(a, b, "div_trunc_cpu")
    if np.result_type(a, b).kind in "fc":
        return np.trunc(np.true_divide(a, b))
    _check_int_divisor(a, b)
    quotient = np.floor_divide(a, b)
    rest = np.subtract(a, np.multiply(quotient, b))
    return quotient + ((rest != 0) & (np.less(a, 0) != np.less(b, 0)))


def _bool_sub_error() -> TorchScriptError:
    return TorchScriptError(
        "Subtraction, the `-` operator, with two bool tensors is not supported. "
        "Use the `^` or `logical_xor()` operator instead."
    )


def _check_bool_subtraction(a: object, b: object) -> None:
    """A bool tensor on either side of `-` raises in PyTorch, whatever the other
    operand (the computation dtype no longer shows it)."""
    a_bool, b_bool = (type(x) is ndarray and x.dtype.kind == "b" for x in (a, b))
    if (a_bool or type(a) is bool) and (b_bool or type(b) is bool):
        raise _bool_sub_error()
    if a_bool or b_bool:
        raise TorchScriptError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


def _checked_subtraction(run: Callable[..., ndarray]) -> Callable[..., ndarray]:
    def subtract(self: ndarray, other: object, *alpha: object) -> ndarray:
        _check_bool_subtraction(self, other)
        return run(self, other, *alpha)

    return subtract


def _subtract(a: object, b: object) -> object:
    # Operands are already in the computation dtype: one bool tensor means a bool subtraction.
    if (type(a) is ndarray and a.dtype.kind == "b") or (type(b) is ndarray and b.dtype.kind == "b"):
        raise _bool_sub_error()
    return np.subtract(a, b)


def _scale(other: object, alpha: object, dtype: np.dtype) -> object:
    """`alpha * other` for add/sub, with PyTorch's checks on alpha's type."""
    category = CATEGORY[dtype]
    if category == BOOL and type(alpha) is not bool:
        raise TorchScriptError("Boolean alpha only supported for Boolean results.")
    if category <= INTEGRAL and type(alpha) is float:
        raise TorchScriptError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    if type(other) is ndarray:
        return as_tensor(np.multiply(other.astype(dtype, copy=False), alpha))
    return other * alpha


def alpha_scaled(run: Callable[[ndarray, object], ndarray]) -> Callable[[ndarray, object, object], ndarray]:
    """The kernel `(self, other, alpha)` of add and sub: `run(self, alpha * other)`."""

    def scaled(self: ndarray, other: object, alpha: object = 1) -> ndarray:
        if alpha != 1 or type(alpha) is not int:
            other = _scale(other, alpha, binary_dtype(self, other))
        return run(self, other)

    return scaled


register_binary(
    ("aten::add.Tensor", "aten::add.Scalar", "aten::add_.Tensor", "aten::add_.Scalar"), np.add, alpha=True
)
register_binary(
    (
        "aten::sub.Tensor",
        "aten::sub.Scalar",
        "aten::subtract.Tensor",
        "aten::subtract.Scalar",
        "aten::sub_.Tensor",
        "aten::sub_.Scalar",
    ),
    _subtract,
    alpha=True,
)
_SUB = binary(_subtract)


@kernel("aten::rsub.Tensor", "aten::rsub.Scalar")
def rsub(self: ndarray, other: object, alpha: object = 1) -> ndarray:
    _check_bool_subtraction(other, self)
    if alpha != 1 or type(alpha) is not int:
        self = _scale(self, alpha, binary_dtype(self, other))
    return _SUB(other, self)


# --------------------------------------------------------------------------------------
# div and its rounding modes
# --------------------------------------------------------------------------------------

register_binary(
    (
        "aten::div.Tensor",
        "aten::div.Scalar",
        "aten::divide.Tensor",
        "aten::divide.Scalar",
        "aten::true_divide.Tensor",
        "aten::true_divide.Scalar",
        "aten::div_.Tensor",
        "aten::div_.Scalar",
        "aten::true_divide_.Tensor",
        "aten::true_divide_.Scalar",
    ),
    np.true_divide,
    FLOAT,
)


def divide_by_mode(make: Callable[..., Callable[[ndarray, object], ndarray]]) -> Kernel:
    """The kernel `div(self, other, rounding_mode)` from `binary` or `binary_inplace`."""
    true_divide = make(np.true_divide, FLOAT)
    rounded = {"trunc": make(_trunc_divide), "floor": make(_floor_divide)}

    def divide(self: ndarray, other: object, rounding_mode: str | None) -> ndarray:
        if rounding_mode is None:
            return true_divide(self, other)
        fn = rounded.get(rounding_mode)
        if fn is None:
            raise TorchScriptError(
                f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                f"'{rounding_mode}'"
            )
        return fn(self, other)

    return divide


kernel(
    "aten::div.Tensor_mode", "aten::div.Scalar_mode", "aten::divide.Tensor_mode", "aten::divide.Scalar_mode"
)(divide_by_mode(binary))
kernel("aten::div_.Tensor_mode", "aten::div_.Scalar_mode")(divide_by_mode(binary_inplace))


# --------------------------------------------------------------------------------------
# pow: small constant exponents become multiplications (numpy's float32 pow is slow)
# --------------------------------------------------------------------------------------


def _reciprocal(x: ndarray) -> ndarray:
    return np.divide(1, x, out=...)


_LOWERED_POWERS: dict[float, Callable[[ndarray], object]] = {
    1: np.copy,
    2: lambda x: np.multiply(x, x),
    3: lambda x: x * x * x,
    0.5: np.sqrt,
    -0.5: lambda x: np.divide(1, np.sqrt(x)),
    -1: _reciprocal,
    -2: lambda x: np.divide(1, x * x),
}


_ROOTS = (0.5, -0.5, -1)
"""Exponents PyTorch computes as sqrt, rsqrt and reciprocal for float and double only:
Half takes C's pow, whose pow(-inf, 0.5) is inf and pow(-0.0, 0.5) 0.0 (numpy's too)."""


def _pow(base: object, exponent: object) -> object:
    if _is_bool(base) and _is_bool(exponent):
        return _bool_pow(base, exponent)
    if type(base) is ndarray and type(exponent) is not ndarray and type(exponent) is not bool:
        lowered = _LOWERED_POWERS.get(exponent)
        if lowered is not None and (base.dtype.kind in "fc" or exponent in (1, 2, 3)):
            if not (exponent in _ROOTS and base.dtype == np.float16):
                return lowered(base)
    if type(exponent) is int and exponent < 0 and np.result_type(base).kind in "iub":
        raise TorchScriptError("Integers to negative integer powers are not allowed.")
    if type(exponent) is ndarray and exponent.dtype.kind in "iu":
        if np.result_type(base, exponent).kind in "iu":
            return _integer_pow(base, exponent)
    return np.power(base, exponent)


def _is_bool(x: object) -> bool:
    return type(x) is bool or (type(x) is ndarray and x.dtype == np.bool_)


def _bool_pow(base: object, exponent: object) -> object:
    """PyTorch has no pow kernel for bool: only a bool tensor to a bool scalar power has
    a result (False gives ones, True a copy), computed before any kernel runs."""
    if type(base) is ndarray and type(exponent) is bool:
        return np.ones_like(base) if not exponent else base.copy()
    raise TorchScriptError("\"pow\" not implemented for 'Bool'")


def _integer_pow(base: object, exponent: ndarray) -> ndarray:
    """Integers to tensor exponents, negative ones included, as c10's `powi`: 1 and -1
    keep their magnitude, every other base gives 0 (numpy refuses the negatives)."""
    negative = exponent < 0
    result = np.power(base, np.where(negative, 0, exponent))
    if negative.any():
        reciprocal = np.where(base == 1, 1, np.where(base == -1, 1 - 2 * (exponent & 1), 0))
        result = np.where(negative, reciprocal, result).astype(result.dtype, copy=False)
    return result


register_binary(
    (
        "aten::pow.Tensor_Tensor",
        "aten::pow.Tensor_Scalar",
        "aten::pow.Scalar",
        "aten::pow_.Scalar",
        "aten::pow_.Tensor",
    ),
    _pow,
)


# --------------------------------------------------------------------------------------
# The rest of the table
# --------------------------------------------------------------------------------------

_TABLE: tuple[tuple[tuple[str, ...], Compute, str, str], ...] = (
    (
        (
            "aten::mul.Tensor",
            "aten::mul.Scalar",
            "aten::multiply.Tensor",
            "aten::multiply.Scalar",
            "aten::mul_.Tensor",
            "aten::mul_.Scalar",
        ),
        np.multiply,
        PROMOTE,
        "",
    ),
    (
        (
            "aten::floor_divide",
            "aten::floor_divide.Scalar",
            "aten::floor_divide_.Tensor",
            "aten::floor_divide_.Scalar",
        ),
        _floor_divide,
        PROMOTE,
        "",
    ),
    (
        (
            "aten::remainder.Tensor",
            "aten::remainder.Scalar",
            "aten::remainder.Scalar_Tensor",
            "aten::remainder_.Tensor",
            "aten::remainder_.Scalar",
        ),
        _remainder,
        PROMOTE,
        "",
    ),
    (
        ("aten::fmod.Tensor", "aten::fmod.Scalar", "aten::fmod_.Tensor", "aten::fmod_.Scalar"),
        _fmod,
        PROMOTE,
        "",
    ),
    (("aten::atan2", "aten::arctan2", "aten::atan2_"), np.arctan2, FLOAT, ""),
    (("aten::hypot", "aten::hypot_"), np.hypot, FLOAT, ""),
    (
        (
            "aten::copysign.Tensor",
            "aten::copysign.Scalar",
            "aten::copysign_.Tensor",
            "aten::copysign_.Scalar",
        ),
        np.copysign,
        FLOAT,
        "",
    ),
    (("aten::logaddexp",), np.logaddexp, FLOAT, ""),
    (("aten::maximum", "aten::max.other"), np.maximum, PROMOTE, ""),
    (("aten::minimum", "aten::min.other"), np.minimum, PROMOTE, ""),
    (("aten::fmax",), np.fmax, PROMOTE, ""),
    (("aten::fmin",), np.fmin, PROMOTE, ""),
    (
        (
            "aten::bitwise_and.Tensor",
            "aten::bitwise_and.Scalar",
            "aten::bitwise_and.Scalar_Tensor",
            "aten::__and__.Tensor",
            "aten::__and__.Scalar",
            "aten::bitwise_and_.Tensor",
            "aten::bitwise_and_.Scalar",
            "aten::__iand__.Tensor",
            "aten::__iand__.Scalar",
        ),
        np.bitwise_and,
        BITWISE,
        "bitwise_and",
    ),
    (
        (
            "aten::bitwise_or.Tensor",
            "aten::bitwise_or.Scalar",
            "aten::bitwise_or.Scalar_Tensor",
            "aten::__or__.Tensor",
            "aten::__or__.Scalar",
            "aten::bitwise_or_.Tensor",
            "aten::bitwise_or_.Scalar",
            "aten::__ior__.Tensor",
            "aten::__ior__.Scalar",
        ),
        np.bitwise_or,
        BITWISE,
        "bitwise_or",
    ),
    (
        (
            "aten::bitwise_xor.Tensor",
            "aten::bitwise_xor.Scalar",
            "aten::bitwise_xor.Scalar_Tensor",
            "aten::__xor__.Tensor",
            "aten::__xor__.Scalar",
            "aten::bitwise_xor_.Tensor",
            "aten::bitwise_xor_.Scalar",
            "aten::__ixor__.Tensor",
            "aten::__ixor__.Scalar",
        ),
        np.bitwise_xor,
        BITWISE,
        "bitwise_xor",
    ),
    (
        (
            "aten::__lshift__.Tensor",
            "aten::__lshift__.Scalar",
            "aten::bitwise_left_shift.Tensor",
            "aten::bitwise_left_shift.Tensor_Scalar",
            "aten::bitwise_left_shift.Scalar_Tensor",
            "aten::__ilshift__.Tensor",
            "aten::__ilshift__.Scalar",
        ),
        np.left_shift,
        BITWISE,
        "lshift",
    ),
    (
        (
            "aten::__rshift__.Tensor",
            "aten::__rshift__.Scalar",
            "aten::bitwise_right_shift.Tensor",
            "aten::bitwise_right_shift.Tensor_Scalar",
            "aten::bitwise_right_shift.Scalar_Tensor",
            "aten::__irshift__.Tensor",
            "aten::__irshift__.Scalar",
        ),
        np.right_shift,
        BITWISE,
        "rshift",
    ),
)

for _names, _compute, _rule, _op in _TABLE:
    register_binary(_names, _compute, _rule, _op)


# --------------------------------------------------------------------------------------
# Ternary pointwise: lerp, addcmul, addcdiv
# --------------------------------------------------------------------------------------


def _lerp(self: ndarray, end: ndarray, weight: object) -> ndarray:
    """PyTorch's two-sided form: exact at both ends (weight 0 gives self, 1 gives end)."""
    dtype = result_type(self, end)
    start, stop = self.astype(dtype, copy=False), end.astype(dtype, copy=False)
    w = np.asarray(weight, dtype=dtype)
    difference = stop - start
    return as_tensor(np.where(np.abs(w) < 0.5, start + w * difference, stop - difference * (1 - w)))


def _addc(combine: Callable[[ndarray, ndarray], ndarray], name: str) -> Callable[..., ndarray]:
    """`self + value * combine(tensor1, tensor2)` with the promotion of all three tensors."""

    def compute(self: ndarray, tensor1: ndarray, tensor2: ndarray, value: object = 1) -> ndarray:
        dtype = result_type(self, tensor1, tensor2)
        if name == "addcdiv" and dtype.kind in "biu":
            raise TorchScriptError(
                "Integer division with addcdiv is no longer supported, and in a future release addcdiv "
                "will perform a true division of tensor1 and tensor2."
            )
        combined = combine(tensor1.astype(dtype, copy=False), tensor2.astype(dtype, copy=False))
        return as_tensor((self + np.asarray(value).astype(dtype) * combined).astype(dtype, copy=False))

    return compute


for _name, _compute in (
    ("lerp", _lerp),
    ("addcmul", _addc(np.multiply, "addcmul")),
    ("addcdiv", _addc(np.true_divide, "addcdiv")),
):
    _overloads = ("Scalar", "Tensor") if _name == "lerp" else ("",)
    for _overload in _overloads:
        _suffix = f".{_overload}" if _overload else ""
        register_kernel(f"aten::{_name}{_suffix}", _compute)
        register_kernel(
            f"aten::{_name}_{_suffix}",
            lambda self, *rest, _compute=_compute: assign(self, _compute(self, *rest)),
        )


# --------------------------------------------------------------------------------------
# Number theory and floating-point representation
# --------------------------------------------------------------------------------------


def _integral_pair(a: ndarray, b: ndarray, op: str) -> np.dtype:
    dtype = binary_dtype(a, b)
    if dtype.kind not in "iu":
        raise TorchScriptError(f'"{op}_cpu" not implemented for \'{dtype_name(dtype)}\'')
    return dtype


@kernel("aten::gcd")
def gcd(self: ndarray, other: ndarray) -> ndarray:
    return as_tensor(np.gcd(self, other).astype(_integral_pair(self, other, "gcd")))


@kernel("aten::lcm")
def lcm(self: ndarray, other: ndarray) -> ndarray:
    return as_tensor(np.lcm(self, other).astype(_integral_pair(self, other, "lcm")))


@kernel("aten::nextafter")
def nextafter(self: ndarray, other: ndarray) -> ndarray:
    dtype = binary_dtype(self, other)
    if dtype.kind != "f":
        raise TorchScriptError(f'"nextafter_cpu" not implemented for \'{dtype_name(dtype)}\'')
    return as_tensor(np.nextafter(self.astype(dtype, copy=False), other.astype(dtype, copy=False)))


@kernel("aten::frexp.Tensor")
def frexp(self: ndarray) -> tuple[ndarray, ndarray]:
    if self.dtype.kind != "f":
        raise TorchScriptError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = np.frexp(self)
    return as_tensor(mantissa), as_tensor(exponent.astype(np.int32))

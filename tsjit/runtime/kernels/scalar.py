"""int / float / bool arithmetic, comparisons, conversions and the `math` module.

TorchScript computes these in C++: ints are 64-bit and wrap around, float division by zero
gives inf or nan instead of raising, `math.sqrt(-1.0)` is nan, `round` rounds half to even
and returns a float, `math.floor` returns an int. Python's own operators differ on exactly
those points, so the helpers below restore C semantics; the common cases stay plain Python.
Overloads (`.int`, `.float`, `.int_float`, `.float_int`, `.Scalar`, the un-suffixed number
form) share one function whenever Python's own typing already gives the right result type.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import kernel, promotion, register_kernel
from tsjit.runtime.values import numpy_dtype, scalar_type

ndarray = np.ndarray

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_BINARY = ("int", "float", "int_float", "float_int", "")
_UNARY = ("int", "float", "Scalar")


def wrap_int(x: int) -> int:
    """An int64 result: out-of-range values wrap around like C++'s."""
    if INT64_MIN <= x <= INT64_MAX:
        return x
    return (x - INT64_MIN) % 2**64 + INT64_MIN


def _register(base: str, suffixes: tuple[str, ...], fn: Callable) -> None:
    for suffix in suffixes:
        register_kernel(f"{base}.{suffix}" if suffix else base, fn)


def ieee_divide(a: float, b: float) -> float:
    """a / b as a double in C: division by zero gives inf (signed) or nan."""
    try:
        return a / b
    except ZeroDivisionError:
        if a != a or a == 0:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


# --------------------------------------------------------------------------------------
# Arithmetic
# --------------------------------------------------------------------------------------


def _int_or_float(int_fn: Callable, float_fn: Callable) -> Callable:
    """One kernel for the `number` overloads: int arithmetic for two ints, else float."""
    return lambda a, b: int_fn(a, b) if type(a) is int and type(b) is int else float_fn(a, b)


def _add_int(a: int, b: int) -> int:
    return wrap_int(a + b)


def _sub_int(a: int, b: int) -> int:
    return wrap_int(a - b)


def _mul_int(a: int, b: int) -> int:
    return wrap_int(a * b)


for _name, _int_fn, _float_fn in (
    ("add", _add_int, operator.add),
    ("sub", _sub_int, operator.sub),
    ("mul", _mul_int, operator.mul),
):
    register_kernel(f"aten::{_name}.int", _int_fn)
    _register(f"aten::{_name}", ("float", "int_float", "float_int"), _float_fn)
    register_kernel(f"aten::{_name}", _int_or_float(_int_fn, _float_fn))

_register("aten::div", ("int", "float", ""), ieee_divide)


def floordiv_int(a: int, b: int) -> int:
    if b == 0:
        raise TorchScriptError("division by 0")
    return wrap_int(a // b)


def floordiv_float(a: float, b: float) -> float:
    quotient = ieee_divide(a, b)
    return float(math.floor(quotient)) if math.isfinite(quotient) else quotient


register_kernel("aten::floordiv.int", floordiv_int)
_register("aten::floordiv", ("float", "int_float", "float_int"), floordiv_float)
register_kernel("aten::floordiv", _int_or_float(floordiv_int, floordiv_float))


@kernel("aten::__round_to_zero_floordiv.int")
def round_to_zero_floordiv(a: int, b: int) -> int:
    if b == 0:
        raise TorchScriptError("division by 0")
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


def c_fmod(a: float, b: float) -> float:
    """C's fmod: nan (not an exception) for a zero divisor or an infinite dividend."""
    try:
        return math.fmod(a, b)
    except ValueError:
        return math.nan


def remainder_int(a: int, b: int) -> int:
    if b == 0:
        raise TorchScriptError("division by 0")
    return a % b


def remainder_float(a: float, b: float) -> float:
    # TorchScript's formula; the sign follows the divisor like Python's %.
    return c_fmod(b + c_fmod(a, b), b)


register_kernel("aten::remainder.int", remainder_int)
_register("aten::remainder", ("float", "int_float", "float_int"), remainder_float)
register_kernel("aten::remainder", _int_or_float(remainder_int, remainder_float))
_register("aten::fmod", _BINARY, c_fmod)


@kernel("aten::divmod.int")
def divmod_int(x: int, y: int) -> tuple[int, int]:
    """Python's divmod on int64 (the quotient of INT64_MIN by -1 wraps)."""
    if y == 0:
        raise TorchScriptError("ZeroDivisionError: integer division or modulo by zero")
    quotient, remainder = divmod(x, y)
    return wrap_int(quotient), remainder


@kernel("aten::divmod.float", "aten::divmod.float_int", "aten::divmod.int_float")
def divmod_float(x: float, y: float) -> tuple[float, float]:
    """TorchScript's formula, which differs from Python's at signed zeros and infinities:
    the remainder is C's fmod moved to the divisor's side, the quotient (x - r) / y."""
    if y == 0:
        raise TorchScriptError("ZeroDivisionError: float divmod()")
    x, y = float(x), float(y)
    remainder = c_fmod(x, y)
    if remainder and (x < 0) != (y < 0):
        remainder += y
    return ieee_divide(x - remainder, y), remainder


def math_remainder(a: float, b: float) -> float:
    try:
        return math.remainder(a, b)
    except ValueError:
        return math.nan


_register("aten::mathremainder", _BINARY, math_remainder)


def c_pow(a: float, b: float) -> float:
    """C's pow on doubles, except that 0.0 to a negative power raises like TorchScript."""
    if a == 0 and b < 0:
        raise TorchScriptError("0.0 cannot be raised to a negative power")
    try:
        return math.pow(a, b)
    except ValueError:  # negative base, fractional exponent
        return math.nan
    except OverflowError:
        return math.inf if a > 0 or b % 2 == 0 else -math.inf


_register("aten::pow", ("int", "float", "int_float", "float_int", "Scalar_Scalar"), c_pow)


@kernel("aten::pow.int_to_int")
def pow_int_to_int(a: int, b: int) -> int:
    if b < 0:
        raise TorchScriptError("Integers to negative integer powers are not allowed.")
    return wrap_int(pow(a, b, 2**64))


def _negate(a: int | float) -> int | float:
    return wrap_int(-a) if type(a) is int else -a


_register("aten::neg", _UNARY, _negate)


# --------------------------------------------------------------------------------------
# Comparisons and logic
# --------------------------------------------------------------------------------------

for _name, _fn in (("lt", operator.lt), ("le", operator.le), ("gt", operator.gt), ("ge", operator.ge)):
    _register(f"aten::{_name}", _BINARY, _fn)
for _name, _fn in (("eq", operator.eq), ("ne", operator.ne)):
    _register(f"aten::{_name}", _BINARY + ("bool",), _fn)

_register("aten::__and__", ("bool", "int"), operator.and_)
_register("aten::__or__", ("bool", "int"), operator.or_)
_register("aten::__xor__", ("bool", "int"), operator.xor)


@kernel("aten::__not__")
def not_(self: bool) -> bool:
    return not self


def _shift_count(b: int) -> int:
    if b < 0:
        raise TorchScriptError("negative shift count")
    return b


@kernel("aten::__lshift__.int")
def lshift(a: int, b: int) -> int:
    return wrap_int(a << _shift_count(b))


@kernel("aten::__rshift__.int")
def rshift(a: int, b: int) -> int:
    return a >> _shift_count(b)


# --------------------------------------------------------------------------------------
# Conversions: Int, Float, Bool and the implicit tensor-to-number casts
# --------------------------------------------------------------------------------------


def _one_element(x: ndarray) -> int | float | bool:
    if x.size != 1:
        raise TorchScriptError(f"a Tensor with {x.size} elements cannot be converted to Scalar")
    return x.item()


def float_to_int(x: float) -> int:
    """C++'s double -> int64 cast: truncation, and INT64_MIN where it is undefined."""
    if math.isfinite(x) and INT64_MIN <= x < 2**63:
        return int(x)
    return INT64_MIN


_INT_LITERAL = re.compile(r"\s*[+-]?\d+")
_FLOAT_PREFIX = re.compile(r"\s*[+-]?(\d|\.\d|inf|nan)", re.IGNORECASE)


@kernel("aten::Int.str")
def str_to_int(s: str) -> int:
    """std::stoll, then TorchScript's check that nothing follows the number."""
    match = _INT_LITERAL.match(s)
    if match is None:
        raise TorchScriptError("stoll")
    if match.end() != len(s):
        raise TorchScriptError(f"invalid literal for int() with base 10: '{s}'")
    return wrap_int(int(match.group()))


@kernel("aten::Float.str")
def str_to_float(s: str) -> float:
    """std::stod, then TorchScript's check that nothing follows the number."""
    if _FLOAT_PREFIX.match(s) is None:
        raise TorchScriptError("stod")
    try:
        if "_" in s:
            raise ValueError(s)
        return float(s.lstrip())
    except ValueError:
        raise TorchScriptError(f"could not convert string to float: '{s}'") from None


@kernel("aten::Int.Tensor")
def int_tensor(a: ndarray) -> int:
    value = _one_element(a)
    return float_to_int(value) if type(value) is float else int(value)


@kernel("aten::Int.Scalar", "aten::Int.float", "aten::Int.bool")
def int_scalar(a: int | float | bool) -> int:
    return float_to_int(a) if type(a) is float else int(a)


@kernel("aten::Float.Tensor")
def float_tensor(a: ndarray) -> float:
    return float(_one_element(a))


kernel("aten::Float.Scalar", "aten::Float.int", "aten::Float.bool")(float)


@kernel("aten::Bool.Tensor")
def bool_tensor(a: ndarray) -> bool:
    if a.size != 1:
        raise TorchScriptError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(a.item())


@kernel("aten::Bool.int", "aten::Bool.float")
def bool_scalar(a: int | float) -> bool:
    return a != 0


def _zero_dim(a: ndarray, what: str) -> int | float | bool:
    if a.ndim:
        raise TorchScriptError(f"{what} expects a 0-dim tensor, got a tensor of {a.ndim} dimension(s)")
    return a.item()


@kernel("aten::ScalarImplicit")
def scalar_implicit(a: ndarray) -> int | float | bool:
    return _zero_dim(a, "ScalarImplicit")


@kernel("aten::IntImplicit")
def int_implicit(a: ndarray) -> int:
    if a.dtype.kind not in "iub":
        raise TorchScriptError("Cannot input a tensor of type Float as an integral argument")
    return int(_zero_dim(a, "IntImplicit"))


@kernel("aten::FloatImplicit")
def float_implicit(a: ndarray) -> float:
    return float(_zero_dim(a, "FloatImplicit"))


# --------------------------------------------------------------------------------------
# math
# --------------------------------------------------------------------------------------


def c_math(python: Callable[[float], float], fallback: Callable[[float], float]) -> Callable[[float], float]:
    """A math function with C's results where Python's raises (domain errors, overflow)."""

    def run(x: float) -> float:
        try:
            return python(x)
        except (ValueError, OverflowError):
            return fallback(x)

    return run


def _numpy_scalar(ufunc: np.ufunc) -> Callable[[float], float]:
    def run(x: float) -> float:
        with np.errstate(all="ignore"):
            return float(ufunc(np.float64(x)))

    return run


def _gamma_pole(x: float) -> float:
    # tgamma: +-inf at +-0, nan at negative integers, overflow to inf.
    if x == 0:
        return math.copysign(math.inf, x)
    return math.nan if x < 0 and x == math.floor(x) else math.inf


_MATH: dict[str, tuple[Callable[[float], float], Callable[[float], float]]] = {
    "sqrt": (math.sqrt, _numpy_scalar(np.sqrt)),
    "exp": (math.exp, _numpy_scalar(np.exp)),
    "expm1": (math.expm1, _numpy_scalar(np.expm1)),
    "log": (math.log, _numpy_scalar(np.log)),
    "log10": (math.log10, _numpy_scalar(np.log10)),
    "log1p": (math.log1p, _numpy_scalar(np.log1p)),
    "sin": (math.sin, _numpy_scalar(np.sin)),
    "cos": (math.cos, _numpy_scalar(np.cos)),
    "tan": (math.tan, _numpy_scalar(np.tan)),
    "asin": (math.asin, _numpy_scalar(np.arcsin)),
    "acos": (math.acos, _numpy_scalar(np.arccos)),
    "atan": (math.atan, _numpy_scalar(np.arctan)),
    "sinh": (math.sinh, _numpy_scalar(np.sinh)),
    "cosh": (math.cosh, _numpy_scalar(np.cosh)),
    "tanh": (math.tanh, _numpy_scalar(np.tanh)),
    "asinh": (math.asinh, _numpy_scalar(np.arcsinh)),
    "acosh": (math.acosh, _numpy_scalar(np.arccosh)),
    "atanh": (math.atanh, _numpy_scalar(np.arctanh)),
    "erf": (math.erf, math.erf),
    "erfc": (math.erfc, math.erfc),
    "gamma": (math.gamma, _gamma_pole),
    "lgamma": (math.lgamma, lambda x: math.inf),
    "fabs": (math.fabs, math.fabs),
    "degrees": (math.degrees, _numpy_scalar(np.degrees)),
    "radians": (math.radians, _numpy_scalar(np.radians)),
}

for _name, (_python, _fallback) in _MATH.items():
    _register(f"aten::{_name}", _UNARY, c_math(_python, _fallback))


_log = c_math(*_MATH["log"])


def log_base(a: float, base: float) -> float:
    return ieee_divide(_log(a), _log(base))


_register("aten::log", ("int_int", "float_float", "int_float", "float_int", "Scalar_Scalar"), log_base)
_register("aten::atan2", ("int", "float", "int_float", "float_int", "Scalar_Scalar"), math.atan2)
_register("aten::copysign", _BINARY, math.copysign)


def float_to_checked_int(x: float) -> int:
    """The int result of math.floor/ceil: TorchScript refuses values an int64 cannot hold."""
    if math.isfinite(x) and INT64_MIN <= x <= INT64_MAX:
        return int(x)
    text = "%.0f" % x if math.isfinite(x) else repr(x)
    raise TorchScriptError(f"Cannot convert float {text} to integer")


def _rounding(fn: Callable[[float], float]) -> Callable[[int | float], int]:
    return lambda x: x if type(x) is int else float_to_checked_int(fn(x))


_register("aten::floor", _UNARY, _rounding(lambda x: math.floor(x) if math.isfinite(x) else x))
_register("aten::ceil", _UNARY, _rounding(lambda x: math.ceil(x) if math.isfinite(x) else x))


def round_half_even(x: int | float) -> float:
    return round(float(x), 0)


_register("aten::round", _UNARY, round_half_even)
_register("aten::isnan", ("float",), math.isnan)
_register("aten::isinf", ("float",), math.isinf)
_register("aten::isfinite", ("float",), math.isfinite)


@kernel("aten::ldexp")
def ldexp(x: float, i: int) -> float:
    try:
        return math.ldexp(x, i)
    except OverflowError:
        return math.copysign(math.inf, x)


@kernel("aten::gcd.int")
def gcd(a: int, b: int) -> int:
    return math.gcd(a, b)


@kernel("aten::factorial.int")
def factorial(a: int) -> int:
    if a < 0:
        raise TorchScriptError("factorial() not defined for negative values")
    return wrap_int(math.factorial(a))


# --------------------------------------------------------------------------------------
# range() support and dtype queries on numbers
# --------------------------------------------------------------------------------------


@kernel("aten::__range_length")
def range_length(lo: int, hi: int, step: int) -> int:
    if step == 0:
        raise TorchScriptError("range() arg 3 must not be zero")
    if step > 0 and lo < hi:
        return 1 + (hi - 1 - lo) // step
    if step < 0 and lo > hi:
        return 1 + (lo - 1 - hi) // (-step)
    return 0


@kernel("aten::__derive_index")
def derive_index(index: int, start: int, step: int) -> int:
    return start + index * step


@kernel("aten::promote_types")
def promote_types(type1: int, type2: int) -> int:
    return scalar_type(promotion.promote_types(numpy_dtype(type1), numpy_dtype(type2)))


@kernel("aten::can_cast")
def can_cast(from_: int, to: int) -> bool:
    return promotion.CATEGORY[numpy_dtype(from_)] <= promotion.CATEGORY[numpy_dtype(to)]


@kernel(
    "aten::result_type.Tensor",
    "aten::result_type.Scalar",
    "aten::result_type.Scalar_Tensor",
    "aten::result_type.Scalar_Scalar",
)
def result_type(a: object, b: object) -> int:
    return scalar_type(promotion.result_type(a, b))


@kernel("aten::is_scripting")
def is_scripting() -> bool:
    return True


@kernel("aten::_get_tracing_state")
def get_tracing_state() -> bool:
    return False


@kernel("aten::is_autocast_enabled", "aten::is_autocast_cpu_enabled")
def is_autocast_enabled() -> bool:
    return False

"""PyTorch's tensor semantics on numpy, for the ops random programs use: the oracle the
interpreter and the llvm backend are compared with.

A program's Python source runs here unchanged, with `torch` bound to `REFERENCE` and its
tensors as `Ref`s, so the reference reads the very text tsjit scripts. What PyTorch
decides, this decides the same way: the result dtype (`result_type`, PyTorch's
categories of dimensioned tensors, zero-dim tensors and Python numbers), integer
overflow wrapping around, division of integers by zero raising ZeroDivisionError, NaN
propagating through maximum, clamp and relu, signed zeros kept (`relu(-0.0)` is -0.0,
`remainder(-4.0, 2.0)` is -0.0), reductions of integers summing in int64, and the ops
PyTorch refuses (negating a bool, `mean` of integers, an integer to a negative power)
raising `RefError`. Where TorchScript's frontend spells an operator differently from
eager PyTorch, the reference follows TorchScript: a number minus a tensor is
`neg(tensor) + number` (so it wraps around for unsigned tensors), a number divided by a
tensor `reciprocal(tensor) * number`. `test_fuzz.py` checks it against PyTorch itself
when PyTorch is installed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

BOOL, UINT8 = np.dtype(np.bool_), np.dtype(np.uint8)
INT64, FLOAT32 = np.dtype(np.int64), np.dtype(np.float32)
DEFAULT_FLOAT = FLOAT32


class RefError(Exception):
    """What PyTorch raises for this operation and these operands."""


class Undefined(Exception):
    """Behaviour PyTorch leaves undefined (it dies of SIGFPE on INT64_MIN // -1): no
    result to compare with."""


def category(dtype: np.dtype) -> int:
    return 0 if dtype == BOOL else 2 if dtype.kind == "f" else 1


def promote(a: np.dtype | None, b: np.dtype | None) -> np.dtype | None:
    """torch.promote_types: the higher category wins (int16 with float16 is float16)."""
    if a is None or b is None:
        return a if b is None else b
    if category(a) != category(b):
        return a if category(a) > category(b) else b
    return np.promote_types(a, b)


def _combine(higher: np.dtype | None, lower: np.dtype | None) -> np.dtype | None:
    """PyTorch's combine_categories."""
    if higher is not None and higher.kind == "f":
        return higher
    if higher == BOOL or (lower is not None and lower.kind == "f"):
        return promote(higher, lower)
    return higher if higher is not None else lower


def result_type(*operands: Any) -> np.dtype:
    """torch.result_type of tensors and Python numbers."""
    dim = zero = wrapped = None
    for operand in operands:
        if isinstance(operand, Ref):
            if operand.a.ndim:
                dim = promote(dim, operand.a.dtype)
            else:
                zero = promote(zero, operand.a.dtype)
        elif operand is not None:
            kind = BOOL if isinstance(operand, bool) else INT64 if isinstance(operand, int) else DEFAULT_FLOAT
            wrapped = promote(wrapped, kind)
    result = _combine(dim, _combine(zero, wrapped))
    assert result is not None
    return result


def _array(operand: Any, dtype: np.dtype) -> np.ndarray:
    if isinstance(operand, Ref):
        return operand.a.astype(dtype, copy=False)
    return np.asarray(operand).astype(dtype)


def _float_of(dtype: np.dtype) -> np.dtype:
    return dtype if dtype.kind == "f" else DEFAULT_FLOAT


def _wrap(value: Any, dtype: np.dtype) -> Ref:
    return Ref(np.asarray(value).astype(dtype, copy=False))


class Ref:
    """A tensor of the reference: a numpy array with PyTorch's operators."""

    __slots__ = ("a",)

    def __init__(self, a: np.ndarray):
        self.a = a

    # -- arithmetic --------------------------------------------------------------------
    def __add__(self, other: Any) -> Ref:
        return add(self, other)

    def __radd__(self, other: Any) -> Ref:
        return add(other, self)

    def __sub__(self, other: Any) -> Ref:
        return sub(self, other)

    def __rsub__(self, other: Any) -> Ref:
        return add(neg(self), other)  # TorchScript's `number - tensor` (see the module docstring)

    def __mul__(self, other: Any) -> Ref:
        return mul(self, other)

    def __rmul__(self, other: Any) -> Ref:
        return mul(other, self)

    def __truediv__(self, other: Any) -> Ref:
        return div(self, other)

    def __rtruediv__(self, other: Any) -> Ref:
        return mul(reciprocal(self), other)  # TorchScript's `number / tensor`

    def __floordiv__(self, other: Any) -> Ref:
        return floor_divide(self, other)

    def __rfloordiv__(self, other: Any) -> Ref:
        return floor_divide(other, self)

    def __mod__(self, other: Any) -> Ref:
        return remainder(self, other)

    def __rmod__(self, other: Any) -> Ref:
        return remainder(other, self)

    def __neg__(self) -> Ref:
        return neg(self)

    def __and__(self, other: Any) -> Ref:
        return bitwise_and(self, other)

    def __or__(self, other: Any) -> Ref:
        return bitwise_or(self, other)

    def __xor__(self, other: Any) -> Ref:
        return bitwise_xor(self, other)

    __rand__, __ror__, __rxor__ = __and__, __or__, __xor__

    def __invert__(self) -> Ref:
        return bitwise_not(self)

    def __lt__(self, other: Any) -> Ref:
        return lt(self, other)

    def __le__(self, other: Any) -> Ref:
        return le(self, other)

    def __gt__(self, other: Any) -> Ref:
        return gt(self, other)

    def __ge__(self, other: Any) -> Ref:
        return ge(self, other)

    def __eq__(self, other: Any) -> Ref:  # type: ignore[override]
        return eq(self, other)

    def __ne__(self, other: Any) -> Ref:  # type: ignore[override]
        return ne(self, other)

    __hash__ = None  # type: ignore[assignment]

    # -- views and shapes --------------------------------------------------------------
    def __getitem__(self, index: Any) -> Ref:
        items = index if isinstance(index, tuple) else (index,)
        if len(items) > self.a.ndim:
            raise RefError(f"too many indices for tensor of dimension {self.a.ndim}")
        for dim, item in enumerate(items):
            if isinstance(item, int) and not -self.a.shape[dim] <= item < self.a.shape[dim]:
                raise RefError(f"index {item} is out of bounds for dimension {dim} with size {self.a.shape[dim]}")
            if isinstance(item, slice) and item.step is not None and item.step <= 0:
                raise RefError("slice step must be positive")
        return Ref(self.a[index])

    def transpose(self, d0: int, d1: int) -> Ref:
        d0, d1 = _dim(d0, self.a.ndim), _dim(d1, self.a.ndim)
        return Ref(np.swapaxes(self.a, d0, d1) if self.a.ndim else self.a)

    def permute(self, dims: Sequence[int]) -> Ref:
        if sorted(_dim(d, self.a.ndim) for d in dims) != list(range(self.a.ndim)):
            raise RefError("permute(): dims do not match the tensor's rank")
        return Ref(np.transpose(self.a, [_dim(d, self.a.ndim) for d in dims]))

    def unsqueeze(self, dim: int) -> Ref:
        return Ref(np.expand_dims(self.a, _dim(dim, self.a.ndim + 1)))

    def flip(self, dims: Sequence[int]) -> Ref:
        return flip(self, dims)

    def reshape(self, shape: Sequence[int]) -> Ref:
        try:
            return Ref(self.a.reshape(shape))
        except ValueError as error:
            raise RefError(str(error)) from None

    def expand(self, shape: Sequence[int]) -> Ref:
        try:
            return Ref(np.broadcast_to(self.a, tuple(shape)))
        except ValueError as error:
            raise RefError(str(error)) from None

    def contiguous(self) -> Ref:
        return Ref(np.array(self.a, order="C"))  # (np.ascontiguousarray makes 0-dim 1-dim)


def _dim(dim: int, rank: int) -> int:
    if not -max(rank, 1) <= dim < max(rank, 1):
        raise RefError(f"Dimension out of range (expected to be in range of [{-max(rank, 1)}, {max(rank, 1) - 1}], but got {dim})")
    return dim % max(rank, 1) if rank else 0


def _errors() -> Any:
    return np.errstate(all="ignore")


# --------------------------------------------------------------------------------------
# Elementwise operations
# --------------------------------------------------------------------------------------


def _binary(a: Any, b: Any, fn: Any, refuse_bool: str | None = None) -> Ref:
    dtype = result_type(a, b)
    if refuse_bool and dtype == BOOL:
        raise RefError(refuse_bool)
    with _errors():
        return _wrap(fn(_array(a, dtype), _array(b, dtype)), dtype)


def add(a: Any, b: Any) -> Ref:
    dtype = result_type(a, b)
    if dtype == BOOL:
        with _errors():
            return _wrap(np.logical_or(_array(a, dtype), _array(b, dtype)), dtype)
    return _binary(a, b, np.add)


def sub(a: Any, b: Any) -> Ref:
    if any(isinstance(x, Ref) and x.a.dtype == BOOL for x in (a, b)):
        raise RefError("Subtraction, the `-` operator, with a bool tensor is not supported.")
    return _binary(a, b, np.subtract)


def mul(a: Any, b: Any) -> Ref:
    dtype = result_type(a, b)
    if dtype == BOOL:
        with _errors():
            return _wrap(np.logical_and(_array(a, dtype), _array(b, dtype)), dtype)
    return _binary(a, b, np.multiply)


def div(a: Any, b: Any) -> Ref:
    dtype = _float_of(result_type(a, b))
    with _errors():
        return _wrap(np.true_divide(_array(a, dtype), _array(b, dtype)), dtype)


def _integer_divisor(a: Any, b: Any, dtype: np.dtype) -> None:
    """Integer division by zero raises; INT64_MIN // -1 is undefined in PyTorch."""
    divisor = np.broadcast_to(_array(b, dtype), np.broadcast_shapes(np.shape(_array(a, dtype)), np.shape(_array(b, dtype))))
    if (divisor == 0).any():
        raise RefError("ZeroDivisionError")
    if dtype.kind == "i":
        dividend = np.broadcast_to(_array(a, dtype), divisor.shape)
        if ((dividend == np.iinfo(dtype).min) & (divisor == -1)).any():
            raise Undefined("the minimum integer divided by -1")


def floor_divide(a: Any, b: Any) -> Ref:
    dtype = result_type(a, b)
    if dtype == BOOL:
        raise RefError('"div_floor_cpu" not implemented for \'Bool\'')
    if dtype.kind != "f":
        _integer_divisor(a, b, dtype)
    with _errors():
        return _wrap(np.floor_divide(_array(a, dtype), _array(b, dtype)), dtype)


def remainder(a: Any, b: Any) -> Ref:
    dtype = result_type(a, b)
    if dtype == BOOL:
        raise RefError('"remainder_cpu" not implemented for \'Bool\'')
    if dtype.kind != "f":
        _integer_divisor(a, b, dtype)
        with _errors():
            return _wrap(np.remainder(_array(a, dtype), _array(b, dtype)), dtype)
    x, y = _array(a, dtype), _array(b, dtype)
    _ill_conditioned(x, y)
    with _errors():  # PyTorch's formula: fmod, moved to the divisor's side unless zero
        mod = np.fmod(x, y)
        moved = (mod != 0) & ((y < 0) != (mod < 0))
        return _wrap(np.where(moved, mod + y, mod), dtype)


def fmod(a: Any, b: Any) -> Ref:
    dtype = result_type(a, b)
    if dtype == BOOL:
        raise RefError('"fmod_cpu" not implemented for \'Bool\'')
    if dtype.kind != "f":
        _integer_divisor(a, b, dtype)
    else:
        _ill_conditioned(_array(a, dtype), _array(b, dtype))
    return _binary(a, b, np.fmod)


def _nan_or(x: np.ndarray, y: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    if x.dtype.kind != "f":
        return chosen
    return np.where(np.isnan(x), x, np.where(np.isnan(y), y, chosen))


TOLERANCE = {"float16": (1e-2, 1e-3), "float32": (2e-5, 1e-5), "float64": (1e-10, 1e-12)}
"""(rtol, atol) of float comparisons per dtype: float32's atol allows a remainder computed
as a - b·floor(a/b) (as PyTorch's vectorized kernel does) beside an exact fmod."""

VALUES_OPEN = [False]
"""Set when fmod or remainder took a dividend whose own rounding error (from the steps
before, computed one way here and another in PyTorch) exceeds the tolerance of the
result: float values are not compared for that program."""


def _ill_conditioned(x: np.ndarray, y: np.ndarray) -> None:
    if x.dtype.kind == "f":
        rtol, atol = TOLERANCE[str(x.dtype)]
        digits = {2: 11, 4: 24, 8: 53}[x.dtype.itemsize]
        with _errors():
            x, y = np.broadcast_arrays(np.abs(np.asarray(x, np.float64)), np.abs(np.asarray(y, np.float64)))
            rounding = 4 * x * 2.0 ** (1 - digits)
            if (np.isfinite(rounding) & (rounding > atol + rtol * y)).any():
                VALUES_OPEN[0] = True


SIGNS_OPEN = [False]
"""Set when a program took the maximum or minimum of -0.0 and 0.0: which zero PyTorch
returns depends on its kernel (std::max returns the first, its vector code the second),
so the sign of zeros is not compared for that program."""


def _mixed_zeros(x: np.ndarray, y: np.ndarray) -> None:
    if x.dtype.kind == "f":
        x, y = np.broadcast_arrays(x, y)
        if ((x == 0) & (y == 0) & (np.signbit(x) != np.signbit(y))).any():
            SIGNS_OPEN[0] = True


def maximum(a: Ref, b: Ref) -> Ref:
    """NaN propagates; between -0.0 and 0.0 either (see SIGNS_OPEN)."""

    def larger(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        _mixed_zeros(x, y)
        return _nan_or(x, y, np.where(x < y, y, x))

    return _binary(a, b, larger)


def minimum(a: Ref, b: Ref) -> Ref:
    def smaller(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        _mixed_zeros(x, y)
        return _nan_or(x, y, np.where(y < x, y, x))

    return _binary(a, b, smaller)


def atan2(a: Ref, b: Ref) -> Ref:
    dtype = _float_of(result_type(a, b))
    with _errors():
        return _wrap(np.arctan2(_array(a, dtype), _array(b, dtype)), dtype)


def pow(x: Ref, exponent: float | Ref) -> Ref:  # noqa: A001 -- torch.pow
    dtype = result_type(x, exponent)
    if isinstance(exponent, Ref):
        return _tensor_pow(x, exponent, dtype)
    if dtype.kind != "f" and exponent < 0:
        raise RefError("Integers to negative integer powers are not allowed.")
    if dtype == BOOL:
        dtype = INT64
    with _errors():
        return _wrap(np.power(_array(x, dtype), np.asarray(exponent).astype(dtype)), dtype)


def _tensor_pow(x: Ref, exponent: Ref, dtype: np.dtype) -> Ref:
    """A tensor exponent: no kernel for bool; integers to negative powers as c10's
    `powi` (1 and -1 keep their magnitude, other bases give 0)."""
    if dtype == BOOL:
        raise RefError("\"pow\" not implemented for 'Bool'")
    base, power = np.broadcast_arrays(_array(x, dtype), _array(exponent, dtype))
    with _errors():
        if dtype.kind == "f":
            return _wrap(np.power(base, power), dtype)
        negative = power < 0
        value = np.power(base, np.where(negative, 0, power))
        inverse = np.where(base == 1, 1, np.where(base == -1, 1 - 2 * (power & 1), 0))
        return _wrap(np.where(negative, inverse, value), dtype)


def clamp(x: Ref, low: float | None = None, high: float | None = None) -> Ref:
    dtype = result_type(x, low, high)
    if dtype == BOOL:
        dtype = INT64 if (low is not None or high is not None) else dtype
    value = _array(x, dtype)
    with _errors():
        if low is not None:
            value = np.where(value < np.asarray(low).astype(dtype), np.asarray(low).astype(dtype), value)
        if high is not None:
            value = np.where(value > np.asarray(high).astype(dtype), np.asarray(high).astype(dtype), value)
    return _wrap(value, dtype)


def where(condition: Ref, a: Any, b: Any) -> Ref:
    dtype = result_type(a, b)
    with _errors():
        return _wrap(np.where(condition.a.astype(bool), _array(a, dtype), _array(b, dtype)), dtype)


def _compare(fn: Any) -> Any:
    def compare(a: Any, b: Any) -> Ref:
        dtype = result_type(a, b)
        with _errors():
            return _wrap(fn(_array(a, dtype), _array(b, dtype)), BOOL)

    return compare


eq, ne, lt, le, gt, ge = (_compare(f) for f in (np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal))


def _bitwise(fn: Any) -> Any:
    def bitwise(a: Any, b: Any) -> Ref:
        dtype = result_type(a, b)
        if dtype.kind == "f":
            raise RefError("bitwise operations are not implemented for floats")
        return _binary(a, b, fn)

    return bitwise


bitwise_and, bitwise_or, bitwise_xor = (_bitwise(f) for f in (np.bitwise_and, np.bitwise_or, np.bitwise_xor))


def bitwise_not(x: Ref) -> Ref:
    if x.a.dtype.kind == "f":
        raise RefError("bitwise_not is not implemented for floats")
    return Ref(np.logical_not(x.a) if x.a.dtype == BOOL else np.invert(x.a))


def _same_kind_unary(name: str, fn: Any, bool_ok: bool = False) -> Any:
    def unary(x: Ref) -> Ref:
        if x.a.dtype == BOOL and not bool_ok:
            raise RefError(f"{name} is not supported for bool tensors")
        with _errors():
            return _wrap(fn(x.a), x.a.dtype)

    return unary


neg = _same_kind_unary("negation", np.negative)
abs = _same_kind_unary("abs", np.abs)  # noqa: A001 -- torch.abs
relu = _same_kind_unary("relu", lambda a: np.where(a < 0, np.zeros((), a.dtype), a))
floor = _same_kind_unary("floor", np.floor)
ceil = _same_kind_unary("ceil", np.ceil)
round = _same_kind_unary("round", np.round)  # noqa: A001 -- torch.round: half to even


def square(x: Ref) -> Ref:
    dtype = INT64 if x.a.dtype == BOOL else x.a.dtype
    with _errors():
        return _wrap(np.square(x.a.astype(dtype)), dtype)


def _float_unary(fn: Any) -> Any:
    def unary(x: Ref) -> Ref:
        dtype = _float_of(x.a.dtype)
        with _errors():
            return _wrap(fn(x.a.astype(dtype)), dtype)

    return unary


exp, log, sqrt, tanh, reciprocal = (_float_unary(f) for f in (np.exp, np.log, np.sqrt, np.tanh, np.reciprocal))


def sin(x: Ref) -> Ref:
    """The sine of a large argument amplifies the argument's rounding (which exp, say,
    computed one way here and another there) beyond the tolerance: VALUES_OPEN."""
    dtype = _float_of(x.a.dtype)
    _ill_conditioned(x.a.astype(dtype), np.ones((), dtype))
    with _errors():
        return _wrap(np.sin(x.a.astype(dtype)), dtype)
sigmoid = _float_unary(lambda a: 1 / (1 + np.exp(-a)))


def logical_not(x: Ref) -> Ref:
    return Ref(np.logical_not(x.a))


def isnan(x: Ref) -> Ref:
    return Ref(np.isnan(x.a) if x.a.dtype.kind == "f" else np.zeros(x.a.shape, BOOL))


# --------------------------------------------------------------------------------------
# Reductions and shapes
# --------------------------------------------------------------------------------------


def _axes(x: Ref, dims: Sequence[int]) -> tuple[int, ...]:
    axes = tuple(_dim(d, x.a.ndim) for d in dims)
    if len(set(axes)) != len(axes):
        raise RefError("dim appears multiple times in the list of dims")
    return axes if x.a.ndim else ()


def sum(x: Ref, dims: Sequence[int], keepdim: bool = False) -> Ref:  # noqa: A001 -- torch.sum
    dtype = x.a.dtype if x.a.dtype.kind == "f" else INT64
    compute = np.float64 if dtype.kind == "f" else dtype
    with _errors():
        return _wrap(np.sum(x.a.astype(compute), axis=_axes(x, dims), keepdims=keepdim), dtype)


def mean(x: Ref, dims: Sequence[int], keepdim: bool = False) -> Ref:
    if x.a.dtype.kind != "f":
        raise RefError("mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype.")
    with _errors():
        return _wrap(np.mean(x.a.astype(np.float64), axis=_axes(x, dims), keepdims=keepdim), x.a.dtype)


def _extreme(fn: Any, name: str) -> Any:
    def reduce(x: Ref, dims: Sequence[int], keepdim: bool = False) -> Ref:
        axes = _axes(x, dims)
        if any(x.a.shape[a] == 0 for a in axes) or (x.a.size == 0 and not axes):
            raise RefError(f"{name}(): Expected reduction dim to have non-zero size.")
        with _errors():
            return _wrap(fn(x.a, axis=axes, keepdims=keepdim), x.a.dtype)

    return reduce


amax, amin = _extreme(np.max, "amax"), _extreme(np.min, "amin")


def prod(x: Ref, dim: int, keepdim: bool = False) -> Ref:
    dtype = x.a.dtype if x.a.dtype.kind == "f" else INT64
    compute = np.float64 if dtype.kind == "f" else dtype
    with _errors():
        return _wrap(np.prod(x.a.astype(compute), axis=_axes(x, [dim]), keepdims=keepdim), dtype)


def flip(x: Ref, dims: Sequence[int]) -> Ref:
    return Ref(np.flip(x.a, _axes(x, dims)) if x.a.ndim else x.a)


class _Namespace:
    """`torch` as the reference programs see it."""

    Tensor = Ref

    def __getattr__(self, name: str) -> Any:
        value = globals().get(name)
        if value is None or name.startswith("_"):
            raise AttributeError(f"the reference has no torch.{name}")
        return value


REFERENCE = _Namespace()


def reference_eval(expression: str, env: dict[str, Any]) -> Any:
    """One expression on the reference; numpy's own refusals are PyTorch's errors."""
    try:
        return eval(expression, {"torch": REFERENCE}, env)  # noqa: S307 -- generated expressions
    except (ValueError, IndexError, np.exceptions.AxisError) as error:
        raise RefError(str(error)) from None


def run_reference(source: str, inputs: Sequence[np.ndarray]) -> Any:
    """The program's result on the reference: arrays (a tuple for several), a RefError
    for what PyTorch raises, or Undefined."""
    SIGNS_OPEN[0] = VALUES_OPEN[0] = False
    namespace: dict[str, Any] = {}
    exec(compile(source.replace("import torch\n", ""), "<reference>", "exec"), {"torch": REFERENCE, "math": math}, namespace)  # noqa: S102 -- generated programs
    try:
        result = namespace["forward"](*(Ref(a) for a in inputs))
    except (ValueError, IndexError, np.exceptions.AxisError) as error:
        raise RefError(str(error)) from None
    if isinstance(result, tuple):
        return tuple(r.a for r in result)
    return result.a

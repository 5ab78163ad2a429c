"""Elementwise operators as scalar code: the one table that says how an aten operator
computes one element from its operands' elements, in `arith` and `math`.

    ELEMENTWISE["aten::sigmoid"]  = Elementwise(lambda e, x: e.div(e.one(), e.add(e.one(), e.exp(e.neg(x)))))
    ELEMENTWISE["aten::add"]      = Elementwise(lambda e, a, b, alpha=None: e.add(a, e.scaled(b, alpha)))

A rule is a function over a `ScalarEmitter`, which emits the float or the integer form of
each operation for the type the rule computes in; so one rule serves every dtype, the
tensor overloads (`add.Tensor`, `add.Scalar`) and TorchScript's scalar ones (`add.int`,
`add.float`) alike. `emit_elementwise` is the one mechanism that reads the table: it
converts the operands to the compute type (`Compute`), runs the rule and converts the
result to the op's result type. Both consumers, fused tensor kernels and scalar functions
(`convert_aten_to_loops`), lower through it.

The semantics are PyTorch's: `relu`, `clamp`, `maximum` propagate NaN; integer `//` and
`%` round toward negative infinity; float to integer conversion truncates (through i32,
so that 300.0 to uint8 wraps to 44 as in PyTorch); half precision computes in f32.
Integer division by a divisor that may be zero raises in TorchScript: tensor kernels
take non-zero literal divisors only (the emitter refuses the others, so the op is not
fused), and scalar functions test the divisor (`ScalarEmitter.on_failure`).
"""

from __future__ import annotations

import enum
import functools
import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.builder import Builder
from xdsl.dialects import arith, llvm
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    f32,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.dialects.utils.fast_math import FastMathFlag
from xdsl.ir import Attribute, Operation, SSAValue

from tsjit.dialects.schema import FunctionSchema
from tsjit.dialects.types import BoolType, FloatType, IntType, NoneType, TensorType

# --------------------------------------------------------------------------------------
# Kinds: what an element is
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """An element as code sees it: a signless arith type (`arith` has no unsigned types)
    and whether its integer is unsigned. Bool is `i1`."""

    type: Attribute
    unsigned: bool = False

    @property
    def is_float(self) -> bool:
        return isinstance(self.type, Float16Type | BFloat16Type | Float32Type | Float64Type)

    @property
    def is_bool(self) -> bool:
        return self.type == i1

    @property
    def width(self) -> int:
        return self.type.bitwidth if self.is_float else self.type.width.data  # pyright: ignore[reportAttributeAccessIssue]

    @property
    def compute(self) -> Kind:
        """Where arithmetic on this kind happens: half precision in f32, as PyTorch does."""
        return F32 if isinstance(self.type, Float16Type | BFloat16Type) else self


F32, F64, I32, I64, BOOL = Kind(f32), Kind(f64), Kind(i32), Kind(i64), Kind(i1)


def kind_of(type: Attribute) -> Kind | None:
    """The element kind of a tensor type with a known dtype, or of a TorchScript int,
    float or bool; None for anything else (complex, unknown dtype, lists...)."""
    if isinstance(type, IntType):
        return I64
    if isinstance(type, FloatType):
        return F64
    if isinstance(type, BoolType):
        return BOOL
    if not isinstance(type, TensorType):
        return None
    element = type.element_type
    if isinstance(element, Float16Type | BFloat16Type | Float32Type | Float64Type):
        return Kind(element)
    if isinstance(element, IntegerType):
        unsigned = element.signedness.data == Signedness.UNSIGNED
        return Kind(IntegerType(element.width.data), unsigned)
    return None


# --------------------------------------------------------------------------------------
# The emitter
# --------------------------------------------------------------------------------------

_CONTRACT = arith.FastMathFlagsAttr([FastMathFlag.ALLOW_CONTRACT])
_FLOAT_PREDICATES = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}
_SIGNED_PREDICATES = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}
_UNSIGNED_PREDICATES = {"eq": "eq", "ne": "ne", "lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge"}


@dataclass
class ScalarEmitter:
    """Emits scalar code computing in `kind` at the builder's insertion point. Each
    operation picks its float or integer form; Python numbers become constants, made
    once per emitter. `contract` lets LLVM fuse float multiplies and adds (tensor
    kernels); scalar functions keep IEEE results bit for bit, as TorchScript's C++
    does. `on_failure(condition)`, when given, receives the conditions under which an
    operation raises in TorchScript (a zero integer divisor)."""

    builder: Builder
    kind: Kind
    contract: bool = False
    on_failure: Callable[[SSAValue], None] | None = None
    stored: Kind | None = None
    """The kind the result is stored in, where it differs from `kind` (half precision
    computes in f32) and a rule must know (PyTorch's pow of Half is C's pow)."""
    _constants: dict[tuple[Any, Attribute], SSAValue] = field(default_factory=dict)

    def at(self, kind: Kind, stored: Kind | None = None) -> ScalarEmitter:
        """An emitter for another compute kind sharing this one's constants."""
        other = ScalarEmitter(self.builder, kind, self.contract, self.on_failure, stored)
        other._constants = self._constants
        return other

    def emit(self, op: Operation) -> SSAValue:
        self.builder.insert(op)
        return op.results[0]

    # -- constants -------------------------------------------------------------------
    def constant(self, value: float | bool, kind: Kind | None = None) -> SSAValue:
        kind = kind or self.kind
        key = (float(value).hex() if kind.is_float else value, kind.type)  # -0.0 is not 0.0
        if key not in self._constants:
            if kind.is_float:
                attr: Attribute = FloatAttr(float(value), kind.type)  # pyright: ignore[reportArgumentType]
            else:
                attr = IntegerAttr(int(value), kind.type, truncate_bits=True)  # pyright: ignore[reportArgumentType]
            self._constants[key] = self.emit(arith.ConstantOp(attr))  # pyright: ignore[reportArgumentType]
        return self._constants[key]

    def value(self, x: SSAValue | float) -> SSAValue:
        return x if isinstance(x, SSAValue) else self.constant(x)

    def zero(self) -> SSAValue:
        return self.constant(0)

    def one(self) -> SSAValue:
        return self.constant(1)

    # -- arithmetic ------------------------------------------------------------------
    def _binary(self, float_op: type, int_op: type, a: Any, b: Any, contract: bool = False) -> SSAValue:
        a, b = self.value(a), self.value(b)
        if self.kind.is_float:
            flags = _CONTRACT if contract and self.contract else None
            return self.emit(float_op(a, b, flags))
        return self.emit(int_op(a, b))

    def add(self, a: Any, b: Any) -> SSAValue:
        if self.kind.is_bool:
            return self.or_(a, b)
        return self._binary(arith.AddfOp, arith.AddiOp, a, b, contract=True)

    def sub(self, a: Any, b: Any) -> SSAValue:
        if self.kind.is_bool:
            raise ValueError("subtracting bools raises in PyTorch")
        return self._binary(arith.SubfOp, arith.SubiOp, a, b, contract=True)

    def mul(self, a: Any, b: Any) -> SSAValue:
        if self.kind.is_bool:
            return self.and_(a, b)
        return self._binary(arith.MulfOp, arith.MuliOp, a, b, contract=True)

    def div(self, a: Any, b: Any) -> SSAValue:
        """True division (float kinds only: its result is float)."""
        return self._binary(arith.DivfOp, arith.DivSIOp, a, b)

    def scaled(self, x: SSAValue, factor: SSAValue | None) -> SSAValue:
        """`factor * x`, for `alpha`/`value` arguments; nothing to do for a literal 1."""
        if factor is None or _literal(factor) == 1:
            return x
        return self.mul(factor, x)

    def neg(self, x: SSAValue) -> SSAValue:
        if self.kind.is_float:
            return self.emit(arith.NegfOp(x))
        if self.kind.is_bool:
            raise ValueError("negating bools raises in PyTorch")
        return self.sub(self.zero(), x)

    def abs(self, x: SSAValue) -> SSAValue:
        if self.kind.is_float:
            return self.emit(mathd.AbsFOp(x))
        return x if self.kind.unsigned or self.kind.is_bool else self.emit(mathd.AbsIOp(x))

    def floor_div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """`//` on tensors. Floats follow PyTorch's div_floor_floating (numpy's too):
        the quotient of a - fmod(a, b), so that `0.7 // 0.1` is 6 and `inf // 2` NaN."""
        self._refuse_bool("floor division")
        if not self.kind.is_float:
            return self._integer_floor_div(a, b)
        mod = self.fmod(a, b)
        quotient = self.div(self.sub(a, mod), b)
        opposite = self.and_(self.cmp("ne", mod, self.zero()), self.xor(self.cmp("lt", b, self.zero()), self.cmp("lt", mod, self.zero())))
        quotient = self.select(opposite, self.sub(quotient, self.one()), quotient)
        floored = self.floor(quotient)
        floored = self.select(self.cmp("gt", self.sub(quotient, floored), self.constant(0.5)), self.add(floored, self.one()), floored)
        signed_zero = self.math(mathd.CopySignOp, self.zero(), self.div(a, b))
        result = self.select(self.cmp("ne", quotient, self.zero()), floored, signed_zero)
        return self.select(self.cmp("eq", b, self.zero()), self.div(a, b), result)

    def scalar_floor_div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """`//` on TorchScript floats: floor(a / b)."""
        if not self.kind.is_float:
            return self._integer_floor_div(a, b)
        return self.floor(self.div(a, b))

    def _integer_floor_div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        b = self._checked_divisor(b)
        return self.emit(arith.DivUIOp(a, b) if self.kind.unsigned else arith.FloorDivSIOp(a, b))

    def trunc_div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        self._refuse_bool("truncating division")
        if self.kind.is_float:
            return self.trunc(self.div(a, b))
        b = self._checked_divisor(b)
        return self.emit(arith.DivUIOp(a, b) if self.kind.unsigned else arith.DivSIOp(a, b))

    def remainder(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """Python's `%` on tensors: the sign of the divisor; PyTorch's formula, C's fmod
        moved to the divisor's side unless it is zero (`-4.0 % 2.0` is -0.0)."""
        self._refuse_bool("remainder")
        if self.kind.is_float:
            r = self.fmod(a, b)
            opposite = self.and_(self.cmp("ne", r, self.zero()), self.xor(self.cmp("lt", b, self.zero()), self.cmp("lt", r, self.zero())))
            return self.select(opposite, self.add(r, b), r)
        return self._integer_remainder(a, b)

    def scalar_remainder(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """`%` on TorchScript floats, which TorchScript computes as fmod(b + fmod(a, b), b)."""
        if self.kind.is_float:
            return self.fmod(self.add(b, self.fmod(a, b)), b)
        return self._integer_remainder(a, b)

    def _integer_remainder(self, a: SSAValue, b: SSAValue) -> SSAValue:
        r = self.fmod(a, b)
        if self.kind.unsigned:
            return r
        # C's remainder moved to the divisor's side: one division on the critical path
        opposite = self.and_(self.cmp("ne", r, self.zero()), self.cmp("lt", self.xor(r, b), self.zero()))
        return self.add(r, self.select(opposite, b, self.zero()))

    def fmod(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """C's `fmod`: the sign of the dividend."""
        self._refuse_bool("fmod")
        if self.kind.is_float:
            return self.emit(llvm.FRemOp(a, b))  # `arith` has no remf in xDSL 0.74
        b = self._checked_divisor(b)
        return self.emit(arith.RemUIOp(a, b) if self.kind.unsigned else arith.RemSIOp(a, b))

    def _refuse_bool(self, what: str) -> None:
        """Divisions and remainders of bools raise in PyTorch: such ops stay unfused,
        and their kernels raise."""
        if self.kind.is_bool:
            raise ValueError(f"{what} of bools raises in PyTorch")

    def _checked_divisor(self, b: SSAValue) -> SSAValue:
        """The divisor, made safe where it may be zero: zero raises in TorchScript."""
        if (value := _literal(b)) is not None and value != 0:
            return b
        if self.on_failure is None:
            raise ValueError("an integer division by a divisor that may be zero")
        is_zero = self.cmp("eq", b, self.zero())
        self.on_failure(is_zero)
        return self.select(is_zero, self.one(), b)

    # -- comparisons and selection ---------------------------------------------------
    def cmp(self, predicate: str, a: Any, b: Any) -> SSAValue:
        a, b = self.value(a), self.value(b)
        if self.kind.is_float:
            return self.emit(arith.CmpfOp(a, b, _FLOAT_PREDICATES[predicate]))
        table = _UNSIGNED_PREDICATES if self.kind.unsigned or self.kind.is_bool else _SIGNED_PREDICATES
        return self.emit(arith.CmpiOp(a, b, table[predicate]))

    def select(self, condition: SSAValue, a: Any, b: Any) -> SSAValue:
        return self.emit(arith.SelectOp(condition, self.value(a), self.value(b)))

    def maximum(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """NaN-propagating, like `torch.maximum`."""
        if self.kind.is_float:
            return self.emit(arith.MaximumfOp(a, b))
        return self.emit(
            arith.MaxUIOp(a, b) if self.kind.unsigned or self.kind.is_bool else arith.MaxSIOp(a, b)
        )

    def minimum(self, a: SSAValue, b: SSAValue) -> SSAValue:
        if self.kind.is_float:
            return self.emit(arith.MinimumfOp(a, b))
        return self.emit(
            arith.MinUIOp(a, b) if self.kind.unsigned or self.kind.is_bool else arith.MinSIOp(a, b)
        )

    def clamp(self, x: SSAValue, low: SSAValue | None, high: SSAValue | None) -> SSAValue:
        """`min(max(x, low), high)` with NaN passing through (comparisons, not min/max)."""
        if low is not None:
            x = self.select(self.cmp("lt", x, low), low, x)
        if high is not None:
            x = self.select(self.cmp("gt", x, high), high, x)
        return x

    # -- logic -----------------------------------------------------------------------
    def and_(self, a: Any, b: Any) -> SSAValue:
        return self.emit(arith.AndIOp(self.value(a), self.value(b)))

    def or_(self, a: Any, b: Any) -> SSAValue:
        return self.emit(arith.OrIOp(self.value(a), self.value(b)))

    def xor(self, a: Any, b: Any) -> SSAValue:
        return self.emit(arith.XOrIOp(self.value(a), self.value(b)))

    def not_(self, x: SSAValue) -> SSAValue:
        return self.xor(x, -1 if not self.kind.is_bool else 1)

    # -- math ------------------------------------------------------------------------
    def math(self, op: type, *args: SSAValue) -> SSAValue:
        return self.emit(op(*args))

    def exp(self, x: SSAValue) -> SSAValue:
        return self.math(mathd.ExpOp, x)

    def log(self, x: SSAValue) -> SSAValue:
        return self.math(mathd.LogOp, x)

    def tanh(self, x: SSAValue) -> SSAValue:
        return self.math(mathd.TanhOp, x)

    def sqrt(self, x: SSAValue) -> SSAValue:
        return self.math(mathd.SqrtOp, x)

    def floor(self, x: SSAValue) -> SSAValue:
        return self.math(mathd.FloorOp, x) if self.kind.is_float else x

    def trunc(self, x: SSAValue) -> SSAValue:
        return self.math(mathd.TruncOp, x) if self.kind.is_float else x

    def sigmoid(self, x: SSAValue) -> SSAValue:
        return self.div(self.one(), self.add(self.one(), self.exp(self.neg(x))))

    def power(self, x: SSAValue, exponent: SSAValue) -> SSAValue:
        """`x ** exponent`: small integral literal exponents as multiplications (numpy's
        and libm's pow cost 20-40x more), square roots as `sqrt`, others as `powf`."""
        literal = _literal(exponent)
        if literal is not None and literal < 0 and not self.kind.is_float:
            raise ValueError("integers to negative integer powers raise in PyTorch")
        if literal is not None and float(literal).is_integer() and -4 <= literal <= 8:
            return self._integral_power(x, int(literal))
        half = self.stored is not None and isinstance(self.stored.type, Float16Type | BFloat16Type)
        if literal == 0.5 and self.kind.is_float and not half:  # PyTorch's Half pow is C's: pow(-inf, 0.5) is inf
            return self.sqrt(x)
        if not self.kind.is_float:
            raise ValueError("integer powers need a small literal exponent")
        return self.math(mathd.PowFOp, x, exponent)

    def _integral_power(self, x: SSAValue, n: int) -> SSAValue:
        if n < 0:
            return self.div(self.one(), self._integral_power(x, -n))
        result: SSAValue | None = None
        square = x
        while n:  # binary exponentiation: x**3 = x * x², x**8 = ((x²)²)²
            if n & 1:
                result = square if result is None else self.mul(result, square)
            n >>= 1
            if n:
                square = self.mul(square, square)
        return self.one() if result is None else result


def _literal(value: SSAValue) -> float | int | None:
    """The value of an `arith.constant` number, else None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr | FloatAttr):
        return owner.value.value.data
    return None


def convert(e: ScalarEmitter, value: SSAValue, source: Kind, target: Kind) -> SSAValue:
    """`value` of kind `source` as kind `target`, as PyTorch converts: float to integer
    truncates (through i32 for narrower types, which then wrap), anything to bool tests `!= 0` (NaN is true), bool and
    unsigned integers extend with zeros."""
    if source == target:
        return value
    if target.is_bool:
        return e.at(source).cmp("ne", value, e.constant(0, source))
    t = target.type
    if source.is_float and target.is_float:
        wider = target.width > source.width
        return e.emit(arith.ExtFOp(value, t) if wider else arith.TruncFOp(value, t))
    if target.is_float:
        stored = e.stored
        if stored is not None and stored.is_float and stored.width < target.width:
            # an integer operand of a half result is a half first, as in PyTorch: past 65504, inf
            return convert(e, convert(e, value, source, stored), stored, target)
        unsigned = source.unsigned or source.is_bool
        return e.emit(arith.UIToFPOp(value, t) if unsigned else arith.SIToFPOp(value, t))
    if source.is_float:
        if e.on_failure is not None:  # TorchScript's int(x) raises where an int64 cannot hold x
            in_range = e.at(source).cmp("lt", e.at(source).abs(value), e.constant(2.0**63, source))
            e.on_failure(e.xor(in_range, e.constant(True, BOOL)))
        if target.width >= 32:  # as C++ converts on x86: NaN and overflow give INT_MIN
            return e.emit(arith.FPToSIOp(value, t))
        whole = e.emit(arith.FPToSIOp(value, i32))  # narrower integers wrap: 300.0 to uint8 is 44
        return convert(e, whole, I32, target)
    if target.width == source.width:
        return value
    if target.width < source.width:
        return e.emit(arith.TruncIOp(value, t))
    unsigned = source.unsigned or source.is_bool
    return e.emit(arith.ExtUIOp(value, t) if unsigned else arith.ExtSIOp(value, t))


# --------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------


class Compute(enum.Enum):
    """The kind a rule computes in; its operands are converted to it first."""

    RESULT = "result"  # the result's kind (arithmetic, math, activations)
    PROMOTED = "promoted"  # the operands' promoted kind (comparisons: the result is bool)
    OPERAND = "operand"  # the first operand's own kind (isnan, dtype conversions)
    BOOL = "bool"  # every operand as bool (logical operators)


Body = Callable[..., SSAValue]


@dataclass(frozen=True)
class Elementwise:
    """One operator: `body(emitter, *values, **statics)` computes an element. Values
    are the schema's arguments in order (missing trailing ones take the body's
    defaults; a None argument is passed as None), except `statics`, whose constant
    Python values are passed by name, and `ignored` ones. `conditions` are value
    positions converted to bool whatever `compute` says (where's condition,
    masked_fill's mask); `accepts(statics)` rules out argument values the body cannot
    compute. A `conversion` returns its operand itself (a view) when the kinds agree."""

    body: Body
    compute: Compute = Compute.RESULT
    statics: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()
    conditions: tuple[int, ...] = ()
    accepts: Callable[[dict[str, Any]], bool] = lambda statics: True
    conversion: bool = False
    takes_bool: bool = True  # False: an operand of bool kind raises in PyTorch (left to the kernel)


def _unary(fn: Callable[[ScalarEmitter, SSAValue], SSAValue]) -> Elementwise:
    return Elementwise(fn)


def _not_bool(name: str, fn: Callable[..., SSAValue]) -> Callable[..., SSAValue]:
    """`fn`, refused on bool elements: PyTorch raises ("abs" ... "not implemented for
    'Bool'"), which the interpreter's kernel does."""

    @functools.wraps(fn)  # the table reads the body's parameters from its signature
    def body(e: ScalarEmitter, *args: Any) -> SSAValue:
        if e.kind.is_bool:
            raise ValueError(f"{name} of a bool tensor raises in PyTorch")
        return fn(e, *args)

    return body


def _math(op: type) -> Elementwise:
    """A `math` op on floats; integral inputs compute in the float result type."""
    return Elementwise(lambda e, x: e.math(op, x))


def _comparison(predicate: str) -> Elementwise:
    return Elementwise(lambda e, a, b: e.cmp(predicate, a, b), Compute.PROMOTED)


def _div(e: ScalarEmitter, a: SSAValue, b: SSAValue, rounding_mode: str | None = None) -> SSAValue:
    if rounding_mode == "trunc":
        return e.trunc_div(a, b)
    if rounding_mode == "floor":
        return e.floor_div(a, b)
    return e.div(a, b)


def _gelu(e: ScalarEmitter, x: SSAValue, approximate: str = "none") -> SSAValue:
    if approximate == "tanh":  # 0.5·x·(1 + tanh(u)) = x·sigmoid(2u), u = √(2/π)·(x + 0.044715·x³):
        # one exp instead of tanh, and exact where tanh saturates (0 at -10, NaN at -inf)
        cube = e.mul(e.constant(0.044715), e.power(x, e.constant(3)))
        twice_u = e.mul(e.constant(2 * math.sqrt(2 / math.pi)), e.add(x, cube))
        return e.div(x, e.add(e.one(), e.exp(e.neg(twice_u))))
    erf = e.math(mathd.ErfOp, e.mul(x, e.constant(1 / math.sqrt(2))))
    return e.mul(e.mul(e.constant(0.5), x), e.add(e.one(), erf))


def _elu(alpha: float | None = None, scale: float | None = None) -> Body:
    """`x > 0 ? scale·x : scale·alpha·(exp(input_scale·x) - 1)`; selu fixes alpha, scale."""

    def body(e: ScalarEmitter, x: SSAValue, a: Any = 1.0, s: Any = 1.0, input_scale: Any = 1.0) -> SSAValue:
        a, s = alpha if alpha is not None else a, scale if scale is not None else s
        negative = e.mul(
            e.scaled(e.sub(e.exp(e.scaled(x, e.value(input_scale))), e.one()), e.value(a)), e.value(s)
        )
        return e.select(e.cmp("gt", x, e.zero()), e.scaled(x, e.value(s)), negative)

    return body


def _softplus(e: ScalarEmitter, x: SSAValue, beta: Any = 1, threshold: Any = 20) -> SSAValue:
    bx = e.scaled(x, e.value(beta))
    soft = e.div(e.math(mathd.Log1pOp, e.exp(bx)), e.value(beta))
    return e.select(e.cmp("gt", bx, e.value(threshold)), x, soft)


def _hardsigmoid(e: ScalarEmitter, x: SSAValue) -> SSAValue:
    return e.div(e.clamp(e.add(x, e.constant(3)), e.zero(), e.constant(6)), e.constant(6))


def _sign(e: ScalarEmitter, x: SSAValue) -> SSAValue:
    return e.select(
        e.cmp("gt", x, e.zero()), e.one(), e.select(e.cmp("lt", x, e.zero()), e.constant(-1), e.zero())
    )


def _fmax(e: ScalarEmitter, a: SSAValue, b: SSAValue) -> SSAValue:
    """The larger operand, a number over NaN (`maxnumf`); integers have no NaN."""
    return e.emit(arith.MaxnumfOp(a, b)) if e.kind.is_float else e.maximum(a, b)


def _fmin(e: ScalarEmitter, a: SSAValue, b: SSAValue) -> SSAValue:
    return e.emit(arith.MinnumfOp(a, b)) if e.kind.is_float else e.minimum(a, b)


def _predicate(float_test: Callable[[ScalarEmitter, SSAValue], SSAValue], integral: bool) -> Elementwise:
    """isnan/isinf/isfinite: a test on floats, a constant on integers."""

    def body(e: ScalarEmitter, x: SSAValue) -> SSAValue:
        return float_test(e, x) if e.kind.is_float else e.constant(integral, BOOL)

    return Elementwise(body, Compute.OPERAND)


def _is_inf(e: ScalarEmitter, x: SSAValue) -> SSAValue:
    return e.cmp("eq", e.abs(x), e.constant(math.inf))


def _bitwise(op: str) -> Elementwise:
    return Elementwise(lambda e, a, b: getattr(e, op)(a, b))


_BITWISE = (
    ("bitwise_and", "and_"), ("bitwise_or", "or_"), ("bitwise_xor", "xor"),
    ("__and__", "and_"), ("__or__", "or_"), ("__xor__", "xor"),
)  # fmt: skip

_CONVERSION_ARGUMENTS = (
    "dtype", "non_blocking", "copy", "memory_format", "layout", "device", "pin_memory", "other",
)  # fmt: skip
"""`to`'s arguments besides `self`: the result type already says what they ask for."""

def _silu_backward(e: ScalarEmitter, g: SSAValue, x: SSAValue) -> SSAValue:
    s = e.sigmoid(x)
    return e.mul(g, e.mul(s, e.add(e.one(), e.mul(x, e.sub(e.one(), s)))))


def _hardswish_backward(e: ScalarEmitter, g: SSAValue, x: SSAValue) -> SSAValue:
    middle = e.mul(g, e.add(e.div(x, e.constant(3)), e.constant(0.5)))
    return e.select(e.cmp("le", x, e.constant(-3)), e.zero(), e.select(e.cmp("lt", x, e.constant(3)), middle, g))


ELEMENTWISE: dict[str, Elementwise] = {
    # arithmetic
    "aten::add": Elementwise(lambda e, a, b, alpha=None: e.add(a, e.scaled(b, alpha))),
    "aten::sub": Elementwise(lambda e, a, b, alpha=None: e.sub(a, e.scaled(b, alpha)), takes_bool=False),
    "aten::rsub": Elementwise(lambda e, a, b, alpha=None: e.sub(b, e.scaled(a, alpha)), takes_bool=False),
    "aten::mul": Elementwise(lambda e, a, b: e.mul(a, b)),
    "aten::div": Elementwise(_div, statics=("rounding_mode",)),
    "aten::true_divide": Elementwise(lambda e, a, b: e.div(a, b)),
    "aten::floor_divide": Elementwise(lambda e, a, b: e.floor_div(a, b)),
    "aten::floordiv": Elementwise(lambda e, a, b: e.scalar_floor_div(a, b)),
    "aten::__round_to_zero_floordiv": Elementwise(lambda e, a, b: e.trunc_div(a, b)),
    "aten::remainder": Elementwise(lambda e, a, b: e.scalar_remainder(a, b)),  # and the number overloads
    **{
        f"aten::{name}.{overload}": Elementwise(lambda e, a, b: e.remainder(a, b))
        for name in ("remainder", "remainder_")
        for overload in ("Tensor", "Scalar", "Scalar_Tensor")
    },
    "aten::fmod": Elementwise(lambda e, a, b: e.fmod(a, b)),
    "aten::neg": _unary(lambda e, x: e.neg(x)),
    "aten::abs": _unary(_not_bool("abs", lambda e, x: e.abs(x))),
    "prim::abs": _unary(lambda e, x: e.abs(x)),
    "aten::fabs": _unary(_not_bool("fabs", lambda e, x: e.abs(x))),
    "aten::reciprocal": _unary(lambda e, x: e.div(e.one(), x)),
    "aten::square": _unary(lambda e, x: e.mul(x, x)),
    "aten::pow": Elementwise(lambda e, a, b: e.power(a, b)),
    "aten::lerp": Elementwise(lambda e, a, b, w: e.add(a, e.mul(w, e.sub(b, a)))),
    "aten::addcmul": Elementwise(lambda e, s, a, b, value=None: e.add(s, e.scaled(e.mul(a, b), value))),
    "aten::addcdiv": Elementwise(lambda e, s, a, b, value=None: e.add(s, e.scaled(e.div(a, b), value))),
    "aten::maximum": Elementwise(lambda e, a, b: e.maximum(a, b)),
    "aten::minimum": Elementwise(lambda e, a, b: e.minimum(a, b)),
    "aten::max.other": Elementwise(lambda e, a, b: e.maximum(a, b)),
    "aten::min.other": Elementwise(lambda e, a, b: e.minimum(a, b)),
    "aten::fmax": Elementwise(_fmax),
    "aten::fmin": Elementwise(_fmin),
    "prim::max.int": Elementwise(lambda e, a, b: e.maximum(a, b)),
    "prim::min.int": Elementwise(lambda e, a, b: e.minimum(a, b)),
    "prim::max.float": Elementwise(lambda e, a, b: e.maximum(a, b)),
    "prim::min.float": Elementwise(lambda e, a, b: e.minimum(a, b)),
    # math
    "aten::exp": _math(mathd.ExpOp),
    "aten::exp2": _math(mathd.Exp2Op),
    "aten::expm1": _math(mathd.ExpM1Op),
    "aten::log": Elementwise(lambda e, x: e.log(x)),
    "aten::log2": _math(mathd.Log2Op),
    "aten::log10": _math(mathd.Log10Op),
    "aten::log1p": _math(mathd.Log1pOp),
    "aten::sqrt": _math(mathd.SqrtOp),
    "aten::rsqrt": _unary(lambda e, x: e.div(e.one(), e.sqrt(x))),
    "aten::sin": _math(mathd.SinOp),
    "aten::cos": _math(mathd.CosOp),
    "aten::tan": _math(mathd.TanOp),
    "aten::asin": _math(mathd.AsinOp),
    "aten::acos": _math(mathd.AcosOp),
    "aten::atan": _math(mathd.AtanOp),
    "aten::sinh": _math(mathd.SinhOp),
    "aten::cosh": _math(mathd.CoshOp),
    "aten::tanh": _math(mathd.TanhOp),
    "aten::asinh": _math(mathd.AsinhOp),
    "aten::acosh": _math(mathd.AcoshOp),
    "aten::atanh": _math(mathd.AtanhOp),
    "aten::atan2": Elementwise(lambda e, a, b: e.math(mathd.Atan2Op, a, b)),
    "aten::copysign": Elementwise(lambda e, a, b: e.math(mathd.CopySignOp, a, b)),
    "aten::erf": _math(mathd.ErfOp),
    "aten::erfc": _unary(lambda e, x: e.sub(e.one(), e.math(mathd.ErfOp, x))),
    "aten::floor": Elementwise(_not_bool("floor", lambda e, x: e.floor(x)), Compute.OPERAND),
    "aten::ceil": Elementwise(
        _not_bool("ceil", lambda e, x: e.math(mathd.CeilOp, x) if e.kind.is_float else x), Compute.OPERAND
    ),
    "aten::round": Elementwise(
        _not_bool("round", lambda e, x: e.math(mathd.RoundEvenOp, x) if e.kind.is_float else x), Compute.OPERAND
    ),
    "aten::trunc": Elementwise(_not_bool("trunc", lambda e, x: e.trunc(x)), Compute.OPERAND),
    "aten::frac": _unary(_not_bool("frac", lambda e, x: e.sub(x, e.trunc(x)))),
    "aten::sign": _unary(_sign),
    # activations
    "aten::sigmoid": _unary(lambda e, x: e.sigmoid(x)),
    "aten::relu": _unary(_not_bool("relu", lambda e, x: e.select(e.cmp("lt", x, e.zero()), e.zero(), x))),
    "aten::relu6": _unary(lambda e, x: e.clamp(x, e.zero(), e.constant(6))),
    "aten::leaky_relu": Elementwise(
        lambda e, x, slope=0.01: e.select(e.cmp("gt", x, e.zero()), x, e.mul(x, e.value(slope)))
    ),
    "aten::hardtanh": Elementwise(lambda e, x, low=-1.0, high=1.0: e.clamp(x, e.value(low), e.value(high))),
    "aten::clamp": Elementwise(lambda e, x, low=None, high=None: e.clamp(x, low, high)),
    "aten::clamp_min": Elementwise(lambda e, x, low: e.clamp(x, low, None)),
    "aten::clamp_max": Elementwise(lambda e, x, high: e.clamp(x, None, high)),
    "aten::threshold": Elementwise(lambda e, x, t, v: e.select(e.cmp("le", x, t), v, x)),
    "aten::gelu": Elementwise(
        _gelu, statics=("approximate",), accepts=lambda s: s.get("approximate", "none") in ("none", "tanh")
    ),
    "aten::silu": _unary(lambda e, x: e.div(x, e.add(e.one(), e.exp(e.neg(x))))),
    "aten::mish": _unary(lambda e, x: e.mul(x, e.tanh(e.math(mathd.Log1pOp, e.exp(x))))),
    "aten::softplus": Elementwise(_softplus),
    "aten::elu": Elementwise(_elu()),
    "aten::selu": Elementwise(_elu(1.6732632423543772848170429916717, 1.0507009873554804934193349852946)),
    "aten::celu": Elementwise(lambda e, x, a=1.0: _elu()(e, x, a, 1.0, e.div(e.one(), e.value(a)))),
    "aten::hardsigmoid": _unary(_hardsigmoid),
    "aten::hardswish": _unary(lambda e, x: e.mul(x, _hardsigmoid(e, x))),
    # gradients of the activations (`*_backward(grad_output, self or output, ...)`)
    "aten::tanh_backward": Elementwise(lambda e, g, y: e.mul(g, e.sub(e.one(), e.mul(y, y)))),
    "aten::sigmoid_backward": Elementwise(lambda e, g, y: e.mul(g, e.mul(y, e.sub(e.one(), y)))),
    "aten::threshold_backward": Elementwise(lambda e, g, x, t: e.select(e.cmp("le", x, t), e.zero(), g)),
    "aten::hardtanh_backward": Elementwise(
        lambda e, g, x, low, high: e.select(e.or_(e.cmp("le", x, low), e.cmp("ge", x, high)), e.zero(), g)
    ),
    "aten::leaky_relu_backward": Elementwise(
        lambda e, g, x, slope: e.select(e.cmp("gt", x, e.zero()), g, e.mul(g, slope)), ignored=("self_is_result",)
    ),
    "aten::silu_backward": Elementwise(_silu_backward),
    "aten::hardsigmoid_backward": Elementwise(
        lambda e, g, x: e.select(e.and_(e.cmp("gt", x, e.constant(-3)), e.cmp("lt", x, e.constant(3))),
                                 e.mul(g, e.constant(0.1666666716337204)), e.zero())  # fmt: skip  # ATen's float 1/6
    ),
    "aten::hardswish_backward": Elementwise(_hardswish_backward),
    # comparisons and logic
    **{f"aten::{name}": _comparison(name) for name in ("eq", "ne", "lt", "le", "gt", "ge")},
    "aten::logical_not": Elementwise(lambda e, x: e.not_(x), Compute.BOOL),
    "aten::__not__": Elementwise(lambda e, x: e.not_(x), Compute.BOOL),
    "aten::logical_and": Elementwise(lambda e, a, b: e.and_(a, b), Compute.BOOL),
    "aten::logical_or": Elementwise(lambda e, a, b: e.or_(a, b), Compute.BOOL),
    "aten::logical_xor": Elementwise(lambda e, a, b: e.xor(a, b), Compute.BOOL),
    "aten::bitwise_not": _unary(lambda e, x: e.not_(x)),
    **{f"aten::{name}": _bitwise(op) for name, op in _BITWISE},
    "aten::isnan": _predicate(lambda e, x: e.emit(arith.CmpfOp(x, x, "uno")), False),
    "aten::isinf": _predicate(_is_inf, False),
    "aten::isfinite": _predicate(lambda e, x: e.cmp("lt", e.abs(x), e.constant(math.inf)), True),
    # selection
    "aten::where": Elementwise(lambda e, c, a, b: e.select(c, a, b), conditions=(0,)),
    "aten::masked_fill": Elementwise(lambda e, x, mask, v: e.select(mask, v, x), conditions=(1,)),
    # conversions: the operand as it is, converted to the result type on the way out
    "aten::to": Elementwise(lambda e, x: x, Compute.OPERAND, ignored=_CONVERSION_ARGUMENTS, conversion=True),
    "aten::type_as": Elementwise(lambda e, x: x, Compute.OPERAND, ignored=("other",), conversion=True),
    "aten::Int": Elementwise(lambda e, x: x, Compute.OPERAND),
    "aten::Float": Elementwise(lambda e, x: x, Compute.OPERAND),
    "aten::Bool": Elementwise(lambda e, x: x, Compute.OPERAND),
    # range() of scalar loops
    "aten::__range_length": Elementwise(lambda e, lo, hi, step: _range_length(e, lo, hi, step)),
    "aten::__derive_index": Elementwise(lambda e, i, start, step: e.add(start, e.mul(i, step))),
}
"""Rules by overload (`aten::max.other`) or, for all overloads, by operator."""


def _range_length(e: ScalarEmitter, lo: SSAValue, hi: SSAValue, step: SSAValue) -> SSAValue:
    """max(0, ceil((hi - lo) / step)) for a non-zero step (zero raises)."""
    span = e.sub(hi, lo)
    adjust = e.select(e.cmp("gt", step, e.zero()), e.constant(-1), e.one())
    count = e.add(e.floor_div(e.add(span, adjust), step), e.one())
    return e.select(e.cmp("gt", count, e.zero()), count, e.zero())


def rule_for(schema: FunctionSchema) -> Elementwise | None:
    """The rule of an overload: its own entry, else its operator's."""
    return ELEMENTWISE.get(schema.qualified_name) or ELEMENTWISE.get(schema.name)


# --------------------------------------------------------------------------------------
# The mechanism: an op matched against the table, then emitted
# --------------------------------------------------------------------------------------

Number = bool | int | float


@dataclass(frozen=True)
class Element:
    """An operand element held in an SSA value of a known kind."""

    value: SSAValue
    kind: Kind


Operand = Element | Number | None
"""What a body value is made from: an element, a constant's Python value (made a
constant of the compute kind, so `x ** 3` sees its literal exponent), or None."""


@dataclass(frozen=True)
class ElementwiseCall:
    """An op as its table rule computes it: which operands are body values (`operands`,
    op operand indices), the static arguments, the kind the body computes in, the kind
    each value converts to, and the result kind."""

    rule: Elementwise
    operands: tuple[int, ...]
    statics: tuple[tuple[str, Any], ...]
    compute: Kind
    targets: tuple[Kind, ...]
    result: Kind


def match_elementwise(op: Operation, constant: Callable[[SSAValue], Any]) -> ElementwiseCall | None:
    """How the table computes `op`, or None when it cannot: no rule for its overload,
    a result or operand of a kind without elements (complex, unknown dtype, lists), a
    static argument that is not a constant (`constant(value)` answers its Python value
    or raises LookupError), or static values the rule does not accept."""
    from tsjit.dialects.aten import schema_of

    schema = schema_of(op)
    rule = rule_for(schema) if schema is not None and not schema.is_mutable else None  # no `out=`
    if rule is None or len(op.results) != 1 or (result := kind_of(op.results[0].type)) is None:
        return None
    operands: list[int] = []
    statics: dict[str, Any] = {}
    for index, (argument, value) in enumerate(zip(schema.arguments, op.operands)):  # pyright: ignore[reportOptionalMemberAccess]
        if argument.name in rule.ignored:
            continue
        if argument.name in rule.statics:
            try:
                statics[argument.name] = constant(value)
            except LookupError:
                return None
            continue
        if not isinstance(value.type, NoneType) and kind_of(value.type) is None:
            return None
        operands.append(index)
    if not rule.accepts(statics) or not _binds(rule.body, len(operands), statics):
        return None
    kinds = [kind_of(op.operands[i].type) for i in operands]
    if not rule.takes_bool and any(kind is not None and kind.is_bool for kind in kinds):
        return None
    compute = _compute_kind(rule.compute, op, operands, kinds, result)
    if compute is None:
        return None
    targets = tuple(
        BOOL if rule.compute is Compute.BOOL or position in rule.conditions else compute
        for position in range(len(operands))
    )
    return ElementwiseCall(rule, tuple(operands), tuple(statics.items()), compute, targets, result)


def _binds(body: Body, values: int, statics: dict[str, Any]) -> bool:
    """Whether the body takes this many values and these statics: an overload with
    arguments its operator's rule does not know (`round.decimals`) is not matched."""
    try:
        _signature(body).bind(None, *(None,) * values, **statics)
    except TypeError:
        return False
    return True


@functools.cache
def _signature(body: Body) -> inspect.Signature:
    return inspect.signature(body)


def _compute_kind(
    compute: Compute, op: Operation, operands: list[int], kinds: list[Kind | None], result: Kind
) -> Kind | None:
    if compute is Compute.RESULT:
        return result.compute
    if compute is Compute.BOOL:
        return BOOL
    if compute is Compute.OPERAND:
        return kinds[0].compute if kinds and kinds[0] is not None else None
    from tsjit.transforms.analysis.shape_rules import promote

    types = [op.operands[i].type for i in operands]
    tensors = [t for t in types if isinstance(t, TensorType)]
    scalars = [
        {IntType: int, FloatType: float, BoolType: bool}.get(type(t))
        for t in types
        if not isinstance(t, TensorType)
    ]
    if None in scalars:
        return None
    if not tensors:  # TorchScript numbers: double over int over bool
        return F64 if float in scalars else I64 if int in scalars else BOOL
    dtype = promote(tensors, scalars)
    return kind_of(TensorType(dtype.element)).compute if dtype is not None else None  # pyright: ignore[reportOptionalMemberAccess]


def emit_elementwise(e: ScalarEmitter, call: ElementwiseCall, operands: Sequence[Operand]) -> SSAValue:
    """Emits `call` on its body values (one operand per `call.operands` entry) and
    returns the element of the result kind. Raises ValueError when the rule cannot be
    computed on these operands (an integer power with a run-time exponent, an integer
    division by a possibly-zero divisor without `on_failure`)."""
    compute = e.at(call.compute, call.result)
    values: list[SSAValue | None] = []
    for operand, target in zip(operands, call.targets, strict=True):
        if operand is None:
            values.append(None)
        elif isinstance(operand, Element):
            values.append(convert(compute, operand.value, operand.kind, target))
        else:
            values.append(compute.constant(operand, target))
    result = call.rule.body(compute, *values, **dict(call.statics))
    produced = BOOL if result.type == i1 else call.compute
    return convert(compute, result, produced, call.result)

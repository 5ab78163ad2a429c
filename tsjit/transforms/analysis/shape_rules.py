"""Tensor type rules per operator family: what an op's result tensors are (dtype, sizes,
device, requires_grad) given what is known of its operands.

The table `RULES` maps an overload (`aten::max.dim`) or an operator (`aten::add`) to a
rule; a rule is a small object of one of a handful of kinds (`Pointwise`, `Reduction`,
`Factory`, ...) parametrized by data, or a function for ops whose shape logic is their
own (`view`, `cat`, `matmul`). A rule reads operands through `Operands` by schema
argument name and answers a `TensorType` per result, or None where it cannot tell;
anything it does not know stays unknown (`?` dims, no dtype), never guessed.

    rule_for(schema)(Operands(op, schema, type_of))  ->  [TensorType | None, ...]

dtype promotion is the runtime's (`tsjit.runtime.kernels.promotion`), so a type the
analysis infers is the dtype the interpreter produces.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

import numpy as np
from xdsl.ir import Attribute, Operation, SSAValue

from tsjit.dialects.prim import ConstantOp, ListConstructOp
from tsjit.dialects.schema import FunctionSchema
from tsjit.dialects.types import (
    DTYPE_BY_CODE,
    DTYPE_BY_ELEMENT,
    DTYPE_BY_NAME,
    DTYPE_BY_TORCH_NAME,
    BoolType,
    DType,
    FloatType,
    IntType,
    NoneType,
    OptionalType,
    TensorType,
)

UNKNOWN = object()
"""A value the analysis does not know (distinct from None, which is a value)."""

Sizes = tuple[int | None, ...]
"""Known sizes per dim (None: unknown size); a missing `Sizes` means unknown rank."""

FLOAT = DTYPE_BY_NAME["Float"]
LONG = DTYPE_BY_NAME["Long"]
BOOL = DTYPE_BY_NAME["Bool"]


# --------------------------------------------------------------------------------------
# What a rule can ask about an op's operands
# --------------------------------------------------------------------------------------


class Operands:
    """An op's operands by schema argument name: their (refined) types and, when they
    come from constants or unmutated list literals, their values."""

    def __init__(self, op: Operation, schema: FunctionSchema, type_of: Callable[[SSAValue], Attribute]):
        self.op = op
        self.schema = schema
        self.type_of = type_of

    def value(self, name: str) -> SSAValue | None:
        index = self.schema.argument_index(name)
        return None if index is None or index >= len(self.op.operands) else self.op.operands[index]

    def has(self, name: str) -> bool:
        return self.value(name) is not None

    def tensor(self, name: str) -> TensorType | None:
        value = self.value(name)
        if value is None:
            return None
        t = self.type_of(value)
        return t if isinstance(t, TensorType) else None

    def constant(self, name: str) -> object:
        """The argument's value when it is a constant (None for a None constant), else
        UNKNOWN; an absent argument is UNKNOWN too."""
        value = self.value(name)
        return UNKNOWN if value is None else constant_value(value)

    def ints(self, name: str) -> tuple[int | None, ...] | None:
        """An int or int-list argument as a tuple with None for unknown items (a single
        int stands for a one-element list, as `int[1]` arguments allow); None when not
        even its length is known."""
        value = self.value(name)
        if value is None:
            return None
        known = constant_value(value)
        if isinstance(known, int) and not isinstance(known, bool):
            return (known,)
        if isinstance(known, list):
            return tuple(known)
        items = list_literal(value)
        if items is None:
            return None
        return tuple(_int_or_none(constant_value(item)) for item in items)

    def tensors(self, name: str) -> list[TensorType] | None:
        """A `Tensor[]` argument built by an unmutated list literal, as tensor types."""
        value = self.value(name)
        items = None if value is None else list_literal(value)
        if items is None:
            return None
        types = [self.type_of(item) for item in items]
        return types if all(isinstance(t, TensorType) for t in types) else None  # pyright: ignore[reportReturnType]

    def scalar_kind(self, name: str) -> type | None | object:
        """The Python type a scalar argument promotes as (bool, int, float), UNKNOWN for
        a `Scalar` of unknown kind, None when absent or None."""
        value = self.value(name)
        if value is None:
            return None
        t = self.type_of(value)
        if isinstance(t, (NoneType, OptionalType)):
            return None if isinstance(t, NoneType) else UNKNOWN
        return {BoolType: bool, IntType: int, FloatType: float}.get(type(t), UNKNOWN)

    def dtype_argument(self, name: str = "dtype") -> DType | None | object:
        """The `ScalarType? dtype` argument: its DType, None when None or absent,
        UNKNOWN when not constant."""
        if not self.has(name):
            return None
        code = self.constant(name)
        if code is None:
            return None
        if isinstance(code, int) and not isinstance(code, bool):
            return DTYPE_BY_CODE.get(code, UNKNOWN)
        return UNKNOWN


def constant_value(value: SSAValue) -> object:
    owner = value.owner
    if isinstance(owner, ConstantOp):
        python = owner.python_value
        return python.tolist() if isinstance(python, np.ndarray) else python
    return UNKNOWN


def list_literal(value: SSAValue) -> Sequence[SSAValue] | None:
    """The items of a list built by `prim.ListConstruct` that nothing may mutate: every
    use only reads it (a schema argument without alias annotation, or an unpack)."""
    owner = value.owner
    if not isinstance(owner, ListConstructOp):
        return None
    from tsjit.dialects.aten import schema_of
    from tsjit.dialects.prim import ListUnpackOp

    for use in value.uses:
        user = use.operation
        if isinstance(user, ListUnpackOp):
            continue
        schema = schema_of(user)
        if schema is None or use.index >= len(schema.arguments) or schema.arguments[use.index].alias_info is not None:
            return None
    return owner.elements


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# --------------------------------------------------------------------------------------
# Building result types
# --------------------------------------------------------------------------------------


def tensor_type(
    dtype: DType | None | object, sizes: Sizes | None, device: str | None, grad: bool | None
) -> TensorType:
    element = dtype.element if isinstance(dtype, DType) else None
    return TensorType(element, None if sizes is None else list(sizes), device, grad)


def dtype_of(t: TensorType | None) -> DType | None:
    return None if t is None else DTYPE_BY_ELEMENT.get(t.dtype)


def common_device(tensors: Sequence[TensorType | None]) -> str | None:
    devices = {t.device_name if t is not None else None for t in tensors}
    return devices.pop() if len(devices) == 1 else None


def any_grad(tensors: Sequence[TensorType | None], dtype: DType | object) -> bool | None:
    """requires_grad of a result: only floating (and complex) results carry gradients."""
    if isinstance(dtype, DType) and not (dtype.is_floating or dtype.is_complex):
        return False
    grads = [t.grad if t is not None else None for t in tensors]
    if True in grads:
        return True
    return False if grads and all(g is False for g in grads) else None


def broadcast(shapes: Sequence[Sizes | None]) -> Sizes | None:
    """The broadcast of several shapes: a known size wins over 1 and over an unknown
    size (broadcasting forces the unknown one to match it or be 1)."""
    if any(s is None for s in shapes):
        return None
    rank = max((len(s) for s in shapes), default=0)  # pyright: ignore[reportArgumentType]
    result: list[int | None] = []
    for i in range(rank):
        dims = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]  # pyright: ignore[reportOptionalSubscript, reportArgumentType]
        known = {d for d in dims if d is not None and d != 1}
        if len(known) == 1:
            result.append(known.pop())
        elif not known and all(d == 1 for d in dims):
            result.append(1)
        else:
            result.append(None)
    return tuple(result)


def promote(tensors: Sequence[TensorType | None], scalars: Sequence[object] = ()) -> DType | None:
    """torch.result_type over tensor operands (their dtype and rank) and Python scalar
    kinds (bool, int, float). A tensor of unknown rank may be zero-dim or not: the
    answer must agree for both."""
    from tsjit.runtime.kernels.promotion import result_type

    if not tensors or any(t is None or dtype_of(t) is None for t in tensors) or UNKNOWN in scalars:
        return None
    np_dtypes = [_numpy_dtype(dtype_of(t)) for t in tensors]  # pyright: ignore[reportArgumentType]
    if any(d is None for d in np_dtypes):  # not `None in`: numpy reads None as float64
        return None
    samples = [{bool: True, int: 1, float: 1.0}[kind] for kind in scalars if kind is not None]  # pyright: ignore[reportArgumentType]
    rank_choices = [(0, 1) if t.rank is None else (min(t.rank, 1),) for t in tensors]  # pyright: ignore[reportOptionalMemberAccess]
    answers = set()
    for ranks in itertools.product(*rank_choices):
        arrays = [np.empty((1,) * r, dtype=d) for r, d in zip(ranks, np_dtypes)]
        answers.add(result_type(*arrays, *samples))
    if len(answers) != 1:
        return None
    return DTYPE_BY_TORCH_NAME.get(answers.pop().name)


def _numpy_dtype(dtype: DType) -> np.dtype | None:
    try:
        return np.dtype(dtype.torch_name)
    except TypeError:
        return None


def float_result(dtype: DType | None) -> DType | None:
    """Integral and bool inputs compute in the default float dtype."""
    if dtype is None:
        return None
    return dtype if dtype.is_floating or dtype.is_complex else FLOAT


def wrap(dim: int, rank: int) -> int | None:
    bound = max(rank, 1)
    return dim + bound if -bound <= dim < 0 else dim if 0 <= dim < bound else None


Result = Sequence[TensorType | None]
Rule = Callable[[Operands], Result]


# --------------------------------------------------------------------------------------
# Rule kinds
# --------------------------------------------------------------------------------------


class DTypeRule(Enum):
    PROMOTED = "promoted"  # torch.result_type of the promoted operands
    FLOAT = "float"  # promoted, integral computed in the default float dtype
    BOOL = "bool"  # comparisons, logical ops
    SAME = "same"  # the first operand's dtype
    TRUE_DIVIDE = "true_divide"  # FLOAT unless a rounding mode is given
    BOOL_AS_LONG = "bool_as_long"  # SAME, but bool computes in Long (square is pow(x, 2))


@dataclass(frozen=True)
class Pointwise:
    """Elementwise ops: sizes broadcast over `operands`, dtype per `dtype` over the
    tensors and scalars among `promoted` (default: `operands`); a `dtype` argument, when
    the schema has one and it is given, wins."""

    operands: tuple[str, ...] = ("self", "other")
    dtype: DTypeRule = DTypeRule.PROMOTED
    promoted: tuple[str, ...] | None = None

    def __call__(self, q: Operands) -> Result:
        names = [n for n in self.operands if q.has(n)]
        tensors = [q.tensor(n) for n in names if q.tensor(n) is not None]
        shapes = [t.shape for t in tensors]  # pyright: ignore[reportOptionalMemberAccess]
        promoted_names = [n for n in (self.promoted or self.operands) if q.has(n)]
        promoted_tensors = [q.tensor(n) for n in promoted_names if q.tensor(n) is not None]
        scalars = [q.scalar_kind(n) for n in promoted_names if q.tensor(n) is None]
        dtype = self.result_dtype(q, promoted_tensors, scalars)
        explicit = q.dtype_argument()
        if explicit is not None:
            dtype = explicit
        return [tensor_type(dtype, broadcast(shapes), common_device(tensors), any_grad(tensors, dtype))]

    def result_dtype(self, q: Operands, tensors: list[TensorType | None], scalars: list[object]) -> DType | None:
        match self.dtype:
            case DTypeRule.BOOL:
                return BOOL
            case DTypeRule.SAME:
                return dtype_of(tensors[0]) if tensors else None
            case DTypeRule.BOOL_AS_LONG:
                dtype = dtype_of(tensors[0]) if tensors else None
                return LONG if dtype == BOOL else dtype
            case DTypeRule.FLOAT:
                return float_result(promote(tensors, scalars))
            case DTypeRule.TRUE_DIVIDE:
                mode = q.constant("rounding_mode") if q.has("rounding_mode") else None
                if mode is UNKNOWN:
                    return None
                promoted = promote(tensors, scalars)
                return promoted if isinstance(mode, str) else float_result(promoted)
            case DTypeRule.PROMOTED:
                return promote(tensors, scalars)


class ReduceDType(Enum):
    SAME = "same"
    SUM = "sum"  # integral and bool accumulate in Long
    LONG = "long"  # indices
    BOOL = "bool"
    FLOAT = "float"


@dataclass(frozen=True)
class Reduction:
    """Reductions over `dim` (absent, None or `[]`: every dim) with `keepdim`; results
    per `outputs` (values in the dtype rule, indices in Long)."""

    dtype: ReduceDType = ReduceDType.SAME
    outputs: tuple[ReduceDType, ...] = ()

    def __call__(self, q: Operands) -> Result:
        source = q.tensor("self")
        if source is None:
            return [None] * max(1, len(self.outputs))
        sizes = reduced_sizes(q, source.shape)
        dtypes = [self.result_dtype(q, source, d) for d in (self.outputs or (self.dtype,))]
        return [tensor_type(d, sizes, source.device_name, any_grad([source], d)) for d in dtypes]

    def result_dtype(self, q: Operands, source: TensorType, rule: ReduceDType) -> DType | None | object:
        explicit = q.dtype_argument()
        if explicit is not None and rule is not ReduceDType.LONG:
            return explicit
        dtype = dtype_of(source)
        match rule:
            case ReduceDType.LONG:
                return LONG
            case ReduceDType.BOOL:
                return BOOL
            case ReduceDType.FLOAT:
                return float_result(dtype)
            case ReduceDType.SUM:
                return None if dtype is None else dtype if dtype.is_floating or dtype.is_complex else LONG
            case ReduceDType.SAME:
                return dtype


def reduced_sizes(q: Operands, shape: Sizes | None) -> Sizes | None:
    keepdim = q.constant("keepdim") if q.has("keepdim") else False
    dims_given = q.has("dim") and q.constant("dim") is not None
    if shape is None or keepdim is UNKNOWN:
        return None
    if not dims_given:
        return (1,) * len(shape) if keepdim else ()
    dims = q.ints("dim")
    if dims is None or None in dims:
        return None
    if not dims:  # sum(x, dim=[]) reduces every dim
        return (1,) * len(shape) if keepdim else ()
    wrapped = {wrap(d, len(shape)) for d in dims}  # pyright: ignore[reportArgumentType]
    if None in wrapped:
        return None
    if keepdim:
        return tuple(1 if i in wrapped else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in wrapped)


class FactoryDType(Enum):
    DEFAULT = "default"  # the default float dtype unless `dtype` is given
    FILL = "fill"  # from the fill value's kind (full)
    ARANGE = "arange"  # Long when every bound is an int, else the default float
    LIKE = "like"  # the source tensor's dtype


@dataclass(frozen=True)
class Factory:
    """Tensor factories: sizes from `size` (or the `like` tensor's), dtype per rule
    unless the `dtype` argument says, device from `device` (default the CPU)."""

    size: str | None = "size"
    dtype: FactoryDType = FactoryDType.DEFAULT
    like: str | None = None

    def __call__(self, q: Operands) -> Result:
        source = q.tensor(self.like) if self.like else None
        sizes = source.shape if source is not None else None
        if self.size is not None:
            known = q.ints(self.size)
            sizes = None if known is None else tuple(d if d is None or d >= 0 else None for d in known)
        dtype = q.dtype_argument()
        if dtype is None:
            dtype = self.default_dtype(q, source)
        device = q.constant("device") if q.has("device") else None
        if device is None:
            device = source.device_name if source is not None else "cpu"
        if self.dtype is FactoryDType.ARANGE:
            sizes = arange_sizes(q)
        grad = q.constant("requires_grad") if q.has("requires_grad") else False
        return [tensor_type(dtype, sizes, device if isinstance(device, str) else None, grad if isinstance(grad, bool) else None)]

    def default_dtype(self, q: Operands, source: TensorType | None) -> DType | None:
        match self.dtype:
            case FactoryDType.DEFAULT:
                return FLOAT
            case FactoryDType.LIKE:
                return dtype_of(source)
            case FactoryDType.FILL:
                kind = q.scalar_kind("fill_value")
                return {bool: BOOL, int: LONG, float: FLOAT}.get(kind)  # pyright: ignore[reportArgumentType, reportCallIssue]
            case FactoryDType.ARANGE:
                kinds = [q.scalar_kind(n) for n in ("start", "end", "step") if q.has(n)]
                if UNKNOWN in kinds:
                    return None
                return FLOAT if float in kinds else LONG


def arange_sizes(q: Operands) -> Sizes:
    bounds = [q.constant(n) if q.has(n) else default for n, default in (("start", 0), ("end", UNKNOWN), ("step", 1))]
    if any(isinstance(b, bool) or not isinstance(b, (int, float)) for b in bounds):
        return (None,)
    start, end, step = bounds
    if step == 0:
        return (None,)
    return (max(0, int(np.ceil((end - start) / step))),)  # pyright: ignore[reportOperatorIssue]


@dataclass(frozen=True)
class SameAs:
    """The result is a tensor like `source` (activations, norms, copies, dropout)."""

    source: str = "self"

    def __call__(self, q: Operands) -> Result:
        t = q.tensor(self.source)
        if t is None:
            return [None]
        explicit = q.dtype_argument()
        dtype = dtype_of(t) if explicit is None else explicit
        tensors = [self.type_of_operand(q, v) for v in q.op.operands]  # a norm's weight and bias too
        return [tensor_type(dtype, t.shape, t.device_name, any_grad([x for x in tensors if x is not None], dtype))]

    @staticmethod
    def type_of_operand(q: Operands, value: SSAValue) -> TensorType | None:
        t = q.type_of(value)
        return t if isinstance(t, TensorType) else None


@dataclass(frozen=True)
class Reshaped:
    """View and shape ops: dtype, device and requires_grad of `self`, sizes computed by
    `sizes` from the source sizes (None: unknown rank) and the operands."""

    sizes: Callable[[Operands, Sizes | None], Sizes | None]

    def __call__(self, q: Operands) -> Result:
        t = q.tensor("self")
        if t is None:
            return [None]
        return [tensor_type(dtype_of(t), self.sizes(q, t.shape), t.device_name, t.grad)]


# --------------------------------------------------------------------------------------
# Shape functions of view and shape ops
# --------------------------------------------------------------------------------------


def view_sizes(argument: str) -> Callable[[Operands, Sizes | None], Sizes | None]:
    """view/reshape: the requested sizes, a single -1 inferred from the element count."""

    def sizes(q: Operands, shape: Sizes | None) -> Sizes | None:
        requested = q.ints(argument)
        if requested is None:
            return None
        if requested.count(-1) == 1 and shape is not None and None not in shape:
            known = [d for d in requested if d != -1]
            if None not in known:
                total = int(np.prod(shape, dtype=np.int64))  # pyright: ignore[reportArgumentType]
                rest = int(np.prod(known, dtype=np.int64))  # pyright: ignore[reportArgumentType]
                inferred = total // rest if rest else None
                return tuple(inferred if d == -1 else d for d in requested)
        return tuple(None if d is None or d < 0 else d for d in requested)

    return sizes


def transpose_sizes(q: Operands, shape: Sizes | None) -> Sizes | None:
    if shape is None:
        return None
    dims = [q.constant("dim0"), q.constant("dim1")]
    if not all(isinstance(d, int) for d in dims):
        return (None,) * len(shape)
    a, b = (wrap(d, len(shape)) for d in dims)  # pyright: ignore[reportArgumentType]
    if a is None or b is None or not shape:
        return shape
    swapped = list(shape)
    swapped[a], swapped[b] = swapped[b], swapped[a]
    return tuple(swapped)


def matrix_transpose_sizes(q: Operands, shape: Sizes | None) -> Sizes | None:
    return None if shape is None else tuple(reversed(shape))


def permute_sizes(q: Operands, shape: Sizes | None) -> Sizes | None:
    dims = q.ints("dims")
    if shape is None or dims is None or None in dims or len(dims) != len(shape):
        return None if shape is None else (None,) * len(shape)
    order = [wrap(d, len(shape)) for d in dims]  # pyright: ignore[reportArgumentType]
    return None if None in order else tuple(shape[i] for i in order)  # pyright: ignore[reportCallIssue, reportArgumentType]


def squeeze_sizes(q: Operands, shape: Sizes | None) -> Sizes | None:
    if shape is None:
        return None
    if not q.has("dim"):
        if None in shape:
            return None
        return tuple(d for d in shape if d != 1)
    dims = q.ints("dim")
    if dims is None or None in dims:
        return None
    wrapped = {wrap(d, len(shape)) for d in dims}  # pyright: ignore[reportArgumentType]
    if any(shape[i] is None for i in wrapped if i is not None and i < len(shape)):
        return None
    return tuple(d for i, d in enumerate(shape) if not (i in wrapped and d == 1))


def unsqueeze_sizes(q: Operands, shape: Sizes | None) -> Sizes | None:
    dim = q.constant("dim")
    if shape is None or not isinstance(dim, int):
        return None
    position = wrap(dim, len(shape) + 1)
    if position is None:
        return None
    return (*shape[:position], 1, *shape[position:])


def flatten_sizes(q: Operands, shape: Sizes | None) -> Sizes | None:
    start, end = q.constant("start_dim"), q.constant("end_dim")
    if shape is None or not isinstance(start, int) or not isinstance(end, int):
        return None
    if not shape:
        return (1,)
    a, b = wrap(start, len(shape)), wrap(end, len(shape))
    if a is None or b is None or a > b:
        return None
    middle = shape[a : b + 1]
    merged = None if None in middle else int(np.prod(middle, dtype=np.int64))  # pyright: ignore[reportArgumentType]
    return (*shape[:a], merged, *shape[b + 1 :])


def expand_sizes(q: Operands, shape: Sizes | None) -> Sizes | None:
    requested = q.ints("size")
    if requested is None:
        return None
    if shape is None:
        return tuple(d if d is not None and d >= 0 else None for d in requested)
    offset = len(requested) - len(shape)
    return tuple(
        (shape[i - offset] if i >= offset else None) if d == -1 else d for i, d in enumerate(requested)
    )


def select_sizes(q: Operands, shape: Sizes | None) -> Sizes | None:
    dim = q.constant("dim")
    if shape is None or not isinstance(dim, int) or not shape:
        return None
    position = wrap(dim, len(shape))
    return None if position is None else (*shape[:position], *shape[position + 1 :])


def slice_sizes(q: Operands, shape: Sizes | None) -> Sizes | None:
    dim = q.constant("dim")
    if shape is None or not isinstance(dim, int) or not shape:
        return None if shape is None else (None,) * len(shape)
    position = wrap(dim, len(shape))
    if position is None:
        return None
    size = shape[position]
    start, end, step = (q.constant(n) for n in ("start", "end", "step"))
    length = None
    if size is not None and all(v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in (start, end)) and isinstance(step, int) and step > 0:
        length = len(range(*slice(start, end, step).indices(size)))
    return (*shape[:position], length, *shape[position + 1 :])


def narrow_sizes(q: Operands, shape: Sizes | None) -> Sizes | None:
    dim, length = q.constant("dim"), q.constant("length")
    if shape is None or not isinstance(dim, int) or not shape:
        return None
    position = wrap(dim, len(shape))
    if position is None:
        return None
    return (*shape[:position], length if isinstance(length, int) else None, *shape[position + 1 :])


def repeat_sizes(q: Operands, shape: Sizes | None) -> Sizes | None:
    repeats = q.ints("repeats")
    if shape is None or repeats is None or len(repeats) < len(shape):
        return None
    padded = (1,) * (len(repeats) - len(shape)) + shape
    return tuple(None if a is None or b is None else a * b for a, b in zip(padded, repeats))


def index_select_sizes(q: Operands, shape: Sizes | None) -> Sizes | None:
    dim, index = q.constant("dim"), q.tensor("index")
    if shape is None or not isinstance(dim, int):
        return None
    position = wrap(dim, len(shape))
    if position is None or not shape:
        return shape
    count = index.shape[0] if index is not None and index.shape else None
    return (*shape[:position], count, *shape[position + 1 :])


def joined(stack: bool) -> Rule:
    """cat (sizes add up along `dim`) and stack (a new dim of the list's length)."""

    def rule(q: Operands) -> Result:
        tensors = q.tensors("tensors")
        dim = q.constant("dim")
        if not tensors or not isinstance(dim, int):
            return [None]
        dtype = promote(tensors)
        device, grad = common_device(tensors), any_grad(tensors, dtype)
        shapes = [t.shape for t in tensors if not (not stack and t.shape == (0,))]  # cat skips legacy empty tensors
        if not shapes or None in shapes:
            return [tensor_type(dtype, None, device, grad)]
        rank = len(shapes[0])  # pyright: ignore[reportArgumentType]
        if any(len(s) != rank for s in shapes):  # pyright: ignore[reportArgumentType]
            return [tensor_type(dtype, None, device, grad)]
        position = wrap(dim, rank + 1 if stack else rank)
        if position is None:
            return [tensor_type(dtype, None, device, grad)]
        merged = [_same_size([s[i] for s in shapes]) for i in range(rank)]  # pyright: ignore[reportOptionalSubscript]
        if stack:
            merged.insert(position, len(tensors))
        else:
            along = [s[position] for s in shapes]  # pyright: ignore[reportOptionalSubscript]
            merged[position] = None if None in along else sum(along)  # pyright: ignore[reportArgumentType, reportCallIssue]
        return [tensor_type(dtype, tuple(merged), device, grad)]

    return rule


def _same_size(sizes: Sequence[int | None]) -> int | None:
    known = {s for s in sizes if s is not None}
    return known.pop() if len(known) == 1 else None


# --------------------------------------------------------------------------------------
# Linear algebra and nn
# --------------------------------------------------------------------------------------


def matmul_sizes(a: Sizes | None, b: Sizes | None) -> Sizes | None:
    """torch.matmul: dot, matrix-vector, matrix-matrix, batched with broadcasting."""
    if a is None or b is None or not a or not b:
        return None
    if len(a) == 1 and len(b) == 1:
        return ()
    if len(a) == 2 and len(b) == 1:
        return (a[0],)
    if len(a) == 1 and len(b) == 2:
        return (b[1],)
    if len(a) == 2 and len(b) == 2:
        return (a[0], b[1])
    batch = broadcast([a[:-2] if len(a) > 2 else (), b[:-2] if len(b) > 2 else ()])
    rows = (a[-2],) if len(a) >= 2 else ()
    columns = (b[-1],) if len(b) >= 2 else ()
    return None if batch is None else (*batch, *rows, *columns)


def matmul_rule(first: str, second: str, bias: str | None = None) -> Rule:
    def rule(q: Operands) -> Result:
        a, b = q.tensor(first), q.tensor(second)
        if a is None or b is None:
            return [None]
        operands = [a, b] + ([t] if bias and (t := q.tensor(bias)) is not None else [])
        dtype = promote(operands)
        sizes = matmul_sizes(a.shape, b.shape)
        return [tensor_type(dtype, sizes, common_device(operands), any_grad(operands, dtype))]

    return rule


def linear_rule(q: Operands) -> Result:
    """linear(input, weight, bias): input @ weight.T (+ bias)."""
    x, w = q.tensor("input"), q.tensor("weight")
    if x is None or w is None:
        return [None]
    operands = [x, w] + ([t] if (t := q.tensor("bias")) is not None else [])
    dtype = promote(operands)
    sizes = None
    if x.shape is not None and w.shape is not None and x.shape and len(w.shape) in (1, 2):
        sizes = x.shape[:-1] + ((w.shape[0],) if len(w.shape) == 2 else ())
    return [tensor_type(dtype, sizes, common_device(operands), any_grad(operands, dtype))]


def embedding_rule(q: Operands) -> Result:
    weight, indices = q.tensor("weight"), q.tensor("indices")
    if weight is None or indices is None:
        return [None]
    sizes = None
    if weight.shape is not None and indices.shape is not None and len(weight.shape) == 2:
        sizes = (*indices.shape, weight.shape[1])
    return [tensor_type(dtype_of(weight), sizes, weight.device_name, weight.grad)]


@dataclass(frozen=True)
class Windowed:
    """Convolutions and poolings over the last `spatial` dims: each output size is
    `(size + 2 padding - dilation (kernel - 1) - 1) / stride + 1`, rounded down (up
    with `ceil_mode`, as long as the last window starts inside the input)."""

    spatial: int
    convolution: bool = False

    def __call__(self, q: Operands) -> Result:
        source = q.tensor("input" if self.convolution else "self")
        if source is None:
            return [None]
        operands = [source]
        if self.convolution:
            weight = q.tensor("weight")
            operands += [t for t in (weight, q.tensor("bias")) if t is not None]
            kernel = weight.shape[2:] if weight is not None and weight.shape is not None else None
            channels = weight.shape[0] if weight is not None and weight.shape else None
        else:
            kernel = self.spread(q.ints("kernel_size"))
            channels = None
        dtype = promote(operands)
        return [tensor_type(dtype, self.sizes(q, source.shape, kernel, channels), common_device(operands), any_grad(operands, dtype))]

    def spread(self, values: tuple[int | None, ...] | None) -> tuple[int | None, ...] | None:
        """`int[2]` arguments given as one int stand for that int in every dim."""
        if values is not None and len(values) == 1:
            return values * self.spatial
        return values if values is not None and len(values) == self.spatial else None

    def sizes(
        self, q: Operands, shape: Sizes | None, kernel: Sizes | None, channels: int | None
    ) -> Sizes | None:
        if shape is None or len(shape) < self.spatial + 1:
            return None
        leading = shape[: len(shape) - self.spatial]
        if self.convolution:
            leading = (*leading[:-1], channels)
        unknown = (*leading, *(None,) * self.spatial)
        padding_mode = q.constant("padding")
        if kernel is None or None in kernel:
            return unknown
        if padding_mode == "same":
            return (*leading, *shape[-self.spatial :])
        padding = (0,) * self.spatial if padding_mode == "valid" else self.spread(q.ints("padding"))
        given_stride = q.ints("stride")
        stride = kernel if given_stride == () else self.spread(given_stride)  # `[]`: the kernel size
        dilation = self.spread(q.ints("dilation")) if q.has("dilation") else (1,) * self.spatial
        ceil = q.constant("ceil_mode") if q.has("ceil_mode") else False
        if padding is None or stride is None or dilation is None or not isinstance(ceil, bool):
            return unknown
        return (*leading, *(window_count(*dims, ceil) for dims in zip(shape[-self.spatial :], kernel, stride, padding, dilation)))


def window_count(size: int | None, kernel: int | None, stride: int | None, padding: int | None, dilation: int | None, ceil: bool) -> int | None:
    """How many windows fit along one dim (PyTorch's `pooling_output_shape`)."""
    if None in (size, kernel, stride, padding, dilation) or not stride:
        return None
    span = size + 2 * padding - dilation * (kernel - 1) - 1  # pyright: ignore[reportOperatorIssue]
    count = (span + (stride - 1 if ceil else 0)) // stride + 1  # pyright: ignore[reportOperatorIssue]
    if ceil and (count - 1) * stride >= size + padding:  # pyright: ignore[reportOperatorIssue]
        count -= 1
    return max(count, 0)


def adaptive_pool_rule(q: Operands) -> Result:
    """Adaptive pooling: the last dims become `output_size` (max pooling also returns
    the Long indices)."""
    source, output = q.tensor("self"), q.ints("output_size")
    if source is None:
        return [None]
    sizes = None
    if source.shape is not None and output is not None and len(source.shape) >= len(output):
        sizes = (*source.shape[: len(source.shape) - len(output)], *output)
    values = tensor_type(dtype_of(source), sizes, source.device_name, source.grad)
    return [values, tensor_type(LONG, sizes, source.device_name, False)][: len(q.op.results)]


def grad_sum_to_size_rule(q: Operands) -> Result:
    """`_grad_sum_to_size(self, size)`: self's dtype, the sizes asked for (self's own
    when `size` is None)."""
    source = q.tensor("self")
    if source is None:
        return [None]
    if q.constant("size") is None:
        return [source]
    return [tensor_type(dtype_of(source), q.ints("size"), source.device_name, source.grad)]


def conversion_rule(q: Operands) -> Result:
    """aten::to in its overloads, and type_as: self's sizes, the target's dtype/device."""
    source = q.tensor("self")
    if source is None:
        return [None]
    target = q.tensor("other")
    if target is not None:
        return [tensor_type(dtype_of(target), source.shape, target.device_name, source.grad)]
    dtype = q.dtype_argument()
    if dtype is None:
        dtype = dtype_of(source)
    device = q.constant("device") if q.has("device") else source.device_name
    if device is None:
        device = source.device_name
    return [tensor_type(dtype, source.shape, device if isinstance(device, str) else None, source.grad)]


# --------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------

_BINARY = Pointwise()
_COMPARISON = Pointwise(dtype=DTypeRule.BOOL)
_UNARY = Pointwise(operands=("self",))
_FLOAT_UNARY = Pointwise(operands=("self",), dtype=DTypeRule.FLOAT)
_FLOAT_BINARY = Pointwise(dtype=DTypeRule.FLOAT)

_POINTWISE_BINARY = (
    "add", "sub", "rsub", "mul", "floor_divide", "remainder", "fmod", "pow", "maximum", "minimum",
    "bitwise_and", "bitwise_or", "bitwise_xor", "__and__", "__or__", "__xor__", "hypot",
    "fmax", "fmin", "__lshift__", "__rshift__",
)  # fmt: skip
_FLOAT_BINARY_OPS = ("atan2", "copysign")
"""Integral operands compute in the default float dtype."""
_COMPARISONS = (
    "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "isclose",
)  # fmt: skip
_SAME_DTYPE_UNARY = (
    "neg", "abs", "relu", "relu6", "sign", "floor", "ceil", "round", "trunc", "frac",
    "clone", "contiguous", "detach", "hardtanh", "leaky_relu", "elu", "selu", "celu", "silu",
    "mish", "hardswish", "hardsigmoid", "gelu", "softplus", "bitwise_not", "threshold",
    "nan_to_num", "tril", "triu", "flip", "roll", "cumsum", "cumprod", "fill", "zero",
    "masked_fill", "softmax", "log_softmax",
)  # fmt: skip
_FLOAT_UNARY_OPS = (
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sigmoid", "tanh",
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
    "erf", "erfc", "erfinv", "reciprocal", "lgamma", "digamma", "logit",
)  # fmt: skip
_BOOL_UNARY = ("isnan", "isinf", "isfinite", "logical_not", "signbit")
_POINTWISE_BACKWARD = (
    "threshold_backward", "hardtanh_backward", "leaky_relu_backward", "gelu_backward", "silu_backward",
    "mish_backward", "softplus_backward", "hardswish_backward", "hardsigmoid_backward",
)  # fmt: skip
_SAME_AS_INPUT = ("dropout", "alpha_dropout", "feature_dropout", "layer_norm", "batch_norm", "group_norm", "instance_norm")
_FACTORIES = ("zeros", "ones", "empty", "rand", "randn")
_LIKE_FACTORIES = ("zeros_like", "ones_like", "empty_like", "rand_like", "randn_like")

RULES: dict[str, Rule] = {
    **{f"aten::{n}": _BINARY for n in _POINTWISE_BINARY},
    **{f"aten::{n}": _FLOAT_BINARY for n in _FLOAT_BINARY_OPS},
    "aten::square": Pointwise(operands=("self",), dtype=DTypeRule.BOOL_AS_LONG),
    **{f"aten::{n}": _COMPARISON for n in _COMPARISONS},
    **{f"aten::{n}": _UNARY for n in _SAME_DTYPE_UNARY},
    **{f"aten::{n}": _FLOAT_UNARY for n in _FLOAT_UNARY_OPS},
    **{f"aten::{n}": Pointwise(operands=("self",), dtype=DTypeRule.BOOL) for n in _BOOL_UNARY},
    **{f"aten::{n}": SameAs("input") for n in _SAME_AS_INPUT},
    **{f"aten::{n}": Factory() for n in _FACTORIES},
    **{f"aten::{n}": Factory(size=None, dtype=FactoryDType.LIKE, like="self") for n in _LIKE_FACTORIES},
    "aten::full": Factory(dtype=FactoryDType.FILL),
    "aten::full_like": Factory(size=None, dtype=FactoryDType.LIKE, like="self"),
    "aten::new_zeros": Factory(dtype=FactoryDType.LIKE, like="self"),
    "aten::new_ones": Factory(dtype=FactoryDType.LIKE, like="self"),
    "aten::new_empty": Factory(dtype=FactoryDType.LIKE, like="self"),
    "aten::arange": Factory(size=None, dtype=FactoryDType.ARANGE),
    "aten::div": Pointwise(dtype=DTypeRule.TRUE_DIVIDE),
    "aten::clamp": Pointwise(operands=("self",), promoted=("self", "min", "max")),
    "aten::clamp_min": Pointwise(operands=("self",), promoted=("self", "min")),
    "aten::clamp_max": Pointwise(operands=("self",), promoted=("self", "max")),
    "aten::true_divide": Pointwise(dtype=DTypeRule.FLOAT),
    "aten::where.self": Pointwise(operands=("condition", "self", "other"), promoted=("self", "other")),
    "aten::where.ScalarOther": Pointwise(operands=("condition", "self", "other"), promoted=("self", "other")),
    "aten::where.ScalarSelf": Pointwise(operands=("condition", "self", "other"), promoted=("self", "other")),
    "aten::lerp": Pointwise(operands=("self", "end", "weight")),
    "aten::addcmul": Pointwise(operands=("self", "tensor1", "tensor2")),
    "aten::addcdiv": Pointwise(operands=("self", "tensor1", "tensor2")),
    "aten::pow.Scalar": Pointwise(operands=("self", "exponent")),
    "aten::pow.Tensor_Scalar": Pointwise(operands=("self", "exponent")),
    "aten::pow.Tensor_Tensor": Pointwise(operands=("self", "exponent")),
    "aten::sum": Reduction(ReduceDType.SUM),
    "aten::nansum": Reduction(ReduceDType.SUM),
    "aten::prod": Reduction(ReduceDType.SUM),
    "aten::mean": Reduction(ReduceDType.SAME),
    "aten::nanmean": Reduction(ReduceDType.SAME),
    "aten::amax": Reduction(ReduceDType.SAME),
    "aten::amin": Reduction(ReduceDType.SAME),
    "aten::logsumexp": Reduction(ReduceDType.FLOAT),
    "aten::std": Reduction(ReduceDType.FLOAT),
    "aten::var": Reduction(ReduceDType.FLOAT),
    "aten::norm": Reduction(ReduceDType.FLOAT),
    "aten::all": Reduction(ReduceDType.BOOL),
    "aten::any": Reduction(ReduceDType.BOOL),
    "aten::argmax": Reduction(ReduceDType.LONG),
    "aten::argmin": Reduction(ReduceDType.LONG),
    "aten::max": Reduction(ReduceDType.SAME),
    "aten::min": Reduction(ReduceDType.SAME),
    "aten::max.dim": Reduction(outputs=(ReduceDType.SAME, ReduceDType.LONG)),
    "aten::min.dim": Reduction(outputs=(ReduceDType.SAME, ReduceDType.LONG)),
    "aten::max.other": _BINARY,
    "aten::min.other": _BINARY,
    "aten::view": Reshaped(view_sizes("size")),
    "aten::reshape": Reshaped(view_sizes("shape")),
    "aten::transpose": Reshaped(transpose_sizes),
    "aten::t": Reshaped(matrix_transpose_sizes),
    "aten::permute": Reshaped(permute_sizes),
    "aten::squeeze": Reshaped(squeeze_sizes),
    "aten::unsqueeze": Reshaped(unsqueeze_sizes),
    "aten::flatten": Reshaped(flatten_sizes),
    "aten::expand": Reshaped(expand_sizes),
    "aten::select": Reshaped(select_sizes),
    "aten::slice": Reshaped(slice_sizes),
    "aten::narrow": Reshaped(narrow_sizes),
    "aten::repeat": Reshaped(repeat_sizes),
    "aten::index_select": Reshaped(index_select_sizes),
    "aten::cat": joined(stack=False),
    "aten::stack": joined(stack=True),
    "aten::mm": matmul_rule("self", "mat2"),
    "aten::bmm": matmul_rule("self", "mat2"),
    "aten::matmul": matmul_rule("self", "other"),
    "aten::mv": matmul_rule("self", "vec"),
    "aten::dot": matmul_rule("self", "tensor"),
    "aten::addmm": matmul_rule("mat1", "mat2", bias="self"),
    "aten::linear": linear_rule,
    **{f"aten::conv{n}d": Windowed(n, convolution=True) for n in (1, 2, 3)},
    **{f"aten::{kind}_pool{n}d": Windowed(n) for kind in ("max", "avg") for n in (1, 2, 3)},
    **{f"aten::adaptive_{kind}_pool{n}d": adaptive_pool_rule for kind in ("avg", "max") for n in (1, 2, 3)},
    "aten::embedding": embedding_rule,
    "aten::to": conversion_rule,
    "aten::type_as": conversion_rule,
    # gradients (tsjit/frontend/library/gradients.py): pointwise in the gradient and a saved value
    **{f"aten::{n}": Pointwise(operands=("grad_output", "output")) for n in ("tanh_backward", "sigmoid_backward")},
    **{f"aten::{n}": Pointwise(operands=("grad_output", "self"), promoted=("grad_output",)) for n in _POINTWISE_BACKWARD},
    "aten::_grad_sum_to_size": grad_sum_to_size_rule,
}
"""Rules by overload (`aten::max.dim`) or, for every overload, by operator."""


def rule_for(schema: FunctionSchema) -> Rule | None:
    """The rule of an overload: its own entry, else its operator's; None for ops the
    table does not know (their tensor results stay unknown)."""
    return RULES.get(schema.qualified_name) or RULES.get(schema.name)


"""peephole: the local algebraic and idiom rewrites of PyTorch's peephole family
(`PeepholeOptimize`, with its list, alias-sensitive and non-tensor parts).

    %y = aten.add %x, %zero, %one : (!ts.tensor<f32, ...>, !ts.int, !ts.int) -> ...   →  %x
    %n = aten.len %l   (%l = prim.ListConstruct %a, %b, never written)              →  2
    %d = prim.dtype %x : (!ts.tensor<f32, [2]>) -> !ts.int                           →  6
    %b = aten.__is__ %x, %none : (!ts.tensor, !ts.none) -> !ts.bool                  →  false
    %p, %q = prim.ListUnpack (aten.chunk %x, 2, 0)                                   →  prim.ConstantChunk

Each pattern matches one idiom; where several operators share an idiom, a table says
which (`TENSOR_QUERIES`, `ARITHMETIC_IDENTITIES`, `NUMBER_ROUND_TRIPS`). Rewrites that
only hold for some types ask the types: `x + 0` is `x` only when its dtype is known and
no promotion happens (a Bool tensor plus 0 is a Long tensor, an Int tensor divided by 1
a Float one), so most tensor rewrites fire after shape-propagation has refined the types.
Replacing an op's fresh result by its input makes two values one: alias analysis must
show that nothing writes either and that they do not both leave the graph (PyTorch's
`safeToChangeAliasingRelationship`); list idioms need lists nothing writes.

xDSL's `canonicalize` runs ops' own canonicalization patterns; TorchScript's operators
are generated from the schema table and have none, hence this pass.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tsjit.dialects.aten import OperatorOp, schema_of
from tsjit.dialects.prim import (
    ConstantChunkOp,
    ConstantOp,
    IfOp,
    ListConstructOp,
    ListUnpackOp,
    UncheckedCastOp,
    YieldOp,
)
from tsjit.dialects.schema import schemas_for
from tsjit.dialects.types import (
    AnyType,
    BoolType,
    DTYPE_BY_ELEMENT,
    FloatType,
    IntType,
    NoneType,
    NumberType,
    OptionalType,
    TensorType,
    UnionType,
    is_subtype_of,
)
from tsjit.transforms.analysis.alias_analysis import AliasDb
from tsjit.transforms.analysis.shape_rules import UNKNOWN, Operands, constant_value
from tsjit.transforms.forwarding import forward_results
from tsjit.transforms.lower_tuples import ForwardTupleIndex, ForwardTupleUnpack
from tsjit.transforms.pattern_driver import LocalPattern, MostlyLocalPattern
from tsjit.transforms.pass_logging import TsjitPass, operator_roots
from tsjit.transforms.shape_propagation import can_stand_in


def operands_of(op: Operation, overloads: tuple[str, ...] | None = None) -> Operands | None:
    """The op's operands by schema name, when it resolves to a schema (and, if given,
    one of `overloads`, qualified names such as `aten::add.Scalar`). The operator name
    is checked first: resolving an overload costs far more."""
    if not isinstance(op, OperatorOp):
        return None
    if overloads is not None and op.OPERATOR not in _operators(overloads):
        return None
    schema = schema_of(op)
    if schema is None or (overloads is not None and schema.qualified_name not in overloads):
        return None
    return Operands(op, schema, lambda v: v.type)


@functools.cache
def _operators(overloads: tuple[str, ...]) -> frozenset[str]:
    return frozenset(overload.partition(".")[0] for overload in overloads)


def forward(op: Operation, value: SSAValue, rewriter: PatternRewriter) -> bool:
    """Replaces the single-result `op` by `value` when it can stand in for the result;
    False when it cannot."""
    if can_stand_in(value, op.results[0]):
        forward_results(op, [value], rewriter)
        return True
    return False


def refused_for_a_user(value: SSAValue, replaced: SSAValue) -> bool:
    """Whether `can_stand_in` refused `value` for `replaced` only because a user needs
    `replaced`'s exact type: a fact of the uses, outside the op's neighbourhood."""
    return is_subtype_of(value.type, replaced.type)


def replace_by_constant(op: Operation, value: object, rewriter: PatternRewriter) -> None:
    constant = ConstantOp.from_value(value, op.results[0].type)
    constant.location = op.location
    rewriter.replace(op, constant)


# --------------------------------------------------------------------------------------
# Tensor properties the types know
# --------------------------------------------------------------------------------------


def _sizes(t: TensorType, q: Operands) -> object:
    shape = t.shape
    return list(shape) if shape is not None and None not in shape else None


def _size_at(t: TensorType, q: Operands) -> object:
    dim = q.constant("dim")
    shape = t.shape
    if shape is None or not isinstance(dim, int) or not -len(shape) <= dim < len(shape):
        return None
    return shape[dim]


def _dtype_code(t: TensorType, q: Operands) -> object:
    info = t.dtype_info
    return None if info is None else info.code


def _is_floating(t: TensorType, q: Operands) -> object:
    info = t.dtype_info
    return None if info is None else info.is_floating


TENSOR_QUERIES: dict[str, tuple[str, Callable[[TensorType, Operands], object]]] = {
    "aten::size": ("self", _sizes),
    "aten::size.int": ("self", _size_at),
    "aten::dim": ("self", lambda t, q: t.rank),
    "prim::dtype": ("a", _dtype_code),
    "prim::device": ("a", lambda t, q: t.device_name),
    "aten::is_floating_point": ("self", _is_floating),
    "prim::requires_grad": ("a", lambda t, q: t.grad),
}
"""Overload → (tensor argument, what its known type answers, or None)."""

_TENSOR_QUERY_OVERLOADS = tuple(TENSOR_QUERIES)


@dataclass
class FoldTensorQuery(RewritePattern, MostlyLocalPattern):
    """`aten.size`, `aten.dim`, `prim.dtype`, `prim.device`, ... of a tensor whose type
    knows the answer: a constant. A size list must be one nothing writes."""

    roots: ClassVar[frozenset[str]] = operator_roots(TENSOR_QUERIES)

    aliases: AliasDb

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        q = operands_of(op, _TENSOR_QUERY_OVERLOADS)
        if q is None:
            return
        argument, query = TENSOR_QUERIES[q.schema.qualified_name]
        t = q.tensor(argument)
        answer = None if t is None else query(t, q)
        if answer is None:
            return
        if self.aliases.is_mutable(op.results[0]) and (
            self.aliases.has_writers(op.results[0]) or self.aliases.escapes_scope(op.results)
        ):
            return self.declined_for_the_graph()
        replace_by_constant(op, answer, rewriter)


# --------------------------------------------------------------------------------------
# Identities
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Identity:
    """`op(x, c)` is `x` when operand `constant` is the constant `value` (and, for
    tensors, every operand in `also` is the constant in `also_value`)."""

    kept: str
    constant: str
    value: float
    also: str | None = None
    also_value: float = 1
    promotes_integral: bool = False
    """On an integral tensor the op changes the dtype (true division gives floats)."""


ARITHMETIC_IDENTITIES: dict[str, Identity] = {
    "aten::add.Scalar": Identity("self", "other", 0, also="alpha"),
    "aten::sub.Scalar": Identity("self", "other", 0, also="alpha"),
    "aten::mul.Scalar": Identity("self", "other", 1),
    "aten::div.Scalar": Identity("self", "other", 1, promotes_integral=True),
    "aten::add.int": Identity("a", "b", 0),
    "aten::sub.int": Identity("a", "b", 0),
    "aten::mul.int": Identity("a", "b", 1),
    "aten::floordiv.int": Identity("a", "b", 1),
    "aten::add.float": Identity("a", "b", 0),
    "aten::sub.float": Identity("a", "b", 0),
    "aten::mul.float": Identity("a", "b", 1),
    "aten::div.float": Identity("a", "b", 1),
}
"""`x + 0`, `x - 0`, `x * 1`, `x / 1`, `x // 1` by overload. Float scalars keep `x + 0.0`
(it turns -0.0 into 0.0) out: only `x - 0.0`, `x * 1.0` and `x / 1.0` are exact."""

_INEXACT_FLOAT_IDENTITIES = frozenset({"aten::add.float"})


@dataclass
class RemoveArithmeticIdentity(RewritePattern, MostlyLocalPattern):
    """`x + 0`, `x - 0`, `x * 1`, `x / 1` (and `x // 1` on ints) → `x`, when the
    result would have exactly x's type and value."""

    roots: ClassVar[frozenset[str]] = operator_roots(ARITHMETIC_IDENTITIES)

    aliases: AliasDb

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not _may_be_identity(op):
            return  # no identity constant where one would be taken: no overload to resolve
        q = operands_of(op, _IDENTITY_OVERLOADS)
        if q is None or q.schema.qualified_name in _INEXACT_FLOAT_IDENTITIES:
            return
        identity = ARITHMETIC_IDENTITIES[q.schema.qualified_name]
        constant = q.constant(identity.constant)
        if isinstance(constant, bool) or not isinstance(constant, (int, float)) or constant != identity.value:
            return
        if identity.also is not None and q.constant(identity.also) != identity.also_value:
            return
        kept = q.value(identity.kept)
        assert kept is not None
        result = op.results[0]
        if isinstance(result.type, TensorType):
            if not self.keeps_tensor(kept, q, identity):
                return
            if not self.may_merge(kept, result):
                return self.declined_for_the_graph()
        elif kept.type != result.type:
            return
        if not forward(op, kept, rewriter) and refused_for_a_user(kept, result):
            self.declined_for_the_graph()

    def keeps_tensor(self, kept: SSAValue, q: Operands, identity: Identity) -> bool:
        """No promotion: a known floating dtype takes any number; a known integral
        (not Bool) dtype an int, except in true division."""
        t = kept.type
        info = DTYPE_BY_ELEMENT.get(t.dtype) if isinstance(t, TensorType) else None
        if info is None or info.name == "Bool":
            return False
        if info.is_floating or info.is_complex:
            return True
        scalars = (identity.constant,) + ((identity.also,) if identity.also else ())
        return not identity.promotes_integral and all(isinstance(q.value(n).type, IntType) for n in scalars)  # pyright: ignore[reportOptionalMemberAccess]

    def may_merge(self, kept: SSAValue, result: SSAValue) -> bool:
        aliases = self.aliases
        if aliases.has_writers(kept) or aliases.has_writers(result):
            return False
        return not (aliases.escapes_scope([kept]) and aliases.escapes_scope([result]))


_IDENTITY_OVERLOADS = tuple(ARITHMETIC_IDENTITIES)


def _may_be_identity(op: Operation) -> bool:
    """Whether an operand sits where one of the op's overloads in
    `ARITHMETIC_IDENTITIES` takes its identity constant, and is that constant. Decided
    from the op's kind and operands' producers, before resolving the overload: most
    arithmetic is not an identity."""
    positions = _IDENTITY_POSITIONS.get(type(op))
    if positions is None:
        positions = _IDENTITY_POSITIONS[type(op)] = _identity_positions(getattr(type(op), "OPERATOR", ""))
    operands = op._operands  # pyright: ignore[reportPrivateUsage]  (`op.operands` builds a view per call)
    for index, value in positions:
        if index < len(operands):
            if type(operands[index].owner) is ConstantOp:
                number = constant_value(operands[index])  # as `Operands.constant` reads it
                if isinstance(number, (int, float)) and not isinstance(number, bool) and number == value:
                    return True
    return False


_IDENTITY_POSITIONS: dict[type[Operation], tuple[tuple[int, float], ...]] = {}
"""Op class -> its `_identity_positions`."""


def _identity_positions(operator: str) -> tuple[tuple[int, float], ...]:
    """(operand position, identity value) for each way `operator`'s overloads in
    `ARITHMETIC_IDENTITIES` take the constant that makes them an identity."""
    return tuple(
        sorted(
            {
                (index, identity.value)
                for schema in schemas_for(operator)
                if (identity := ARITHMETIC_IDENTITIES.get(schema.qualified_name)) is not None
                and (index := schema.argument_index(identity.constant)) is not None
            }
        )
    )


NUMBER_ROUND_TRIPS: dict[str, type[Attribute]] = {
    "aten::Int.Tensor": IntType,
    "aten::Float.Tensor": FloatType,
    "aten::Bool.Tensor": BoolType,
    "aten::ScalarImplicit": NumberType,
}
"""Tensor → number conversions that give back the number a `prim::NumToTensor` made,
when it is of this type."""


_ROUND_TRIP_OVERLOADS = tuple(NUMBER_ROUND_TRIPS)


class ForwardNumberRoundTrip(RewritePattern, MostlyLocalPattern):
    """`aten.Int(prim.NumToTensor(n))` → `n` for an int `n` (Float, Bool and
    ScalarImplicit alike)."""

    roots: ClassVar[frozenset[str]] = operator_roots(NUMBER_ROUND_TRIPS)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        q = operands_of(op, _ROUND_TRIP_OVERLOADS)
        if q is None:
            return
        tensor = q.value("a")
        producer = tensor.owner if tensor is not None else None
        if producer is None or getattr(type(producer), "OPERATOR", None) != "prim::NumToTensor":
            return
        number = producer.operands[0]  # pyright: ignore[reportAttributeAccessIssue]
        wanted = NUMBER_ROUND_TRIPS[q.schema.qualified_name]
        if not isinstance(number.type, wanted) or not forward(op, number, rewriter):
            self.declined_for_the_graph()  # the producer's operand, which may be replaced


# --------------------------------------------------------------------------------------
# No-op conversions
# --------------------------------------------------------------------------------------


class RemoveNoOpExpand(RewritePattern, MostlyLocalPattern):
    """`aten.expand(x, sizes)` with x's sizes known and equal to `sizes` → x (both are
    the same memory: expand returns a view)."""

    roots: ClassVar[frozenset[str]] = frozenset({"aten.expand"})

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        q = operands_of(op, ("aten::expand",))
        if q is None:
            return
        source = q.tensor("self")
        if source is None or source.shape is None or None in source.shape:
            return
        sizes = q.ints("size")  # read from a list literal's items and uses: beyond the op
        if sizes is None or len(sizes) != len(source.shape):
            return self.declined_for_the_graph()
        if not all(r in (-1, s) for r, s in zip(sizes, source.shape)):
            return self.declined_for_the_graph()
        kept = q.value("self")
        assert kept is not None
        if not forward(op, kept, rewriter) and refused_for_a_user(kept, op.results[0]):
            self.declined_for_the_graph()


class RemoveNoOpConversion(RewritePattern, MostlyLocalPattern):
    """`aten.to` to the dtype (and device) x already has, without a copy, and
    `aten.type_as(x, y)` with equal known dtypes → x: PyTorch returns x itself."""

    roots: ClassVar[frozenset[str]] = frozenset({"aten.to", "aten.type_as"})

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if getattr(type(op), "OPERATOR", None) not in ("aten::to", "aten::type_as"):
            return
        q = operands_of(op)
        if q is None:
            return
        source = q.tensor("self")
        if source is None or source.element_type is None:
            return
        if q.has("copy") and q.constant("copy") is not False:
            return
        if q.has("memory_format") and q.constant("memory_format") is not None:
            return
        kept = q.value("self")
        assert kept is not None
        if self.same_dtype_and_device(q, source) and not forward(op, kept, rewriter):
            if refused_for_a_user(kept, op.results[0]):
                self.declined_for_the_graph()

    @staticmethod
    def same_dtype_and_device(q: Operands, source: TensorType) -> bool:
        target = q.tensor("other")
        if target is not None:
            return target.element_type == source.element_type and target.device_name == source.device_name
        if q.has("device"):
            device = q.constant("device")
            if device is not None and (device is UNKNOWN or device != source.device_name):
                return False
        if not q.has("dtype"):
            return False
        dtype = q.constant("dtype")
        info = source.dtype_info
        return dtype is None or (info is not None and dtype == info.code)


class RemoveDoubleTranspose(RewritePattern, MostlyLocalPattern):
    """`aten.t(aten.t(x))` → x."""

    roots: ClassVar[frozenset[str]] = frozenset({"aten.t"})

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if getattr(type(op), "OPERATOR", None) != "aten::t":
            return
        inner = op.operands[0].owner
        if getattr(type(inner), "OPERATOR", None) != "aten::t":
            return
        if not forward(op, inner.operands[0], rewriter):  # pyright: ignore[reportAttributeAccessIssue]
            self.declined_for_the_graph()  # the producer's operand, which may be replaced


class ForwardUncheckedCast(RewritePattern, MostlyLocalPattern):
    """`prim.unchecked_cast x : T -> U` with x already a U → x (unless a user needs
    exactly U)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: UncheckedCastOp, rewriter: PatternRewriter, /) -> None:
        if not forward(op, op.input, rewriter) and refused_for_a_user(op.input, op.result):
            self.declined_for_the_graph()


# --------------------------------------------------------------------------------------
# None checks
# --------------------------------------------------------------------------------------


def _may_be_none(t: Attribute) -> bool:
    if isinstance(t, (NoneType, OptionalType, AnyType)):
        return True
    return isinstance(t, UnionType) and any(_may_be_none(m) for m in t.types)


class FoldIsNone(RewritePattern, LocalPattern):
    """`x is None` / `x is not None` where x's type decides: both None, or one None
    and the other a type without None."""

    roots: ClassVar[frozenset[str]] = frozenset({"aten.__is__", "aten.__isnot__"})

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        q = operands_of(op, ("aten::__is__", "aten::__isnot__"))
        if q is None:
            return
        a, b = (q.value(n).type for n in ("self", "obj"))  # pyright: ignore[reportOptionalMemberAccess]
        if isinstance(a, NoneType) and isinstance(b, NoneType):
            same = True
        elif (isinstance(a, NoneType) and not _may_be_none(b)) or (isinstance(b, NoneType) and not _may_be_none(a)):
            same = False
        else:
            return
        replace_by_constant(op, same if q.schema.name == "aten::__is__" else not same, rewriter)


# --------------------------------------------------------------------------------------
# List idioms
# --------------------------------------------------------------------------------------


@dataclass
class ListLiteralPattern(RewritePattern, MostlyLocalPattern):
    """A pattern on the lists built by `prim.ListConstruct` that nothing writes."""

    aliases: AliasDb

    def unwritten_literal(self, value: SSAValue) -> ListConstructOp | None:
        """The `prim.ListConstruct` that built `value`, if nothing may write the list
        (a fact of the whole graph, unlike the producer's kind)."""
        owner = value.owner
        if not isinstance(owner, ListConstructOp):
            return None
        if self.aliases.has_writers(value):
            return self.declined_for_the_graph()
        return owner


class FoldLenOfListLiteral(ListLiteralPattern):
    """`aten.len(prim.ListConstruct a, b, c)` → 3."""

    roots: ClassVar[frozenset[str]] = frozenset({"aten.len"})

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        q = operands_of(op, ("aten::len.t",))
        if q is not None and (literal := self.unwritten_literal(q.value("a"))) is not None:  # pyright: ignore[reportArgumentType]
            replace_by_constant(op, len(literal.elements), rewriter)


class ForwardGetItemOfListLiteral(ListLiteralPattern):
    """`aten.__getitem__(prim.ListConstruct a, b, c, 1)` → b (constant in-range index)."""

    roots: ClassVar[frozenset[str]] = frozenset({"aten.__getitem__"})

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        q = operands_of(op, ("aten::__getitem__.t",))
        if q is None or (literal := self.unwritten_literal(q.value("list"))) is None:  # pyright: ignore[reportArgumentType]
            return
        index = q.constant("idx")
        if not isinstance(index, int) or isinstance(index, bool):
            return
        size = len(literal.elements)
        if not -size <= index < size or not forward(op, literal.elements[index], rewriter):
            self.declined_for_the_graph()  # the literal's items, which may be replaced


class ForwardListUnpackOfListLiteral(ListLiteralPattern):
    """`prim.ListUnpack(prim.ListConstruct a, b)` → a, b."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ListUnpackOp, rewriter: PatternRewriter, /) -> None:
        literal = self.unwritten_literal(op.list)
        if literal is None:
            return
        elements = literal.elements
        if len(elements) == len(op.outs) and all(can_stand_in(e, r) for e, r in zip(elements, op.outs)):
            forward_results(op, elements, rewriter)
        else:
            self.declined_for_the_graph()  # the literal's items, which may be replaced


class ChunkUnpackToConstantChunk(RewritePattern, MostlyLocalPattern):
    """`prim.ListUnpack(aten.chunk(x, n, d))` with constant n and d, unpacked into n
    values and used nowhere else → `prim.ConstantChunk[chunks = n, dim = d] x`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ListUnpackOp, rewriter: PatternRewriter, /) -> None:
        chunk = op.list.owner
        if getattr(type(chunk), "OPERATOR", None) != "aten::chunk":
            return
        # Beyond this op's neighbourhood: the chunk's operands (which decide its
        # overload and sizes), the list's other uses.
        q = operands_of(chunk, ("aten::chunk",))  # pyright: ignore[reportArgumentType]
        if q is None or not op.list.has_one_use():
            return self.declined_for_the_graph()
        chunks, dim = q.constant("chunks"), q.constant("dim")
        if not isinstance(chunks, int) or not isinstance(dim, int) or chunks != len(op.outs):
            return self.declined_for_the_graph()
        source = q.value("self")
        assert source is not None and isinstance(chunk, Operation)
        replacement = ConstantChunkOp(source, chunks, dim, op.outs.types)
        replacement.location = op.location
        rewriter.replace(op, replacement)
        rewriter.erase(chunk)


# --------------------------------------------------------------------------------------
# Control flow
# --------------------------------------------------------------------------------------


class ForwardConditionOutput(RewritePattern, MostlyLocalPattern):
    """An If output that is `true` from the then-branch and `false` from the else-branch
    is the condition itself (the `x and True` / `x or False` of short circuits)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IfOp, rewriter: PatternRewriter, /) -> None:
        # The op's fields, read directly: IRDL's accessors (`op.then_region`, `op.outs`,
        # `values`) cost more than the rest of the match, which most Ifs fail.
        then_region, else_region = op.regions
        then_yield = then_region._first_block._last_op  # pyright: ignore
        else_yield = else_region._first_block._last_op  # pyright: ignore
        assert type(then_yield) is YieldOp and type(else_yield) is YieldOp
        then_values, else_values = then_yield._operands, else_yield._operands  # pyright: ignore[reportPrivateUsage]
        for result, a, b in zip(op.results, then_values, else_values):
            if _constant_bool(a) is True and _constant_bool(b) is False:
                if result.uses:
                    rewriter.replace_all_uses_with(result, op.cond)
                else:
                    self.declined_for_the_graph()  # uses may come


def _constant_bool(value: SSAValue) -> bool | None:
    owner = value.owner
    if type(owner) is ConstantOp and isinstance(value.type, BoolType):
        return owner.python_value  # pyright: ignore[reportReturnType]
    return None


def peephole_patterns(aliases: AliasDb) -> list[RewritePattern]:
    """The peephole pass's patterns for one graph, `aliases` its alias analysis."""
    return [
        FoldTensorQuery(aliases),
        RemoveArithmeticIdentity(aliases),
        ForwardNumberRoundTrip(),
        RemoveNoOpExpand(),
        RemoveNoOpConversion(),
        RemoveDoubleTranspose(),
        ForwardUncheckedCast(),
        FoldIsNone(),
        FoldLenOfListLiteral(aliases),
        ForwardGetItemOfListLiteral(aliases),
        ForwardListUnpackOfListLiteral(aliases),
        ChunkUnpackToConstantChunk(),
        ForwardTupleUnpack(),
        ForwardTupleIndex(),
        ForwardConditionOutput(),
    ]


@dataclass(frozen=True)
class PeepholePass(TsjitPass):
    """PyTorch's peephole family: algebraic identities, no-op conversions, type-decided
    queries and None checks, list and tuple idioms. Every pattern is local (see
    `MostlyLocalPattern`), so the driver makes no sweep that cannot change anything."""

    name = "peephole"

    def run(self, ctx: Context, op: ModuleOp) -> None:
        for graph in self.graphs(op):
            self.rewrite(graph, peephole_patterns(AliasDb(graph, lazy=True)))

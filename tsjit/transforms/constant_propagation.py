"""constant-propagation: ops whose inputs are all constants run at compile time and
become constants, after PyTorch's `ConstantPropagation`.

    %a = prim.Constant 2 : !ts.int                 %c = prim.Constant 5 : !ts.int
    %b = prim.Constant 3 : !ts.int           →
    %c = aten.add %a, %b : (...) -> !ts.int

An op folds when every operand comes from a `prim.Constant` and it is safe to run once
for all executions: it has a kernel (`tsjit.runtime.kernels`, by the overload
`schema_of` resolves) or is a container op (tuples; lists that nothing writes or sees
from outside), it has no side effects and is deterministic (`dropout` in training, `rand`
are not), and — following PyTorch's rule with alias analysis — nothing writes the memory
of its inputs or outputs. Its results become `prim.Constant`s of the result types: tensors
too, up to `max_tensor_elements` elements. An error the kernel raises leaves the op, so
the error still happens at run time.

`prim.isinstance` of a constant folds by the constant's (exact) type. Control flow folds
as in PyTorch: an If on a constant condition is replaced by the
branch taken; If outputs both branches yield alike (the same value, or equal constants)
leave the If; a Loop that cannot start (a constant trip count of at most zero or a false
initial condition) is replaced by its initial values, and carried values a Loop passes
through unchanged leave it.

xDSL's `canonicalize` folds through the ops' `fold` hooks; TorchScript's thousands of
operators have none, but they have kernels, hence this pass.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, NoneAttr
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tsjit.dialects.aten import OperatorOp, schema_of
from tsjit.dialects.ir_surgery import drop_operands, drop_unused_results
from tsjit.dialects.op_building import move_ops_before
from tsjit.dialects.prim import (
    ConstantError,
    ConstantOp,
    DictConstructOp,
    IfOp,
    IsInstanceOp,
    ListConstructOp,
    ListUnpackOp,
    LoopOp,
    TupleConstructOp,
    TupleIndexOp,
    TupleSliceOp,
    TupleUnpackOp,
    UncheckedCastOp,
    YieldOp,
    constant_attr,
)
from tsjit.dialects.constant_values import constant_python_value
from tsjit.dialects.schema import FunctionSchema, schemas_for
from tsjit.dialects.traversal import region_block
from tsjit.dialects.types import BoolType, DeviceType, DictType, ListType, TensorType, is_subtype_of
from tsjit.transforms.analysis.alias_analysis import AliasDb, is_mutable_type
from tsjit.transforms.constant_pooling import constant_key
from tsjit.transforms.pass_logging import TsjitPass
from tsjit.transforms.forwarding import erase, forward_results
from tsjit.transforms.pattern_driver import (
    LocalPattern,
    MostlyLocalPattern,
    ProducedBy,
    insert_ops_before,
    replace_uses,
)
from tsjit.transforms.shape_propagation import stand_in

MAX_TENSOR_ELEMENTS = 4096
"""Largest tensor folded into a constant by default: bigger ones cost more in the IR
than computing them once per run."""


class Unfoldable(Exception):
    """Raised by an evaluator when this op, with these constants, must not fold."""


# --------------------------------------------------------------------------------------
# Evaluating ops on constants
# --------------------------------------------------------------------------------------


def _is(a: object, b: object) -> bool:
    """`aten::__is__` folds only against None: other constants are distinct objects
    at run time, whatever their values."""
    if a is not None and b is not None:
        raise Unfoldable
    return a is b


def _tuple_construct(op: Operation, *items: Any) -> tuple[Any, ...]:
    """Named tuples stay constructed: a constant would lose their class and field names."""
    assert isinstance(op, TupleConstructOp)
    if not isinstance(op.result.type.qualname, NoneAttr):
        raise Unfoldable
    return items


def _list_unpack(op: Operation, items: list[Any]) -> tuple[Any, ...]:
    if len(items) != len(op.results):
        raise Unfoldable  # the run-time error is the op's to raise
    return tuple(items)


def _tuple_slice(op: Operation, items: tuple[Any, ...]) -> tuple[Any, ...]:
    assert isinstance(op, TupleSliceOp)
    return items[op.begin.value.data : op.end.value.data]


Evaluator = Callable[..., Any]

OP_EVALUATORS: dict[type[Operation], Callable[..., Any]] = {
    TupleConstructOp: _tuple_construct,
    TupleUnpackOp: lambda op, items: tuple(items),
    TupleIndexOp: lambda op, items, index: items[index],
    TupleSliceOp: _tuple_slice,
    ListConstructOp: lambda op, *items: list(items),
    ListUnpackOp: _list_unpack,
    UncheckedCastOp: lambda op, value: value,
}
"""Ops without a schema that fold, as `evaluate(op, *operand_values) -> results` (a
tuple for several results)."""

OPERATOR_EVALUATORS: dict[str, Evaluator] = {
    "aten::__is__": _is,
    "aten::__isnot__": lambda a, b: not _is(a, b),
}
"""Operators whose folding differs from running their kernel."""

NEVER_FOLDED = frozenset({"aten::dequantize", "prim::profile", "prim::profile_ivalue", "prim::awaitable"})
"""PyTorch's skip list (beyond control flow, constants and side effects)."""


def evaluator_of(op: Operation) -> Evaluator | None:
    """What computes `op` at compile time: a bound evaluator taking the operand values,
    or None when the op does not fold whatever its operands."""
    if (evaluate := OP_EVALUATORS.get(type(op))) is not None:
        return lambda *values: evaluate(op, *values)
    if not isinstance(op, OperatorOp):
        return None
    return operator_evaluator(schema_of(op))


def operator_evaluator(schema: FunctionSchema | None) -> Evaluator | None:
    """What computes an operator overload at compile time (see `evaluator_of`)."""
    if schema is None or schema.is_vararg or schema.is_varret or schema.name in NEVER_FOLDED:
        return None
    if (evaluate := OPERATOR_EVALUATORS.get(schema.name)) is not None:
        return evaluate
    from tsjit.runtime.kernels import lookup

    return lookup(schema.qualified_name)


def may_fold(op: Operation) -> bool:
    """Whether ops of `op`'s kind can fold at all: some overload of its operator has
    what `evaluator_of` asks. Most ops of a graph cannot, whatever their operands."""
    if type(op) in OP_EVALUATORS:
        return True
    operator = getattr(type(op), "OPERATOR", None)
    return operator is not None and _operator_may_fold(operator)


def _operator_may_fold(operator: str) -> bool:
    """Not cached across passes: kernels may be registered at any time."""
    from tsjit.runtime.kernels import lookup

    return any(
        not schema.is_vararg
        and not schema.is_varret
        and schema.name not in NEVER_FOLDED
        and (schema.name in OPERATOR_EVALUATORS or lookup(schema.qualified_name) is not None)
        for schema in schemas_for(operator)
    )


def constant_value(op: ConstantOp) -> object:
    """`op.python_value`, kept on the op for immutable scalars (ints, floats, bools,
    strings, None), whose reading costs more than the folding that asks for it; reused
    while the op's value and type are those same objects."""
    (result,) = op.results  # unpacked: indexing `SSAValues` is a Python call
    value_attr, result_type = op.properties.get("value"), result.type
    cached = op.__dict__.get("_tsjit_constant_value")
    if cached is not None and cached[0] is value_attr and cached[1] is result_type:
        return cached[2]
    value = constant_python_value(value_attr, result_type)
    if value is None or type(value) in _SCALARS:
        op.__dict__["_tsjit_constant_value"] = (value_attr, result_type, value)
    return value


_SCALARS = frozenset({int, float, bool, str})


def runtime_value(op: ConstantOp) -> object:
    """A constant as the runtime passes it to kernels."""
    value = constant_value(op)
    if type(value) is str and isinstance(op.results[0].type, DeviceType):  # devices are strings
        from tsjit.runtime.values import Device

        return Device.parse(value)  # pyright: ignore[reportArgumentType]
    return value


def constant_operands(op: Operation) -> list[ConstantOp] | None:
    """The constants `op`'s operands are, or None as soon as one is not (exact types:
    `isinstance` against xDSL's ABC op classes costs more, and no class derives from
    `ConstantOp`)."""
    constants: list[ConstantOp] = []
    for value in op._operands:  # pyright: ignore[reportPrivateUsage]
        owner = value.owner
        if type(owner) is not ConstantOp:
            return None
        constants.append(owner)  # pyright: ignore[reportArgumentType]
    return constants


def run_on_constants(evaluate: Evaluator, constants: Sequence[ConstantOp], results: int) -> tuple[Any, ...] | None:
    """The op's results on these constants; None when it raises (then it raises at run
    time too, and must stay)."""
    try:
        with np.errstate(all="ignore"):
            value = evaluate(*(runtime_value(c) for c in constants))
    except Exception:  # Unfoldable, a TorchScriptError, or a kernel failing otherwise
        return None
    return (value,) if results == 1 else tuple(value)


def materialize(value: object, type: Attribute, max_tensor_elements: int) -> ConstantOp | None:
    """A `prim.Constant` of `type` holding a run-time value; None when the value has no
    constant form (objects, dicts, big tensors, tensors requiring grad)."""
    if isinstance(type, DictType) or (isinstance(type, TensorType) and type.grad):
        return None
    try:
        plain = _plain(value, max_tensor_elements)
        return ConstantOp(constant_attr(plain, type), type)
    except (ConstantError, _TooLarge):
        return None


class _TooLarge(Exception):
    pass


def _plain(value: object, max_tensor_elements: int) -> object:
    """Run-time values as `constant_attr` takes them: numpy scalars as Python numbers,
    devices as strings."""
    if value is None or type(value) in _SCALARS:
        return value
    from tsjit.runtime.values import Device

    if isinstance(value, np.ndarray):
        if value.size > max_tensor_elements:
            raise _TooLarge
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Device):
        return str(value)
    if isinstance(value, (list, tuple)):
        items = [_plain(v, max_tensor_elements) for v in value]
        return items if isinstance(value, list) else tuple(items)
    return value


# --------------------------------------------------------------------------------------
# Patterns
# --------------------------------------------------------------------------------------


@dataclass
class FoldConstantOp(RewritePattern, MostlyLocalPattern):
    """An op whose operands are all constants, safe to run once: its results become
    constants (PyTorch's `propagateNode`)."""

    operands_produced_by: ClassVar[ProducedBy] = ProducedBy(ConstantOp)

    aliases: AliasDb
    max_tensor_elements: int = MAX_TENSOR_ELEMENTS
    _evaluators: dict[int, tuple[FunctionSchema, Evaluator | None]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    """`operator_evaluator` by overload (by identity: the schema table's objects), for
    this pattern's run: kernels may be registered between runs."""
    _type_kinds: dict[int, tuple[Attribute, bool, bool]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    """id(type) -> (type, mutable, list or dict), for `is_safe`: a graph has few types."""

    @staticmethod
    def matches_kind(op: Operation) -> bool:
        return may_fold(op)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if type(op) is ConstantOp or op.regions or not op.results:
            return
        constants = constant_operands(op)
        if constants is None:
            return
        if not self.is_safe(op):
            return self.declined_for_the_graph()  # alias facts: writers anywhere
        evaluate = self.evaluator_of(op)
        if evaluate is None:
            return
        values = run_on_constants(evaluate, constants, len(op.results))
        if values is None or len(values) != len(op.results):
            return
        folded: list[ConstantOp] = []
        for value, result in zip(values, op.results):
            constant = materialize(value, result.type, self.max_tensor_elements)
            if constant is None:
                return
            constant.location = op.location
            folded.append(constant)
        insert_ops_before(rewriter, folded, op)
        values = [value for constant in folded for value in constant.results]  # one each
        for result, value in zip(op.results, values):
            self.aliases.replace_value(result, value)
        self.aliases.forget_op(op)
        forward_results(op, values, rewriter)

    def evaluator_of(self, op: Operation) -> Evaluator | None:
        """`evaluator_of(op)`, an operator's looked up once per overload."""
        if not isinstance(op, OperatorOp):
            return evaluator_of(op)
        schema = schema_of(op)
        known = self._evaluators.get(id(schema))
        if known is None:
            known = self._evaluators[id(schema)] = (schema, operator_evaluator(schema))  # pyright: ignore[reportArgumentType]
        return known[1]

    def is_safe(self, op: Operation) -> bool:
        """PyTorch's `supportedNode`: no effects, deterministic, nothing written in the
        memory of the inputs or outputs; and mutable containers must not leave the
        graph, where each call would share the one constant."""
        aliases = self.aliases
        if aliases.has_side_effects(op) or aliases.is_nondeterministic(op):
            return False
        kinds = self._type_kinds
        containers: list[SSAValue] = []
        for values, results in ((op._operands, False), (op.results, True)):  # pyright: ignore[reportPrivateUsage]
            for value in values:
                t = value.type
                kind = kinds.get(id(t))
                if kind is None or kind[0] is not t:
                    kind = kinds[id(t)] = (t, is_mutable_type(t), isinstance(t, (ListType, DictType)))
                if kind[1] and aliases.has_writers(value):  # immutable: never written
                    return False
                if results and kind[2]:
                    containers.append(value)
        return not containers or not aliases.escapes_scope(containers)


@dataclass
class FoldConstantIf(RewritePattern, LocalPattern):
    """`prim.If` on a constant condition → the ops of the branch taken.

    Rewritten in place (If fields by position: the condition is operand 0, the
    branches regions 0 and 1, the outputs all results), with the events of xDSL's
    `erase` of the branch's terminator, `inline_block` and `replace` of the If."""

    aliases: AliasDb

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IfOp, rewriter: PatternRewriter, /) -> None:
        condition = op._operands[0].owner  # pyright: ignore[reportPrivateUsage]
        if type(condition) is not ConstantOp:
            return
        block = region_block(op, 0 if constant_value(condition) else 1)
        terminator = _yield(block)
        values = list(terminator._operands)  # pyright: ignore[reportPrivateUsage]
        self.aliases.forget_op(op)
        erase(terminator, rewriter)
        if (first := block.first_op) is not None:
            move_ops_before(first, block.last_op, op)  # pyright: ignore[reportArgumentType]
        forward_results(op, [stand_in(v, r, rewriter) for v, r in zip(values, op.results, strict=True)], rewriter)


CONTAINERS = (ListConstructOp, DictConstructOp, TupleConstructOp)


class FoldIsInstanceOfConstant(RewritePattern):
    """`prim.isinstance` of a constant, or of a container of constants (which PyTorch
    makes a constant), seen through the casts that widened it to a Union or Any for a
    call: a constant's type is exact, so it decides."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IsInstanceOp, rewriter: PatternRewriter, /) -> None:
        source = op.input
        while isinstance(source.owner, UncheckedCastOp):
            source = source.owner.input
        owner = source.owner
        if isinstance(owner, ConstantOp) or isinstance(owner, CONTAINERS) and constant_operands(owner) is not None:
            decided = any(is_subtype_of(source.type, t) for t in op.types)
            rewriter.replace(op, ConstantOp.from_value(decided, BoolType()))


@dataclass
class RemoveUniformIfOutputs(RewritePattern, LocalPattern):
    """If outputs that both branches yield alike — the same value, or equal constants —
    are that value, not outputs (PyTorch's `removeExtraIfOutputs`)."""

    aliases: AliasDb

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IfOp, rewriter: PatternRewriter, /) -> None:
        then_yield, else_yield = _yield(region_block(op, 0)), _yield(region_block(op, 1))
        replacements: dict[int, SSAValue] = {}
        for i, (a, b) in enumerate(zip(then_yield._operands, else_yield._operands, strict=True)):  # pyright: ignore[reportPrivateUsage]
            if a is b:
                replacements[i] = stand_in(a, op.outs[i], rewriter)
            elif _equal_constants(a, b) and not self.aliases.is_mutable(op.outs[i]):
                constant = a.owner
                assert isinstance(constant, ConstantOp)
                if op.is_ancestor(constant):
                    constant = rewriter.insert(constant.clone(), InsertPoint.before(op))
                replacements[i] = constant.result
        if not replacements:
            return
        kept = [i for i in range(len(op.outs)) if i not in replacements]
        simpler = IfOp(
            op.cond,
            [op.outs[i].type for i in kept],
            rewriter.move_region_contents_to_new_regions(op.then_region),
            rewriter.move_region_contents_to_new_regions(op.else_region),
        )
        simpler.attributes.update(op.attributes)
        for terminator in (then_yield, else_yield):
            rewriter.replace(terminator, YieldOp(*(terminator.values[i] for i in kept)))
        rewriter.insert(simpler, InsertPoint.before(op))
        results = dict(zip(kept, simpler.results))
        for i, out in enumerate(op.outs):
            self.aliases.replace_value(out, replacements[i] if i in replacements else results[i])
        self.aliases.forget_op(op)
        rewriter.replace(op, [], [replacements[i] if i in replacements else results[i] for i in range(len(op.outs))])


@dataclass
class RemoveNeverRunLoop(RewritePattern, LocalPattern):
    """A Loop with a constant trip count of at most zero, or a constant false initial
    condition, is its initial values (PyTorch's `loopWillNotRun`)."""

    aliases: AliasDb

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LoopOp, rewriter: PatternRewriter, /) -> None:
        operands = op._operands  # pyright: ignore[reportPrivateUsage]  # trip count, condition, carried values
        trips, condition = operands[0].owner, operands[1].owner
        never = (type(trips) is ConstantOp and constant_value(trips) <= 0) or (  # pyright: ignore[reportOperatorIssue, reportArgumentType]
            type(condition) is ConstantOp and constant_value(condition) is False  # pyright: ignore[reportArgumentType]
        )
        if never:
            self.aliases.forget_op(op)
            forward_results(op, [stand_in(v, r, rewriter) for v, r in zip(operands[2:], op.results, strict=True)], rewriter)


@dataclass
class RemoveLoopInvariantCarried(RewritePattern, LocalPattern):
    """Carried values the body yields back unchanged are their initial values, not
    carried values (PyTorch's `removeExtraLoopOutputs`)."""

    aliases: AliasDb

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LoopOp, rewriter: PatternRewriter, /) -> None:
        block = region_block(op, 0)
        terminator = _yield(block)
        invariant = [
            i
            for i, (argument, yielded) in enumerate(zip(block._args[1:], terminator._operands[1:]))  # pyright: ignore[reportPrivateUsage]
            if argument is yielded
        ]
        if not invariant:
            return
        # Rewritten in place (cheaper than a new Loop), with the worklist events of
        # replacing the op by a simpler one: the op, then its users, then the producers
        # of the dropped initial values that the op alone used.
        # (Loop fields by position: operands are the trip count, the condition and the
        # carried values; results the outputs; region 0 the body.)
        drop_operands(terminator, [1 + i for i in invariant])
        rewriter.notify_op_modified(terminator)
        outs = op.results
        initial = {i: _initial_value(op, i, rewriter) for i in invariant}
        for i in reversed(invariant):
            argument = block._args[1 + i]  # pyright: ignore[reportPrivateUsage]
            replace_uses(rewriter, argument, initial[i])
            _erase_unused_argument(rewriter, argument)
        rewriter.notify_op_modified(op)
        rewriter.handle_operation_replacement(op, [initial.get(i, out) for i, out in enumerate(outs)])
        for i in invariant:
            out, value = outs[i], initial[i]
            self.aliases.replace_value(out, value)
            replace_uses(rewriter, out, value, report_users=False)  # reported by the replacement
            if not value.name_hint:
                value.name_hint = out.name_hint
        dropped = [2 + i for i in invariant]  # after the trip count and the condition
        operands = op._operands  # pyright: ignore[reportPrivateUsage]
        for index in dropped:
            value = operands[index]
            if value.has_one_use() and isinstance(owner := value.owner, Operation):
                rewriter.notify_op_modified(owner)
        drop_operands(op, dropped)
        drop_unused_results(op, invariant)


def _initial_value(op: LoopOp, i: int, rewriter: PatternRewriter) -> SSAValue:
    """Carried value i's initial value, as the loop result and body argument it
    replaces are typed (a narrower one is cast: users inside or after may need it)."""
    initial, wanted = op._operands[2 + i], op.results[i].type  # pyright: ignore[reportPrivateUsage]
    if initial.type is wanted or initial.type == wanted:
        return initial
    return rewriter.insert(UncheckedCastOp(initial, wanted)).result


def _erase_unused_argument(rewriter: PatternRewriter, argument: BlockArgument) -> None:
    """`rewriter.erase_block_argument(argument)` for an argument without uses: the
    arguments after it move down one place (no event: xDSL reports none)."""
    rewriter.has_done_action = True
    block = argument.block
    args = block._args  # pyright: ignore[reportPrivateUsage]
    for later in args[argument.index + 1 :]:
        later.index -= 1
    assert argument.first_use is None, "erasing a used argument"
    block._args = args[: argument.index] + args[argument.index + 1 :]  # pyright: ignore[reportPrivateUsage]


def _yield(block: Block) -> YieldOp:
    terminator = block.last_op
    assert isinstance(terminator, YieldOp)
    return terminator


def _equal_constants(a: SSAValue, b: SSAValue) -> bool:
    """Constants of one type with one value (PyTorch's EqualNode on constants), floats
    compared by bit pattern."""
    first, second = a.owner, b.owner
    return isinstance(first, ConstantOp) and isinstance(second, ConstantOp) and constant_key(first) == constant_key(second)


@dataclass(frozen=True)
class ConstantPropagationPass(TsjitPass):
    """Folds ops on constants, constant Ifs and Loops that never run (PyTorch's
    `ConstantPropagation`)."""

    name = "constant-propagation"

    max_tensor_elements: int = MAX_TENSOR_ELEMENTS
    """Largest tensor result (in elements) folded into a constant."""

    def run(self, ctx: Context, op: ModuleOp) -> None:
        for graph in self.graphs(op):
            aliases = AliasDb(graph, lazy=True)
            self.rewrite(
                graph,
                [
                    FoldConstantIf(aliases),
                    RemoveNeverRunLoop(aliases),
                    RemoveUniformIfOutputs(aliases),
                    RemoveLoopInvariantCarried(aliases),
                    FoldConstantOp(aliases, self.max_tensor_elements),
                    FoldIsInstanceOfConstant(),
                ],
            )

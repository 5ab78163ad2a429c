"""lower-tuples: tuples built and taken apart in the same graph disappear (PyTorch's
`LowerSimpleTuples`, plus the If/Loop flattening of its `LowerAllTuples`).

    %t = prim.TupleConstruct %a, %b ...        %x = prim.TupleIndex %t[%1] ...   →  uses of %b
    %p, %q = prim.TupleUnpack %t ...           →  uses of %a, %b

Tuple-typed If outputs whose branches each yield a `prim.TupleConstruct` used nowhere
else become one output per element; a tuple carried by a Loop, built by a
`prim.TupleConstruct` on entry and at the end of each trip, becomes one carried value
per element. A `prim.TupleConstruct` of the new values replaces the old value, so the
unpacks after it fold in turn. Tuples that cross the graph boundary (inputs, returns,
calls) keep their shape: a graph's signature is a contract with its callers.

Tuples are immutable values (`prim.TupleConstruct` is Pure), so these rewrites need no
alias analysis; the tuple ops they orphan are erased on the spot.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tsjit.dialects.prim import (
    ConstantOp,
    IfOp,
    LoopOp,
    TupleConstructOp,
    TupleIndexOp,
    TupleSliceOp,
    TupleUnpackOp,
    YieldOp,
)
from tsjit.dialects.traversal import child_blocks
from tsjit.dialects.types import TupleType
from tsjit.transforms.forwarding import erase_if_unused, forward_results
from tsjit.transforms.pass_logging import TsjitPass
from tsjit.transforms.pattern_driver import MostlyLocalPattern
from tsjit.transforms.shape_propagation import can_stand_in


class ForwardTupleUnpack(RewritePattern, MostlyLocalPattern):
    """`prim.TupleUnpack (prim.TupleConstruct a, b)` → `a, b`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TupleUnpackOp, rewriter: PatternRewriter, /) -> None:
        # The op's fields, read directly: IRDL's accessors (`op.tuple`, `op.outs`) cost
        # more than the rest of the match.
        construct = op._operands[0].owner  # pyright: ignore[reportPrivateUsage]
        if type(construct) is not TupleConstructOp:
            return
        elements = construct._operands  # pyright: ignore[reportPrivateUsage]
        if all(can_stand_in(e, r) for e, r in zip(elements, op.results, strict=True)):
            forward_results(op, elements, rewriter)
            erase_if_unused(construct, rewriter)
        else:
            self.declined_for_the_graph()  # the construct's operands, which may be replaced


class ForwardTupleIndex(RewritePattern, MostlyLocalPattern):
    """`prim.TupleIndex (prim.TupleConstruct a, b)[c]` with a constant `c` → element c
    (the verifier has checked that a constant index is in range)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TupleIndexOp, rewriter: PatternRewriter, /) -> None:
        tuple_value, index_value = op._operands  # pyright: ignore[reportPrivateUsage]
        construct, index = tuple_value.owner, index_value.owner
        if type(construct) is not TupleConstructOp or type(index) is not ConstantOp:
            return
        assert isinstance(index.value, IntegerAttr)
        element = construct._operands[index.value.value.data]  # pyright: ignore[reportPrivateUsage]
        if can_stand_in(element, op.results[0]):
            forward_results(op, [element], rewriter)
            erase_if_unused(construct, rewriter)
        else:
            self.declined_for_the_graph()  # the construct's operands, which may be replaced


class ForwardTupleSlice(RewritePattern):
    """`prim.TupleSlice[begin, end] (prim.TupleConstruct ...)` → a construct of the slice."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TupleSliceOp, rewriter: PatternRewriter, /) -> None:
        construct = op.tuple.owner
        if not isinstance(construct, TupleConstructOp):
            return
        elements = construct.elements[op.begin.value.data : op.end.value.data]
        rewriter.replace(op, TupleConstructOp(elements, op.result.type))
        erase_if_unused(construct, rewriter)


class FlattenTupleIfOutput(RewritePattern):
    """A tuple output of a `prim.If` whose branches both yield a `prim.TupleConstruct`
    that nothing else uses: one output per element, the tuple rebuilt after the If."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IfOp, rewriter: PatternRewriter, /) -> None:
        yields = [_terminator(op.then_region.block), _terminator(op.else_region.block)]
        for position, result in enumerate(op.outs):
            if not isinstance(result.type, TupleType):
                continue
            constructs = [_only_use_construct(y.values[position]) for y in yields]
            if any(c is None for c in constructs):
                continue
            flat = IfOp(
                op.cond,
                _expand(op.outs.types, position, result.type.elements),
                rewriter.move_region_contents_to_new_regions(op.then_region),
                rewriter.move_region_contents_to_new_regions(op.else_region),
            )
            flat.attributes.update(op.attributes)
            rewriter.insert(flat, InsertPoint.before(op))
            for yield_op, construct in zip(yields, constructs, strict=True):
                assert construct is not None
                _replace_yield(yield_op, position, construct, rewriter)
            rewriter.replace(op, [], _regroup(flat.results, position, result.type, op, rewriter))
            return


class FlattenTupleLoopCarried(RewritePattern):
    """A tuple carried by a `prim.Loop`, a `prim.TupleConstruct` on entry and yielded
    by one at the end of each trip: one carried value per element."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LoopOp, rewriter: PatternRewriter, /) -> None:
        block = op.body.block
        terminator = _terminator(block)
        for position, result in enumerate(op.outs):
            tuple_type = result.type
            initial = op.carried[position].owner
            yielded = _only_use_construct(terminator.values[position + 1])
            if not isinstance(tuple_type, TupleType) or not isinstance(initial, TupleConstructOp) or yielded is None:
                continue
            elements = tuple_type.elements
            carried = [*op.carried[:position], *initial.elements, *op.carried[position + 1 :]]
            body = rewriter.move_region_contents_to_new_regions(op.body)
            flat = LoopOp(op.max_trip_count, op.initial_condition, carried, _expand(op.outs.types, position, elements), body)
            flat.attributes.update(op.attributes)
            rewriter.insert(flat, InsertPoint.before(op))
            argument = block.args[position + 1]
            arguments = [rewriter.insert_block_argument(block, position + 2 + i, t) for i, t in enumerate(elements)]
            for new, name in zip(arguments, _element_names(argument, len(elements))):
                new.name_hint = name
            rebuilt = rewriter.insert(TupleConstructOp(arguments, tuple_type), InsertPoint.at_start(block))
            rewriter.replace_all_uses_with(argument, rebuilt.result)
            rewriter.erase_block_argument(argument)
            _replace_yield(terminator, position + 1, yielded, rewriter)
            rewriter.replace(op, [], _regroup(flat.results, position, tuple_type, op, rewriter))
            erase_if_unused(initial, rewriter)
            return


class EraseUnusedTupleOp(RewritePattern):
    """Tuple ops are Pure: an unused one is dead."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, (TupleConstructOp, TupleUnpackOp, TupleIndexOp, TupleSliceOp)):
            erase_if_unused(op, rewriter)


def _terminator(block: Block) -> YieldOp:
    terminator = block.last_op
    assert isinstance(terminator, YieldOp)
    return terminator


def _only_use_construct(value: SSAValue) -> TupleConstructOp | None:
    """The `prim.TupleConstruct` defining `value` when this is its single use."""
    owner = value.owner
    return owner if isinstance(owner, TupleConstructOp) and value.has_one_use() else None


def _expand(types: Sequence[Attribute], position: int, elements: Sequence[Attribute]) -> list[Attribute]:
    return [*types[:position], *elements, *types[position + 1 :]]


def _replace_yield(yield_op: YieldOp, position: int, construct: TupleConstructOp, rewriter: PatternRewriter) -> None:
    values = list(yield_op.values)
    rewriter.replace(yield_op, YieldOp(*values[:position], *construct.elements, *values[position + 1 :]))
    rewriter.erase(construct)


def _regroup(
    results: Sequence[SSAValue], position: int, tuple_type: TupleType, before: Operation, rewriter: PatternRewriter
) -> list[SSAValue]:
    """The old op's results from the flattened op's: the elements at `position` are
    packed again by a `prim.TupleConstruct` inserted after the flattened op."""
    size = len(tuple_type.elements)
    elements = results[position : position + size]
    for element, name in zip(elements, _element_names(before.results[position], size)):
        element.name_hint = name
    rebuilt = TupleConstructOp(elements, tuple_type)
    rebuilt.location = before.location
    rewriter.insert(rebuilt, InsertPoint.before(before))
    return [*results[:position], rebuilt.result, *results[position + size :]]


def _element_names(value: SSAValue, count: int) -> list[str | None]:
    hint = value.name_hint
    return [None if hint is None else f"{hint}.{i}" for i in range(count)]


@dataclass(frozen=True)
class LowerTuplesPass(TsjitPass):
    """Forwards tuple elements to their users and flattens tuples through If and Loop."""

    name = "lower-tuples"

    def run(self, ctx: Context, op: ModuleOp) -> None:
        if not _has_tuple_work(op):
            return  # one walk instead of the pattern driver (most graphs' tuples are only returned)
        self.rewrite(
            op,
            [
                ForwardTupleUnpack(),
                ForwardTupleIndex(),
                ForwardTupleSlice(),
                FlattenTupleIfOutput(),
                FlattenTupleLoopCarried(),
                EraseUnusedTupleOp(),
            ],
        )


_TUPLE_READS = frozenset({TupleUnpackOp, TupleIndexOp, TupleSliceOp})


def _has_tuple_work(op: Operation) -> bool:
    """Whether a pattern of this pass may act on the ops nested in `op`: one reads a
    tuple, is an unused `prim.TupleConstruct`, or is an If or Loop with a tuple result.
    Other tuples (inputs, returns, calls' results) stay, so the driver has nothing to
    do. One walk that stops at the first find; compares exact types: `isinstance`
    against xDSL's ABC classes costs several times more, and no op class subclasses
    these."""
    for block in child_blocks(op):
        inner = block._first_op  # pyright: ignore[reportPrivateUsage]
        while inner is not None:
            kind = type(inner)
            if kind in _TUPLE_READS:
                return True
            if kind is TupleConstructOp:
                if inner.results[0].first_use is None:
                    return True
            elif inner.regions:
                if kind is IfOp or kind is LoopOp:
                    for result in inner.results:
                        if type(result.type) is TupleType:
                            return True
                if _has_tuple_work(inner):
                    return True
            inner = inner._next_op  # pyright: ignore[reportPrivateUsage]
    return False

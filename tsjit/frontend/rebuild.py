"""Growing control-flow ops: TorchScript adds outputs to If and Loop nodes in place
(SSA conversion, the exit transform); an xDSL op's results are fixed, so the op is
rebuilt with more results around the same regions and the old results' uses move over.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute, Operation, Region, SSAValue

from tsjit.dialects import prim


def _replace(old: Operation, new: Operation) -> None:
    new.location = old.location
    new.attributes.update(old.attributes)
    for old_region, new_region in zip(old.regions, new.regions):
        old_region.move_blocks(new_region)
    block = old.parent_block()
    assert block is not None
    block.insert_op_before(new, old)
    for old_result, new_result in zip(old.results, new.results):
        old_result.replace_all_uses_with(new_result)
    block.erase_op(old)


def with_results(op: prim.IfOp, result_types: Sequence[Attribute]) -> prim.IfOp:
    """`op` with exactly these results (its existing results keep their uses by index)."""
    new = prim.IfOp(op.cond, list(result_types), Region(), Region())
    _replace(op, new)
    return new


def extend_if(op: prim.IfOp, extra_types: Sequence[Attribute]) -> prim.IfOp:
    """`op` with more results after its own."""
    return with_results(op, [*op.outs.types, *extra_types])


def extend_with(op: prim.WithOp, extra_types: Sequence[Attribute]) -> prim.WithOp:
    """`op` with more results after its own (its body's yield is the caller's to extend)."""
    new = prim.WithOp(op.context, [*op.outs.types, *extra_types], Region(), Region())
    _replace(op, new)
    return new


def extend_loop(
    op: prim.LoopOp, extra_initial: Sequence[SSAValue], extra_types: Sequence[Attribute]
) -> prim.LoopOp:
    """`op` with more carried values: initial operands and result types (the body's
    arguments and yielded values are the caller's to add)."""
    new = prim.LoopOp(
        op.max_trip_count,
        op.initial_condition,
        [*op.carried, *extra_initial],
        [*op.outs.types, *extra_types],
        Region(),
    )
    _replace(op, new)
    return new

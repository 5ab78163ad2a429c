"""Replacing an op by values that already exist, and erasing an unused op, in place:
xDSL's `PatternRewriter.replace(op, [], values)` and `erase(op)` with the same listener
events in the same order (so the pattern driver's worklist, and with it every later
rewrite, is what it would be), without their generic costs: an operand tuple rebuilt
through slices per use, and an `ErasedSSAValue` made and named for each result of an
erased op even when nothing uses it. Forwarding passes (peephole, lower-tuples) do
little else, and spent most of their time there.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from tsjit.dialects.op_building import drop_references, erase_built_op
from tsjit.transforms.pattern_driver import replace_uses


def forward_results(op: Operation, values: Sequence[SSAValue], rewriter: PatternRewriter) -> None:
    """`rewriter.replace(op, [], values)`: the users of op's results use `values`, a
    value without a name takes the result's, and op is erased. The replacement event
    reports the users (the pattern driver lists them for it); the modification event
    xDSL then sends for each user again is left out: the driver's reaction to it would
    repeat what it did, and no other listener is ever attached."""
    rewriter.has_done_action = True
    rewriter.handle_operation_replacement(op, values)
    for result, value in zip(op.results, values, strict=True):
        if result is value:
            continue
        replace_uses(rewriter, result, value, report_users=False)
        if not value.name_hint:
            value.name_hint = result.name_hint
    erase(op, rewriter)


def erase(op: Operation, rewriter: PatternRewriter) -> None:
    """`rewriter.erase(op)` for an op whose results have no uses (a used one raises, as
    xDSL's erasure does)."""
    rewriter.has_done_action = True
    rewriter.handle_operation_removal(op)
    if op.parent is not None:
        erase_built_op(op)
    else:
        drop_references(op)


def erase_if_unused(op: Operation, rewriter: PatternRewriter) -> None:
    """Erases `op` when it is still in the IR and nothing uses its results."""
    if op.parent is not None and all(result.first_use is None for result in op.results):
        erase(op, rewriter)

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

from xdsl.ir import Operation, SSAValue, SSAValues
from xdsl.pattern_rewriter import PatternRewriter


def forward_results(op: Operation, values: Sequence[SSAValue], rewriter: PatternRewriter) -> None:
    """`rewriter.replace(op, [], values)`: the users of op's results use `values`, a
    value without a name takes the result's, and op is erased."""
    rewriter.has_done_action = True
    rewriter.handle_operation_replacement(op, values)
    for result, value in zip(op.results, values, strict=True):
        if result is value:
            continue
        users = _replace_all_uses(result, value)
        for user in users:
            rewriter.handle_operation_modification(user)
        if not value.name_hint:
            value.name_hint = result.name_hint
    erase(op, rewriter)


def erase(op: Operation, rewriter: PatternRewriter) -> None:
    """`rewriter.erase(op)` for an op whose results have no uses."""
    rewriter.has_done_action = True
    rewriter.handle_operation_removal(op)
    assert all(result.first_use is None for result in op.results), "erasing a used op"
    block = op.parent
    if block is not None:
        block.detach_op(op)
    op.drop_all_references()


def erase_if_unused(op: Operation, rewriter: PatternRewriter) -> None:
    """Erases `op` when it is still in the IR and nothing uses its results."""
    if op.parent is not None and all(result.first_use is None for result in op.results):
        erase(op, rewriter)


def _replace_all_uses(value: SSAValue, replacement: SSAValue) -> list[Operation]:
    """`value.replace_all_uses_with(replacement)`, leaving `replacement`'s use list in
    the order xDSL leaves it (each moved use put first, as `add_use` does), which later
    events and passes iterate; returns the users, in `value`'s use order."""
    users: list[Operation] = []
    moved = []
    use = value.first_use
    while use is not None:
        user = use._operation  # pyright: ignore[reportPrivateUsage]
        operands = list(user._operands)  # pyright: ignore[reportPrivateUsage]
        operands[use._index] = replacement  # pyright: ignore[reportPrivateUsage]
        user._operands = SSAValues(operands)  # pyright: ignore[reportPrivateUsage]
        users.append(user)
        moved.append(use)
        use = use._next_use  # pyright: ignore[reportPrivateUsage]
    head = replacement.first_use
    for use in moved:
        use._prev_use = None  # pyright: ignore[reportPrivateUsage]
        use._next_use = head  # pyright: ignore[reportPrivateUsage]
        if head is not None:
            head._prev_use = use  # pyright: ignore[reportPrivateUsage]
        head = use
    replacement.first_use = head
    value.first_use = None
    if replacement.name_hint is None:
        replacement.name_hint = value.name_hint
    return users

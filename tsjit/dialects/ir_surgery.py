"""Rewiring xDSL IR in place, faster than its public calls or where it has none.

`SSAValue.replace_all_uses_with` rebuilds the user's operand tuple through two slices
and a use-list unlink and relink per use, and no call removes an op's results: the
cleanup passes, which merge thousands of constants and shrink If and Loop ops, spent
more time in those than in deciding what to do. These work on the same fields
(`_operands`, the use lists) as xDSL's own code, which xdsl's pin keeps stable.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation, SSAValue, SSAValues


def replace_all_uses(value: SSAValue, replacement: SSAValue) -> None:
    """`value.replace_all_uses_with(replacement)`: every use of `value` now uses
    `replacement` (its use list is spliced onto the replacement's, unchanged)."""
    first = value.first_use
    if first is None or value is replacement:
        return
    use = first
    while True:
        user = use._operation  # pyright: ignore[reportPrivateUsage]
        operands = list(user._operands)  # pyright: ignore[reportPrivateUsage]
        operands[use._index] = replacement  # pyright: ignore[reportPrivateUsage]
        user._operands = SSAValues(operands)  # pyright: ignore[reportPrivateUsage]
        following = use._next_use  # pyright: ignore[reportPrivateUsage]
        if following is None:
            break
        use = following
    head = replacement.first_use
    use._next_use = head  # pyright: ignore[reportPrivateUsage]
    if head is not None:
        head._prev_use = use  # pyright: ignore[reportPrivateUsage]
    replacement.first_use = first
    value.first_use = None
    if replacement._name is None:  # `name_hint`'s field, read without its getter  # pyright: ignore[reportPrivateUsage]
        replacement.name_hint = value.name_hint


def drop_operands(op: Operation, indices: Sequence[int]) -> None:
    """Removes the operands at `indices`: their uses are unlinked and the others keep
    their use objects, renumbered (the `operands` setter relinks every operand)."""
    dropped = set(indices)
    operands: list[SSAValue] = []
    uses = []
    for index, (value, use) in enumerate(zip(op._operands, op._operand_uses)):  # pyright: ignore[reportPrivateUsage]
        if index in dropped:
            value.remove_use(use)
        else:
            use._index = len(operands)  # pyright: ignore[reportPrivateUsage]
            operands.append(value)
            uses.append(use)
    op._operands = SSAValues(operands)  # pyright: ignore[reportPrivateUsage]
    op._operand_uses = tuple(uses)  # pyright: ignore[reportPrivateUsage]


def drop_unused_results(op: Operation, indices: Sequence[int]) -> None:
    """Removes the results at `indices` (unused) of an op whose results are one
    variadic list (If, Loop): the others keep their identity, uses and names."""
    dropped = set(indices)
    kept = []
    for index, result in enumerate(op.results):
        if index in dropped:
            assert result.first_use is None, "dropping a used result"
        else:
            result.index = len(kept)
            kept.append(result)
    op.results = SSAValues(kept)

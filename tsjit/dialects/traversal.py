"""Walking the ops of a graph fast.

xDSL's `Operation.walk` nests one generator per region level and hashes nothing, but
each op still costs a few generator frames: over a whole graph it took longer than the
cleanup passes' own work. Passes that look at every op once take the flat list instead.
"""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.traits import IsTerminator


def nested_ops(root: Operation) -> list[Operation]:
    """Every op inside `root`'s regions (not `root`), in pre-order: an op before the ops
    of its regions, blocks in order."""
    found: list[Operation] = []
    append = found.append

    def visit(op: Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                inner = block.first_op
                while inner is not None:
                    append(inner)
                    if inner.regions:
                        visit(inner)
                    inner = inner._next_op  # pyright: ignore[reportPrivateUsage]

    visit(root)
    return found


def is_terminator(op: Operation) -> bool:
    """`IsTerminator`, asked once per op class (traits belong to the class): walks that
    skip terminators ask it of every op."""
    kind = type(op)
    known = _TERMINATORS.get(kind)
    if known is None:
        known = _TERMINATORS[kind] = op.has_trait(IsTerminator)
    return known


_TERMINATORS: dict[type[Operation], bool] = {}

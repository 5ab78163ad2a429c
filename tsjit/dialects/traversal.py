"""Walking the ops of a graph fast.

xDSL's `Operation.walk` nests one generator per region level and hashes nothing, but
each op still costs a few generator frames: over a whole graph it took longer than the
cleanup passes' own work. Passes that look at every op once take the flat list instead.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Block, Operation
from xdsl.traits import IsolatedFromAbove, IsTerminator, OpTrait


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


def nested_ops_of(root: Operation, kinds: tuple[type[Operation], ...]) -> list[Operation]:
    """The ops inside `root`'s regions that are instances of `kinds`, in pre-order: what
    filtering `nested_ops` by `isinstance` gives, with one dict lookup per op instead
    (op classes are ABCs, whose `isinstance` costs a few calls)."""
    matches = _KIND_MATCHES.get(kinds)
    if matches is None:
        matches = _KIND_MATCHES[kinds] = {}
    found: list[Operation] = []
    append = found.append

    def visit(op: Operation) -> None:
        for region in op.regions:
            block = region._first_block  # pyright: ignore[reportPrivateUsage]
            while block is not None:
                inner = block._first_op  # pyright: ignore[reportPrivateUsage]
                while inner is not None:
                    kind = type(inner)
                    match = matches.get(kind)
                    if match is None:
                        match = matches[kind] = issubclass(kind, kinds)
                    if match:
                        append(inner)
                    if inner.regions:
                        visit(inner)
                    inner = inner._next_op  # pyright: ignore[reportPrivateUsage]
                block = block._next_block  # pyright: ignore[reportPrivateUsage]

    visit(root)
    return found


_KIND_MATCHES: dict[tuple[type[Operation], ...], dict[type[Operation], bool]] = {}
"""Per `nested_ops_of` kinds: whether an op class is one of them."""


def class_trait(trait: type[OpTrait]) -> Callable[[Operation], bool]:
    """`op.has_trait(trait)` asked once per op class, for traits without parameters
    (they belong to the class): walks ask it of every op, and `has_trait` scans the
    class's traits each time."""
    known: dict[type[Operation], bool] = {}

    def has(op: Operation) -> bool:
        kind = type(op)
        answer = known.get(kind)
        if answer is None:
            answer = known[kind] = op.has_trait(trait)
        return answer

    return has


is_terminator = class_trait(IsTerminator)
"""`IsTerminator`: walks that skip terminators ask it of every op."""

is_isolated_from_above = class_trait(IsolatedFromAbove)
"""`IsolatedFromAbove`: scoped walks (CSE's table, constant pooling) start afresh there."""


def child_blocks(op: Operation) -> list[Block]:
    """The blocks of `op`'s regions, in order: a region's `blocks` view costs four calls,
    and the frontend's walks ask it of every If and Loop."""
    found: list[Block] = []
    for region in op.regions:
        block = region._first_block  # pyright: ignore[reportPrivateUsage]
        while block is not None:
            found.append(block)
            block = block._next_block  # pyright: ignore[reportPrivateUsage]
    return found


def region_block(op: Operation, index: int) -> Block:
    """The first block of `op`'s region `index` (an If's then and else blocks, a Loop's
    body): IRDL's region accessors and `Region.block` cost four calls where this costs one."""
    return op.regions[index]._first_block  # pyright: ignore[reportPrivateUsage, reportReturnType]

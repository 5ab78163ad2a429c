"""Building ops without xDSL's generic constructors, for the paths that make them by
the thousand (the script frontend, SSA conversion, the exit transform).

`IRDLOperation.__init__` matches its arguments against the op definition and
`Operation.__init__` goes through property setters: together 7–15 µs an op, which was
most of the frontend's time per statement. `build_op` leaves an op in the state
`Operation.create` leaves it (operand uses linked, results made, regions attached, the
definition's default properties and attributes filled in) from flat arguments the caller
knows fit the definition; the verifier still checks them. It sets the fields xDSL's
`Operation` declares, so it follows xDSL's layout: the unit test compares it with
`Operation.create`.

    op = build_op(prim.LoadOp, (), (IntType(),), {"name": StringAttr("x")})

The same goes for what the frontend's finishing passes do to ops by the thousand:
linking a new op into a block (`insert_built_op`), appending operands, moving a run
of ops to another block and erasing an unused op (`ir_surgery` replaces uses). Each keeps
xDSL's invariants (use lists, parents, block links) without the checks that walk from a
block up to the root, or the operand tuple rebuilt per use, of xDSL's own methods; the
unit tests compare them with those.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TypeVar

from xdsl.dialects.builtin import UNKNOWN_LOC
from xdsl.ir import Attribute, Block, BlockArgument, OpResult, Operation, Region, SSAValue, SSAValues, Use
from xdsl.irdl import IRDLOperation, OptionalDef
from xdsl.rewriter import InsertPoint

OpT = TypeVar("OpT", bound=Operation)

_new = object.__new__


def build_op(
    cls: type[OpT],
    operands: Sequence[SSAValue] = (),
    result_types: Sequence[Attribute] = (),
    properties: dict[str, Attribute] | None = None,
    regions: Sequence[Region] = (),
    attributes: dict[str, Attribute] | None = None,
) -> OpT:
    """An op of `cls`; it takes over the `properties` and `attributes` dicts."""
    op = _new(cls)
    build_into(op, operands, result_types, properties, regions, attributes)
    return op


def build_into(
    op: Operation,
    operands: Sequence[SSAValue] = (),
    result_types: Sequence[Attribute] = (),
    properties: dict[str, Attribute] | None = None,
    regions: Sequence[Region] = (),
    attributes: dict[str, Attribute] | None = None,
) -> None:
    """`build_op` for an allocated op: what an op's own `__init__` calls. The fields go
    into the fresh op's `__dict__` at once (xDSL declares them as plain fields)."""
    if operands:
        uses = []
        for index, operand in enumerate(operands):
            first = operand.first_use
            use = Use(op, index, None, first)
            if first is not None:
                first._prev_use = use  # pyright: ignore[reportPrivateUsage]
            operand.first_use = use
            uses.append(use)
        values = SSAValues(operands)
        operand_uses = tuple(uses)
    else:
        values = _NO_VALUES
        operand_uses = ()
    if not result_types:
        results = _NO_VALUES
    elif len(result_types) == 1:
        results = SSAValues((OpResult(result_types[0], op, 0),))
    else:
        results = SSAValues([OpResult(type, op, index) for index, type in enumerate(result_types)])
    property_defaults, attribute_defaults = _defaults(type(op))
    if properties is None:
        properties = {}
    for name, value in property_defaults:
        properties.setdefault(name, value)
    if attributes is None:
        attributes = {}
    for name, value in attribute_defaults:
        attributes.setdefault(name, value)
    op.__dict__.update(
        _operands=values,
        _operand_uses=operand_uses,
        results=results,
        _successors=(),
        _successor_uses=(),
        properties=properties,
        attributes=attributes,
        location=UNKNOWN_LOC,
        regions=(),
        parent=None,
        _next_op=None,
        _prev_op=None,
    )
    for region in regions:
        op.add_region(region)


def ssa_values(values: Sequence[SSAValue | Operation]) -> Sequence[SSAValue]:
    """The values an op's constructor takes as operands (an op stands for its one
    result, as in IRDL's constructors)."""
    if not isinstance(values, (list, tuple)):
        values = list(values)
    for value in values:
        if type(value) not in _VALUE_TYPES:  # not isinstance: SSAValue is an ABC, slow to check
            return [SSAValue.get(v) for v in values]
    return values  # pyright: ignore[reportReturnType]


_VALUE_TYPES = frozenset({OpResult, BlockArgument})


_NO_VALUES: SSAValues[SSAValue] = SSAValues()


@functools.cache
def _defaults(
    cls: type[Operation],
) -> tuple[tuple[tuple[str, Attribute], ...], tuple[tuple[str, Attribute], ...]]:
    """The default properties and attributes `IRDLOperation.__post_init__` fills in."""
    if not issubclass(cls, IRDLOperation):
        return (), ()
    definition = cls.get_irdl_definition()

    def defaults(defs: dict[str, object]) -> tuple[tuple[str, Attribute], ...]:
        return tuple(
            (name, d.default_value)  # pyright: ignore[reportAttributeAccessIssue]
            for name, d in defs.items()
            if not isinstance(d, OptionalDef) and getattr(d, "default_value", None) is not None
        )

    return defaults(definition.properties), defaults(definition.attributes)  # pyright: ignore[reportArgumentType]


def new_block(ops: Sequence[Operation] = (), arg_types: Sequence[Attribute] = ()) -> Block:
    """`Block(ops, arg_types=...)` for new ops without regions: linked by `insert_built_op`
    instead of `Block.add_op`, whose check walks from the block up to the root."""
    block = _new(Block)
    block.__dict__.update(_args=(), _first_op=None, _last_op=None, parent=None)
    if arg_types:
        block._args = tuple(BlockArgument(type, block, index) for index, type in enumerate(arg_types))  # pyright: ignore[reportPrivateUsage]
    for op in ops:
        insert_built_op(op, block)
    return block


def region_of(block: Block) -> Region:
    """`Region(block)` for a detached block, without `Region.add_block`'s checks."""
    assert block.parent is None, "the block is in a region already"
    region = _new(Region)
    region.__dict__.update(_first_block=block, _last_block=block)
    block.parent = region
    return region


def add_results(op: Operation, result_types: Sequence[Attribute]) -> None:
    """Appends results of these types to `op`, in place (TorchScript's `addOutput`):
    the existing results and their uses stay as they are."""
    first = len(op.results)
    new = [OpResult(type, op, first + index) for index, type in enumerate(result_types)]
    op.results = SSAValues([*op.results, *new])


def insert_built_op(op: Operation, block: Block, before: Operation | None = None) -> None:
    """Links a new op into `block` (at its end, or before `before`, an op of `block`):
    `Block.add_op`/`insert_op_before` without their checks, which walk up from the
    block to the root to prove that `op` holds no ancestor of it, a walk as deep as the
    nesting. An op with regions, or already attached, takes xDSL's checked path."""
    if op.regions or op.parent is not None:
        if before is None:
            block.add_op(op)
        else:
            block.insert_op_before(op, before)
        return
    op.parent = block
    _link(block, op, op, before)


def insert_at(op: Operation, point: InsertPoint) -> None:
    """`Rewriter.insert_op(op, point)` for a new op (`insert_built_op`)."""
    insert_built_op(op, point.block, point.insert_before)


def append_operands(op: Operation, values: Sequence[SSAValue]) -> None:
    """`op.operands = [*op.operands, *values]`, linking uses for the new operands only:
    the setter relinks every operand, and yields that gain outputs one at a time
    would pay for all of them each time."""
    first = len(op._operands)  # pyright: ignore[reportPrivateUsage]
    uses: list[Use] = [None] * len(values)  # pyright: ignore[reportAssignmentType]
    for index, value in enumerate(values):
        head = value.first_use
        use = uses[index] = Use(op, first + index, None, head)  # linked first, as `add_use` links it
        if head is not None:
            head._prev_use = use  # pyright: ignore[reportPrivateUsage]
        value.first_use = use
    op._operands = SSAValues((*op._operands, *values))  # pyright: ignore[reportPrivateUsage]
    op._operand_uses = (*op._operand_uses, *uses)  # pyright: ignore[reportPrivateUsage]


def move_ops_before(first: Operation, last: Operation, before: Operation) -> None:
    """Moves the ops from `first` to `last` (a run of one block, in order) before
    `before`, in another block: relinked as a whole, without the per-op checks that
    walk up from the target block to the root."""
    source = first.parent
    target = before.parent
    assert source is not None and target is not None and source is not target
    _unlink(source, first, last)
    op: Operation | None = first
    while op is not None:
        op.parent = target
        op = None if op is last else op._next_op  # pyright: ignore[reportPrivateUsage]
    _link(target, first, last, before)


def erase_built_op(op: Operation) -> None:
    """`block.erase_op(op)` for an op of a block whose results are unused: unlinked
    without xDSL's erasure, which makes an `ErasedSSAValue` for every result even when
    nothing uses it. The ops in its regions drop their references as xDSL's do. An op
    with a used result (which xDSL reports) takes xDSL's path."""
    block = op.parent
    assert block is not None
    for result in op.results:
        if result.first_use is not None:
            block.erase_op(op)
            return
    _unlink(block, op, op)
    op._prev_op = op._next_op = None  # pyright: ignore[reportPrivateUsage]
    drop_references(op)


def drop_references(op: Operation) -> None:
    """`op.drop_all_references()`: the same fields cleared, the nested ops' included,
    walked along the block and op links instead of xDSL's region and block iterators."""
    op.parent = None
    for operand, use in zip(op._operands, op._operand_uses):  # pyright: ignore[reportPrivateUsage]
        operand.remove_use(use)
    op._operand_uses = ()  # pyright: ignore[reportPrivateUsage]
    if op._successors:  # pyright: ignore[reportPrivateUsage]
        for successor, use in zip(op._successors, op._successor_uses):  # pyright: ignore[reportPrivateUsage]
            successor.remove_use(use)
        op._successor_uses = ()  # pyright: ignore[reportPrivateUsage]
        op._successors = ()  # pyright: ignore[reportPrivateUsage]
    for region in op.regions:
        region.parent = None
        block = region._first_block  # pyright: ignore[reportPrivateUsage]
        while block is not None:
            following = block._next_block  # pyright: ignore[reportPrivateUsage]
            block.parent = block._next_block = block._prev_block = None  # pyright: ignore[reportPrivateUsage]
            inner = block._first_op  # pyright: ignore[reportPrivateUsage]
            while inner is not None:
                drop_references(inner)
                inner = inner._next_op  # pyright: ignore[reportPrivateUsage]
            block = following


def set_operand(op: Operation, index: int, value: SSAValue) -> None:
    """`op.operands[index] = value` without making an operand view."""
    operands = list(op._operands)  # pyright: ignore[reportPrivateUsage]
    use = op._operand_uses[index]  # pyright: ignore[reportPrivateUsage]
    operands[index].remove_use(use)
    value.add_use(use)
    operands[index] = value
    op._operands = SSAValues(operands)  # pyright: ignore[reportPrivateUsage]


def _link(block: Block, first: Operation, last: Operation, before: Operation | None) -> None:
    """Puts the run of ops `first`..`last` (linked among themselves) into `block`'s op
    list, before `before` or at the end."""
    if before is None:
        previous = block._last_op  # pyright: ignore[reportPrivateUsage]
        block._last_op = last  # pyright: ignore[reportPrivateUsage]
    else:
        previous = before._prev_op  # pyright: ignore[reportPrivateUsage]
        before._prev_op = last  # pyright: ignore[reportPrivateUsage]
    first._prev_op = previous  # pyright: ignore[reportPrivateUsage]
    last._next_op = before  # pyright: ignore[reportPrivateUsage]
    if previous is None:
        block._first_op = first  # pyright: ignore[reportPrivateUsage]
    else:
        previous._next_op = first  # pyright: ignore[reportPrivateUsage]


def _unlink(block: Block, first: Operation, last: Operation) -> None:
    """Takes the run of ops `first`..`last` out of `block`'s op list (the run keeps its
    own links)."""
    previous, following = first._prev_op, last._next_op  # pyright: ignore[reportPrivateUsage]
    if previous is None:
        block._first_op = following  # pyright: ignore[reportPrivateUsage]
    else:
        previous._next_op = following  # pyright: ignore[reportPrivateUsage]
    if following is None:
        block._last_op = previous  # pyright: ignore[reportPrivateUsage]
    else:
        following._prev_op = previous  # pyright: ignore[reportPrivateUsage]

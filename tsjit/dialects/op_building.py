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
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TypeVar

from xdsl.dialects.builtin import UNKNOWN_LOC
from xdsl.ir import Attribute, Block, BlockArgument, OpResult, Operation, Region, SSAValue, SSAValues, Use
from xdsl.irdl import IRDLOperation, OptionalDef

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
    """`build_op` for an allocated op: what an op's own `__init__` calls."""
    if operands:
        uses = tuple([Use(op, index) for index in range(len(operands))])
        for operand, use in zip(operands, uses):
            first = operand.first_use
            use._next_use = first  # pyright: ignore[reportPrivateUsage]
            if first is not None:
                first._prev_use = use  # pyright: ignore[reportPrivateUsage]
            operand.first_use = use
        op._operands = SSAValues(operands)  # pyright: ignore[reportPrivateUsage]
        op._operand_uses = uses  # pyright: ignore[reportPrivateUsage]
    else:
        op._operands = _NO_VALUES  # pyright: ignore[reportPrivateUsage]
        op._operand_uses = ()  # pyright: ignore[reportPrivateUsage]
    op.results = SSAValues([OpResult(type, op, index) for index, type in enumerate(result_types)])
    op._successors = ()  # pyright: ignore[reportPrivateUsage]
    op._successor_uses = ()  # pyright: ignore[reportPrivateUsage]
    op.properties = {} if properties is None else properties
    op.attributes = {} if attributes is None else attributes
    op.location = UNKNOWN_LOC
    op.regions = ()
    op.parent = None
    op._next_op = None  # pyright: ignore[reportPrivateUsage]
    op._prev_op = None  # pyright: ignore[reportPrivateUsage]
    for region in regions:
        op.add_region(region)
    property_defaults, attribute_defaults = _defaults(type(op))
    for name, value in property_defaults:
        op.properties.setdefault(name, value)
    for name, value in attribute_defaults:
        op.attributes.setdefault(name, value)


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
    if before is None:
        last = block._last_op  # pyright: ignore[reportPrivateUsage]
        op._prev_op = last  # pyright: ignore[reportPrivateUsage]
        if last is None:
            block._first_op = op  # pyright: ignore[reportPrivateUsage]
        else:
            last._next_op = op  # pyright: ignore[reportPrivateUsage]
        block._last_op = op  # pyright: ignore[reportPrivateUsage]
        return
    previous = before._prev_op  # pyright: ignore[reportPrivateUsage]
    op._prev_op = previous  # pyright: ignore[reportPrivateUsage]
    op._next_op = before  # pyright: ignore[reportPrivateUsage]
    before._prev_op = op  # pyright: ignore[reportPrivateUsage]
    if previous is None:
        block._first_op = op  # pyright: ignore[reportPrivateUsage]
    else:
        previous._next_op = op  # pyright: ignore[reportPrivateUsage]

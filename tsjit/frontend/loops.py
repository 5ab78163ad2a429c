"""Loop canonicalization (TorchScript's `CanonicalizeModifiedLoops`): a loop with both a
trip count and a continue condition that can become false (a `for` with a `break`)
becomes a while-style loop, so that printers can write it as Python:

    for i in range(n): ... break          %c0 = aten.gt %n, %0
                                          prim.Loop %INT_MAX, %c0 iter(%_) carried(%i = %0 ...) {
                                            ... %i2 = aten.add %i, %1
                                            %c = aten.__and__ (aten.lt %i2, %n), %cond
                                            prim.Yield %c, ..., %i2
                                          }
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.ir import Block, SSAValue
from xdsl.rewriter import InsertPoint

from tsjit.dialects import prim
from tsjit.dialects.aten import create_op
from tsjit.dialects.ir_surgery import replace_all_uses
from tsjit.dialects.op_building import insert_at
from tsjit.dialects.traversal import child_blocks, region_block
from tsjit.dialects.types import BoolType, IntType
from tsjit.frontend.rebuild import extend_loop

INT64_MAX = 2**63 - 1


def canonicalize_modified_loops(function: func.FuncOp) -> None:
    _canonicalize_block(function.body.block)


def _canonicalize_block(block: Block) -> None:
    op = block._first_op  # pyright: ignore[reportPrivateUsage]
    while op is not None:
        following = op._next_op  # pyright: ignore[reportPrivateUsage]  # the canonical loop's set-up goes in before `op`
        if op.regions:
            for nested in child_blocks(op):
                _canonicalize_block(nested)
            if type(op) is prim.LoopOp and _is_modified_loop(op):  # pyright: ignore[reportArgumentType]
                _canonicalize(op)  # pyright: ignore[reportArgumentType]
        op = following


def _constant(value: SSAValue) -> object:
    owner = value.owner
    return owner.python_value if type(owner) is prim.ConstantOp else None  # pyright: ignore[reportAttributeAccessIssue]


def _is_modified_loop(op: prim.LoopOp) -> bool:
    """Both a trip count (not the INT_MAX of a while loop, or a used counter) and a
    condition that is not always true."""
    body = region_block(op, 0)
    terminator = body._last_op  # pyright: ignore[reportPrivateUsage]
    assert terminator is not None
    max_trip_count, initial_condition = op._operands[:2]  # pyright: ignore[reportPrivateUsage]
    always_true = _constant(initial_condition) is True and _constant(terminator._operands[0]) is True  # pyright: ignore[reportPrivateUsage]
    trip_count_specified = _constant(max_trip_count) != INT64_MAX or body.args[0].first_use is not None
    return not always_true and trip_count_specified


def _canonicalize(op: prim.LoopOp) -> None:
    location = op.location

    def insert(new_op, point: InsertPoint) -> SSAValue:
        new_op.location = location
        insert_at(new_op, point)
        (result,) = new_op.results  # unpacked: indexing SSAValues is a Python call
        return result

    before = InsertPoint.before(op)
    zero = insert(prim.ConstantOp.from_value(0), before)
    one = insert(prim.ConstantOp.from_value(1), before)
    max_trip_count, initial, *carried = op._operands  # pyright: ignore[reportPrivateUsage]
    condition = insert(create_op("aten.gt", [max_trip_count, zero], [BoolType()]), before)
    if _constant(initial) is not True:
        condition = insert(create_op("aten.__and__", [condition, initial], [BoolType()]), before)
    infinite = insert(prim.ConstantOp.from_value(INT64_MAX), before)
    op.operands = [infinite, condition, *carried]
    new = extend_loop(op, [zero], [IntType()])
    body = region_block(new, 0)
    counter = body.args[0]
    iteration = body.insert_arg(IntType(), len(body.args))
    replace_all_uses(counter, iteration)
    counter.name_hint = None
    terminator = body._last_op  # pyright: ignore[reportPrivateUsage]
    assert terminator is not None
    at_end = InsertPoint.before(terminator)
    incremented = insert(create_op("aten.add", [iteration, one], [IntType()]), at_end)
    below = insert(create_op("aten.lt", [incremented, max_trip_count], [BoolType()]), at_end)
    next_condition, *yielded = terminator._operands  # pyright: ignore[reportPrivateUsage]
    next_condition = insert(create_op("aten.__and__", [below, next_condition], [BoolType()]), at_end)
    terminator.operands = [next_condition, *yielded, incremented]

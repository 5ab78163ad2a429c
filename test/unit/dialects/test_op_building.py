"""`build_op` leaves an op as `Operation.create` does: same fields, linked uses,
attached regions, default properties; and the ops built with it still verify."""

from __future__ import annotations

import gc

import pytest
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Block, Operation, Region
from xdsl.utils.exceptions import VerifyException

from tsjit.collector import collector_paused
from tsjit.dialects import prim
from tsjit.dialects.aten import create_op
from tsjit.dialects.op_building import (
    append_operands,
    build_op,
    erase_built_op,
    insert_built_op,
    move_ops_before,
    new_block,
    region_of,
    ssa_values,
)
from tsjit.dialects.types import BoolType, IntType, TensorType, TupleType


def _state(op: Operation) -> dict[str, object]:
    return {
        "operands": tuple(op.operands),
        "uses": [(use.operation, use.index) for use in op._operand_uses],  # pyright: ignore[reportPrivateUsage]
        "result_types": tuple(op.result_types),
        "result_owners": [(r.op, r.index) for r in op.results],
        "successors": tuple(op.successors),
        "properties": op.properties,
        "attributes": op.attributes,
        "location": op.location,
        "regions": op.regions,
        "parent": op.parent,
        "next": op.next_op,
        "prev": op.prev_op,
    }


def _values() -> tuple[Block, list]:
    block = Block(arg_types=[IntType(), IntType(), BoolType()])
    return block, list(block.args)


def test_build_op_matches_create():
    _, (a, b, _) = _values()
    built = build_op(prim.TupleConstructOp, [a, b], [TupleType([IntType(), IntType()])])
    created = prim.TupleConstructOp.create(operands=[a, b], result_types=[TupleType([IntType(), IntType()])])
    mine, theirs = _state(built), _state(created)
    assert [u[1] for u in mine.pop("uses")] == [u[1] for u in theirs.pop("uses")]  # pyright: ignore[reportAttributeAccessIssue]
    assert [u[1] for u in mine.pop("result_owners")] == [u[1] for u in theirs.pop("result_owners")]  # pyright: ignore[reportAttributeAccessIssue]
    assert mine == theirs
    assert [use.operation for use in a.uses] == [created, built]  # newest use first, as add_use links them
    assert all(r.op is built for r in built.results)
    built.verify()


def test_build_op_attaches_regions_and_fills_defaults():
    _, (_, _, cond) = _values()
    then_region, else_region = Region(Block([prim.YieldOp()])), Region(Block([prim.YieldOp()]))
    op = build_op(prim.IfOp, [cond], [], regions=[then_region, else_region])
    assert op.regions == (then_region, else_region) and then_region.parent is op
    op.verify()
    for cls in prim.PRIM.operations:  # every default IRDL's constructor would fill in
        created = cls.create()
        assert build_op(cls).properties == created.properties, cls.name
        assert build_op(cls).attributes == created.attributes, cls.name


def test_constructors_built_flat_still_verify():
    _, (a, b, cond) = _values()
    assert prim.StoreOp("x", a).var_name == StringAttr("x")
    assert prim.LoadOp("x", IntType()).result.type == IntType()
    add = create_op("aten.add", [a, b], [IntType()])
    assert list(add.operands) == [a, b] and add.result_types == (IntType(),)
    bad = create_op("aten.add", [a, b], [TensorType()])
    bad.verify()  # aten ops check their types against the schema in the type checker, not here
    bad_if = prim.IfOp(a, [], Region(Block([prim.YieldOp()])), Region(Block([prim.YieldOp()])))
    with pytest.raises(VerifyException):
        bad_if.verify()  # the condition is an int
    assert list(prim.YieldOp(add).operands) == [add.results[0]]  # an op stands for its result


def test_ssa_values_accepts_ops_and_iterables():
    _, (a, b, _) = _values()
    assert list(ssa_values(iter([a, b]))) == [a, b]
    constant = prim.ConstantOp.from_value(1)
    assert ssa_values([constant, a]) == [constant.result, a]


def test_collector_paused_nests_and_restores():
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # someone else's pause stays
    finally:
        gc.enable()


def _ops(block: Block) -> list[Operation]:
    return list(block.ops)


def _block_of_adds(count: int) -> tuple[Block, list[Operation]]:
    block, (a, b, _) = _values()
    ops = [create_op("aten.add", [a, b], [IntType()]) for _ in range(count)]
    for op in ops:
        block.add_op(op)
    return block, ops


def test_insert_built_op_links_as_add_op_and_insert_op_before():
    block, (first, second) = _block_of_adds(2)
    at_end, in_between = prim.ConstantOp.from_value(1), prim.ConstantOp.from_value(2)
    insert_built_op(at_end, block)
    insert_built_op(in_between, block, second)
    assert _ops(block) == [first, in_between, second, at_end]
    assert [op.parent for op in block.ops] == [block] * 4
    assert [op.prev_op for op in block.ops] == [None, first, in_between, second]
    head = prim.ConstantOp.from_value(3)
    insert_built_op(head, block, first)
    assert block.first_op is head and head.prev_op is None and head.next_op is first
    empty = Block()
    insert_built_op(prim.ConstantOp.from_value(4), empty)
    assert empty.first_op is empty.last_op and empty.first_op is not None


def test_insert_built_op_checks_ops_with_regions_as_xdsl_does():
    _, (_, _, cond) = _values()
    body = Block([prim.YieldOp()])
    if_op = prim.IfOp(cond, [], Region(body), Region(Block([prim.YieldOp()])))
    with pytest.raises(ValueError, match="contained in the operation"):
        insert_built_op(if_op, body)  # into its own region


def test_append_operands_links_only_the_new_uses():
    block, (a, b, cond) = _values()
    ours, theirs = prim.YieldOp(a), prim.YieldOp(a)
    append_operands(ours, [b, cond])
    theirs.operands = [*theirs.operands, b, cond]
    assert list(ours.operands) == list(theirs.operands) == [a, b, cond]
    assert [u.index for u in ours._operand_uses] == [0, 1, 2]  # pyright: ignore[reportPrivateUsage]
    assert {(u.operation, u.index) for u in b.uses} == {(ours, 1), (theirs, 1)}
    ours.verify()
    append_operands(ours, [b, b])  # one value twice: both uses linked
    assert [(u.operation, u.index) for u in b.uses] == [(ours, 4), (ours, 3), (theirs, 1), (ours, 1)]
    b.replace_all_uses_with(a)
    assert list(ours.operands) == [a, a, cond, a, a] and b.first_use is None


def test_move_ops_before_relinks_a_run_into_another_block():
    source, ops = _block_of_adds(4)
    target, (kept,) = _block_of_adds(1)
    move_ops_before(ops[1], ops[2], kept)
    assert _ops(source) == [ops[0], ops[3]] and _ops(target) == [ops[1], ops[2], kept]
    assert ops[1].parent is target and ops[2].parent is target
    move_ops_before(ops[0], ops[3], ops[1])  # the whole block, to the front
    assert source.is_empty and source.first_op is None and source.last_op is None
    assert _ops(target) == [ops[0], ops[3], ops[1], ops[2], kept]
    assert [op.prev_op for op in target.ops] == [None, ops[0], ops[3], ops[1], ops[2]]


def test_erase_built_op_unlinks_and_drops_uses():
    block, (a, b, _) = _values()
    first, middle, last = (create_op("aten.add", [a, b], [IntType()]) for _ in range(3))
    for op in (first, middle, last):
        block.add_op(op)
    erase_built_op(middle)
    assert _ops(block) == [first, last] and middle.parent is None
    assert all(use.operation is not middle for use in a.uses)
    erase_built_op(first)
    erase_built_op(last)
    assert block.is_empty and block.last_op is None
    used = create_op("aten.add", [a, b], [IntType()])
    block.add_op(used)
    block.add_op(create_op("aten.neg", [used.results[0]], [IntType()]))
    with pytest.raises(ValueError, match="still has uses"):
        erase_built_op(used)  # reported as xDSL reports it


def test_erase_built_op_drops_the_references_of_nested_ops():
    block, (a, b, cond) = _values()
    inner = create_op("aten.add", [a, b], [IntType()])
    then_region = Region(Block([inner, prim.YieldOp(inner.results[0])]))
    branch = prim.IfOp(cond, [IntType()], then_region, Region(Block([prim.YieldOp(a)])))
    block.add_op(branch)
    erase_built_op(branch)
    assert block.is_empty and branch.parent is None
    assert a.first_use is None and b.first_use is None and cond.first_use is None
    assert inner.parent is None and inner.results[0].first_use is None
    assert then_region.parent is None and then_region.block.parent is None  # as `drop_all_references` leaves them
    assert then_region.block.first_op is inner  # the nested ops stay linked, as xDSL leaves them


def test_new_block_and_region_of_match_xdsl_constructors():
    theirs = Region(Block([prim.YieldOp()], arg_types=[IntType()]))
    yield_op = prim.YieldOp()
    mine = region_of(new_block([yield_op], [IntType()]))
    assert vars(mine).keys() == vars(theirs).keys()
    assert vars(mine.block).keys() == vars(theirs.block).keys()
    assert mine.block.parent is mine and yield_op.parent is mine.block
    assert [arg.type for arg in mine.block.args] == [IntType()] and mine.block.args[0].block is mine.block
    assert _ops(mine.block) == [yield_op] and list(mine.blocks) == [mine.block]
    with pytest.raises(AssertionError, match="in a region already"):
        region_of(mine.block)
    then_region = region_of(new_block([prim.YieldOp()]))
    branch = prim.IfOp(_values()[1][2], [], then_region, region_of(new_block([prim.YieldOp()])))
    assert then_region.parent is branch
    branch.verify()

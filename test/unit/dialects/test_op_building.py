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
from tsjit.dialects.op_building import build_op, ssa_values
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

"""Builtin calls replayed from their shape (`direct_calls`) build the op that overload
resolution builds for the first call of that shape."""

from __future__ import annotations

import pytest
from xdsl.dialects import func
from xdsl.ir import Operation

from tsjit.dialects import aten, prim
from tsjit.frontend.direct_calls import DirectCall, call_shape
from tsjit.frontend.schema_matching import CallArg
from tsjit.frontend.script import script_file_text


def script(body: str, params: str = "x, n: int, f: float"):
    source = f"import torch\n\n\ndef forward({params}):\n" + "".join(f"    {line}\n" for line in body.splitlines())
    return script_file_text(source, "calls.py")


def operators(scripted) -> list[Operation]:
    function = next(op for op in scripted.unit.module.ops if isinstance(op, func.FuncOp))
    return [op for op in function.walk() if isinstance(op, aten.OperatorOp)]


def describe(op: Operation) -> tuple[object, ...]:
    """An op's kind, overload and inputs: the constants' values, the other inputs' types."""
    schema = aten.schema_of(op)
    inputs = tuple(
        ("constant", v.owner.python_value) if isinstance(v.owner, prim.ConstantOp) else ("value", v.type)
        for v in op.operands
    )
    return (op.name, schema.qualified_name if schema else None, inputs, tuple(op.result_types))


@pytest.mark.parametrize(
    ("call", "operator"),
    [
        ("x + n", "aten::add"),  # positional arguments
        ("x.sum()", "aten::sum"),  # a receiver, and defaults made constants
        ("torch.add(x, x, alpha=2)", "aten::add"),  # a keyword argument
        ("torch.sum(x, dim=[0], keepdim=True)", "aten::sum"),  # a list argument, keywords, a default
        ("n < f", "aten::lt"),  # scalar overloads
    ],
)
def test_a_repeated_call_builds_the_op_its_first_call_matched(call: str, operator: str):
    scripted = script(f"a = {call}\nb = {call}\nreturn a, b")
    ops = operators(scripted)
    assert len(ops) == 2, [op.name for op in ops]
    first, second = ops
    assert describe(second) == describe(first)
    assert second.location != first.location  # each at its own line
    assert any(key[0] == operator and isinstance(direct, DirectCall) for key, direct in scripted.unit.direct_calls.items())


def test_a_call_that_converts_an_argument_is_matched_every_time():
    scripted = script("a = torch.zeros(n, n)\nb = torch.zeros(n, n)\nreturn a, b")
    first, second = operators(scripted)
    assert describe(second) == describe(first)
    assert isinstance(first.operands[0].owner, prim.ListConstructOp)  # the sizes became a list
    assert not any(key[0] == "aten::zeros" for key in scripted.unit.direct_calls)


def test_calls_with_a_constant_or_an_empty_list_literal_have_no_shape():
    scripted = script("return x")
    value = next(op for op in scripted.unit.module.ops if isinstance(op, func.FuncOp)).body.block.args[0]
    assert call_shape("aten::add", None, [CallArg(value)], [], None, set()) is not None
    assert call_shape("aten::add", None, [CallArg(None, constant=1)], [], None, set()) is None
    assert call_shape("aten::add", None, [CallArg(value)], [], None, {value}) is None

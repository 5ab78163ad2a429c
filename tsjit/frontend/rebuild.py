"""Growing control-flow ops: TorchScript adds outputs to If and Loop nodes in place
(SSA conversion, the exit transform), and so does tsjit (`add_results`): rebuilding
the op around its regions instead would move every use of every result each time one
is added, quadratic in the outputs of an If that many exits grow.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute, SSAValue

from tsjit.dialects import prim
from tsjit.dialects.op_building import add_results, append_operands


def with_results(op: prim.IfOp, result_types: Sequence[Attribute]) -> prim.IfOp:
    """`op`, made without results, with these."""
    assert not op.results, "an If gains results with extend_if"
    add_results(op, result_types)
    return op


def extend_if(op: prim.IfOp, extra_types: Sequence[Attribute]) -> prim.IfOp:
    """`op` with more results after its own."""
    add_results(op, extra_types)
    return op


def extend_with(op: prim.WithOp, extra_types: Sequence[Attribute]) -> prim.WithOp:
    """`op` with more results after its own (its body's yield is the caller's to extend)."""
    add_results(op, extra_types)
    return op


def extend_loop(
    op: prim.LoopOp, extra_initial: Sequence[SSAValue], extra_types: Sequence[Attribute]
) -> prim.LoopOp:
    """`op` with more carried values: initial operands and result types (the body's
    arguments and yielded values are the caller's to add)."""
    append_operands(op, extra_initial)
    add_results(op, extra_types)
    return op

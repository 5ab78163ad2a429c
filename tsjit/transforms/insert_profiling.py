"""insert-profiling: a `profile.profile` before every use of a tensor, so that running
the graph records what each use saw (PyTorch's `ProfilingRecord::instrumentGraph`).

    %y = aten.mul %x, %x : ...                     %p = profile.profile %x : !ts.tensor
    %z = aten.tanh %y : ...                  →     %y = aten.mul %p, %p : ...
    func.return %z : !ts.tensor                    %q = profile.profile %y : !ts.tensor
                                                   %z = aten.tanh %q : ...
                                                   %r = profile.profile %z : !ts.tensor
                                                   func.return %r : !ts.tensor

One profile per (op, tensor operand) pair, nested blocks included: values used inside
an If's branch or a Loop's body are profiled where they are used, so a use that never
runs records nothing. Block terminators (`func.return`, `prim.Yield`) count as uses,
as PyTorch profiles block outputs. Subgraphs (`prim.FusionGroup`, ...) run as a whole
and are left alone. The interpreter records into each profile's `seen_types`
(`tsjit.runtime.profiling`); `insert-guards` turns those records into checked types.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation
from xdsl.rewriter import InsertPoint, Rewriter

from tsjit.dialects.prim import SubgraphOp
from tsjit.dialects.profile import ProfileOp
from tsjit.dialects.types import TensorType
from tsjit.transforms.pass_logging import TsjitPass, allow_rewrite, log_update


def instrument_graph(graph: FuncOp) -> int:
    """Profiles every tensor use of `graph`; returns how many profiles it inserted."""
    inserted = 0
    for op in [op for op in graph.walk() if _instrumentable(op)]:
        profiled: dict[object, ProfileOp] = {}
        for index, value in enumerate(op.operands):
            if not isinstance(value.type, TensorType):
                continue
            profile = profiled.get(value)
            if profile is None:
                if not allow_rewrite():
                    return inserted
                profile = profiled[value] = ProfileOp([value])
                profile.outs[0].name_hint = value.name_hint
                Rewriter.insert_op(profile, InsertPoint.before(op))
                inserted += 1
            op.operands[index] = profile.outs[0]
        if profiled:
            log_update(f"profiled {len(profiled)} tensor operand(s)", op)
    return inserted


def _instrumentable(op: Operation) -> bool:
    """Ops whose tensor operands are profiled: not profiles themselves, nothing inside
    a subgraph."""
    if isinstance(op, ProfileOp) or isinstance(op, FuncOp):
        return False
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        if isinstance(parent, SubgraphOp):
            return False
        parent = parent.parent_op()
    return True


@dataclass(frozen=True)
class InsertProfilingPass(TsjitPass):
    name: ClassVar[str] = "insert-profiling"

    function: str = ""
    """Only the graph of this name (all graphs when empty)."""

    def run(self, ctx: Context, op: ModuleOp) -> None:
        for graph in self.graphs(op):
            if not self.function or graph.sym_name.data == self.function:
                instrument_graph(graph)

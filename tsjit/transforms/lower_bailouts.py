"""lower-bailouts: each `profile.bailout` as the call it stands for, a `func.call` of its
graph's fallback function (PyTorch's `prim::CallFunction` of a `fallback_function`).

    %r = profile.bailout[index = 0] %x, %n : (!ts.tensor, !ts.int) -> !ts.tensor
      →
    %r = func.call @forward.fallback0(%x, %n) : (!ts.tensor, !ts.int) -> !ts.tensor

For consumers that do not know the profile dialect (graph-text export, other
compilers). The interpreter runs a bailout as this same call, which is how an executor
can stand a fallback executor in for the function (`Program.provide`); a fallback the
module does not define is declared, for whoever runs the module to provide.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.rewriter import Rewriter

from tsjit.dialects.profile import BailOutOp, fallback_name
from tsjit.transforms.pass_logging import TsjitPass, allow_rewrite, log_update


def lower_bailouts(module: ModuleOp, graph: func.FuncOp) -> int:
    """Replaces the bailouts of `graph` by calls; returns how many."""
    functions = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
    lowered = 0
    for bailout in [op for op in graph.walk() if isinstance(op, BailOutOp)]:
        if not allow_rewrite():
            break
        name = fallback_name(graph.sym_name.data, bailout.index.value.data)
        inputs, outputs = list(bailout.transferred.types), list(bailout.outs.types)
        if name not in functions:
            functions[name] = func.FuncOp.external(name, inputs, outputs)
            module.body.block.add_op(functions[name])
        call = func.CallOp(name, list(bailout.transferred), outputs)
        log_update(f"calls {name}", bailout)
        Rewriter.replace_op(bailout, call)
        lowered += 1
    return lowered


@dataclass(frozen=True)
class LowerBailoutsPass(TsjitPass):
    name: ClassVar[str] = "lower-bailouts"

    def run(self, ctx: Context, op: ModuleOp) -> None:
        for graph in list(self.graphs(op)):
            lower_bailouts(op, graph)

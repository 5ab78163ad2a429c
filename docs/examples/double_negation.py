"""A tsjit pass plugin in one file: `-(-n)` is `n` for ints.

    ts-opt graph.txt --load-pass-plugin double_negation.py -p remove-double-negation

Installed as a package, the same module registers the pass through the `xdsl.universe`
entry point (`UNIVERSE` below), and `ts-opt -p remove-double-negation` finds it.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.universe import Universe

from tsjit.dialects.types import IntType
from tsjit.transforms.pass_logging import TsjitPass


class RemoveDoubleIntNegation(RewritePattern):
    """`aten.neg(aten.neg(n))` → `n` on ints (tensors are left alone: the result of a
    negation is a new tensor, `n` is not)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "aten.neg" or not isinstance(op.results[0].type, IntType):
            return
        inner = op.operands[0].owner
        if isinstance(inner, Operation) and inner.name == "aten.neg":
            rewriter.replace(op, [], [inner.operands[0]])


@dataclass(frozen=True)
class RemoveDoubleNegationPass(TsjitPass):
    """Removes double negations of ints. As a `TsjitPass`, it logs and counts its
    rewrites like tsjit's own passes (TSJIT_LOG_LEVEL, TSJIT_OPT_LIMIT)."""

    name = "remove-double-negation"

    def run(self, ctx: Context, op: ModuleOp) -> None:
        self.rewrite(op, [RemoveDoubleIntNegation()])


UNIVERSE = Universe(all_passes={RemoveDoubleNegationPass.name: lambda: RemoveDoubleNegationPass})

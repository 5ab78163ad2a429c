"""A third-party pass in one file: put the constant operand of arith.addi second."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)


class ConstantToRhs(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddiOp, rewriter: PatternRewriter, /):
        if isinstance(op.lhs.owner, arith.ConstantOp) and not isinstance(op.rhs.owner, arith.ConstantOp):
            rewriter.replace(op, arith.AddiOp(op.rhs, op.lhs))


@dataclass(frozen=True)
class ConstantToRhsPass(ModulePass):
    name = "constant-to-rhs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ConstantToRhs()).rewrite_module(op)

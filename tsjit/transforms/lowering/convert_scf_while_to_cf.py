"""convert-scf-while-to-cf: `scf.while` to branches, the loop xDSL 0.74's
convert-scf-to-cf leaves out (it lowers `scf.for`, `scf.if` and `scf.index_switch`).
TorchScript loops with a data-dependent condition become `scf.while`.

    %r = scf.while (%x = %init) : (i64) -> i64 {      cf.br ^before(%init)
      ...; scf.condition(%c) %x : i64             ^before(%x): ...; cf.cond_br %c, ^after(%x), ^exit(%x)
    } do {                                  →     ^after(%y): ...; cf.br ^before(%z)
    ^bb0(%y: i64): ...; scf.yield %z              ^exit(%r): ...
    }

The regions may already hold several blocks (a nested loop lowered first).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from xdsl.context import Context
from xdsl.dialects import cf, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, Region
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import BlockInsertPoint, InsertPoint


class WhileLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.WhileOp, rewriter: PatternRewriter, /) -> None:
        block = op.parent_block()
        assert block is not None
        exit_block = block.split_before(op)
        for i, type in enumerate(op.result_types):
            rewriter.insert_block_argument(exit_block, i, type)
        before, after = op.before_region.blocks[0], op.after_region.blocks[0]
        condition = _terminator(op.before_region, scf.ConditionOp)
        step = _terminator(op.after_region, scf.YieldOp)
        rewriter.inline_region(op.before_region, BlockInsertPoint.before(exit_block))
        rewriter.inline_region(op.after_region, BlockInsertPoint.before(exit_block))
        rewriter.insert(cf.BranchOp(before, *op.arguments), InsertPoint.at_end(block))
        rewriter.replace(
            condition,
            cf.ConditionalBranchOp(condition.condition, after, condition.args, exit_block, condition.args),
        )
        rewriter.replace(step, cf.BranchOp(before, *step.operands))
        rewriter.replace(op, [], exit_block.args[: len(op.results)])


_Terminator = TypeVar("_Terminator", bound=Operation)


def _terminator(region: Region, kind: type[_Terminator]) -> _Terminator:
    for block in region.blocks:
        if isinstance(block.last_op, kind):
            return block.last_op
    raise AssertionError(f"scf.while region without {kind.name}")


@dataclass(frozen=True)
class ConvertScfWhileToCfPass(ModulePass):
    name = "convert-scf-while-to-cf"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(WhileLowering()).rewrite_module(op)

"""convert-cf-to-llvm: `cf.br`, `cf.cond_br` and `cf.switch` to `llvm.br`/`llvm.cond_br`.

Block arguments become phis when translated to LLVM IR, so the arguments of the blocks a
branch targets take native types here (an `index` becomes `i64`, a memref its
descriptor); the entry block's arguments are the function's and belong to
convert-func-to-llvm. xDSL's llvm dialect has no `switch`: `cf.switch` becomes a chain of
compare-and-branch blocks. `cf.assert` is not lowered.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import cf, llvm
from xdsl.dialects.builtin import ModuleOp, UnrealizedConversionCastOp
from xdsl.ir import Block, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import BlockInsertPoint, InsertPoint, Rewriter

from tsjit.transforms.lowering.calling_convention import native_type
from tsjit.transforms.lowering.llvm_builder import LLVMBuilder
from tsjit.transforms.lowering.llvm_types import native_value
from tsjit.transforms.lowering.loop_hints import copy_hints


class BranchToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.BranchOp, rewriter: PatternRewriter, /) -> None:
        operands = _successor_operands(rewriter, op.successor, op.arguments)
        branch = llvm.BrOp(op.successor, *operands)
        copy_hints(op, branch)  # a loop's back edge
        rewriter.replace(op, branch)


class ConditionalBranchToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.ConditionalBranchOp, rewriter: PatternRewriter, /) -> None:
        then_operands = _successor_operands(rewriter, op.then_block, op.then_arguments)
        else_operands = _successor_operands(rewriter, op.else_block, op.else_arguments)
        rewriter.replace(
            op, llvm.CondBrOp(op.cond, op.then_block, then_operands, op.else_block, else_operands)
        )


class SwitchToLLVM(RewritePattern):
    """`cf.switch %flag [default: ^d, 1: ^a, 5: ^b]` → test `%flag == 1` and branch to
    `^a`, else in a new block test `%flag == 5`, ..., else branch to `^d`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.SwitchOp, rewriter: PatternRewriter, /) -> None:
        flag = native_value(rewriter, op.flag)
        values = op.case_values.get_values() if op.case_values is not None else ()
        segments = op.case_operand_segments.get_values()
        cases, start = [], 0
        for value, block, size in zip(values, op.case_blocks, segments, strict=True):
            cases.append(
                (value, block, _successor_operands(rewriter, block, op.case_operands[start : start + size]))
            )
            start += size
        default_operands = _successor_operands(rewriter, op.default_block, op.default_operands)
        here = op.parent_block()
        assert here is not None
        e = LLVMBuilder(rewriter)
        for value, block, operands in cases:
            matches = e.icmp("eq", flag, e.constant(value, flag.type))
            otherwise = Block()
            Rewriter.insert_block(otherwise, BlockInsertPoint.after(here))
            rewriter.insert(llvm.CondBrOp(matches, block, operands, otherwise, []), e.insert_point)
            here = otherwise
            e = LLVMBuilder(rewriter, InsertPoint.at_end(otherwise))
        rewriter.insert(llvm.BrOp(op.default_block, *default_operands), e.insert_point)
        rewriter.erase(op)


def _successor_operands(
    rewriter: PatternRewriter, block: Block, operands: Sequence[SSAValue]
) -> list[SSAValue]:
    """`operands` as the native values `block` receives, converting its arguments to
    native types first if no other branch has done so."""
    for arg in tuple(block.args):
        if (type := native_type(arg.type)) != arg.type:
            rebuilt, result = UnrealizedConversionCastOp.cast_one(arg, arg.type)
            rewriter.insert(rebuilt, InsertPoint.at_start(block))
            rewriter.replace_uses_with_if(arg, result, lambda use, cast=rebuilt: use.operation is not cast)
            rewriter.replace_value_with_new_type(arg, type)
    return [native_value(rewriter, v) for v in operands]


CF_TO_LLVM_PATTERNS: tuple[RewritePattern, ...] = (BranchToLLVM(), ConditionalBranchToLLVM(), SwitchToLLVM())


@dataclass(frozen=True)
class ConvertCfToLLVMPass(ModulePass):
    name = "convert-cf-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier(list(CF_TO_LLVM_PATTERNS))).rewrite_module(op)

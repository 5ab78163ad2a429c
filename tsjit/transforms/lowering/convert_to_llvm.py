"""convert-to-llvm: a module of func/scf/cf/arith/math/memref ops, all the way to the
llvm dialect, ready for `llvm_export` and the JIT.

It runs xDSL's convert-scf-to-cf (keeping `loop_hints` on loop back edges) and tsjit's
convert-scf-while-to-cf, then the patterns
of convert-{func,memref,arith,math,cf}-to-llvm, then reconcile-unrealized-casts, and
checks that nothing else is left: an op no pass lowers is reported with its location
instead of failing later in LLVM.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnrealizedConversionCastOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.transforms.convert_scf_to_cf import IfLowering, SwitchLowering
from xdsl.transforms.reconcile_unrealized_casts import reconcile_unrealized_casts

from tsjit.diagnostics import SourceLocation, TsjitError
from tsjit.transforms.lowering.convert_arith_to_llvm import ARITH_TO_LLVM_PATTERNS
from tsjit.transforms.lowering.convert_cf_to_llvm import CF_TO_LLVM_PATTERNS
from tsjit.transforms.lowering.convert_func_to_llvm import ConvertFuncToLLVMPass
from tsjit.transforms.lowering.convert_math_to_llvm import MathToLLVM
from tsjit.transforms.lowering.convert_memref_to_llvm import MEMREF_TO_LLVM_PATTERNS
from tsjit.transforms.lowering.convert_scf_while_to_cf import WhileLowering
from tsjit.transforms.lowering.loop_hints import ForLoweringWithHints


@dataclass(frozen=True)
class ConvertToLLVMPass(ModulePass):
    name = "convert-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        scf_to_cf = [SwitchLowering(), IfLowering(), ForLoweringWithHints()]
        PatternRewriteWalker(GreedyRewritePatternApplier(scf_to_cf)).rewrite_module(op)
        PatternRewriteWalker(WhileLowering()).rewrite_module(op)
        # Functions first, so that memref accesses see the parameters themselves; then
        # one walk with the other conversions, as they do not depend on each other.
        ConvertFuncToLLVMPass().apply(ctx, op)
        patterns = [*MEMREF_TO_LLVM_PATTERNS, *ARITH_TO_LLVM_PATTERNS, MathToLLVM(), *CF_TO_LLVM_PATTERNS]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)
        reconcile_unrealized_casts(op, warn_on_failure=False)
        check_lowered(op)


def check_lowered(module: ModuleOp) -> None:
    """Raises on the first op outside the llvm dialect, naming what is left."""
    leftover_cast = None
    for op in module.walk():
        if op is module or op.dialect_name() == "llvm":
            continue
        if isinstance(op, UnrealizedConversionCastOp):
            leftover_cast = leftover_cast or op
            continue
        raise TsjitError(f"'{op.name}' has no lowering to the llvm dialect", SourceLocation.of_op(op))
    if leftover_cast is not None:
        types = ", ".join(str(t) for t in leftover_cast.result_types)
        raise TsjitError(f"a value of type {types} is left unconverted", SourceLocation.of_op(leftover_cast))

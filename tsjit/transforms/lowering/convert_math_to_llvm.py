"""convert-math-to-llvm: `math` ops to LLVM intrinsics, inline approximations or libm.

`MATH_LOWERINGS` says, per op, how. The choice is about vectorization: intrinsics that
LLVM turns into instructions (fabs, floor, sqrt, fma, ...) vectorize; those that become
libm calls (exp, log, tanh, sin, ...) run one call per element and block the loop
vectorizer. So exp, exp2, log, log2, log10, tanh and erf on f32 (and on f16/bf16, computed
in f32) use the inline approximations of `fast_math`; on f64 they keep the accurate
intrinsic or libm call. Functions without an LLVM intrinsic (erf on f64, expm1, log1p,
cbrt, the inverse hyperbolics) call libm, which the JIT resolves in-process. Fast-math
flags of math ops are dropped: xDSL's translator does not carry them to intrinsic calls.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeGuard

from xdsl.context import Context
from xdsl.dialects import llvm, math
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, ModuleOp, f32, i1
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import SymbolTable

from tsjit.diagnostics import SourceLocation, TsjitError
from tsjit.transforms.lowering import fast_math
from tsjit.transforms.lowering.llvm_builder import LLVMBuilder
from tsjit.transforms.lowering.llvm_types import intrinsic_name, native_operands, replace_op


class Lowering(ABC):
    """How one math op becomes llvm ops (emitted through `e`) computing its result."""

    @abstractmethod
    def emit(self, e: LLVMBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue: ...


@dataclass(frozen=True)
class IntrinsicOp(Lowering):
    """A dedicated op of xDSL's llvm dialect, such as `llvm.intr.sqrt`."""

    op: type[Operation]

    def emit(self, e: LLVMBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
        return e.emit(self.op.build(operands=list(args), result_types=[op.results[0].type]))


@dataclass(frozen=True)
class Intrinsic(Lowering):
    """`llvm.call_intrinsic` of an overloaded intrinsic, named after the types of the
    `overloads` operands; `poison_flag` appends the `i1 false` that `llvm.abs`,
    `llvm.ctlz` and `llvm.cttz` take."""

    base: str
    overloads: tuple[int, ...] = (0,)
    poison_flag: bool = False

    def emit(self, e: LLVMBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
        name = intrinsic_name(self.base, args[self.overloads[0]].type)
        for i in self.overloads[1:]:
            name += intrinsic_name("", args[i].type)
        operands = [*args, e.constant(0, i1)] if self.poison_flag else list(args)
        return e.emit(llvm.CallIntrinsicOp(name, operands, [op.results[0].type]))


@dataclass(frozen=True)
class LibmCall(Lowering):
    """A call to the C library: `name` on f64, `name` + "f" on f32 (and on f16/bf16,
    computed in f32); the declaration is added to the module once."""

    name: str

    def emit(self, e: LLVMBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
        (x,) = args
        if isinstance(x.type, Float16Type | BFloat16Type):
            return _narrow(e, self._call(e, op, e.emit(llvm.FPExtOp(x, f32))), x.type)
        return self._call(e, op, x)

    def _call(self, e: LLVMBuilder, op: Operation, x: SSAValue) -> SSAValue:
        type = x.type
        symbol = self.name + ("f" if isinstance(type, Float32Type) else "")
        function_type = llvm.LLVMFunctionType([type], type)
        module = op.get_toplevel_object()
        assert isinstance(module, ModuleOp)
        existing = SymbolTable.lookup_symbol(module, symbol)
        if existing is None:
            declaration = llvm.FuncOp(symbol, function_type, linkage=llvm.LinkageAttr("external"))
            e.rewriter.insert(declaration, InsertPoint.at_start(module.body.block))
        elif not (_is_declaration(existing) and existing.function_type == function_type):
            raise TsjitError(
                f"'{op.name}' calls the C library's {symbol}, but the module defines another @{symbol}",
                SourceLocation.of_op(op),
            )
        return e.emit(llvm.CallOp(symbol, x, return_type=type))


def _is_declaration(op: Operation) -> TypeGuard[llvm.FuncOp]:
    return isinstance(op, llvm.FuncOp) and not op.body.blocks


@dataclass(frozen=True)
class Approximated(Lowering):
    """An inline approximation from `fast_math` for f32, f16 and bf16 scalars (the
    narrow ones computed in f32); `otherwise` for f64 and vectors."""

    function: str
    otherwise: Lowering

    def emit(self, e: LLVMBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
        (x,) = args
        approximation = fast_math.APPROXIMATIONS[self.function]
        if isinstance(x.type, Float32Type):
            return approximation(e.contracting(), x)
        if isinstance(x.type, Float16Type | BFloat16Type):
            return _narrow(e, approximation(e.contracting(), e.emit(llvm.FPExtOp(x, f32))), x.type)
        return self.otherwise.emit(e, op, args)


@dataclass(frozen=True)
class ReciprocalSqrt(Lowering):
    def emit(self, e: LLVMBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
        (x,) = args
        return e.fdiv(e.constant(1.0, x.type), e.emit(llvm.FSqrtOp(x)))


def _narrow(e: LLVMBuilder, value: SSAValue, type: Attribute) -> SSAValue:
    return e.emit(llvm.FPTruncOp(value, type))


MATH_LOWERINGS: dict[type[Operation], Lowering] = {
    math.AbsFOp: IntrinsicOp(llvm.FAbsOp),
    math.CeilOp: IntrinsicOp(llvm.FCeilOp),
    math.FloorOp: IntrinsicOp(llvm.FFloorOp),
    math.SqrtOp: IntrinsicOp(llvm.FSqrtOp),
    math.RsqrtOp: ReciprocalSqrt(),
    math.SinOp: IntrinsicOp(llvm.FSinOp),
    math.CosOp: IntrinsicOp(llvm.FCosOp),
    math.PowFOp: IntrinsicOp(llvm.FPowOp),
    math.CopySignOp: IntrinsicOp(llvm.FCopySignOp),
    math.FmaOp: IntrinsicOp(llvm.FMAOp),
    math.ExpOp: Approximated("exp", IntrinsicOp(llvm.FExpOp)),
    math.Exp2Op: Approximated("exp2", IntrinsicOp(llvm.FExp2Op)),
    math.LogOp: Approximated("log", IntrinsicOp(llvm.FLogOp)),
    math.Log2Op: Approximated("log2", IntrinsicOp(llvm.FLog2Op)),
    math.Log10Op: Approximated("log10", Intrinsic("llvm.log10")),
    math.TanhOp: Approximated("tanh", Intrinsic("llvm.tanh")),
    math.ErfOp: Approximated("erf", LibmCall("erf")),
    math.TruncOp: Intrinsic("llvm.trunc"),
    math.RoundOp: Intrinsic("llvm.round"),
    math.RoundEvenOp: Intrinsic("llvm.roundeven"),
    math.TanOp: Intrinsic("llvm.tan"),
    math.AsinOp: Intrinsic("llvm.asin"),
    math.AcosOp: Intrinsic("llvm.acos"),
    math.AtanOp: Intrinsic("llvm.atan"),
    math.Atan2Op: Intrinsic("llvm.atan2"),
    math.SinhOp: Intrinsic("llvm.sinh"),
    math.CoshOp: Intrinsic("llvm.cosh"),
    math.FPowIOp: Intrinsic("llvm.powi", overloads=(0, 1)),
    math.AbsIOp: Intrinsic("llvm.abs", poison_flag=True),
    math.CountLeadingZerosOp: Intrinsic("llvm.ctlz", poison_flag=True),
    math.CountTrailingZerosOp: Intrinsic("llvm.cttz", poison_flag=True),
    math.CtPopOp: Intrinsic("llvm.ctpop"),
    math.ExpM1Op: LibmCall("expm1"),
    math.Log1pOp: LibmCall("log1p"),
    math.CbrtOp: LibmCall("cbrt"),
    math.AsinhOp: LibmCall("asinh"),
    math.AcoshOp: LibmCall("acosh"),
    math.AtanhOp: LibmCall("atanh"),
}


class MathToLLVM(RewritePattern):
    """Any op of `MATH_LOWERINGS`, lowered as the table says."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if (lowering := MATH_LOWERINGS.get(type(op))) is None:
            return
        result = lowering.emit(LLVMBuilder(rewriter), op, native_operands(rewriter, op))
        replace_op(rewriter, op, [], [result])


@dataclass(frozen=True)
class ConvertMathToLLVMPass(ModulePass):
    name = "convert-math-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier([MathToLLVM()])).rewrite_module(op)

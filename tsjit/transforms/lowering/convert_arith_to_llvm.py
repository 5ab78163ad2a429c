"""convert-arith-to-llvm: `arith` ops to the llvm dialect, `index` computed as `i64`.

Most ops map one to one through the tables below. Integer division keeps MLIR's
semantics, which the front end relies on:

- `divsi` truncates toward zero (C, `torch.div(rounding_mode="trunc")`); `remsi` is the
  matching remainder, with the sign of the dividend (C `%`, `torch.fmod`).
- `floordivsi` rounds toward negative infinity: Python's `//` on ints and
  `torch.div(rounding_mode="floor")`. Python's `a % b` is `a - floordivsi(a, b) * b`.
- `ceildivsi` / `ceildivui` round toward positive infinity.
- A zero divisor, or `INT_MIN / -1`, is undefined behaviour in LLVM: callers that must
  raise (TorchScript's `ZeroDivisionError`) test the divisor before dividing.
- `fptosi` / `fptoui` of NaN or out-of-range values yield an unspecified value.

`minimumf` / `maximumf` propagate NaN (`llvm.minimum`/`llvm.maximum`, like `torch.minimum`);
`minnumf` / `maxnumf` return the other operand (`llvm.minnum`/`llvm.maxnum`, like
`torch.fmin`). The extended-result ops (`addui_extended`, `mul*_extended`) are not lowered.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp, i1, i64
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from tsjit.transforms.lowering.llvm_builder import LLVMBuilder
from tsjit.transforms.lowering.llvm_ops import FPToSIOp, FPToUIOp, UIToFPOp
from tsjit.transforms.lowering.llvm_types import native_operands, native_value, replace_op

BINARY_OPS: dict[type[Operation], type[Operation]] = {
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
    arith.DivSIOp: llvm.SDivOp,
    arith.DivUIOp: llvm.UDivOp,
    arith.RemSIOp: llvm.SRemOp,
    arith.RemUIOp: llvm.URemOp,
    arith.AndIOp: llvm.AndOp,
    arith.OrIOp: llvm.OrOp,
    arith.XOrIOp: llvm.XOrOp,
    arith.ShLIOp: llvm.ShlOp,
    arith.ShRSIOp: llvm.AShrOp,
    arith.ShRUIOp: llvm.LShrOp,
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
    arith.MaxnumfOp: llvm.VectorFMaxOp,
    arith.MinnumfOp: llvm.VectorFMinOp,
}

INTRINSIC_OPS: dict[type[Operation], str] = {
    arith.MinSIOp: "llvm.smin",
    arith.MaxSIOp: "llvm.smax",
    arith.MinUIOp: "llvm.umin",
    arith.MaxUIOp: "llvm.umax",
    arith.MinimumfOp: "llvm.minimum",
    arith.MaximumfOp: "llvm.maximum",
}

CAST_OPS: dict[type[Operation], type[Operation]] = {
    arith.ExtSIOp: llvm.SExtOp,
    arith.ExtUIOp: llvm.ZExtOp,
    arith.TruncIOp: llvm.TruncOp,
    arith.ExtFOp: llvm.FPExtOp,
    arith.TruncFOp: llvm.FPTruncOp,
    arith.SIToFPOp: llvm.SIToFPOp,
    arith.UIToFPOp: UIToFPOp,
    arith.FPToSIOp: FPToSIOp,
    arith.FPToUIOp: FPToUIOp,
    arith.BitcastOp: llvm.BitcastOp,
}


class ArithBinaryToLLVM(RewritePattern):
    """`arith.addi` → `llvm.add` and the rest of `BINARY_OPS`, keeping overflow and
    fast-math flags."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if (target := BINARY_OPS.get(type(op))) is None:
            return
        new = target(*native_operands(rewriter, op))
        overflow, fastmath = op.properties.get("overflowFlags"), op.properties.get("fastmath")
        if isinstance(overflow, arith.IntegerOverflowAttr) and overflow.data:
            flags = llvm.OverflowAttr(llvm.OverflowFlag(f.value) for f in overflow.data)
            new.properties["overflowFlags"] = IntegerAttr(flags.to_int(), 32)
        elif isinstance(fastmath, arith.FastMathFlagsAttr):
            new.properties["fastmathFlags"] = llvm.FastMathAttr(fastmath.data)
        replace_op(rewriter, op, [new])


class ArithIntrinsicToLLVM(RewritePattern):
    """`arith.maxsi` → `llvm.call_intrinsic "llvm.smax.i64"` and the rest of `INTRINSIC_OPS`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if (base := INTRINSIC_OPS.get(type(op))) is None:
            return
        lhs, rhs = native_operands(rewriter, op)
        replace_op(rewriter, op, [], [LLVMBuilder(rewriter).intrinsic(base, [lhs, rhs], lhs.type, lhs.type)])


class ArithCastToLLVM(RewritePattern):
    """`arith.extsi` → `llvm.sext` and the rest of `CAST_OPS`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if (target := CAST_OPS.get(type(op))) is None:
            return
        (value,) = native_operands(rewriter, op)
        replace_op(rewriter, op, [target(value, op.results[0].type)])


class ArithConstantToLLVM(RewritePattern):
    """`arith.constant` → `llvm.mlir.constant`, an `index` constant as `i64`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.ConstantOp, rewriter: PatternRewriter, /) -> None:
        value: Attribute = op.value
        type = op.result.type
        if isinstance(type, IndexType):
            assert isinstance(value, IntegerAttr)
            value, type = IntegerAttr(value.value.data, i64), i64
        replace_op(rewriter, op, [llvm.ConstantOp(value, type)])


class ArithIndexCastToLLVM(RewritePattern):
    """`arith.index_cast` between `index` (`i64`) and `iN`: sign extension, truncation
    or nothing."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.IndexCastOp, rewriter: PatternRewriter, /) -> None:
        value = native_value(rewriter, op.input)
        target = i64 if isinstance(op.result.type, IndexType) else op.result.type
        assert isinstance(value.type, IntegerType) and isinstance(target, IntegerType)
        if value.type.width.data == target.width.data:
            replace_op(rewriter, op, [], [value])
        elif value.type.width.data < target.width.data:
            replace_op(rewriter, op, [llvm.SExtOp(value, target)])
        else:
            replace_op(rewriter, op, [llvm.TruncOp(value, target)])


class ArithCmpToLLVM(RewritePattern):
    """`arith.cmpi` → `llvm.icmp` (same predicate numbering); `arith.cmpf` → `llvm.fcmp`,
    with the constant predicates `false`/`true` folded to constants."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.CmpiOp | arith.CmpfOp, rewriter: PatternRewriter, /) -> None:
        lhs, rhs = native_operands(rewriter, op)
        predicate = op.predicate.value.data
        if isinstance(op, arith.CmpiOp):
            replace_op(rewriter, op, [llvm.ICmpOp(lhs, rhs, IntegerAttr(predicate, i64))])
            return
        name = arith.CMPF_COMPARISON_OPERATIONS[predicate]
        if name in ("false", "true"):
            replace_op(rewriter, op, [llvm.ConstantOp(IntegerAttr(int(name == "true"), i1), i1)])
            return
        replace_op(rewriter, op, [llvm.FCmpOp(lhs, rhs, name)])


class ArithSelectToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SelectOp, rewriter: PatternRewriter, /) -> None:
        replace_op(rewriter, op, [llvm.SelectOp(*native_operands(rewriter, op))])


class ArithNegfToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.NegfOp, rewriter: PatternRewriter, /) -> None:
        replace_op(
            rewriter,
            op,
            [llvm.FNegOp(native_value(rewriter, op.operand), llvm.FastMathAttr(op.fastmath.data))],
        )


class ArithRoundingDivisionToLLVM(RewritePattern):
    """`floordivsi`, `ceildivsi`, `ceildivui`: the truncating quotient, moved by one
    where the remainder is non-zero and on the rounding side. Branch-free, so loops
    around it still vectorize."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: arith.FloorDivSIOp | arith.CeilDivSIOp | arith.CeilDivUIOp, rewriter: PatternRewriter, /
    ) -> None:
        a, b = native_operands(rewriter, op)
        e = LLVMBuilder(rewriter)
        zero, one = e.constant(0, a.type), e.constant(1, a.type)
        if isinstance(op, arith.CeilDivUIOp):
            quotient, remainder = e.udiv(a, b), e.urem(a, b)
            inexact = e.icmp("ne", remainder, zero)
            replace_op(rewriter, op, [], [e.select(inexact, e.add(quotient, one), quotient)])
            return
        quotient, remainder = e.sdiv(a, b), e.srem(a, b)
        inexact = e.icmp("ne", remainder, zero)
        if isinstance(op, arith.FloorDivSIOp):  # step down where the exact quotient is negative
            negative = e.icmp("slt", e.xor(remainder, b), zero)
            replace_op(
                rewriter, op, [], [e.select(e.and_(inexact, negative), e.sub(quotient, one), quotient)]
            )
        else:  # step up where it is positive
            positive = e.icmp("sge", e.xor(remainder, b), zero)
            replace_op(
                rewriter, op, [], [e.select(e.and_(inexact, positive), e.add(quotient, one), quotient)]
            )


ARITH_TO_LLVM_PATTERNS: tuple[RewritePattern, ...] = (
    ArithConstantToLLVM(),
    ArithBinaryToLLVM(),
    ArithIntrinsicToLLVM(),
    ArithCastToLLVM(),
    ArithIndexCastToLLVM(),
    ArithCmpToLLVM(),
    ArithSelectToLLVM(),
    ArithNegfToLLVM(),
    ArithRoundingDivisionToLLVM(),
)


@dataclass(frozen=True)
class ConvertArithToLLVMPass(ModulePass):
    name = "convert-arith-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier(list(ARITH_TO_LLVM_PATTERNS))).rewrite_module(op)

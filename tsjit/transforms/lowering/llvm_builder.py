"""A builder of llvm-dialect arithmetic for rewrite patterns whose output is more than
one op (index linearization, floor division, inline transcendental functions): the code
that uses it reads like the formula it implements."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IntegerAttr, IntegerType, i64
from xdsl.dialects.utils.fast_math import FastMathFlag
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from tsjit.transforms.lowering.llvm_types import intrinsic_name


def _overflow(nsw: bool) -> llvm.OverflowAttr:
    return llvm.OverflowAttr([llvm.OverflowFlag.NO_SIGNED_WRAP] if nsw else [])


_NO_FLAGS = llvm.FastMathAttr(None)


class LLVMBuilder:
    """Inserts llvm ops at a fixed point (by default before the matched op). Constants
    are made once per builder, so repeated coefficients share one op."""

    def __init__(
        self,
        rewriter: PatternRewriter,
        insert_point: InsertPoint | None = None,
        fastmath: llvm.FastMathAttr = _NO_FLAGS,
    ):
        self.rewriter = rewriter
        self.insert_point = insert_point
        self.fastmath = fastmath
        self._constants: dict[tuple[object, Attribute], SSAValue] = {}

    def contracting(self) -> LLVMBuilder:
        """This builder, with float multiplies and adds that LLVM may fuse into FMAs."""
        builder = LLVMBuilder(
            self.rewriter, self.insert_point, llvm.FastMathAttr([FastMathFlag.ALLOW_CONTRACT])
        )
        builder._constants = self._constants
        return builder

    def emit(self, op: Operation) -> SSAValue:
        self.rewriter.insert(op, self.insert_point)
        return op.results[0]

    def constant(self, value: float | int, type: Attribute) -> SSAValue:
        key = (value, type)
        if key not in self._constants:
            attr = (
                IntegerAttr(int(value), type)
                if isinstance(type, IntegerType)
                else FloatAttr(float(value), type)
            )
            self._constants[key] = self.emit(llvm.ConstantOp(attr, type))
        return self._constants[key]

    def index(self, value: int) -> SSAValue:
        return self.constant(value, i64)

    # integers; `nsw` for index arithmetic that cannot wrap
    def add(self, a: SSAValue, b: SSAValue, nsw: bool = False) -> SSAValue:
        return self.emit(llvm.AddOp(a, b, overflow=_overflow(nsw)))

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(llvm.SubOp(a, b))

    def mul(self, a: SSAValue, b: SSAValue, nsw: bool = False) -> SSAValue:
        return self.emit(llvm.MulOp(a, b, overflow=_overflow(nsw)))

    def sdiv(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(llvm.SDivOp(a, b))

    def udiv(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(llvm.UDivOp(a, b))

    def srem(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(llvm.SRemOp(a, b))

    def urem(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(llvm.URemOp(a, b))

    def and_(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(llvm.AndOp(a, b))

    def or_(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(llvm.OrOp(a, b))

    def xor(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(llvm.XOrOp(a, b))

    def shl(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(llvm.ShlOp(a, b))

    def ashr(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(llvm.AShrOp(a, b))

    def icmp(self, predicate: str, a: SSAValue, b: SSAValue) -> SSAValue:
        flag = llvm.ICmpPredicateFlag(predicate)
        return self.emit(llvm.ICmpOp(a, b, IntegerAttr(flag.to_int(), i64)))

    # floats
    def fadd(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(llvm.FAddOp(a, b, self.fastmath))

    def fsub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(llvm.FSubOp(a, b, self.fastmath))

    def fmul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(llvm.FMulOp(a, b, self.fastmath))

    def fdiv(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(llvm.FDivOp(a, b, self.fastmath))

    def fcmp(self, predicate: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(llvm.FCmpOp(a, b, predicate))

    def horner(self, x: SSAValue, coefficients: Sequence[float]) -> SSAValue:
        """c0 * x^(n-1) + ... + c(n-1), highest power first."""
        result = self.constant(coefficients[0], x.type)
        for c in coefficients[1:]:
            result = self.fadd(self.fmul(result, x), self.constant(c, x.type))
        return result

    # both
    def select(self, condition: SSAValue, if_true: SSAValue, if_false: SSAValue) -> SSAValue:
        return self.emit(llvm.SelectOp(condition, if_true, if_false))

    def bitcast(self, value: SSAValue, type: Attribute) -> SSAValue:
        return self.emit(llvm.BitcastOp(value, type))

    # aggregates
    def struct(self, values: Sequence[SSAValue]) -> SSAValue:
        result = self.emit(llvm.UndefOp(llvm.LLVMStructType.from_type_list([v.type for v in values])))
        for i, value in enumerate(values):
            result = self.emit(llvm.InsertValueOp(DenseArrayBase.from_list(i64, [i]), result, value))
        return result

    def field(self, struct: SSAValue, position: int) -> SSAValue:
        """Field `position` of `struct`: the inserted value itself when the struct was
        built in sight, else an `llvm.extractvalue`."""
        built = struct
        while isinstance(inserted := built.owner, llvm.InsertValueOp):
            if tuple(inserted.position.iter_values()) == (position,):
                return inserted.value
            built = inserted.container
        assert isinstance(struct.type, llvm.LLVMStructType)
        field_type = struct.type.types.data[position]
        return self.emit(llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [position]), struct, field_type))

    def intrinsic(
        self, base: str, args: Sequence[SSAValue], result: Attribute, overload: Attribute
    ) -> SSAValue:
        return self.emit(llvm.CallIntrinsicOp(intrinsic_name(base, overload), args, [result]))

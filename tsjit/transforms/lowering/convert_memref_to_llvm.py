"""convert-memref-to-llvm: memory accesses as `getelementptr` on a memref's base pointer.

A memref is its descriptor (`calling_convention`): a base pointer plus the dynamic sizes,
strides and offset of its type, packed in a struct when there are any. `memref.load` and
`memref.store` compute the linear element index `offset + Σ index_k · stride_k` in `i64`
(no-signed-wrap, as memref indexing cannot overflow) and address the element with one
`getelementptr inbounds` on the base pointer. That form, unlike `ptrtoint`/`inttoptr` arithmetic (xDSL's
memref→ptr route), keeps LLVM's alias analysis and loop vectorizer working. `memref.dim`
reads the size from the descriptor. `memref.alloca` (identity layout) becomes
`llvm.alloca`, placed in the entry block when its size is static so that a loop does not
grow the stack. `memref.prefetch` (`memref_ops`) becomes the `llvm.prefetch` intrinsic.
`memref.alloc`/`dealloc` are not lowered: kernels receive their buffers as parameters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, UnrealizedConversionCastOp, i32
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from tsjit.transforms.lowering.calling_convention import MemRefDescriptor, native_type
from tsjit.transforms.lowering.llvm_builder import LLVMBuilder
from tsjit.transforms.lowering.llvm_types import native_value, replace_op
from tsjit.transforms.lowering.memref_ops import PrefetchOp


@dataclass
class DescriptorValues:
    """A memref's descriptor as values: static entries as ints, dynamic ones as `i64`
    values, strides derived from the sizes for the identity layout."""

    pointer: SSAValue
    sizes: list[int | SSAValue]
    strides: list[int | SSAValue]
    offset: int | SSAValue

    @staticmethod
    def of(e: LLVMBuilder, value: SSAValue) -> DescriptorValues:
        assert isinstance(value.type, MemRefType)
        layout = MemRefDescriptor.of(value.type)
        native = native_value(e.rewriter, value, e.insert_point)
        if isinstance(native.type, llvm.LLVMStructType):
            pointer, *dynamic = (e.field(native, i) for i in range(len(layout.native_types)))
        else:
            pointer, dynamic = native, []
        entries = iter(dynamic)
        sizes: list[int | SSAValue] = [next(entries) if s is None else s for s in layout.sizes]
        if layout.strides is None:
            strides: list[int | SSAValue] = []
            running: int | SSAValue = 1
            for size in reversed(sizes):
                strides.insert(0, running)
                running = _times(e, running, size)
        else:
            strides = [next(entries) if s is None else s for s in layout.strides]
        offset = next(entries) if layout.offset is None else layout.offset
        return DescriptorValues(pointer, sizes, strides, offset)

    def element_pointer(self, e: LLVMBuilder, indices: list[SSAValue], element_type: Attribute) -> SSAValue:
        linear: int | SSAValue = self.offset
        for index, stride in zip(indices, self.strides, strict=True):
            linear = _plus(e, linear, _times(e, index, stride))
        position = e.index(linear) if isinstance(linear, int) else linear
        return e.emit(llvm.GEPOp.from_mixed_indices(self.pointer, [position], element_type, inbounds=True))


def _times(e: LLVMBuilder, a: int | SSAValue, b: int | SSAValue) -> int | SSAValue:
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    if a == 1 or b == 0:
        return b
    if b == 1 or a == 0:
        return a
    return e.mul(_value(e, a), _value(e, b), nsw=True)


def _plus(e: LLVMBuilder, a: int | SSAValue, b: int | SSAValue) -> int | SSAValue:
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if a == 0:
        return b
    if b == 0:
        return a
    return e.add(_value(e, a), _value(e, b), nsw=True)


def _value(e: LLVMBuilder, x: int | SSAValue) -> SSAValue:
    return e.index(x) if isinstance(x, int) else x


class LoadToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.LoadOp, rewriter: PatternRewriter, /) -> None:
        e = LLVMBuilder(rewriter)
        element = native_type(op.res.type)
        address = _address(e, op.memref, op.indices, element)
        replace_op(rewriter, op, [llvm.LoadOp(address, element)])


class StoreToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.StoreOp, rewriter: PatternRewriter, /) -> None:
        e = LLVMBuilder(rewriter)
        value = native_value(rewriter, op.value)
        address = _address(e, op.memref, op.indices, value.type)
        rewriter.replace(op, llvm.StoreOp(value, address), [])


class PrefetchToLLVM(RewritePattern):
    """`memref.prefetch` → `llvm.prefetch.p0(address, write, locality, data)`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PrefetchOp, rewriter: PatternRewriter, /) -> None:
        e = LLVMBuilder(rewriter)
        memref_type = op.memref.type
        assert isinstance(memref_type, MemRefType)
        address = _address(e, op.memref, op.indices, native_type(memref_type.element_type))
        flags = (
            int(bool(op.isWrite.value.data)),
            op.localityHint.value.data,
            int(bool(op.isDataCache.value.data)),
        )
        call = llvm.CallIntrinsicOp("llvm.prefetch.p0", [address, *(e.constant(f, i32) for f in flags)], [])
        rewriter.replace(op, call)


def _address(
    e: LLVMBuilder, memref_value: SSAValue, indices: Sequence[SSAValue], element: Attribute
) -> SSAValue:
    descriptor = DescriptorValues.of(e, memref_value)
    return descriptor.element_pointer(e, [native_value(e.rewriter, i) for i in indices], element)


class DimToLLVM(RewritePattern):
    """`memref.dim %m, %c1` → the size from the descriptor (a constant when static);
    with a non-constant dimension, a select over all sizes."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.DimOp, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op.source.type, MemRefType):
            return
        e = LLVMBuilder(rewriter)
        sizes = [_value(e, s) for s in DescriptorValues.of(e, op.source).sizes]
        dimension = _constant_index(op.index)
        if dimension is not None:
            replace_op(rewriter, op, [], [sizes[dimension]])
            return
        index = native_value(rewriter, op.index)
        result = sizes[-1]
        for d in range(len(sizes) - 2, -1, -1):
            result = e.select(e.icmp("eq", index, e.index(d)), sizes[d], result)
        replace_op(rewriter, op, [], [result])


def _constant_index(value: SSAValue) -> int | None:
    """The value of an index constant, before or after convert-arith-to-llvm."""
    owner = value.owner
    if isinstance(owner, UnrealizedConversionCastOp) and len(owner.inputs) == 1:
        owner = owner.inputs[0].owner
    if isinstance(owner, arith.ConstantOp | llvm.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


class AllocaToLLVM(RewritePattern):
    """`memref.alloca` with the identity layout → `llvm.alloca` of the element count;
    static ones go to the function's entry block."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.AllocaOp, rewriter: PatternRewriter, /) -> None:
        memref_type = op.memref.type
        layout = MemRefDescriptor.of(memref_type)
        if layout.strides is not None:
            return  # a scratch buffer with a strided layout would need its strides chosen
        element = native_type(memref_type.element_type)
        alignment = op.alignment.value.data if op.alignment is not None else 32
        dynamic = [native_value(rewriter, s) for s in op.dynamic_sizes]
        if not dynamic:
            entry = _entry_block(op)
            first = entry.first_op
            e = LLVMBuilder(
                rewriter, InsertPoint.before(first) if first is not None else InsertPoint.at_end(entry)
            )
            count: int | SSAValue = 1
            for size in layout.sizes:
                count = _times(e, count, size)
            pointer = e.emit(llvm.AllocaOp(_value(e, count), element, alignment))
        else:
            e = LLVMBuilder(rewriter)
            sizes = iter(dynamic)
            count = 1
            for size in layout.sizes:
                count = _times(e, count, next(sizes) if size is None else size)
            pointer = e.emit(llvm.AllocaOp(_value(e, count), element, alignment))
        descriptor = e.struct([pointer, *dynamic]) if dynamic else pointer
        replace_op(rewriter, op, [], [descriptor])


def _entry_block(op: Operation) -> Block:
    """The entry block of the function around `op`."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp | llvm.FuncOp):
        op, parent = parent, parent.parent_op()
    region = op.parent_region()
    assert region is not None and region.first_block is not None
    return region.first_block


MEMREF_TO_LLVM_PATTERNS: tuple[RewritePattern, ...] = (
    LoadToLLVM(),
    PrefetchToLLVM(),
    StoreToLLVM(),
    DimToLLVM(),
    AllocaToLLVM(),
)


@dataclass(frozen=True)
class ConvertMemRefToLLVMPass(ModulePass):
    name = "convert-memref-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier(list(MEMREF_TO_LLVM_PATTERNS))).rewrite_module(op)

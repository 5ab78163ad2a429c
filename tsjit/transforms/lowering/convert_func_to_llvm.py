"""convert-func-to-llvm: `func.func`, `func.return` and `func.call` to the llvm dialect,
following tsjit's kernel calling convention (`calling_convention`): memref parameters
become a bare pointer plus their dynamic sizes, strides and offset as `i64`s; several
results are returned as one struct. Every function gets external linkage, so that the
JIT can look any of them up.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, MemRefType, ModuleOp, UnrealizedConversionCastOp
from xdsl.ir import Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from tsjit.diagnostics import SourceLocation, TsjitError
from tsjit.transforms.lowering.calling_convention import (
    KernelSignature,
    kernel_signature,
    llvm_function_type,
    native_type,
    result_type,
)
from tsjit.transforms.lowering.llvm_builder import LLVMBuilder
from tsjit.transforms.lowering.llvm_types import native_value, replace_op


class FuncToLLVMFunc(RewritePattern):
    """`func.func` → `llvm.func` with the expanded parameters. In the body, each
    original parameter is rebuilt from its native ones (a memref's descriptor packed into
    a struct) and cast to its type, which the converted users see through."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.FuncOp, rewriter: PatternRewriter, /) -> None:
        signature = kernel_signature(op)
        if op.body.blocks:
            entry = op.body.blocks[0]
            assert entry.first_op is not None
            e = LLVMBuilder(rewriter, InsertPoint.before(entry.first_op))
            for arg, parameter in zip(tuple(entry.args), signature.parameters, strict=True):
                if parameter.native_types == (arg.type,):
                    continue
                natives = [
                    rewriter.insert_block_argument(entry, arg.index + k, t)
                    for k, t in enumerate(parameter.native_types)
                ]
                if arg.name_hint is not None:
                    names = (
                        parameter.memref.native_names(arg.name_hint) if parameter.memref else [arg.name_hint]
                    )
                    for native, name in zip(natives, names, strict=True):
                        native.name_hint = name
                value = e.struct(natives) if len(natives) > 1 else natives[0]
                rebuilt, result = UnrealizedConversionCastOp.cast_one(value, arg.type)
                e.emit(rebuilt)
                result.name_hint = arg.name_hint
                rewriter.replace_all_uses_with(arg, result)
                rewriter.erase_block_argument(arg)
        body = rewriter.move_region_contents_to_new_regions(op.body) if op.body.blocks else Region()
        function = llvm.FuncOp(
            op.sym_name, llvm_function_type(signature), linkage=llvm.LinkageAttr("external"), body=body
        )
        if op.arg_attrs is not None:
            function.arg_attrs = _native_arg_attrs(op.arg_attrs, signature)
        rewriter.replace(op, function)


def _native_arg_attrs(
    arg_attrs: ArrayAttr[DictionaryAttr], signature: KernelSignature
) -> ArrayAttr[DictionaryAttr]:
    """A parameter's attributes go to its first native argument (a memref's pointer)."""
    native: list[DictionaryAttr] = []
    for attrs, parameter in zip(arg_attrs.data, signature.parameters, strict=True):
        native += [attrs] + [DictionaryAttr({})] * (len(parameter.native_types) - 1)
    return ArrayAttr(native)


class ReturnToLLVM(RewritePattern):
    """`func.return` → `llvm.return`, several values packed into the result struct."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.ReturnOp, rewriter: PatternRewriter, /) -> None:
        values = [native_value(rewriter, v) for v in op.arguments]
        if len(values) > 1:
            values = [LLVMBuilder(rewriter).struct(values)]
        rewriter.replace(op, llvm.ReturnOp(values[0] if values else None))


class CallToLLVM(RewritePattern):
    """`func.call` → `llvm.call` with expanded arguments (a memref's descriptor
    unpacked); a struct result is unpacked."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter, /) -> None:
        if any(isinstance(r.type, MemRefType) for r in op.res):
            raise TsjitError(
                f"call to @{op.callee.string_value()} returns a memref", SourceLocation.of_op(op)
            )
        e = LLVMBuilder(rewriter)
        args: list[SSAValue] = []
        for v in op.arguments:
            native = native_value(rewriter, v)
            if isinstance(native.type, llvm.LLVMStructType):
                args.extend(e.field(native, i) for i in range(len(native.type.types)))
            else:
                args.append(native)
        results = tuple(native_type(r.type) for r in op.res)
        call = rewriter.insert(llvm.CallOp(op.callee, *args, return_type=result_type(results)))
        if len(results) <= 1:
            replace_op(rewriter, op, [], list(call.results))
        else:
            replace_op(rewriter, op, [], [e.field(call.results[0], i) for i in range(len(results))])


FUNC_TO_LLVM_PATTERNS: tuple[RewritePattern, ...] = (FuncToLLVMFunc(), ReturnToLLVM(), CallToLLVM())


@dataclass(frozen=True)
class ConvertFuncToLLVMPass(ModulePass):
    name = "convert-func-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier(list(FUNC_TO_LLVM_PATTERNS))).rewrite_module(op)

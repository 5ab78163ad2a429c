"""llvm-dialect module → llvmlite IR: xDSL's translator, extended with the ops of
`llvm_ops`.

xDSL's `convert_op` is a closed `match` with no registry, so this module translates
function bodies itself, sends the ops it adds to `EXTRA_TRANSLATIONS` and everything else
to xDSL. Function declarations and globals reuse xDSL's helpers (xDSL is pinned to 0.74).
`LLVMTarget` is the `-t llvm` output of ts-opt that understands the extra ops.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from llvmlite import ir
from xdsl.backend.llvm.convert import _convert_global, _declare_func  # pyright: ignore[reportPrivateUsage]
from xdsl.backend.llvm.convert_op import convert_op
from xdsl.backend.llvm.convert_type import convert_type
from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.utils.target import Target

from tsjit.diagnostics import SourceLocation, TsjitError
from tsjit.transforms.lowering.llvm_ops import FPToSIOp, FPToUIOp, UIToFPOp
from tsjit.transforms.lowering.loop_hints import interleave_of, loop_metadata

Translation = Callable[[ir.IRBuilder, ir.Value, ir.Type], ir.Value]

EXTRA_TRANSLATIONS: dict[type[Operation], Translation] = {
    FPToSIOp: lambda b, value, type: b.fptosi(value, type),
    FPToUIOp: lambda b, value, type: b.fptoui(value, type),
    UIToFPOp: lambda b, value, type: b.uitofp(value, type),
}
"""One-operand, one-result ops: llvmlite builder call from (operand, result type)."""


def convert_module(module: ModuleOp, *, target_triple: str | None = None, data_layout: str = "") -> ir.Module:
    """Translates a module of `llvm.func`s and `llvm.mlir.global`s to llvmlite IR (for
    the host when no triple is given). An op with no translation is an error that
    names it and where it is."""
    from llvmlite import binding

    out = ir.Module()
    triple = module.attributes.get("llvm.target_triple")
    out.triple = (
        triple.data if isinstance(triple, StringAttr) else target_triple or binding.get_default_triple()
    )
    if data_layout:
        out.data_layout = data_layout
    functions: list[llvm.FuncOp] = []
    for op in module.ops:
        if isinstance(op, llvm.GlobalOp):
            _convert_global(op, out)
        elif isinstance(op, llvm.FuncOp):
            functions.append(op)
        else:
            raise _untranslatable(op)
    for function in functions:
        _declare_func(function, out)
    for function in functions:
        if function.body.blocks:
            _translate_body(function, out)
    return out


def _translate_body(function: llvm.FuncOp, module: ir.Module) -> None:
    target = module.get_global(function.sym_name.data)
    blocks: dict[Block, ir.Block] = {}
    values: dict[SSAValue, ir.Value] = {}
    for i, block in enumerate(function.body.blocks):
        blocks[block] = target.append_basic_block(name=block.name_hint or "")
        if i == 0:
            values.update(zip(block.args, target.args, strict=True))
        else:  # block arguments become phis; branches add the incoming values
            phis = ir.IRBuilder(blocks[block])
            for arg in block.args:
                values[arg] = phis.phi(convert_type(arg.type))
    for block in function.body.blocks:
        builder = ir.IRBuilder(blocks[block])
        if blocks[block].instructions:
            builder.position_after(blocks[block].instructions[-1])
        for op in block.ops:
            if (translate := EXTRA_TRANSLATIONS.get(type(op))) is not None:
                values[op.results[0]] = translate(
                    builder, values[op.operands[0]], convert_type(op.results[0].type)
                )
                continue
            try:
                convert_op(op, builder, values, blocks)
            except NotImplementedError as e:
                raise _untranslatable(op, str(e)) from None
            if (interleave := interleave_of(op)) is not None:  # a loop's back edge
                blocks[block].instructions[-1].set_metadata("llvm.loop", loop_metadata(module, interleave))


def _untranslatable(op: Operation, reason: str = "") -> TsjitError:
    if op.dialect_name() == "llvm":
        message = f"cannot translate '{op.name}' to LLVM IR: {reason}"
    else:
        message = f"'{op.name}' is not in the llvm dialect: lower it first (convert-to-llvm)"
    return TsjitError(message, SourceLocation.of_op(op))


@dataclass(frozen=True)
class LLVMTarget(Target):
    """`ts-opt -t llvm`: prints the LLVM IR of an llvm-dialect module."""

    name = "llvm"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        print(convert_module(module), file=output)

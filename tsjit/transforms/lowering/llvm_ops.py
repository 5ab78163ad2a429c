"""LLVM instructions that xDSL 0.74's llvm dialect lacks but `arith` needs: the
float↔integer conversions other than `sitofp`. They keep MLIR's names and syntax, so
printed IR stays valid MLIR; `llvm_export` translates them to llvmlite.
`LLVM_EXTENDED` is xDSL's llvm dialect with these ops added, for contexts that parse them.
"""

from __future__ import annotations

from xdsl.dialects.llvm import LLVM, GenericCastOp
from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition


@irdl_op_definition
class FPToSIOp(GenericCastOp):
    """Float to signed integer, rounding toward zero; poison when out of range.

    %i = llvm.fptosi %x : f32 to i64
    """

    name = "llvm.fptosi"


@irdl_op_definition
class FPToUIOp(GenericCastOp):
    """Float to unsigned integer, rounding toward zero; poison when out of range.

    %i = llvm.fptoui %x : f32 to i32
    """

    name = "llvm.fptoui"


@irdl_op_definition
class UIToFPOp(GenericCastOp):
    """Unsigned integer to float, rounding to nearest.

    %x = llvm.uitofp %i : i32 to f32
    """

    name = "llvm.uitofp"


EXTRA_OPS = (FPToSIOp, FPToUIOp, UIToFPOp)

LLVM_EXTENDED = Dialect("llvm", [*LLVM.operations, *EXTRA_OPS], list(LLVM.attributes))

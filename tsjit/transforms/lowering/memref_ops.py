"""`memref.prefetch`, which xDSL 0.74's memref dialect lacks, with MLIR's name and syntax:

    memref.prefetch %m[%i, %j], read, locality<3>, data : memref<?x?xf32>

A hint that the element will soon be read (or written) and should be brought into the
cache (`locality` 0-3: how long to keep it; `data` or `instr` cache). It never faults and
changes no value, so kernels may prefetch addresses past what they then use.
`convert-memref-to-llvm` lowers it to the `llvm.prefetch` intrinsic. `MEMREF_EXTENDED` is
xDSL's memref dialect with it added, for contexts that parse it.
"""

from __future__ import annotations

from xdsl.dialects.builtin import BoolAttr, IndexType, IntegerAttr, MemRefType, i32
from xdsl.dialects.memref import MemRef
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, prop_def, var_operand_def
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class PrefetchOp(IRDLOperation):
    name = "memref.prefetch"

    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType())
    isWrite = prop_def(BoolAttr)  # noqa: N815 - MLIR's property names
    localityHint = prop_def(IntegerAttr)  # noqa: N815
    isDataCache = prop_def(BoolAttr)  # noqa: N815

    def __init__(
        self,
        memref: SSAValue,
        indices: list[SSAValue],
        write: bool = False,
        locality: int = 3,
        data: bool = True,
    ):
        super().__init__(
            operands=[memref, indices],
            properties={
                "isWrite": BoolAttr.from_bool(write),
                "localityHint": IntegerAttr(locality, i32),
                "isDataCache": BoolAttr.from_bool(data),
            },
        )

    def verify_(self) -> None:
        memref_type = self.memref.type
        assert isinstance(memref_type, MemRefType)
        if memref_type.get_num_dims() != len(self.indices):
            raise VerifyException(f"expected {memref_type.get_num_dims()} indices, got {len(self.indices)}")
        if not 0 <= self.localityHint.value.data <= 3:
            raise VerifyException("locality must be 0, 1, 2 or 3")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.memref)
        printer.print_string("[")
        printer.print_list(self.indices, printer.print_operand)
        kind = "write" if self.isWrite.value.data else "read"
        cache = "data" if self.isDataCache.value.data else "instr"
        printer.print_string(f"], {kind}, locality<{self.localityHint.value.data}>, {cache} : ")
        printer.print_attribute(self.memref.type)

    @classmethod
    def parse(cls, parser: Parser) -> PrefetchOp:
        memref = parser.parse_unresolved_operand()
        indices: list[UnresolvedOperand] = parser.parse_comma_separated_list(
            Parser.Delimiter.SQUARE, parser.parse_unresolved_operand
        )
        parser.parse_punctuation(",")
        write = parser.parse_keyword_in(("read", "write")) == "write"
        parser.parse_punctuation(",")
        parser.parse_keyword("locality")
        parser.parse_punctuation("<")
        locality = parser.parse_integer()
        parser.parse_punctuation(">")
        parser.parse_punctuation(",")
        data = parser.parse_keyword_in(("data", "instr")) == "data"
        parser.parse_punctuation(":")
        memref_type = parser.parse_type()
        memref_value = parser.resolve_operand(memref, memref_type)
        index_values = [parser.resolve_operand(i, IndexType()) for i in indices]
        return cls(memref_value, index_values, write, locality, data)


MEMREF_EXTENDED = Dialect("memref", [*MemRef.operations, PrefetchOp], list(MemRef.attributes))

"""Profiling, type checks, guards and bailouts: the nodes of TorchScript's profiling
executor (JIT overview, "Profiling Programs") as the `profile` dialect.

A profiling run records the types it sees (`profile.profile`); the optimized graph is
specialized to them behind checks (`profile.type_check` for a fusion group's inputs,
`profile.guard` for one value), and a failed check transfers the live values to the
unoptimized continuation (`profile.bailout`).

    %p = profile.profile[seen_types = [!ts.tensor<f32, [2]>]] %x : !ts.tensor
    %a, %ok = profile.type_check %x : (!ts.tensor) -> (!ts.tensor<f32, [2]>)
    %g = profile.guard %x : !ts.tensor -> !ts.tensor<f32, [2]>
    %r = profile.bailout[index = 0] %x, %n : (!ts.tensor, !ts.int) -> !ts.tensor
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, I64, IntegerAttr, i64
from xdsl.ir import Attribute, Dialect, Operation, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect

from tsjit.dialects.prim import Operand, fail, parse_types, plural, print_types
from tsjit.dialects.types import BoolType, TensorType, is_subtype_of


@irdl_op_definition
class ProfileOp(IRDLOperation):
    """`prim::profile`: passes values through unchanged and, while profiling, records
    the most specific type each one had (`seen_types`, one per value, once seen).

        %p = profile.profile %x : !ts.tensor
        %q = profile.profile[seen_types = [!ts.tensor<f32, [2, 3]>]] %x : !ts.tensor
    """

    name = "profile.profile"

    seen_types = opt_prop_def(ArrayAttr[TypeAttribute])
    profiled = var_operand_def()
    outs = var_result_def()

    traits = traits_def(MemoryWriteEffect())

    def __init__(self, profiled: Sequence[Operand], seen_types: Sequence[TypeAttribute] | None = None):
        super().__init__(
            operands=[profiled],
            result_types=[[SSAValue.get(v).type for v in profiled]],
            properties={} if seen_types is None else {"seen_types": ArrayAttr(seen_types)},
        )

    def print(self, printer: Printer) -> None:
        if self.seen_types is not None:
            printer.print_string("[seen_types = ")
            printer.print_attribute(self.seen_types)
            printer.print_string("]")
        printer.print_string(" ")
        printer.print_list(self.profiled, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list(self.profiled.types, printer.print_attribute)

    @classmethod
    def parse(cls, parser: Parser) -> ProfileOp:
        seen_types = None
        if parser.parse_optional_punctuation("[") is not None:
            parser.parse_keyword("seen_types")
            parser.parse_punctuation("=")
            seen_types = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_type)
            parser.parse_punctuation("]")
        position = parser.pos
        unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        profiled = parser.resolve_operands(unresolved, types, position)
        op = cls(profiled, seen_types)  # pyright: ignore[reportArgumentType]
        op.attributes.update(attributes)
        return op

    def verify_(self) -> None:
        if not self.profiled:
            fail(self, "must profile at least one value")
        if len(self.outs) != len(self.profiled):
            values = plural(len(self.profiled), "value")
            fail(self, f"has {plural(len(self.outs), 'result')} but profiles {values}")
        for i, (value, out) in enumerate(zip(self.profiled, self.outs)):
            if value.type != out.type:
                fail(self, f"result {i} has type {out.type} but the profiled value has type {value.type}")
        if self.seen_types is None:
            return
        if len(self.seen_types) != len(self.profiled):
            values = plural(len(self.profiled), "value")
            fail(self, f"records {plural(len(self.seen_types), 'seen type')} for {values}")
        for i, (seen, value) in enumerate(zip(self.seen_types, self.profiled)):
            if not is_subtype_of(seen, value.type):
                fail(self, f"seen type {seen} of value {i} is not a subtype of its type {value.type}")


def verify_refines(op: Operation, expected: Attribute, value: SSAValue, what: str) -> None:
    if not is_subtype_of(expected, value.type):
        fail(op, f"expected type {expected} does not refine {what} of type {value.type}")


@irdl_op_definition
class TypeCheckOp(IRDLOperation):
    """`prim::TypeCheck`: checks tensors against the types a fusion group was
    specialized for; results are the inputs refined to those types and whether all
    matched (the guarded fast path runs only then).

        %a, %b, %ok = profile.type_check %x, %y : (!ts.tensor, !ts.tensor)
                                               -> (!ts.tensor<f32, [2]>, !ts.tensor<f32, [?]>)
    """

    name = "profile.type_check"

    expected_types = prop_def(ArrayAttr[Attribute])
    checked = var_operand_def(TensorType)
    refined = var_result_def()
    matched = result_def(BoolType)

    traits = traits_def(MemoryReadEffect())

    def __init__(self, checked: Sequence[Operand], expected_types: Sequence[TensorType]):
        super().__init__(
            operands=[checked],
            result_types=[list(expected_types), BoolType()],
            properties={"expected_types": ArrayAttr(expected_types)},
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.checked, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        print_types(printer, self.checked.types)
        printer.print_string(" -> ")
        print_types(printer, self.expected_types.data)

    @classmethod
    def parse(cls, parser: Parser) -> TypeCheckOp:
        position = parser.pos
        unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        checked = parser.resolve_operands(unresolved, parse_types(parser), position)
        parser.parse_punctuation("->")
        op = cls(checked, parse_types(parser))  # pyright: ignore[reportArgumentType]
        op.attributes.update(attributes)
        return op

    def verify_(self) -> None:
        expected = self.expected_types.data
        if not self.checked:
            fail(self, "must check at least one tensor")
        inputs = plural(len(self.checked), "input")
        if len(expected) != len(self.checked):
            fail(self, f"has {plural(len(expected), 'expected type')} for {inputs}")
        if len(self.refined) != len(self.checked):
            fail(self, f"has {plural(len(self.refined), 'refined result')} for {inputs}")
        for i, (want, value, out) in enumerate(zip(expected, self.checked, self.refined)):
            if not isinstance(want, TensorType):
                fail(self, f"expected type {i} is {want}, not a tensor type")
            verify_refines(self, want, value, f"input {i}")
            if out.type != want:
                fail(self, f"result {i} has type {out.type} but the expected type is {want}")


@irdl_op_definition
class GuardOp(IRDLOperation):
    """`prim::Guard`: checks one value against a profiled type; past the guard the
    value has that type, and a failed check bails out.

        %g = profile.guard %x : !ts.tensor -> !ts.tensor<f32, [2, 3]>
    """

    name = "profile.guard"

    expected_type = prop_def(TypeAttribute)
    input = operand_def()
    result = result_def()

    traits = traits_def(MemoryReadEffect())

    def __init__(self, input: Operand, expected_type: TypeAttribute):
        properties = {"expected_type": expected_type}
        super().__init__(operands=[input], result_types=[expected_type], properties=properties)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.input)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.expected_type)

    @classmethod
    def parse(cls, parser: Parser) -> GuardOp:
        unresolved = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        input = parser.resolve_operand(unresolved, parser.parse_type())
        parser.parse_punctuation("->")
        op = cls(input, parser.parse_type())  # pyright: ignore[reportArgumentType]
        op.attributes.update(attributes)
        return op

    def verify_(self) -> None:
        verify_refines(self, self.expected_type, self.input, "the input")
        if self.result.type != self.expected_type:
            fail(self, f"result has type {self.result.type} but the expected type is {self.expected_type}")


@irdl_op_definition
class BailOutOp(IRDLOperation):
    """`prim::BailOut`: leaves the optimized graph at bailout point `index`, running the
    unoptimized continuation on the transferred live values; its results are what
    the continuation computes. Unknown effects: it runs the rest of the program.
    The continuation is the function `fallback_name(graph, index)`.

        %r = profile.bailout[index = 0] %x, %n : (!ts.tensor, !ts.int) -> !ts.tensor
    """

    name = "profile.bailout"

    index = prop_def(IntegerAttr[I64])
    transferred = var_operand_def()
    outs = var_result_def()

    assembly_format = (
        "`[` `index` `=` $index `]` $transferred attr-dict `:` functional-type($transferred, $outs)"
    )

    def __init__(self, index: int, transferred: Sequence[Operand], result_types: Sequence[Attribute]):
        super().__init__(
            operands=[transferred], result_types=[result_types], properties={"index": IntegerAttr(index, i64)}
        )

    def verify_(self) -> None:
        if self.index.value.data < 0:
            fail(self, f"index must be non-negative, got {self.index.value.data}")


def fallback_name(graph: str, index: int) -> str:
    """The function that bailout point `index` of `graph` runs: `<graph>.fallback<index>`
    (PyTorch's fallback function of a `prim::FallbackGraph`)."""
    return f"{graph}.fallback{index}"


PROFILE = Dialect("profile", [ProfileOp, TypeCheckOp, GuardOp, BailOutOp], [])

"""TorchScript's structural nodes as the `prim` dialect.

These are the nodes the JIT overview gives a structure outside any FunctionSchema:
constants, structured control flow (If, Loop, With), containers, objects and calls,
the script frontend's scaffolding (Store/Load, LoopContinuation, ReturnStmt) and the
subgraph nodes that passes create (FusionGroup, DifferentiableGraph). Op names are
TorchScript's node kinds (`prim::If` is `prim.If`); every region ends in `prim.Yield`,
tsjit's spelling of a block's `-> (...)`.

    %c = prim.Constant 1 : !ts.int
    %y = prim.If %cond -> (!ts.tensor) {
      prim.Yield %a : !ts.tensor
    } else {
      prim.Yield %b : !ts.tensor
    }
    %z = prim.Loop %n, %true iter(%i) carried(%acc = %x : !ts.tensor) -> (!ts.tensor) {
      %next = aten.mul %acc, %acc : (!ts.tensor, !ts.tensor) -> !ts.tensor
      prim.Yield %true, %next : !ts.bool, !ts.tensor
    }

Effects follow TorchScript's value model: tuples are immutable (Pure), lists, dicts
and objects are fresh mutable objects (an allocation CSE must not merge), attribute
reads and writes, prints and raises are effects, and calls have unknown effects.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, NoReturn, Self, TypeAlias

from xdsl.dialect_interfaces.constant_materialization import ConstantMaterializationInterface
from xdsl.dialects import builtin
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    IntegerAttr,
    NoneAttr,
    StringAttr,
    i64,
)
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import Attribute, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    opt_region_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    ConstantLike,
    EffectInstance,
    HasAncestor,
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    MemoryEffect,
    MemoryEffectKind,
    MemoryReadEffect,
    MemoryWriteEffect,
    Pure,
    RecursiveMemoryEffect,
    ReturnLike,
)
from xdsl.utils.exceptions import VerifyException

from tsjit.dialects.constant_values import (  # the constant encoding, re-exported here
    ConstantError,
    constant_attr,
    constant_python_value,
    infer_constant_type,
    is_constant_value,
    parse_constant_literal,
    print_constant_literal,
    scalar_constant,
)
from tsjit.dialects.op_building import build_into, ssa_values
from tsjit.dialects.types import (
    BoolType,
    ClassType,
    DictType,
    EnumType,
    FloatType,
    FutureType,
    InterfaceType,
    IntType,
    ListType,
    NoneType,
    StrType,
    TensorType,
    TupleType,
    is_subtype_of,
)

if TYPE_CHECKING:
    pass

Operand: TypeAlias = SSAValue | Operation
"""What op builders accept as an operand: a value or a single-result op."""

# --------------------------------------------------------------------------------------
# Verification helpers
# --------------------------------------------------------------------------------------


def fail(op: Operation, message: str) -> NoReturn:
    """Raises a verification error in MLIR's `'op.name' op message` form."""
    raise VerifyException(f"'{op.name}' op {message}")


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def verify_yield(
    op: Operation, region: Region, region_name: str, expected: Sequence[Attribute], expected_what: str
) -> None:
    """The region's block ends in a `prim.Yield` whose values are subtypes of
    `expected` (the op's results, or another list the caller names)."""
    terminator = region.block.last_op
    if not isinstance(terminator, YieldOp):
        fail(op, f"{region_name} must end with 'prim.Yield'")
    yielded = terminator.values
    if len(yielded) != len(expected):
        fail(op, f"{region_name} yields {plural(len(yielded), 'value')} but {expected_what}")
    for i, (value, want) in enumerate(zip(yielded, expected)):
        if not is_subtype_of(value.type, want):
            fail(op, f"{region_name} yields {value.type} at position {i}, which is not a subtype of {want}")


def verify_no_arguments(op: Operation, region: Region, region_name: str) -> None:
    if region.block.args:
        fail(op, f"{region_name} must not take arguments")


def verify_values_stay_inside(op: Operation, region_names: Sequence[str]) -> None:
    """Values are block-scoped (JIT overview, "Block"): nothing a nested block defines is
    visible after it. xDSL 0.74 does not verify dominance, so the region ops do."""
    for region, region_name in zip(op.regions, region_names):
        for block in region.blocks:
            defined = [*block.args, *(result for inner in block.ops for result in inner.results)]
            for value in defined:
                for use in value.uses:
                    if not op.is_ancestor(user := use.operation):
                        fail(op, f"a value defined in its {region_name} is used outside it by '{user.name}'")


class AllocatesResult(MemoryEffect):
    """A fresh mutable object per execution (lists, dicts, objects): CSE must not merge
    two of them, while an unused one can still be deleted."""

    @classmethod
    def get_effects(cls, op: Operation) -> frozenset[EffectInstance]:
        return frozenset(EffectInstance(MemoryEffectKind.ALLOC, result) for result in op.results)


def print_types(printer: Printer, types: Sequence[Attribute]) -> None:
    with printer.in_parens():
        printer.print_list(types, printer.print_attribute)


def parse_types(parser: Parser) -> list[Attribute]:
    return parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)


def print_bindings(
    printer: Printer, arguments: Sequence[SSAValue], values: Sequence[SSAValue], argument_types: bool = True
) -> None:
    """`(%arg = %value : T, ...)`: block arguments and the operands bound to them;
    `%arg : A = %value : T` when the argument's type is not the operand's (unless the
    op spells the argument types elsewhere, as Loop does with its result types)."""

    def binding(pair: tuple[SSAValue, SSAValue]) -> None:
        argument, value = pair
        printer.print_operand(argument)
        if argument_types and argument.type != value.type:
            printer.print_string(" : ")
            printer.print_attribute(argument.type)
        printer.print_string(" = ")
        printer.print_operand(value)
        printer.print_string(" : ")
        printer.print_attribute(value.type)

    with printer.in_parens():
        printer.print_list(zip(arguments, values), binding)


def parse_bindings(parser: Parser) -> list[tuple[Parser.UnresolvedArgument, SSAValue, Attribute | None]]:
    """Reads `print_bindings`' syntax: (argument, operand, the argument's own type if given)."""

    def binding() -> tuple[Parser.UnresolvedArgument, SSAValue, Attribute | None]:
        argument = parser.parse_argument(expect_type=False)
        own_type = parser.parse_type() if parser.parse_optional_punctuation(":") else None
        parser.parse_punctuation("=")
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        return argument, parser.resolve_operand(value, parser.parse_type()), own_type

    return parser.parse_comma_separated_list(parser.Delimiter.PAREN, binding)


# --------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------


@irdl_op_definition
class ConstantOp(IRDLOperation, HasFolderInterface):
    """`prim::Constant`: a compile-time value. The value attribute is absent for None;
    its form per type is in the table above.

        %4 = prim.Constant 1 : !ts.int
        %f = prim.Constant -inf : !ts.float
        %n = prim.Constant : !ts.none
        %s = prim.Constant "a\\"b" : !ts.str
        %l = prim.Constant [1, 2] : !ts.list<!ts.int>
        %d = prim.Constant dict{"a": 1.0} : !ts.dict<!ts.str, !ts.float>
        %t = prim.Constant dense<[1.0, 2.0]> : tensor<2xf32> : !ts.tensor<f32, [2]>
    """

    name = "prim.Constant"

    value = opt_prop_def(Attribute)
    result = result_def()

    traits = traits_def(ConstantLike(), Pure())

    def __init__(self, value: Attribute | None, result_type: Attribute):
        build_into(self, (), (result_type,), {} if value is None else {"value": value})

    @classmethod
    def from_value(cls, value: object, type: Attribute | None = None) -> ConstantOp:
        """A constant holding a Python value (int, float, bool, str, None, list, tuple,
        numpy array); the type is inferred unless given."""
        if type is None and (known := scalar_constant(value)) is not None:
            return cls(*known)
        result_type = infer_constant_type(value) if type is None else type
        return cls(constant_attr(value, result_type), result_type)

    @property
    def python_value(self) -> object:
        return constant_python_value(self.value, self.result.type)

    def fold(self) -> Sequence[Attribute]:
        return (NoneAttr() if self.value is None else self.value,)

    def print(self, printer: Printer) -> None:
        if self.value is not None:
            printer.print_string(" ")
            print_constant_literal(printer, self.value, self.result.type)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        start = parser.pos
        literal = None
        has_literal = parser._current_token.text not in (":", "{")  # pyright: ignore[reportPrivateUsage]
        if has_literal:
            literal = parse_constant_literal(parser)
        end = parser.pos
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        result_type = parser.parse_type()
        try:
            value = constant_attr(literal, result_type)
        except ConstantError as e:
            parser.raise_error(str(e), start, end)
        op = cls(value, result_type)
        op.attributes.update(attributes)
        return op

    def verify_(self) -> None:
        if is_constant_value(self.value, self.result.type):
            return
        if self.value is None:
            fail(self, f"a constant of type {self.result.type} needs a value")
        fail(self, f"value {self.value} is not a constant of type {self.result.type}")


# --------------------------------------------------------------------------------------
# Structured control flow
# --------------------------------------------------------------------------------------


@irdl_op_definition
class YieldOp(IRDLOperation):
    """The outputs of a block, TorchScript's `-> (%a, %b)`.

    prim.Yield %a, %b : !ts.tensor, !ts.int
    """

    name = "prim.Yield"

    values = var_operand_def()

    traits = lazy_traits_def(
        lambda: (
            IsTerminator(),
            ReturnLike(),
            HasParent(IfOp, LoopOp, WithOp, FusionGroupOp, DifferentiableGraphOp, ForkOp),
            Pure(),
        )
    )

    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: Operand):
        build_into(self, operands=ssa_values(values))


@irdl_op_definition
class IfOp(IRDLOperation):
    """`prim::If`: runs the then- or else-region; both always exist, take no arguments
    and yield one value per result (the Φ of the two branches).

        %e = prim.If %c -> (!ts.tensor) {
          prim.Yield %a : !ts.tensor
        } else {
          prim.Yield %b : !ts.tensor
        }
    """

    name = "prim.If"

    cond = operand_def(BoolType)
    outs = var_result_def()
    then_region = region_def("single_block")
    else_region = region_def("single_block")

    traits = traits_def(RecursiveMemoryEffect())

    REGION_NAMES: ClassVar[tuple[str, str]] = ("then-region", "else-region")

    def __init__(
        self, cond: Operand, result_types: Sequence[Attribute], then_region: Region, else_region: Region
    ):
        build_into(self, ssa_values((cond,)), result_types, regions=(then_region, else_region))

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.cond)
        if self.outs:
            printer.print_string(" -> ")
            print_types(printer, self.outs.types)
        printer.print_string(" ")
        printer.print_region(self.then_region)
        printer.print_string(" else ")
        printer.print_region(self.else_region)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> IfOp:
        cond = parser.parse_operand(BoolType())
        result_types = parse_types(parser) if parser.parse_optional_punctuation("->") else []
        then_region = parser.parse_region()
        parser.parse_keyword("else")
        else_region = parser.parse_region()
        op = cls(cond, result_types, then_region, else_region)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def verify_(self) -> None:
        results = f"the op has {plural(len(self.outs), 'result')}"
        for region, region_name in zip(self.regions, self.REGION_NAMES):
            verify_no_arguments(self, region, region_name)
            verify_yield(self, region, region_name, self.outs.types, results)
        verify_values_stay_inside(self, self.REGION_NAMES)


@irdl_op_definition
class LoopOp(IRDLOperation):
    """`prim::Loop`, both `for` and `while`: runs the body while the condition holds and
    fewer than `max_trip_count` iterations ran. The body receives the trip counter and
    the carried values and yields the next condition and carried values.

        %z = prim.Loop %n, %true iter(%i) carried(%a = %z.1 : !ts.tensor) -> (!ts.tensor) {
          %z.2 = aten.mul %a, %a : (!ts.tensor, !ts.tensor) -> !ts.tensor
          prim.Yield %true, %z.2 : !ts.bool, !ts.tensor
        }
    """

    name = "prim.Loop"

    max_trip_count = operand_def(IntType)
    initial_condition = operand_def(BoolType)
    carried = var_operand_def()
    outs = var_result_def()
    body = region_def("single_block")

    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        max_trip_count: Operand,
        initial_condition: Operand,
        carried: Sequence[Operand],
        result_types: Sequence[Attribute],
        body: Region,
    ):
        build_into(self, ssa_values((max_trip_count, initial_condition, *carried)), result_types, regions=(body,))

    def print(self, printer: Printer) -> None:
        counter, *arguments = self.body.block.args
        printer.print_string(" ")
        printer.print_operand(self.max_trip_count)
        printer.print_string(", ")
        printer.print_operand(self.initial_condition)
        printer.print_string(" iter(")
        printer.print_block_argument(counter, print_type=False)
        printer.print_string(")")
        if self.carried:
            printer.print_string(" carried")
            print_bindings(printer, arguments, self.carried, argument_types=False)
            printer.print_string(" -> ")
            print_types(printer, self.outs.types)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> LoopOp:
        max_trip_count = parser.parse_operand(IntType())
        parser.parse_punctuation(",")
        initial_condition = parser.parse_operand(BoolType())
        parser.parse_keyword("iter")
        parser.parse_punctuation("(")
        counter = parser.parse_argument(expect_type=False).resolve(IntType())
        parser.parse_punctuation(")")
        bindings = parse_bindings(parser) if parser.parse_optional_keyword("carried") else []
        result_types: list[Attribute] = []
        if bindings:
            parser.parse_punctuation("->")
            position = parser.pos
            result_types = parse_types(parser)
            if len(result_types) != len(bindings):
                expected = plural(len(bindings), "result type")
                parser.raise_error(f"expected {expected}, one per carried value", position, parser.pos)
        arguments = [counter, *(argument.resolve(t) for (argument, _, _), t in zip(bindings, result_types))]
        body = parser.parse_region(arguments)
        op = cls(max_trip_count, initial_condition, [initial for _, initial, _ in bindings], result_types, body)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def verify_(self) -> None:
        carried, outs, args = self.carried, self.outs, self.body.block.args
        if len(outs) != len(carried):
            fail(self, f"has {plural(len(outs), 'result')} but {plural(len(carried), 'carried value')}")
        if len(args) != 1 + len(carried):
            fail(
                self,
                f"body takes {plural(len(args), 'argument')} but needs {1 + len(carried)} "
                f"(the trip counter and {plural(len(carried), 'carried value')})",
            )
        if not isinstance(args[0].type, IntType):
            fail(self, f"body argument 0 (the trip counter) must be !ts.int, got {args[0].type}")
        for i, (initial, arg, out) in enumerate(zip(carried, args[1:], outs)):
            if arg.type != out.type:
                fail(self, f"body argument {i + 1} has type {arg.type} but result {i} has type {out.type}")
            if not is_subtype_of(initial.type, out.type):
                got, want = initial.type, out.type
                fail(self, f"carried value {i} of type {got} is not a subtype of result type {want}")
        terminator = self.body.block.last_op
        if isinstance(terminator, YieldOp) and terminator.values:
            if not isinstance(condition := terminator.values[0].type, BoolType):
                fail(self, f"body must yield the !ts.bool loop condition first, got {condition}")
        verify_yield(
            self,
            self.body,
            "body",
            [BoolType(), *outs.types],
            f"needs {1 + len(outs)} (the loop condition and {plural(len(outs), 'carried value')})",
        )
        verify_values_stay_inside(self, ("body",))


@irdl_op_definition
class WithOp(IRDLOperation):
    """`prim::With`, the block form of a `with` statement that only exists during the
    exit transform: the body region, then the exit region holding `prim.Exit`. The
    context object operand is optional (TorchScript's node has none; the exit region
    names it).

        prim.With %c : !ts.class<"__torch__.Ctx"> {
          prim.Yield
        } exit {
          %11 = prim.Exit %c : !ts.class<"__torch__.Ctx"> -> !ts.tensor
          prim.Yield
        }
    """

    name = "prim.With"

    context = opt_operand_def()
    outs = var_result_def()
    body = region_def("single_block")
    exit = region_def("single_block")

    traits = traits_def(RecursiveMemoryEffect())

    REGION_NAMES: ClassVar[tuple[str, str]] = ("body", "exit-region")

    def __init__(
        self, context: Operand | None, result_types: Sequence[Attribute], body: Region, exit: Region
    ):
        operands = () if context is None else ssa_values((context,))
        build_into(self, operands, result_types, regions=(body, exit))

    def print(self, printer: Printer) -> None:
        if self.context is not None:
            printer.print_string(" ")
            printer.print_operand(self.context)
            printer.print_string(" : ")
            printer.print_attribute(self.context.type)
        if self.outs:
            printer.print_string(" -> ")
            print_types(printer, self.outs.types)
        printer.print_string(" ")
        printer.print_region(self.body)
        printer.print_string(" exit ")
        printer.print_region(self.exit)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> WithOp:
        context = None
        if (unresolved := parser.parse_optional_unresolved_operand()) is not None:
            parser.parse_punctuation(":")
            context = parser.resolve_operand(unresolved, parser.parse_type())
        result_types = parse_types(parser) if parser.parse_optional_punctuation("->") else []
        body = parser.parse_region()
        parser.parse_keyword("exit")
        exit = parser.parse_region()
        op = cls(context, result_types, body, exit)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def verify_(self) -> None:
        for region, region_name in zip(self.regions, self.REGION_NAMES):
            verify_no_arguments(self, region, region_name)
        results = f"the op has {plural(len(self.outs), 'result')}"
        verify_yield(self, self.body, "body", self.outs.types, results)
        verify_yield(self, self.exit, "exit-region", (), "it must yield none")
        verify_values_stay_inside(self, self.REGION_NAMES)


@irdl_op_definition
class EnterOp(IRDLOperation):
    """`prim::Enter`: calls the context object's `__enter__` (arbitrary code, so
    unknown effects).

    %increment.1 = prim.Enter %c.1 : !ts.class<"__torch__.Ctx"> -> !ts.int
    """

    name = "prim.Enter"

    context = operand_def()
    result = result_def()

    assembly_format = "$context attr-dict `:` type($context) `->` type($result)"

    def __init__(self, context: Operand, result_type: Attribute):
        super().__init__(operands=[context], result_types=[result_type])


@irdl_op_definition
class ExitOp(IRDLOperation):
    """`prim::Exit`: calls the context object's `__exit__` (unknown effects).

    %11 = prim.Exit %c.1 : !ts.class<"__torch__.Ctx"> -> !ts.tensor
    """

    name = "prim.Exit"

    context = operand_def()
    result = result_def()

    assembly_format = "$context attr-dict `:` type($context) `->` type($result)"

    def __init__(self, context: Operand, result_type: Attribute):
        super().__init__(operands=[context], result_types=[result_type])


# --------------------------------------------------------------------------------------
# Containers
# --------------------------------------------------------------------------------------


def verify_subtypes(
    op: Operation, what: str, values: Sequence[SSAValue], types: Sequence[Attribute], of: str
) -> None:
    for i, (value, want) in enumerate(zip(values, types)):
        if not is_subtype_of(value.type, want):
            fail(op, f"{what} {i} has type {value.type}, which is not a subtype of {of} {want}")


@irdl_op_definition
class TupleConstructOp(IRDLOperation):
    """`prim::TupleConstruct`: tuples are immutable values, so it is Pure.

    %t = prim.TupleConstruct %hy, %cy : (!ts.tensor, !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.tensor>
    """

    name = "prim.TupleConstruct"

    elements = var_operand_def()
    result = result_def(TupleType)

    traits = traits_def(Pure())

    assembly_format = "$elements attr-dict `:` functional-type($elements, $result)"

    def __init__(self, elements: Sequence[Operand], result_type: TupleType | None = None):
        if result_type is None:
            types = [SSAValue.get(e).type for e in elements]
            result_type = TupleType(types)  # pyright: ignore[reportArgumentType]
        build_into(self, ssa_values(elements), (result_type,))

    def verify_(self) -> None:
        types = self.result.type.elements
        if len(self.elements) != len(types):
            fail(self, f"has {plural(len(self.elements), 'element')} but its type has {len(types)}")
        verify_subtypes(self, "element", self.elements, types, "tuple element type")


@irdl_op_definition
class TupleUnpackOp(IRDLOperation):
    """`prim::TupleUnpack`: one result per tuple element.

    %a, %b = prim.TupleUnpack %t : !ts.tuple<!ts.tensor, !ts.int> -> !ts.tensor, !ts.int
    """

    name = "prim.TupleUnpack"

    tuple = operand_def(TupleType)
    outs = var_result_def()

    traits = traits_def(Pure())

    assembly_format = "$tuple attr-dict `:` type($tuple) (`->` type($outs)^)?"

    def __init__(self, tuple: Operand, result_types: Sequence[Attribute] | None = None):
        if result_types is None:
            result_types = SSAValue.get(tuple).type.elements  # pyright: ignore[reportAttributeAccessIssue]
        super().__init__(operands=[tuple], result_types=[result_types])

    def verify_(self) -> None:
        types = self.tuple.type.elements
        if len(self.outs) != len(types):
            elements = plural(len(types), "element")
            fail(self, f"has {plural(len(self.outs), 'result')} but the tuple has {elements}")
        for i, (element, out) in enumerate(zip(types, self.outs.types)):
            if not is_subtype_of(element, out):
                fail(self, f"tuple element {i} of type {element} is not a subtype of result type {out}")


@irdl_op_definition
class TupleIndexOp(IRDLOperation):
    """`prim::TupleIndex`: the element at an int index (usually a constant).

    %x = prim.TupleIndex %t[%1] : !ts.tuple<!ts.tensor, !ts.int> -> !ts.int
    """

    name = "prim.TupleIndex"

    tuple = operand_def(TupleType)
    index = operand_def(IntType)
    result = result_def()

    traits = traits_def(Pure())

    assembly_format = "$tuple `[` $index `]` attr-dict `:` type($tuple) `->` type($result)"

    def __init__(self, tuple: Operand, index: Operand, result_type: Attribute):
        super().__init__(operands=[tuple, index], result_types=[result_type])

    def verify_(self) -> None:
        index = ConstantLike.get_constant_value(self.index)
        if not isinstance(index, IntegerAttr):
            return
        types = self.tuple.type.elements
        position = index.value.data
        if not -len(types) <= position < len(types):
            fail(self, f"index {position} is out of range for a tuple of {plural(len(types), 'element')}")
        if not is_subtype_of(element := types[position], self.result.type):
            result = self.result.type
            fail(self, f"tuple element {position} of type {element} is not a subtype of result type {result}")


@irdl_op_definition
class TupleSliceOp(IRDLOperation):
    """`prim::TupleSlice`: elements `begin` (inclusive) to `end` (exclusive).

    %s = prim.TupleSlice[begin = 1, end = 3] %t : !ts.tuple<!ts.int, !ts.int, !ts.str>
                                                -> !ts.tuple<!ts.int, !ts.str>
    """

    name = "prim.TupleSlice"

    begin = prop_def(IntegerAttr[builtin.I64])
    end = prop_def(IntegerAttr[builtin.I64])
    tuple = operand_def(TupleType)
    result = result_def(TupleType)

    traits = traits_def(Pure())

    assembly_format = (
        "`[` `begin` `=` $begin `,` `end` `=` $end `]` $tuple attr-dict `:` type($tuple) `->` type($result)"
    )

    def __init__(self, tuple: Operand, begin: int, end: int, result_type: TupleType | None = None):
        if result_type is None:
            elements = SSAValue.get(tuple).type.elements  # pyright: ignore[reportAttributeAccessIssue]
            result_type = TupleType(elements[begin:end])
        super().__init__(
            operands=[tuple],
            result_types=[result_type],
            properties={"begin": IntegerAttr(begin, i64), "end": IntegerAttr(end, i64)},
        )

    def verify_(self) -> None:
        types = self.tuple.type.elements
        begin, end = self.begin.value.data, self.end.value.data
        if not 0 <= begin <= end <= len(types):
            elements = plural(len(types), "element")
            fail(self, f"slice [{begin}, {end}) is out of range for a tuple of {elements}")
        sliced, result = types[begin:end], self.result.type.elements
        if len(result) != len(sliced):
            fail(self, f"result has {plural(len(result), 'element')} but the slice has {len(sliced)}")
        for i, (element, want) in enumerate(zip(sliced, result)):
            if not is_subtype_of(element, want):
                position = begin + i
                wanted = f"result element type {want}"
                fail(self, f"tuple element {position} of type {element} is not a subtype of {wanted}")


@irdl_op_definition
class ListConstructOp(IRDLOperation):
    """`prim::ListConstruct`: a new mutable list each time, so two are never merged.

    %l = prim.ListConstruct %a, %b : (!ts.int, !ts.int) -> !ts.list<!ts.int>
    """

    name = "prim.ListConstruct"

    elements = var_operand_def()
    result = result_def(ListType)

    traits = traits_def(AllocatesResult())

    assembly_format = "$elements attr-dict `:` functional-type($elements, $result)"

    def __init__(self, elements: Sequence[Operand], result_type: ListType):
        build_into(self, ssa_values(elements), (result_type,))

    def verify_(self) -> None:
        element = self.result.type.element_type
        verify_subtypes(self, "element", self.elements, [element] * len(self.elements), "list element type")


@irdl_op_definition
class ListUnpackOp(IRDLOperation):
    """`prim::ListUnpack`: reads a list of statically known length. Results may be
    refined (or widened) relative to the element type, as shape propagation does.

    %a, %b = prim.ListUnpack %l : !ts.list<!ts.tensor> -> !ts.tensor, !ts.tensor
    """

    name = "prim.ListUnpack"

    list = operand_def(ListType)
    outs = var_result_def()

    traits = traits_def(MemoryReadEffect())

    assembly_format = "$list attr-dict `:` type($list) (`->` type($outs)^)?"

    def __init__(self, list: Operand, result_types: Sequence[Attribute]):
        build_into(self, ssa_values((list,)), result_types)

    def verify_(self) -> None:
        element = self.list.type.element_type
        for i, out in enumerate(self.outs.types):
            if not (is_subtype_of(out, element) or is_subtype_of(element, out)):
                fail(self, f"result {i} of type {out} is incompatible with list element type {element}")


@irdl_op_definition
class DictConstructOp(IRDLOperation):
    """`prim::DictConstruct`: keys and values alternate; a new mutable dict each time.

    %d = prim.DictConstruct %k, %v : (!ts.str, !ts.tensor) -> !ts.dict<!ts.str, !ts.tensor>
    """

    name = "prim.DictConstruct"

    elements = var_operand_def()
    result = result_def(DictType)

    traits = traits_def(AllocatesResult())

    assembly_format = "$elements attr-dict `:` functional-type($elements, $result)"

    def __init__(self, keys_and_values: Sequence[Operand], result_type: DictType):
        super().__init__(operands=[keys_and_values], result_types=[result_type])

    def verify_(self) -> None:
        elements = self.elements
        if len(elements) % 2:
            fail(self, f"needs key-value pairs, got {plural(len(elements), 'operand')}")
        dict_type = self.result.type
        keys, values = elements[0::2], elements[1::2]
        verify_subtypes(self, "key", keys, [dict_type.key_type] * len(keys), "key type")
        verify_subtypes(self, "value", values, [dict_type.value_type] * len(values), "value type")


# --------------------------------------------------------------------------------------
# Objects and calls
# --------------------------------------------------------------------------------------


@irdl_op_definition
class GetAttrOp(IRDLOperation):
    """`prim::GetAttr`: reads an attribute, parameter or submodule of an object.

    %w = prim.GetAttr[name = "weight"] %self : !ts.class<"__torch__.M"> -> !ts.tensor
    """

    name = "prim.GetAttr"

    attr_name = prop_def(StringAttr, prop_name="name")
    obj = operand_def(ClassType | InterfaceType)
    result = result_def()

    traits = traits_def(MemoryReadEffect())

    assembly_format = "`[` `name` `=` $name `]` $obj attr-dict `:` type($obj) `->` type($result)"

    def __init__(self, obj: Operand, attr_name: str, result_type: Attribute):
        properties = {"name": StringAttr(attr_name)}
        super().__init__(operands=[obj], result_types=[result_type], properties=properties)


@irdl_op_definition
class SetAttrOp(IRDLOperation):
    """`prim::SetAttr`: writes an attribute of an object.

    prim.SetAttr[name = "count"] %self, %n : !ts.class<"__torch__.M">, !ts.int
    """

    name = "prim.SetAttr"

    attr_name = prop_def(StringAttr, prop_name="name")
    obj = operand_def(ClassType)
    new_value = operand_def()

    traits = traits_def(MemoryWriteEffect())

    assembly_format = (
        "`[` `name` `=` $name `]` $obj `,` $new_value attr-dict `:` type($obj) `,` type($new_value)"
    )

    def __init__(self, obj: Operand, attr_name: str, new_value: Operand):
        super().__init__(operands=[obj, new_value], properties={"name": StringAttr(attr_name)})


@irdl_op_definition
class CreateObjectOp(IRDLOperation):
    """`prim::CreateObject`: a fresh, uninitialized instance of a class.

    %o = prim.CreateObject : !ts.class<"__torch__.Point">
    """

    name = "prim.CreateObject"

    result = result_def(ClassType)

    traits = traits_def(AllocatesResult())

    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, class_type: ClassType):
        super().__init__(result_types=[class_type])


@irdl_op_definition
class CallMethodOp(IRDLOperation):
    """`prim::CallMethod`: calls a method of an object (unknown effects); on an
    interface-typed object, the method of the object's class at run time.

    %r = prim.CallMethod[name = "forward"] %self, %x : (!ts.class<"__torch__.M">, !ts.tensor) -> !ts.tensor
    """

    name = "prim.CallMethod"

    method_name = prop_def(StringAttr, prop_name="name")
    obj = operand_def(ClassType | InterfaceType)
    args = var_operand_def()
    outs = var_result_def()

    assembly_format = (
        "`[` `name` `=` $name `]` $obj (`,` $args^)? attr-dict `:` functional-type(operands, results)"
    )

    def __init__(
        self, obj: Operand, method_name: str, args: Sequence[Operand], result_types: Sequence[Attribute]
    ):
        properties = {"name": StringAttr(method_name)}
        super().__init__(operands=[obj, args], result_types=[result_types], properties=properties)


@irdl_op_definition
class CallFunctionOp(IRDLOperation):
    """`prim::CallFunction` as PyTorch graphs print it: the callee is a value (a
    `Function` constant). Importers turn it into `func.call`; unknown effects.

    %r = prim.CallFunction %fn, %x : (!ts.opaque<"Function">, !ts.tensor) -> !ts.tensor
    """

    name = "prim.CallFunction"

    callee = operand_def()
    args = var_operand_def()
    outs = var_result_def()

    assembly_format = "$callee (`,` $args^)? attr-dict `:` functional-type(operands, results)"

    def __init__(self, callee: Operand, args: Sequence[Operand], result_types: Sequence[Attribute]):
        super().__init__(operands=[callee, args], result_types=[result_types])


@irdl_op_definition
class EnumOp(IRDLOperation):
    """Declares a TorchScript Enum class at module level: its members, in definition
    order, and their values (all of `value_type`: int, float or str). Constants of the
    enum name a member (`prim.Constant "__torch__.m.Color.RED"`); `prim.EnumValue`
    reads the value declared here. PyTorch keeps this in its compilation unit.

        prim.Enum "__torch__.m.Color" : !ts.int [RED = 1, GREEN = 2]
    """

    name = "prim.Enum"

    qualified_name = prop_def(StringAttr, prop_name="name")
    value_type = prop_def(Attribute)
    member_names = prop_def(ArrayAttr[StringAttr], prop_name="members")
    member_values = prop_def(ArrayAttr, prop_name="values")

    VALUE_TYPES: ClassVar[tuple[type[Attribute], ...]] = (IntType, FloatType, StrType)

    def __init__(self, qualified_name: str, value_type: Attribute, members: Sequence[tuple[str, object]]):
        values = [constant_attr(v, value_type) for _, v in members]
        super().__init__(
            properties={
                "name": StringAttr(qualified_name),
                "value_type": value_type,
                "members": ArrayAttr(StringAttr(n) for n, _ in members),
                "values": ArrayAttr(values),  # pyright: ignore[reportArgumentType]
            }
        )

    @property
    def enum_type(self) -> EnumType:
        return EnumType(self.qualified_name.data)

    @property
    def members(self) -> list[tuple[str, object]]:
        """(name, Python value) per member, in definition order."""
        return [
            (n.data, constant_python_value(v, self.value_type))
            for n, v in zip(self.member_names, self.member_values)
        ]

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.qualified_name.data)
        printer.print_string(" : ")
        printer.print_attribute(self.value_type)
        printer.print_string(" ")

        def member(pair: tuple[StringAttr, Attribute]) -> None:
            printer.print_string(f"{pair[0].data} = ")
            print_constant_literal(printer, pair[1], self.value_type)

        with printer.in_square_brackets():
            printer.print_list(zip(self.member_names, self.member_values), member)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> EnumOp:
        qualified_name = parser.parse_str_literal()
        parser.parse_punctuation(":")
        value_type = parser.parse_type()

        def member() -> tuple[str, object]:
            name = parser.parse_identifier()
            parser.parse_punctuation("=")
            start = parser.pos
            value = parse_constant_literal(parser)
            if isinstance(value_type, FloatType) and isinstance(value, int):
                value = float(value)
            if not is_constant_value(_attr_or_none(value, value_type), value_type):
                parser.raise_error(f"enum member {name} needs a value of type {value_type}", start, parser.pos)
            return name, value

        members = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, member)
        op = cls(qualified_name, value_type, members)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def verify_(self) -> None:
        if not isinstance(self.value_type, self.VALUE_TYPES):
            fail(self, f"enum values must be int, float or str, not {self.value_type}")
        if len(self.member_names) != len(self.member_values):
            fail(self, "needs one value per member")
        names = [n.data for n in self.member_names]
        if len(set(names)) != len(names):
            fail(self, "member names must be unique")
        for name, value in zip(names, self.member_values):
            if not is_constant_value(value, self.value_type):
                fail(self, f"member {name} has value {value}, not a {self.value_type}")


def _attr_or_none(value: object, value_type: Attribute) -> Attribute | None:
    try:
        return constant_attr(value, value_type)
    except ConstantError:
        return None


@irdl_op_definition
class IsInstanceOp(IRDLOperation):
    """`prim::isinstance`: whether a value (of a Union, Optional or Any type) is at run
    time of one of the `types`.

        %b = prim.isinstance %x [!ts.int, !ts.list<!ts.int>] : !ts.union<!ts.int, !ts.str>
    """

    name = "prim.isinstance"

    input = operand_def()
    types = prop_def(ArrayAttr)
    result = result_def(BoolType)

    traits = traits_def(Pure())

    assembly_format = "$input $types attr-dict `:` type($input)"

    def __init__(self, input: Operand, types: Sequence[Attribute]):
        super().__init__(operands=[input], result_types=[BoolType()], properties={"types": ArrayAttr(types)})


# --------------------------------------------------------------------------------------
# Values without computation, exceptions, printing
# --------------------------------------------------------------------------------------


@irdl_op_definition
class UninitializedOp(IRDLOperation):
    """`prim::Uninitialized`: a placeholder the exit transform puts where a value is
    provably never used (after a raise, break, continue or return).

    %u = prim.Uninitialized : !ts.tensor
    """

    name = "prim.Uninitialized"

    result = result_def()

    traits = traits_def(Pure())

    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, result_type: Attribute):
        build_into(self, (), (result_type,))


@irdl_op_definition
class RaiseExceptionOp(IRDLOperation):
    """`prim::RaiseException(str msg, str? cls=None)`.

    prim.RaiseException %msg, %cls : !ts.str
    """

    name = "prim.RaiseException"

    message = operand_def(StrType)
    exception_class = opt_operand_def(StrType | NoneType)

    traits = traits_def(MemoryWriteEffect())

    assembly_format = "$message (`,` $exception_class^ `:` type($exception_class))? attr-dict"

    def __init__(self, message: Operand, exception_class: Operand | None = None):
        super().__init__(operands=[message, exception_class])


@irdl_op_definition
class UncheckedCastOp(IRDLOperation):
    """`prim::unchecked_cast`: retypes a value whose refinement the frontend proved
    (e.g. Optional[T] to T after an `is not None` check).

    %y = prim.unchecked_cast %x : !ts.optional<!ts.tensor> -> !ts.tensor
    """

    name = "prim.unchecked_cast"

    input = operand_def()
    result = result_def()

    traits = traits_def(Pure())

    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: Operand, result_type: Attribute):
        super().__init__(operands=[input], result_types=[result_type])


@irdl_op_definition
class PrintOp(IRDLOperation):
    """`prim::Print`: Python's `print`. The parentheses keep an empty `print()` from
    swallowing the next line's results.

    prim.Print(%s, %x) : !ts.str, !ts.tensor
    """

    name = "prim.Print"

    values = var_operand_def()

    traits = traits_def(MemoryWriteEffect())

    assembly_format = "`(` $values `)` attr-dict (`:` type($values)^)?"

    def __init__(self, *values: Operand):
        build_into(self, operands=ssa_values(values))


# --------------------------------------------------------------------------------------
# Script frontend scaffolding (gone after SSA conversion and the exit transform)
# --------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def variable_name(name: str) -> StringAttr:
    """The name attribute of Stores and Loads, made once per variable: a variable is
    stored and loaded many times."""
    return StringAttr(name)


@irdl_op_definition
class StoreOp(IRDLOperation):
    """`prim::Store`: assigns a variable of the environment.

    prim.Store[name = "x"] %x.1 : !ts.tensor
    """

    name = "prim.Store"

    var_name = prop_def(StringAttr, prop_name="name")
    input = operand_def()

    traits = traits_def(MemoryWriteEffect())

    assembly_format = "`[` `name` `=` $name `]` $input attr-dict `:` type($input)"

    def __init__(self, var_name: str, input: Operand):
        build_into(self, ssa_values((input,)), (), {"name": variable_name(var_name)})


@irdl_op_definition
class LoadOp(IRDLOperation):
    """`prim::Load`: reads a variable of the environment.

    %x = prim.Load[name = "x"] : !ts.tensor
    """

    name = "prim.Load"

    var_name = prop_def(StringAttr, prop_name="name")
    result = result_def()

    traits = traits_def(MemoryReadEffect())

    assembly_format = "`[` `name` `=` $name `]` attr-dict `:` type($result)"

    def __init__(self, var_name: str, result_type: Attribute):
        build_into(self, (), (result_type,), {"name": variable_name(var_name)})


@irdl_op_definition
class LoopContinuationOp(IRDLOperation):
    """`prim::LoopContinuation(%continue_condition, %carried...)`: a `break` (condition
    false) or `continue` (the loop condition inlined) that targets the innermost loop.
    A control-flow exit, so it has unknown effects.

    prim.LoopContinuation %false, %x : !ts.bool, !ts.tensor
    """

    name = "prim.LoopContinuation"

    condition = operand_def(BoolType)
    carried = var_operand_def()

    traits = lazy_traits_def(lambda: (HasAncestor(LoopOp),))

    assembly_format = "$condition (`,` $carried^)? attr-dict `:` type($condition) (`,` type($carried)^)?"

    def __init__(self, condition: Operand, carried: Sequence[Operand] = ()):
        build_into(self, ssa_values((condition, *carried)))


@irdl_op_definition
class ReturnStmtOp(IRDLOperation):
    """`prim::ReturnStmt`: a `return` that targets the enclosing graph or closure. A
    control-flow exit, so it has unknown effects.

    prim.ReturnStmt(%x) : !ts.tensor
    """

    name = "prim.ReturnStmt"

    values = var_operand_def()

    assembly_format = "`(` $values `)` attr-dict (`:` type($values)^)?"

    def __init__(self, *values: Operand):
        build_into(self, operands=ssa_values(values))


# --------------------------------------------------------------------------------------
# Subgraphs
# --------------------------------------------------------------------------------------


class SubgraphOp(IRDLOperation):
    """A node owning a subgraph (TorchScript's `attr::Subgraph`): the body's arguments
    are the subgraph inputs, bound to the operands, and its `prim.Yield` the outputs.

        %hy, %cy = prim.FusionGroup(%x = %a : !ts.tensor, %y = %b : !ts.tensor) -> (!ts.tensor, !ts.tensor) {
          ...
          prim.Yield %h, %c : !ts.tensor, !ts.tensor
        }
    """

    inputs = var_operand_def()
    outs = var_result_def()
    body = region_def("single_block")

    traits = traits_def(IsolatedFromAbove(), RecursiveMemoryEffect())

    def __init__(self, inputs: Sequence[Operand], result_types: Sequence[Attribute], body: Region):
        super().__init__(operands=[inputs], result_types=[result_types], regions=[body])

    def print(self, printer: Printer) -> None:
        print_bindings(printer, self.body.block.args, self.inputs)
        if self.outs:
            printer.print_string(" -> ")
            print_types(printer, self.outs.types)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        bindings = parse_bindings(parser)
        result_types = parse_types(parser) if parser.parse_optional_punctuation("->") else []
        body = parser.parse_region([argument.resolve(own or input.type) for argument, input, own in bindings])
        op = cls([input for _, input, _ in bindings], result_types, body)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def verify_(self) -> None:
        args = self.body.block.args
        if len(args) != len(self.inputs):
            inputs = plural(len(self.inputs), "input")
            fail(self, f"body takes {plural(len(args), 'argument')} but the op has {inputs}")
        for i, (input, arg) in enumerate(zip(self.inputs, args)):
            # the subgraph may see its inputs refined or generalised (profiled graphs)
            if not (is_subtype_of(input.type, arg.type) or is_subtype_of(arg.type, input.type)):
                fail(self, f"input {i} has type {input.type} but body argument {i} has type {arg.type}")
        results = f"the op has {plural(len(self.outs), 'result')}"
        verify_yield(self, self.body, "body", self.outs.types, results)
        verify_values_stay_inside(self, ("body",))


@irdl_op_definition
class FusionGroupOp(SubgraphOp):
    """`prim::FusionGroup`: fusible ops a kernel compiler turns into one kernel."""

    name = "prim.FusionGroup"


@irdl_op_definition
class DifferentiableGraphOp(SubgraphOp):
    """`prim::DifferentiableGraph`: ops with symbolic gradients, run as one autograd
    node. `create-autodiff-subgraphs` makes it with its forward `body` only;
    `differentiate` adds the `backward` region (PyTorch's `Gradient`: the body then
    yields the outputs followed by the values the backward needs):

        %y = prim.DifferentiableGraph(%a = %x : !ts.tensor) -> (!ts.tensor) {
          %t = aten.tanh %a : (!ts.tensor) -> !ts.tensor
          prim.Yield %t, %t : !ts.tensor, !ts.tensor
        } backward[grad_outputs = [0], grad_inputs = [0], captured_inputs = [], captured_outputs = [1]] {
        ^bb0(%g : !ts.tensor, %t : !ts.tensor):
          %d = aten.tanh_backward %g, %t : (!ts.tensor, !ts.tensor) -> !ts.tensor
          prim.Yield %d : !ts.tensor
        }

    The backward takes the gradients of the outputs `grad_outputs`, then the inputs
    `captured_inputs`, then the body's yielded values `captured_outputs`, and yields
    the gradients of the inputs `grad_inputs`.
    """

    name = "prim.DifferentiableGraph"

    body = region_def("single_block")
    backward = opt_region_def("single_block")
    grad_outputs = opt_prop_def(DenseArrayBase)
    grad_inputs = opt_prop_def(DenseArrayBase)
    captured_inputs = opt_prop_def(DenseArrayBase)
    captured_outputs = opt_prop_def(DenseArrayBase)

    GRADIENT_PROPERTIES: ClassVar[tuple[str, ...]] = (
        "grad_outputs", "grad_inputs", "captured_inputs", "captured_outputs",
    )  # fmt: skip

    def __init__(self, inputs: Sequence[Operand], result_types: Sequence[Attribute], body: Region,
                 backward: Region | None = None, gradient: dict[str, Sequence[int]] | None = None):  # fmt: skip
        properties = {name: DenseArrayBase.from_list(i64, list(values)) for name, values in (gradient or {}).items()}
        IRDLOperation.__init__(
            self, operands=[inputs], result_types=[result_types], regions=[body, backward], properties=properties
        )

    @property
    def is_differentiated(self) -> bool:
        return self.backward is not None and bool(self.backward.blocks)

    def indices(self, name: str) -> tuple[int, ...]:
        """A gradient property as ints (empty when absent)."""
        value = self.properties.get(name)
        return tuple(int(i) for i in value.get_values()) if isinstance(value, DenseArrayBase) else ()

    def print(self, printer: Printer) -> None:
        print_bindings(printer, self.body.block.args, self.inputs)
        if self.outs:
            printer.print_string(" -> ")
            print_types(printer, self.outs.types)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)
        if self.is_differentiated:
            assert self.backward is not None
            printer.print_string(" backward[")
            printer.print_list(
                self.GRADIENT_PROPERTIES,
                lambda n: printer.print_string(f"{n} = [{', '.join(map(str, self.indices(n)))}]"),
            )
            printer.print_string("] ")
            printer.print_region(self.backward, print_entry_block_args=True)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        bindings = parse_bindings(parser)
        result_types = parse_types(parser) if parser.parse_optional_punctuation("->") else []
        body = parser.parse_region([argument.resolve(own or input.type) for argument, input, own in bindings])
        backward: Region | None = None
        gradient: dict[str, Sequence[int]] = {}
        if parser.parse_optional_keyword("backward") is not None:

            def entry() -> None:
                name = parser.parse_identifier()
                if name not in cls.GRADIENT_PROPERTIES:
                    parser.raise_error(f"expected one of {', '.join(cls.GRADIENT_PROPERTIES)}")
                parser.parse_punctuation("=")
                gradient[name] = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)

            parser.parse_comma_separated_list(parser.Delimiter.SQUARE, entry)
            backward = parser.parse_region()
        op = cls([input for _, input, _ in bindings], result_types, body, backward, gradient)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def verify_(self) -> None:
        if not self.is_differentiated:
            super().verify_()
            return
        assert self.backward is not None
        args = self.body.block.args
        if len(args) != len(self.inputs):
            fail(self, f"body takes {plural(len(args), 'argument')} but the op has {plural(len(self.inputs), 'input')}")
        terminator = self.body.block.last_op
        if not isinstance(terminator, YieldOp):
            fail(self, "body must end with 'prim.Yield'")
        yielded = terminator.values
        if len(yielded) < len(self.outs):
            fail(self, f"body yields {plural(len(yielded), 'value')} but the op has {plural(len(self.outs), 'result')}")
        for name, bound, what in (
            ("grad_outputs", len(self.outs), "result"),
            ("grad_inputs", len(self.inputs), "input"),
            ("captured_inputs", len(self.inputs), "input"),
            ("captured_outputs", len(yielded), "yielded value"),
        ):
            for i in self.indices(name):
                if not 0 <= i < bound:
                    fail(self, f"{name} names {what} {i}, which does not exist")
        backward_args = self.backward.block.args
        expected = (
            [self.outs[i].type for i in self.indices("grad_outputs")]
            + [args[i].type for i in self.indices("captured_inputs")]
            + [yielded[i].type for i in self.indices("captured_outputs")]
        )
        if len(backward_args) != len(expected):
            fail(self, f"backward takes {plural(len(backward_args), 'argument')} but its properties name {len(expected)}")
        backward_yield = self.backward.block.last_op
        if not isinstance(backward_yield, YieldOp):
            fail(self, "backward must end with 'prim.Yield'")
        if len(backward_yield.values) != len(self.indices("grad_inputs")):
            fail(self, f"backward yields {plural(len(backward_yield.values), 'value')} but grad_inputs names "
                       f"{len(self.indices('grad_inputs'))}")  # fmt: skip
        verify_values_stay_inside(self, ("body", "backward"))


@irdl_op_definition
class ForkOp(SubgraphOp):
    """`prim::fork`: starts its subgraph asynchronously (`torch.jit.fork`) and gives a
    Future of the value the subgraph yields, which `aten.wait` waits for. The subgraph's
    inputs are the values it captures. It has unknown effects: the forked code may read
    and write what it captured at any time until the wait.

        %fut = prim.fork(%a = %x : !ts.tensor) -> (!ts.future<!ts.tensor>) {
          %r = func.call @helper(%a) : (!ts.tensor) -> !ts.tensor
          prim.Yield %r : !ts.tensor
        }
    """

    name = "prim.fork"

    traits = traits_def(IsolatedFromAbove())

    @property
    def future(self) -> SSAValue:
        return self.outs[0]

    def verify_(self) -> None:
        if len(self.outs) != 1 or not isinstance(self.outs[0].type, FutureType):
            fail(self, "has one result, a !ts.future")
        args = self.body.block.args
        if len(args) != len(self.inputs):
            inputs = plural(len(self.inputs), "input")
            fail(self, f"body takes {plural(len(args), 'argument')} but the op has {inputs}")
        verify_subtypes(self, "input", self.inputs, [a.type for a in args], "body argument")
        verify_yield(self, self.body, "body", (self.outs[0].type.element_type,), "the result is a future of 1 value")  # pyright: ignore[reportAttributeAccessIssue]
        verify_values_stay_inside(self, ("body",))


@irdl_op_definition
class ConstantChunkOp(IRDLOperation):
    """`prim::ConstantChunk`: `aten::chunk` with constant chunks and dim, one result
    per chunk (views of the input, hence a read).

    %a, %b = prim.ConstantChunk[chunks = 2, dim = 1] %x : !ts.tensor -> !ts.tensor, !ts.tensor
    """

    name = "prim.ConstantChunk"

    chunks = prop_def(IntegerAttr[builtin.I64])
    dim = prop_def(IntegerAttr[builtin.I64])
    input = operand_def(TensorType)
    outs = var_result_def(TensorType)

    traits = traits_def(MemoryReadEffect())

    assembly_format = (
        "`[` `chunks` `=` $chunks `,` `dim` `=` $dim `]` $input attr-dict `:` type($input)"
        " (`->` type($outs)^)?"
    )

    def __init__(
        self, input: Operand, chunks: int, dim: int, result_types: Sequence[Attribute] | None = None
    ):
        if result_types is None:
            result_types = [TensorType()] * chunks
        super().__init__(
            operands=[input],
            result_types=[result_types],
            properties={"chunks": IntegerAttr(chunks, i64), "dim": IntegerAttr(dim, i64)},
        )

    def verify_(self) -> None:
        chunks = self.chunks.value.data
        if chunks < 1:
            fail(self, f"chunks must be positive, got {chunks}")
        if len(self.outs) != chunks:
            fail(self, f"has {plural(len(self.outs), 'result')} but chunks = {chunks}")


# --------------------------------------------------------------------------------------
# Dialect
# --------------------------------------------------------------------------------------


class PrimConstantMaterialization(ConstantMaterializationInterface):
    """Lets folding (canonicalize) turn a folded attribute back into a `prim.Constant`;
    `NoneAttr` stands for None, as `ConstantOp.fold` reports it."""

    def materialize_constant(self, value: Attribute, type: Attribute) -> Operation | None:
        stored = None if isinstance(value, NoneAttr) else value
        if not is_constant_value(stored, type):
            return None
        return ConstantOp(stored, type)


PRIM = Dialect(
    "prim",
    [
        ConstantOp,
        YieldOp,
        IfOp,
        LoopOp,
        WithOp,
        EnterOp,
        ExitOp,
        TupleConstructOp,
        TupleUnpackOp,
        TupleIndexOp,
        TupleSliceOp,
        ListConstructOp,
        ListUnpackOp,
        DictConstructOp,
        GetAttrOp,
        SetAttrOp,
        CreateObjectOp,
        CallMethodOp,
        CallFunctionOp,
        UninitializedOp,
        RaiseExceptionOp,
        UncheckedCastOp,
        PrintOp,
        StoreOp,
        LoadOp,
        LoopContinuationOp,
        ReturnStmtOp,
        FusionGroupOp,
        DifferentiableGraphOp,
        ForkOp,
        ConstantChunkOp,
        EnumOp,
        IsInstanceOp,
    ],
    [],
    [PrimConstantMaterialization()],
)

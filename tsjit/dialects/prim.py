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
import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn, Self, TypeAlias

from xdsl.dialect_interfaces.constant_materialization import ConstantMaterializationInterface
from xdsl.dialects import builtin
from xdsl.dialects.builtin import (
    ArrayAttr,
    BytesAttr,
    ComplexType,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    StringAttr,
    f32,
    f64,
    i1,
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

from tsjit.dialects.types import (
    DTYPE_BY_ELEMENT,
    DTYPE_BY_TORCH_NAME,
    BoolType,
    ClassType,
    DeviceType,
    DictType,
    FloatType,
    IntType,
    ListType,
    NoneType,
    OptionalType,
    StrType,
    TensorType,
    TupleType,
    is_subtype_of,
)

if TYPE_CHECKING:
    import numpy

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


def print_bindings(printer: Printer, arguments: Sequence[SSAValue], values: Sequence[SSAValue]) -> None:
    """`(%arg = %value : T, ...)`: block arguments and the operands bound to them."""

    def binding(pair: tuple[SSAValue, SSAValue]) -> None:
        argument, value = pair
        printer.print_operand(argument)
        printer.print_string(" = ")
        printer.print_operand(value)
        printer.print_string(" : ")
        printer.print_attribute(value.type)

    with printer.in_parens():
        printer.print_list(zip(arguments, values), binding)


def parse_bindings(parser: Parser) -> list[tuple[Parser.UnresolvedArgument, SSAValue]]:
    def binding() -> tuple[Parser.UnresolvedArgument, SSAValue]:
        argument = parser.parse_argument(expect_type=False)
        parser.parse_punctuation("=")
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        return argument, parser.resolve_operand(value, parser.parse_type())

    return parser.parse_comma_separated_list(parser.Delimiter.PAREN, binding)


# --------------------------------------------------------------------------------------
# Constant values
# --------------------------------------------------------------------------------------
#
# A `prim.Constant`'s value attribute is determined by its result type:
#   !ts.int     IntegerAttr i64            !ts.float         FloatAttr f64
#   !ts.bool    IntegerAttr i1             !ts.str, !ts.device   StringAttr
#   !ts.none    no value                   !ts.optional<T>   no value, or a T value
#   !ts.tensor  DenseIntOrFPElementsAttr whose dtype and shape the type allows
#   !ts.list<T>, !ts.tuple<T...>   ArrayAttr of element values


class ConstantError(ValueError):
    """A Python or textual value that is not a constant of the requested type."""


def _float_literal(value: float, shortest: Callable[[float], str] = repr) -> str:
    """Shortest text that reads back as the same float (`shortest` spells it for the
    float's width); `inf` and `nan` spelled out; always a float literal for MLIR."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = shortest(value)
    return text.replace("e", ".0e") if "e" in text and "." not in text else text


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t"}


def _str_literal(value: str) -> str:
    """MLIR string literal that keeps non-ASCII text readable (xDSL's printer
    hex-escapes it into bytes that parse back as a BytesAttr)."""
    out = ['"']
    for ch in value:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\{ord(ch):02X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _is_integer(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_int64(value: object) -> bool:
    return _is_integer(value) and -(2**63) <= int(value) < 2**63  # pyright: ignore[reportArgumentType]


def _is_double(value: object) -> bool:
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        return False
    try:
        float(value)
    except OverflowError:
        return False
    return True


@dataclass(frozen=True)
class ScalarKind:
    """How constants of one scalar TorchScript type are stored, read and spelled."""

    accepts: Callable[[object], bool]  # Python values `from_value` takes
    make: Callable[[Any], Attribute]
    holds: Callable[[Attribute], bool]  # is this attribute a value of the type?
    read: Callable[[Any], object]  # attribute -> Python value
    literal: Callable[[Any], str]  # Python value -> custom syntax


_STRING_KIND = ScalarKind(
    accepts=lambda v: isinstance(v, str),
    make=StringAttr,
    holds=lambda a: isinstance(a, StringAttr),
    read=lambda a: a.data,
    literal=_str_literal,
)

SCALAR_KINDS: dict[type[Attribute], ScalarKind] = {
    IntType: ScalarKind(
        accepts=_is_int64,
        make=lambda v: IntegerAttr(int(v), i64),
        holds=lambda a: isinstance(a, IntegerAttr) and a.type == i64,
        read=lambda a: a.value.data,
        literal=str,
    ),
    FloatType: ScalarKind(
        accepts=_is_double,
        make=lambda v: FloatAttr(float(v), f64),
        holds=lambda a: isinstance(a, FloatAttr) and a.type == f64,
        read=lambda a: a.value.data,
        literal=_float_literal,
    ),
    BoolType: ScalarKind(
        accepts=lambda v: isinstance(v, bool),
        make=lambda v: IntegerAttr(int(bool(v)), i1),
        holds=lambda a: isinstance(a, IntegerAttr) and a.type == i1,
        read=lambda a: a.value.data != 0,
        literal=lambda v: "true" if v else "false",
    ),
    StrType: _STRING_KIND,
    DeviceType: _STRING_KIND,
}


def is_constant_value(value: Attribute | None, type: Attribute) -> bool:
    """Whether `value` (None = no value) is a valid `prim.Constant` value of `type`."""
    if isinstance(type, NoneType):
        return value is None
    if isinstance(type, OptionalType):
        return value is None or is_constant_value(value, type.element_type)
    if value is None:
        return False
    if (kind := SCALAR_KINDS.get(type.__class__)) is not None:
        return kind.holds(value)
    if isinstance(type, TensorType):
        return isinstance(value, DenseIntOrFPElementsAttr) and _tensor_fits(value, type)
    if isinstance(type, ListType):
        return isinstance(value, ArrayAttr) and all(is_constant_value(e, type.element_type) for e in value)
    if isinstance(type, TupleType):
        return (
            isinstance(value, ArrayAttr)
            and len(value) == len(type.types)
            and all(is_constant_value(e, t) for e, t in zip(value, type.types))
        )
    return False


def _tensor_fits(value: DenseIntOrFPElementsAttr, type: TensorType) -> bool:
    """The dense value's dtype and shape are what the tensor type knows of them."""
    shaped = value.type
    if not isinstance(shaped, builtin.TensorType) or shaped.get_element_type() not in DTYPE_BY_ELEMENT:
        return False
    actual = TensorType(shaped.get_element_type(), shaped.get_shape())
    return is_subtype_of(actual, TensorType(type.element_type, type.shape))


def constant_attr(value: object, type: Attribute) -> Attribute | None:
    """The value attribute of a `type` constant holding the Python `value` (None for
    None). Tensors come as a DenseIntOrFPElementsAttr or a numpy array."""
    if value is None and isinstance(type, (NoneType, OptionalType)):
        return None
    if isinstance(type, OptionalType):
        return constant_attr(value, type.element_type)
    if value is None:
        raise ConstantError(f"a constant of type {type} needs a value")
    if (kind := SCALAR_KINDS.get(type.__class__)) is not None:
        if kind.accepts(value):
            return kind.make(value)
    elif isinstance(type, TensorType):
        dense = value if isinstance(value, DenseIntOrFPElementsAttr) else _dense_from_array(value)
        if dense is not None and _tensor_fits(dense, type):
            return dense
    elif isinstance(type, ListType) and isinstance(value, (list, tuple)):
        return ArrayAttr(_element_attr(e, type.element_type, value) for e in value)
    elif isinstance(type, TupleType) and isinstance(value, (list, tuple)) and len(value) == len(type.types):
        return ArrayAttr(_element_attr(e, t, value) for e, t in zip(value, type.types))
    raise ConstantError(f"{_describe(value)} is not a constant of type {type}")


def _element_attr(value: object, type: Attribute, container: object) -> Attribute:
    attr = constant_attr(value, type)
    if attr is None:
        described = _describe(container)
        raise ConstantError(f"{described} is not a constant: its elements of type {type} cannot be None")
    return attr


def constant_python_value(value: Attribute | None, type: Attribute) -> object:
    """The Python value of a constant: int, float, bool, str, None, list, tuple, or a
    read-only numpy array for tensors (numpy is imported on first use)."""
    if value is None:
        return None
    if isinstance(type, OptionalType):
        return constant_python_value(value, type.element_type)
    if (kind := SCALAR_KINDS.get(type.__class__)) is not None:
        return kind.read(value)
    if isinstance(type, TensorType):
        assert isinstance(value, DenseIntOrFPElementsAttr)
        return _array_from_dense(value)
    assert isinstance(value, ArrayAttr)
    if isinstance(type, ListType):
        return [constant_python_value(e, type.element_type) for e in value]
    assert isinstance(type, TupleType)
    return tuple(constant_python_value(e, t) for e, t in zip(value, type.types))


def infer_constant_type(value: object) -> Attribute:
    """The TorchScript type of a Python constant (lists need a first element)."""
    if value is None:
        return NoneType()
    for type_class in (BoolType, IntType, FloatType, StrType):
        if SCALAR_KINDS[type_class].accepts(value):
            return type_class()
    if isinstance(value, DenseIntOrFPElementsAttr) or hasattr(value, "__array__"):
        dense = value if isinstance(value, DenseIntOrFPElementsAttr) else _dense_from_array(value)
        if dense is not None:
            return TensorType(dense.get_element_type(), dense.get_shape())
    if isinstance(value, tuple):
        return TupleType([infer_constant_type(e) for e in value])  # pyright: ignore[reportArgumentType]
    if isinstance(value, list):
        if not value:
            raise ConstantError("the type of an empty list constant must be given")
        element = infer_constant_type(value[0])
        if isinstance(element, TensorType):
            element = TensorType()
        return ListType(element)  # pyright: ignore[reportArgumentType]
    raise ConstantError(f"{_describe(value)} has no TorchScript constant type")


def _describe(value: object) -> str:
    """A Python value as the custom syntax spells it, for error messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _str_literal(value)
    if isinstance(value, float):
        return _float_literal(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_describe(e) for e in value) + "]"
    if isinstance(value, Attribute):
        return str(value)
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return f"array of {getattr(value, 'dtype')} with shape {tuple(getattr(value, 'shape'))}"
    return repr(value)


def _dense_from_array(array: object) -> DenseIntOrFPElementsAttr | None:
    """A numpy array (or anything `numpy.asarray` takes) as a dense attribute; None when
    it has no TorchScript dtype."""
    if not hasattr(array, "__array__"):
        return None
    import numpy as np

    data = np.asarray(array)
    dtype = DTYPE_BY_TORCH_NAME.get(str(data.dtype))
    if dtype is None:
        return None
    shaped = builtin.TensorType(dtype.element, data.shape)
    if dtype.name == "Bool":  # xDSL stores a signless i1 `true` as all ones
        raw = np.negative(data.astype("<i1")).tobytes()
    elif dtype.name == "BFloat16":
        values = data.astype(np.float32).ravel().tolist()
        return DenseIntOrFPElementsAttr.from_list(shaped, values)  # pyright: ignore[reportArgumentType]
    else:
        raw = np.ascontiguousarray(data, dtype=np.dtype(dtype.torch_name).newbyteorder("<")).tobytes()
    return DenseIntOrFPElementsAttr(shaped, BytesAttr(raw))


def _array_from_dense(value: DenseIntOrFPElementsAttr) -> numpy.ndarray:
    import numpy as np

    element = value.get_element_type()
    dtype = DTYPE_BY_ELEMENT[element]
    if dtype.name == "BFloat16":  # numpy has no bfloat16
        array = np.array(value.get_values(), dtype=np.float32)
    else:
        storage = "<i1" if dtype.name == "Bool" else np.dtype(dtype.torch_name).newbyteorder("<")
        array = np.frombuffer(value.data.data, dtype=storage)
        if dtype.name == "Bool":
            array = array != 0
    array = array.reshape(value.get_shape())
    array.flags.writeable = False
    return array


def print_constant_literal(printer: Printer, value: Attribute, type: Attribute) -> None:
    if isinstance(type, OptionalType):
        print_constant_literal(printer, value, type.element_type)
    elif (kind := SCALAR_KINDS.get(type.__class__)) is not None:
        printer.print_string(kind.literal(kind.read(value)))
    elif isinstance(type, (ListType, TupleType)):
        assert isinstance(value, ArrayAttr)
        types = [type.element_type] * len(value) if isinstance(type, ListType) else list(type.types)
        with printer.in_square_brackets():
            printer.print_list(zip(value, types), lambda pair: print_constant_literal(printer, *pair))
    else:
        assert isinstance(value, DenseIntOrFPElementsAttr)
        print_dense(printer, value)


def parse_constant_literal(parser: Parser) -> object:
    """A literal of the custom syntax as a Python value: numbers (`inf`, `nan`), bools,
    strings, `[...]` lists, `(re, im)` complex numbers, and `dense<...> : tensor<...>`
    as a DenseIntOrFPElementsAttr."""
    if parser.parse_optional_keyword("dense") is not None:
        return parse_dense(parser)
    if parser.parse_optional_punctuation("(") is not None:
        real = parse_constant_literal(parser)
        parser.parse_punctuation(",")
        imag = parse_constant_literal(parser)
        parser.parse_punctuation(")")
        if not (_is_double(real) and _is_double(imag)):
            parser.raise_error("a complex number needs real parts")
        return complex(real, imag)  # pyright: ignore[reportArgumentType]
    if (text := parser.parse_optional_str_literal()) is not None:
        return text
    if (raw := parser.parse_optional_bytes_literal()) is not None:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            parser.raise_error("string constant is not valid UTF-8")
    if (flag := parser.parse_optional_boolean()) is not None:
        return flag
    element = functools.partial(parse_constant_literal, parser)
    if (items := parser.parse_optional_comma_separated_list(parser.Delimiter.SQUARE, element)) is not None:
        return items
    sign = -1 if parser.parse_optional_punctuation("-") is not None else 1
    if parser.parse_optional_keyword("inf") is not None:
        return sign * math.inf
    if sign == 1 and parser.parse_optional_keyword("nan") is not None:
        return math.nan
    if (number := parser.parse_optional_integer(allow_boolean=False, allow_negative=False)) is not None:
        return sign * number
    if (number := parser.parse_optional_float(allow_negative=False)) is not None:
        return sign * number
    if sign == -1:
        parser.raise_error("expected a number after '-'")
    parser.raise_error("expected a constant value")


# --------------------------------------------------------------------------------------
# Dense tensor literals
# --------------------------------------------------------------------------------------
#
# Tensor constants are spelled as MLIR's `dense<...> : tensor<...>`, with each element in
# its shortest exact form and `inf`/`nan` written out: xDSL 0.74 prints non-finite floats
# as hex bit patterns that its own parser then reads back as integers.


def print_dense(printer: Printer, value: DenseIntOrFPElementsAttr) -> None:
    shaped = value.type
    spell = _element_spelling(shaped.get_element_type())
    elements = value.get_values()
    printer.print_string("dense<")
    if len(elements) > 1 and all(e == elements[0] for e in elements[1:]):
        printer.print_string(spell(elements[0]))
    elif elements:
        printer.print_string(_nested_literal(elements, shaped.get_shape(), spell))
    printer.print_string("> : ")
    printer.print_attribute(shaped)


def _nested_literal(elements: Sequence[object], shape: Sequence[int], spell: Callable[[Any], str]) -> str:
    if not shape:
        return spell(elements[0])
    step = len(elements) // shape[0] if shape[0] else 0
    rows = (_nested_literal(elements[i * step : (i + 1) * step], shape[1:], spell) for i in range(shape[0]))
    return "[" + ", ".join(rows) + "]"


def _element_spelling(element: Attribute) -> Callable[[Any], str]:
    if isinstance(element, ComplexType):
        part = _element_spelling(element.element_type)
        return lambda z: f"({part(z[0])}, {part(z[1])})"
    if element == i1:
        return lambda v: "true" if v else "false"
    if isinstance(element, IntegerType):
        return str
    import numpy as np

    narrow = {f32: np.float32, builtin.f16: np.float16}.get(element)  # pyright: ignore[reportArgumentType]
    if narrow is None:  # f64, and bf16 whose values are exact doubles
        return _float_literal
    return functools.partial(_float_literal, shortest=lambda v: str(narrow(v)))


def parse_dense(parser: Parser) -> DenseIntOrFPElementsAttr:
    """The rest of `dense<...> : tensor<...>` after the `dense` keyword."""
    start = parser.pos
    parser.parse_punctuation("<")
    literal = None
    if parser.parse_optional_punctuation(">") is None:
        literal = parse_constant_literal(parser)
        parser.parse_punctuation(">")
    parser.parse_punctuation(":")
    shaped = parser.parse_type()
    if not isinstance(shaped, builtin.TensorType):
        parser.raise_error(f"a dense literal needs a ranked tensor type, got {shaped}", start, parser.pos)
    try:
        return dense_from_literal(literal, shaped)  # pyright: ignore[reportUnknownArgumentType]
    except ConstantError as e:
        parser.raise_error(str(e), start, parser.pos)


def dense_from_literal(literal: object, shaped: builtin.TensorType[Attribute]) -> DenseIntOrFPElementsAttr:
    """A dense tensor from nested lists of the tensor's shape, or a single value (splat),
    or None (no elements)."""
    element, shape = shaped.get_element_type(), shaped.get_shape()
    if element not in DTYPE_BY_ELEMENT:
        raise ConstantError(f"{element} is not a TorchScript tensor element type")
    if literal is None:
        elements: list[object] | None = []
    elif not isinstance(literal, list) and shape:
        elements = [literal]
    else:
        elements = _row_major(literal, shape)
    count = math.prod(shape)
    if elements is None or len(elements) not in (count, 1 if count else 0):
        shown = "dense<>" if literal is None else _describe(literal)
        raise ConstantError(f"{shown} does not have the tensor's shape {list(shape)}")
    accepts, convert = _element_conversion(element)
    for value in elements:
        if not accepts(value):
            raise ConstantError(f"{_describe(value)} is not a valid {element} element")
    return DenseIntOrFPElementsAttr.from_list(shaped, [convert(e) for e in elements])  # pyright: ignore


def _row_major(literal: object, shape: Sequence[int]) -> list[object] | None:
    """The elements of nested lists in row-major order; None when the nesting is not
    `shape`."""
    if not shape:
        return None if isinstance(literal, list) else [literal]
    if not isinstance(literal, list) or len(literal) != shape[0]:
        return None
    rows = [_row_major(row, shape[1:]) for row in literal]
    return None if any(row is None for row in rows) else [e for row in rows for e in row]  # pyright: ignore


def _element_conversion(element: Attribute) -> tuple[Callable[[object], bool], Callable[[Any], object]]:
    """Which Python literals are elements of the type, and the value `from_list` packs."""
    if isinstance(element, ComplexType):
        return (lambda v: isinstance(v, numbers.Complex) and not isinstance(v, bool)), (lambda z: (z.real, z.imag))
    if element == i1:
        return (lambda v: isinstance(v, bool)), int
    if isinstance(element, IntegerType):
        low, high = element.value_range()
        return (lambda v: _is_integer(v) and low <= int(v) < high), int  # pyright: ignore
    return _is_double, float


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
        %t = prim.Constant dense<[1.0, 2.0]> : tensor<2xf32> : !ts.tensor<f32, [2]>
    """

    name = "prim.Constant"

    value = opt_prop_def(Attribute)
    result = result_def()

    traits = traits_def(ConstantLike(), Pure())

    def __init__(self, value: Attribute | None, result_type: Attribute):
        super().__init__(properties={} if value is None else {"value": value}, result_types=[result_type])

    @classmethod
    def from_value(cls, value: object, type: Attribute | None = None) -> ConstantOp:
        """A constant holding a Python value (int, float, bool, str, None, list, tuple,
        numpy array); the type is inferred unless given."""
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
            HasParent(IfOp, LoopOp, WithOp, FusionGroupOp, DifferentiableGraphOp),
            Pure(),
        )
    )

    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: Operand):
        super().__init__(operands=[values])


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
        super().__init__(operands=[cond], result_types=[result_types], regions=[then_region, else_region])

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
        super().__init__(
            operands=[max_trip_count, initial_condition, carried], result_types=[result_types], regions=[body]
        )

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
            print_bindings(printer, arguments, self.carried)
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
        arguments = [counter, *(argument.resolve(t) for (argument, _), t in zip(bindings, result_types))]
        body = parser.parse_region(arguments)
        op = cls(max_trip_count, initial_condition, [initial for _, initial in bindings], result_types, body)
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
        super().__init__(operands=[context], result_types=[result_types], regions=[body, exit])

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
        super().__init__(operands=[elements], result_types=[result_type])

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
        super().__init__(operands=[elements], result_types=[result_type])

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
        super().__init__(operands=[list], result_types=[result_types])

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
    obj = operand_def(ClassType)
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
    """`prim::CallMethod`: calls a method of an object (unknown effects).

    %r = prim.CallMethod[name = "forward"] %self, %x : (!ts.class<"__torch__.M">, !ts.tensor) -> !ts.tensor
    """

    name = "prim.CallMethod"

    method_name = prop_def(StringAttr, prop_name="name")
    obj = operand_def(ClassType)
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
        super().__init__(result_types=[result_type])


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
        super().__init__(operands=[values])


# --------------------------------------------------------------------------------------
# Script frontend scaffolding (gone after SSA conversion and the exit transform)
# --------------------------------------------------------------------------------------


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
        super().__init__(operands=[input], properties={"name": StringAttr(var_name)})


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
        super().__init__(result_types=[result_type], properties={"name": StringAttr(var_name)})


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
        super().__init__(operands=[condition, carried])


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
        super().__init__(operands=[values])


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
        body = parser.parse_region([argument.resolve(input.type) for argument, input in bindings])
        op = cls([input for _, input in bindings], result_types, body)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def verify_(self) -> None:
        args = self.body.block.args
        if len(args) != len(self.inputs):
            inputs = plural(len(self.inputs), "input")
            fail(self, f"body takes {plural(len(args), 'argument')} but the op has {inputs}")
        for i, (input, arg) in enumerate(zip(self.inputs, args)):
            if input.type != arg.type:
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
    node."""

    name = "prim.DifferentiableGraph"


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
        ConstantChunkOp,
    ],
    [],
    [PrimConstantMaterialization()],
)

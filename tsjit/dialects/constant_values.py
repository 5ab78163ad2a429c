"""The values `prim.Constant` carries: which attribute encodes a Python value of a
TorchScript type, the conversions both ways, and the literal syntax (MLIR's `dense<...>`
with non-finite floats written out, since xDSL 0.74 reads its own hex spelling of them
back as integers).
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from xdsl.dialects import builtin
from xdsl.dialects.builtin import (
    ArrayAttr,
    BytesAttr,
    ComplexType,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    f32,
    f64,
    i1,
    i64,
)
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.printer import Printer

from tsjit.dialects.types import (
    DTYPE_BY_ELEMENT,
    DTYPE_BY_TORCH_NAME,
    BoolType,
    DeviceType,
    DictType,
    EnumType,
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
#   !ts.dict<K, V>  ArrayAttr of [key, value] ArrayAttr pairs, in insertion order
#   !ts.enum<"C">   StringAttr naming the member, `"C.RED"` (its value is C's declaration's)


class ConstantError(ValueError):
    """A Python or textual value that is not a constant of the requested type."""


@dataclass(frozen=True, slots=True)
class EnumMember:
    """A member of a TorchScript Enum class, named `__torch__.m.Color.RED`: a constant's
    value, and at run time the enum value itself (with `value`, the member's value from
    the class declaration). Members are equal when their names are."""

    qualified_name: str
    value: object = field(default=None, compare=False)

    @property
    def class_name(self) -> str:
        return self.qualified_name.rpartition(".")[0]

    @property
    def name(self) -> str:
        return self.qualified_name.rpartition(".")[2]

    def __str__(self) -> str:
        return self.qualified_name


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
    if type(value) is int:  # the common case, without the slow ABC check
        return True
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_int64(value: object) -> bool:
    return _is_integer(value) and -(2**63) <= int(value) < 2**63  # pyright: ignore[reportArgumentType]


def _is_double(value: object) -> bool:
    if type(value) is float:
        return True
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
    EnumType: ScalarKind(
        accepts=lambda v: isinstance(v, (EnumMember, str)),
        make=lambda v: StringAttr(v if isinstance(v, str) else v.qualified_name),
        holds=lambda a: isinstance(a, StringAttr),
        read=lambda a: EnumMember(a.data),
        literal=lambda v: _str_literal(v.qualified_name),
    ),
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
    if isinstance(type, DictType):
        return isinstance(value, ArrayAttr) and all(
            isinstance(pair, ArrayAttr)
            and len(pair) == 2
            and is_constant_value(pair.data[0], type.key_type)
            and is_constant_value(pair.data[1], type.value_type)
            for pair in value
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
            return _scalar_attr(kind, value)
    elif isinstance(type, TensorType):
        dense = value if isinstance(value, DenseIntOrFPElementsAttr) else _dense_from_array(value)
        if dense is not None and _tensor_fits(dense, type):
            return dense
    elif isinstance(type, ListType) and isinstance(value, (list, tuple)):
        return ArrayAttr(_element_attr(e, type.element_type, value) for e in value)
    elif isinstance(type, TupleType) and isinstance(value, (list, tuple)) and len(value) == len(type.types):
        return ArrayAttr(_element_attr(e, t, value) for e, t in zip(value, type.types))
    elif isinstance(type, DictType) and isinstance(value, dict):
        return ArrayAttr(
            ArrayAttr((_element_attr(k, type.key_type, value), _element_attr(v, type.value_type, value)))
            for k, v in value.items()
        )
    raise ConstantError(f"{_describe(value)} is not a constant of type {type}")


def _scalar_attr(kind: ScalarKind, value: object) -> Attribute:
    """`kind.make(value)`, made once per distinct value: programs repeat their literals
    (`1`, `0.5`, `-1`) and the passes make constants all the time."""
    if type(value) is float:
        if value != value:  # NaN: not a dictionary key
            return kind.make(value)
        key: tuple[object, ...] = (id(kind), float, value, math.copysign(1.0, value))  # -0.0 is not 0.0
    else:
        key = (id(kind), type(value), value)
    attr = _SCALAR_ATTRS.get(key)
    if attr is None:
        if len(_SCALAR_ATTRS) >= 4096:
            _SCALAR_ATTRS.clear()
        attr = _SCALAR_ATTRS[key] = kind.make(value)
    return attr


_SCALAR_ATTRS: dict[tuple[object, ...], Attribute] = {}


def scalar_constant(value: object) -> tuple[Attribute | None, Attribute] | None:
    """`(constant_attr(value, t), t)` with `t = infer_constant_type(value)` for a plain
    int, bool, str or float, made once per distinct value (a program's literals are
    the same few, emitted by the thousand); None for other values."""
    cls = value.__class__
    if cls is float:
        if value != value:  # NaN: not a dictionary key
            return None
        key: tuple[object, ...] = (float, value, math.copysign(1.0, value))  # pyright: ignore[reportArgumentType]
    elif cls is int or cls is bool or cls is str:
        key = (cls, value)
    else:
        return None
    known = _SCALAR_CONSTANTS.get(key)
    if known is None:
        result_type = infer_constant_type(value)
        if len(_SCALAR_CONSTANTS) >= 4096:
            _SCALAR_CONSTANTS.clear()
        known = _SCALAR_CONSTANTS[key] = (constant_attr(value, result_type), result_type)
    return known


_SCALAR_CONSTANTS: dict[tuple[object, ...], tuple[Attribute | None, Attribute]] = {}


def _element_attr(value: object, type: Attribute, container: object) -> Attribute:
    attr = constant_attr(value, type)
    if attr is None:
        described = _describe(container)
        raise ConstantError(f"{described} is not a constant: its elements of type {type} cannot be None")
    return attr


def constant_python_value(value: Attribute | None, type: Attribute) -> object:
    """The Python value of a constant: int, float, bool, str, None, list, tuple, dict,
    or a read-only numpy array for tensors (numpy is imported on first use)."""
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
    if isinstance(type, DictType):
        return {
            constant_python_value(k, type.key_type): constant_python_value(v, type.value_type)
            for k, v in (pair.data for pair in value)  # pyright: ignore[reportAttributeAccessIssue]
        }
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
    if isinstance(value, dict):
        return "dict{" + ", ".join(f"{_describe(k)}: {_describe(v)}" for k, v in value.items()) + "}"
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
    elif isinstance(type, DictType):
        assert isinstance(value, ArrayAttr)

        def entry(pair: Attribute) -> None:
            key, item = pair.data  # pyright: ignore[reportAttributeAccessIssue]
            print_constant_literal(printer, key, type.key_type)
            printer.print_string(": ")
            print_constant_literal(printer, item, type.value_type)

        printer.print_string("dict")
        with printer.in_braces():
            printer.print_list(value, entry)
    else:
        assert isinstance(value, DenseIntOrFPElementsAttr)
        print_dense(printer, value)


def parse_constant_literal(parser: Parser) -> object:
    """A literal of the custom syntax as a Python value: numbers (`inf`, `nan`), bools,
    strings, `[...]` lists, `dict{key: value, ...}` dicts, `(re, im)` complex numbers,
    and `dense<...> : tensor<...>` as a DenseIntOrFPElementsAttr."""
    if parser.parse_optional_keyword("dense") is not None:
        return parse_dense(parser)
    if parser.parse_optional_keyword("dict") is not None:

        def entry() -> tuple[object, object]:
            key = parse_constant_literal(parser)
            parser.parse_punctuation(":")
            return key, parse_constant_literal(parser)

        return dict(parser.parse_comma_separated_list(parser.Delimiter.BRACES, entry))
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



"""The TorchScript type system: strings, subtyping, unification."""

import pytest
from xdsl.dialects.builtin import f32, f64, i64

from tsjit.dialects.types import (
    AnyType,
    AwaitType,
    BoolType,
    ClassType,
    DictType,
    EnumType,
    FloatType,
    FutureType,
    IntType,
    ListType,
    NoneType,
    NumberType,
    OptionalType,
    RRefType,
    StrType,
    TensorType,
    TupleType,
    TypeStringError,
    is_subtype_of,
    parse_torchscript_type,
    to_torchscript_str,
    unify,
)

ROUND_TRIP = [
    "Tensor",
    "Float(2, *)",
    "Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)",
    "Double(2)",
    "Long()",
    "Long(requires_grad=0, device=cpu)",
    "Long",
    "Bool(*, *, *)",
    "Tensor[]",
    "Tensor?[]",
    "(Tensor, int)",
    "(Tensor, (int, float))[]",
    "int?",
    "Dict(str, Tensor)",
    "Dict(int, float[])",
    "Future[int]",
    "RRef[int]",
    "Await(Tensor)",
    "Enum<__torch__.Color>",
    "NamedTuple(values : Tensor, indices : Tensor)",
    "Dict(str, (int, float))",
    "QScheme",
    "Storage",
    "Generator?",
    "Future[Tensor[]]",
    "Union(int, str)",
    "Union(Tensor, int[], float, bool)",
    "Union(int, NoneType, str)",
    "Enum<__torch__.source.Color>",
    "Enum<__torch__.source.Color>[]",
    "InterfaceType<OneArg>",
    "__torch__.source.Model",
    "NoneType",
    "Device",
    "Scalar",
    "Any",
    "complex",
]


@pytest.mark.parametrize("text", ROUND_TRIP)
def test_torchscript_strings_round_trip(text):
    assert to_torchscript_str(parse_torchscript_type(text)) == text


def test_torchscript_strings_structure():
    assert parse_torchscript_type("Float(2, *)") == TensorType(f32, [2, None])
    assert parse_torchscript_type("Dict(str, Tensor)") == DictType(StrType(), TensorType())
    assert parse_torchscript_type("(Tensor, int)") == TupleType([TensorType(), IntType()])
    assert parse_torchscript_type("int[2]") == ListType(IntType())  # schema-only fixed length
    assert parse_torchscript_type("Dynamic") == TensorType()
    assert parse_torchscript_type("ScalarType?") == OptionalType(IntType())
    assert parse_torchscript_type("__torch__.m.Model") == ClassType("__torch__.m.Model")
    # what graphs print: NamedTuple fields, Future[T] (read as Future(T) too), Enum<...>
    assert parse_torchscript_type("NamedTuple(values : Tensor, indices : Tensor)") == TupleType(
        [TensorType(), TensorType()], ["values", "indices"]
    )
    assert parse_torchscript_type("Future(int)") == parse_torchscript_type("Future[int]") == FutureType(IntType())
    assert parse_torchscript_type("Await(Tensor)") == AwaitType(TensorType())
    assert parse_torchscript_type("RRef(int)") == RRefType(IntType())
    assert parse_torchscript_type("Enum<__torch__.Color>") == EnumType("__torch__.Color")
    # Layout, MemoryFormat and ScalarType print as int, as in PyTorch
    assert parse_torchscript_type("Layout") == parse_torchscript_type("MemoryFormat") == IntType()
    # the annotations of `annotate(List[int], [])` constants
    assert parse_torchscript_type("List[int]") == ListType(IntType())
    assert parse_torchscript_type("Dict[str, Tensor]") == DictType(StrType(), TensorType())
    assert parse_torchscript_type("Tuple[int, float]") == TupleType([IntType(), FloatType()])
    # as in PyTorch's parser, parentheses make the rank known: these are 0-dim
    assert parse_torchscript_type("Long()") == TensorType(i64, [])
    assert parse_torchscript_type("Long(requires_grad=0, device=cpu)") == TensorType(i64, [], "cpu", False)
    assert parse_torchscript_type("Long") == TensorType(i64)
    t = parse_torchscript_type("Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)")
    assert isinstance(t, TensorType)
    assert (t.shape, t.stride_values, t.grad, t.device_name) == ((2, 3), (3, 1), False, "cpu")


@pytest.mark.parametrize(
    "text, column",
    [("Dict(str)", 10), ("Float(2, x=1)", 10), ("Blob", 5), ("(int, ", 7), ("int]", 4),
     ("Float(2, strides=[1.5])", 19), ("Float(2.5)", 7), ("Float(2, requires_grad=x)", 24)],  # fmt: skip
)
def test_bad_type_strings(text, column):
    with pytest.raises(TypeStringError) as e:
        parse_torchscript_type(text)
    assert e.value.offset + 1 == column


def test_parameters_take_part_in_equality():
    # xDSL compares only parameters declared on the decorated class itself
    assert ListType(IntType()) != ListType(FloatType())
    assert OptionalType(IntType()) != OptionalType(StrType())
    assert ClassType("a") != ClassType("b")
    assert TensorType(f32) != TensorType(f64)
    assert hash(ListType(IntType())) == hash(ListType(IntType()))


@pytest.mark.parametrize(
    "sub, sup, expected",
    [
        (IntType(), NumberType(), True),
        (FloatType(), NumberType(), True),
        (BoolType(), NumberType(), False),
        (IntType(), FloatType(), False),
        (NoneType(), OptionalType(IntType()), True),
        (IntType(), OptionalType(IntType()), True),
        (OptionalType(IntType()), IntType(), False),
        (StrType(), AnyType(), True),
        (TensorType(f32, [2, 3]), TensorType(), True),
        (TensorType(f32, [2, 3]), TensorType(f32, [2, None]), True),
        (TensorType(f32, [2, None]), TensorType(f32, [2, 3]), False),
        (TensorType(f32), TensorType(f64), False),
        (TensorType(), TensorType(f32), False),
        (TupleType([TensorType(f32), IntType()]), TupleType([TensorType(), IntType()]), True),
        (ListType(TensorType(f32)), ListType(TensorType()), False),  # lists are invariant
        (ListType(IntType()), ListType(OptionalType(IntType())), False),
    ],
)
def test_subtyping(sub, sup, expected):
    assert is_subtype_of(sub, sup) is expected


@pytest.mark.parametrize(
    "a, b, joined",
    [
        (IntType(), IntType(), IntType()),
        (NoneType(), IntType(), OptionalType(IntType())),
        (TensorType(), NoneType(), OptionalType(TensorType())),
        (OptionalType(IntType()), IntType(), OptionalType(IntType())),
        (TensorType(f32, [2, 3]), TensorType(f32, [2, 4]), TensorType(f32, [2, None])),
        (TensorType(f32, [2]), TensorType(i64, [2, 2]), TensorType()),
        (TupleType([IntType(), TensorType(f32)]), TupleType([IntType(), TensorType(f64)]),
         TupleType([IntType(), TensorType()])),
        (ListType(TensorType(f32)), ListType(TensorType(f64)), ListType(TensorType())),
        (IntType(), FloatType(), None),  # TorchScript does not join to Number
        (ListType(IntType()), ListType(FloatType()), None),
    ],
)
def test_unify(a, b, joined):
    assert unify(a, b) == joined
    assert unify(b, a) == joined


@pytest.mark.parametrize(
    ("text", "message"),
    [("!ts.list", "!ts.list takes 1 parameter, got 0"), ("!ts.dict<!ts.int>", "!ts.dict takes 2 parameters, got 1"),
     ("!ts.int<!ts.int>", "!ts.int takes 0 parameters, got 1")],  # fmt: skip
)
def test_generic_types_with_the_wrong_number_of_parameters_are_located_errors(text, message):
    from xdsl.utils.exceptions import ParseError

    from tsjit.context import make_context
    from tsjit.diagnostics import from_xdsl_error
    from tsjit.formats import read_program

    with pytest.raises(ParseError) as caught:
        read_program(make_context(), f"func.func @f(%x : {text}) {{\n  func.return\n}}\n", "t.mlir")
    assert str(from_xdsl_error(caught.value)) == f"t.mlir:1:19: {message}"


def test_unions_are_normalized_as_torchscript_does():
    from tsjit.dialects.types import BoolType, FloatType, IntType, ListType, NoneType, OptionalType, StrType, union_of

    assert union_of([StrType(), IntType()]) == union_of([IntType(), StrType()])
    assert to_torchscript_str(union_of([StrType(), IntType(), NoneType()])) == "Union(int, NoneType, str)"
    assert union_of([IntType(), NoneType()]) == OptionalType(IntType())
    assert union_of([OptionalType(IntType()), IntType()]) == OptionalType(IntType())
    assert union_of([IntType(), IntType()]) == IntType()
    assert to_torchscript_str(union_of([BoolType(), ListType(IntType()), FloatType(), TensorType()])) == (
        "Union(Tensor, int[], float, bool)"
    )


def test_classes_are_subtypes_of_interfaces_and_enums_print_as_pytorch_does():
    from tsjit.dialects.types import ClassType, EnumType, InterfaceType, is_subtype_of

    assert is_subtype_of(ClassType("__torch__.m.Impl"), InterfaceType("__torch__.m.OneArg"))
    assert not is_subtype_of(InterfaceType("__torch__.m.OneArg"), ClassType("__torch__.m.Impl"))
    assert to_torchscript_str(InterfaceType("__torch__.m.OneArg")) == "InterfaceType<OneArg>"
    assert parse_torchscript_type("Enum<__torch__.m.Color>") == EnumType("__torch__.m.Color")

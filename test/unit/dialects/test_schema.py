"""FunctionSchema: the parser over PyTorch's whole table, the structured model, alias
annotations, effects and overload resolution."""

import math
import subprocess
import sys

import pytest
from xdsl.traits import MemoryEffectKind

from tsjit.dialects.schema import (
    TABLE,
    WILDCARD,
    AliasInfo,
    SchemaParseError,
    all_operator_names,
    closest_overloads,
    has_operator,
    parse_schema,
    resolve_overload,
    schemas_for,
)
from tsjit.dialects.schema.effects import schema_effect
from tsjit.dialects.types import (
    AnyType,
    BoolType,
    ComplexScalarType,
    DeviceType,
    DictType,
    EnumType,
    FloatType,
    FutureType,
    IntType,
    ListType,
    NoneType,
    NumberType,
    OpaqueType,
    OptionalType,
    StrType,
    TensorType,
    TupleType,
    UnionType,
)
from xdsl.dialects.builtin import f32

T, I, F, B, S, N = TensorType(), IntType(), FloatType(), BoolType(), StrType(), NoneType()


def schema(qualified_name: str):
    """The table's schema of `aten::add.Tensor` (name plus overload)."""
    name, _, overload = qualified_name.partition(".")
    (found,) = [s for s in schemas_for(name) if s.overload_name == overload]
    return found


# -- the table ---------------------------------------------------------------------------


def test_every_table_schema_prints_back_byte_identical():
    lines = TABLE.schema_strings()
    assert len(lines) == 4374
    assert sum(line.startswith("aten::") for line in lines) >= 3000
    mismatches = [line for line in lines if str(parse_schema(line)) != line]
    assert mismatches == []


def test_every_table_argument_has_a_tsjit_type():
    for name in all_operator_names():
        for s in schemas_for(name):
            for argument in (*s.arguments, *s.returns):
                assert argument.type is not None, (str(s), argument.name)


def test_table_index():
    assert TABLE.torch_version == "2.13.0+cpu"
    assert has_operator("aten::add") and has_operator("prim::dtype") and has_operator("quantized::add")
    assert not has_operator("aten::my_custom_op")
    assert schemas_for("aten::my_custom_op") == ()
    names = all_operator_names()
    assert len(names) == len(set(names)) > 2000
    overloads = [s.overload_name for s in schemas_for("aten::size")]
    assert overloads == ["", "int"]  # table order: the default overload first
    assert schemas_for("aten::add") is schemas_for("aten::add")  # parsed once


def test_importing_the_dialect_reads_no_schema():
    code = (
        "import tsjit.dialects.aten, tsjit.dialects.schema.table as t; "
        "print('_contents' in vars(t.TABLE), len(t.TABLE._parsed))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "0"]


# -- the model ---------------------------------------------------------------------------


def test_structured_access():
    s = schema("aten::add.Tensor")
    assert (s.name, s.overload_name, s.namespace, s.qualified_name) == ("aten::add", "Tensor", "aten", "aten::add.Tensor")
    assert [a.name for a in s.arguments] == ["self", "other", "alpha"]
    assert [a.kwarg_only for a in s.arguments] == [False, False, True]
    alpha = s.arguments[2]
    assert (alpha.type, alpha.type_text, alpha.default, alpha.default_text) == (NumberType(), "Scalar", 1, "1")
    assert s.argument_index("other") == 1 and s.argument_index("out") is None
    assert [r.type for r in s.returns] == [T]
    assert not (s.is_vararg or s.is_varret or s.is_mutable)


def test_named_tuple_returns():
    s = schema("aten::max.dim")
    assert [(r.name, r.type) for r in s.returns] == [("values", T), ("indices", T)]
    assert str(s) == "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)"


@pytest.mark.parametrize(
    ("type_text", "expected", "fixed_size"),
    [
        ("Tensor?", OptionalType(T), None),
        ("int[2]", ListType(I), 2),
        ("int[1]?", OptionalType(ListType(I)), 1),
        ("SymInt[]", ListType(I), None),
        ("Tensor?[]", ListType(OptionalType(T)), None),
        ("Dict(str, t)", DictType(S, AnyType()), None),
        ("Dict(str, tVal)", DictType(S, AnyType()), None),
        ("Future(t)", FutureType(AnyType()), None),
        ("Union(int, str)", UnionType([I, S]), None),
        ("(Tensor, t)[]", ListType(TupleType([T, AnyType()])), None),
        ("Any", AnyType(), None),
        ("Scalar", NumberType(), None),
        ("ScalarType?", OptionalType(I), None),
        ("Device", DeviceType(), None),
        ("complex", ComplexScalarType(), None),
        ("__torch__.torch.classes.quantized.LinearPackedParamsBase",
         OpaqueType("__torch__.torch.classes.quantized.LinearPackedParamsBase"), None),
        ("Tensor(a!)[]", ListType(T), None),
        ("t[](a)", ListType(AnyType()), None),
    ],
)  # fmt: skip
def test_argument_types(type_text, expected, fixed_size):
    (argument,) = parse_schema(f"x::f({type_text} a) -> ()").arguments
    assert argument.type == expected
    assert argument.type_text == type_text
    assert argument.fixed_size == fixed_size


def test_type_variables_are_kept_apart_from_any():
    (a, b) = parse_schema("x::f(t[] a, Any b) -> ()").arguments
    assert list(a.schema_type.variables()) == ["t"] and a.schema_type.has_variables
    assert not b.schema_type.has_variables
    assert a.schema_type.substitute({"t": I}) == ListType(I)


@pytest.mark.parametrize(
    ("argument", "value"),
    [
        ("float eps=1.0000000000000001e-05", 1e-05),
        ("float p=2", 2.0),
        ("float s=1.", 1.0),
        ("float lo=-inf", -math.inf),
        ("float hi=inf", math.inf),
        ("int dim=-1", -1),
        ("int[2] stride=1", (1, 1)),
        ("int[] dims=[]", ()),
        ("int[] dims=[0,1]", (0, 1)),
        ("int[1]? dim=None", None),
        ("bool flag=True", True),
        ("bool flag=False", False),
        ('str mode="nearest"', "nearest"),
        (r'str chars=" \n\t\f\v"', " \n\t\f\v"),
        (r'str q="\"\'\\"', "\"'\\"),
        ("str q='single'", "single"),
        ("MemoryFormat memory_format=contiguous_format", 0),
        ("ScalarType dtype=long", 4),
        ("ScalarType dtype=float", 6),
        ("Layout layout=strided", 0),
        ("int reduction=Mean", 1),
        ("complex c=1j", 1j),
        ("Tensor? t=None", None),
    ],
)
def test_defaults(argument, value):
    text = f"x::f({argument}) -> ()"
    s = parse_schema(text)
    assert str(s) == text
    assert s.arguments[0].has_default
    assert s.arguments[0].default == value


def test_nan_default():
    (argument,) = parse_schema("x::f(float v=nan) -> ()").arguments
    assert math.isnan(argument.default)  # pyright: ignore[reportArgumentType]


def test_none_default_differs_from_no_default():
    a, b = parse_schema("x::f(Tensor? a, Tensor? b=None) -> ()").arguments
    assert not a.has_default and b.has_default and a.default is b.default is None


@pytest.mark.parametrize(
    "text",
    [
        "aten::format(str self, ...) -> str",
        "prim::TupleUnpack(Any tup) -> ...",
        "prim::Print(...) -> ()",
        "aten::items.str(Dict(str, t) self) -> ((str, t)[])",
        "x::f(Tensor a, *, Tensor b) -> (Tensor, ...)",
        "x::f(Tensor?(a!) a) -> Tensor(a!) out",
        "x::noargs() -> Tensor",
    ],
)
def test_schema_forms_print_back(text):
    assert str(parse_schema(text)) == text


def test_varargs_flags():
    assert parse_schema("aten::format(str self, ...) -> str").is_vararg
    assert parse_schema("prim::TupleUnpack(Any tup) -> ...").is_varret
    both = parse_schema("prim::Print(...) -> ()")
    assert both.is_vararg and not both.is_varret and both.returns == ()


# -- alias annotations -------------------------------------------------------------------


def test_inplace_write():
    s = schema("aten::add_.Tensor")
    info = s.arguments[0].alias_info
    assert info == AliasInfo(frozenset("a"), frozenset("a"), is_write=True)
    assert s.is_mutable and s.mutated_arguments() == (0,)
    assert s.aliased_arguments(0) == (0,) and s.is_aliasing(0)


def test_out_variant_writes_its_out_argument():
    s = schema("aten::add.out")
    assert s.mutated_arguments() == (3,)
    assert s.aliased_arguments(0) == (3,)


def test_view_aliases_without_writing():
    s = schema("aten::view")
    assert not s.is_mutable
    assert s.aliased_arguments(0) == (0,) and s.is_aliasing(0) and not s.is_wildcard_output(0)


def test_fresh_output_aliases_nothing():
    s = schema("aten::add.Tensor")
    assert s.aliased_arguments(0) == () and not s.is_aliasing(0)


def test_chunk_returns_a_list_of_views():
    s = schema("aten::chunk")
    self_info = s.arguments[0].alias_info
    assert self_info is not None
    assert (self_info.before_sets, self_info.after_sets) == (frozenset("a"), frozenset({WILDCARD}))
    assert self_info.is_wildcard_after and s.escapes_to_wildcard(0)
    returned = s.returns[0].alias_info
    assert returned == AliasInfo(contained=(AliasInfo(frozenset("a"), frozenset("a")),))
    assert s.aliased_arguments(0) == (0,)


def test_split_tensor():
    s = schema("aten::split.Tensor")
    assert str(s.arguments[0]) == "Tensor(a -> *) self"
    assert s.escapes_to_wildcard(0) and s.aliased_arguments(0) == (0,) and not s.is_mutable


def test_getitem_returns_a_wildcard():
    s = schema("aten::__getitem__.t")
    assert s.arguments[0].alias_info == AliasInfo(frozenset("a"), frozenset("a"))
    assert s.returns[0].alias_info == AliasInfo(frozenset({WILDCARD}), frozenset({WILDCARD}))
    assert s.is_wildcard_output(0) and s.is_aliasing(0)
    assert s.aliased_arguments(0) == (0,)  # the wildcard may alias the list's elements


def test_append_stores_its_element_in_the_wildcard_set():
    s = schema("aten::append.t")
    assert s.mutated_arguments() == (0,)
    element = s.arguments[1].alias_info
    assert element == AliasInfo(frozenset("c"), frozenset({WILDCARD}))
    assert s.escapes_to_wildcard(1) and not s.escapes_to_wildcard(0)


def test_list_of_written_tensors():
    (argument,) = parse_schema("x::f(Tensor(a!)[] out) -> ()").arguments
    assert argument.alias_info == AliasInfo(is_write=True, contained=(AliasInfo(frozenset("a"), frozenset("a"), True),))
    assert argument.is_write


def test_alias_set_union():
    s = schema("aten::cpu")
    assert s.returns[0].alias_info == AliasInfo(frozenset("ab"), frozenset("ab"))
    assert s.aliased_arguments(0) == (0,)


# -- errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "column", "message"),
    [
        ("aten::add(Tensor self", 22, "expected ','"),
        ("aten::add(Tensor) -> Tensor", 17, "expected an argument name"),
        ("aten::add(Tensor self) Tensor", 24, "expected '->'"),
        ("aten::add(Tensor(a self) -> Tensor", 20, "expected ')'"),
        ("aten::add(Tensor self=) -> Tensor", 23, "expected a default value"),
        ("aten::add(int x=bogus) -> Tensor", 17, "unknown default value 'bogus'"),
        ("aten::add(..., Tensor x) -> Tensor", 16, "'...' must be the last argument"),
        ("aten::add(Tensor x) -> Tensor $", 31, "unexpected character '$'"),
        ("aten::add(Tensor x) -> Tensor y z", 33, "unexpected 'z' after the returns"),
        ("aten::add(int[x] a) -> ()", 14, "expected an argument name, found '['"),
        ("aten::add(Tensor a, Foo b) -> ()", 21, "unknown type 'Foo'"),
        ("aten::add(Dict(str, Tensor a) -> ()", 28, "expected ')', found 'a'"),
    ],
)
def test_malformed_schema(text, column, message):
    with pytest.raises(SchemaParseError) as info:
        parse_schema(text)
    assert info.value.column == column
    assert message in str(info.value)
    assert f"at column {column} of schema '{text}'" in str(info.value)
    assert "\n" not in str(info.value)


# -- effects -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("qualified_name", "effect"),
    [
        ("aten::add.Tensor", MemoryEffectKind.READ),
        ("aten::view", MemoryEffectKind.READ),
        ("aten::add_.Tensor", MemoryEffectKind.WRITE),
        ("aten::add.out", MemoryEffectKind.WRITE),
        ("aten::append.t", MemoryEffectKind.WRITE),
        ("aten::rand", MemoryEffectKind.WRITE),
        ("aten::dropout", MemoryEffectKind.WRITE),
        ("aten::bernoulli", MemoryEffectKind.WRITE),
        ("aten::warn", None),
        ("aten::manual_seed", None),
        ("prim::Print", None),
        ("aten::format", None),
    ],
)
def test_schema_effect(qualified_name, effect):
    assert schema_effect(schema(qualified_name)) is effect


# -- overload resolution -----------------------------------------------------------------

LIST_T, LIST_I, LIST_F = ListType(T), ListType(I), ListType(F)


@pytest.mark.parametrize(
    ("name", "operands", "overload"),
    [
        ("aten::add", (T, T, I), "Tensor"),
        ("aten::add", (T, I, I), "Scalar"),
        ("aten::add", (T, F, I), "Scalar"),
        ("aten::add", (I, I), "int"),
        ("aten::add", (F, F), "float"),
        ("aten::add", (I, F), "int_float"),
        ("aten::add", (S, S), "str"),
        ("aten::add", (LIST_I, LIST_I), "t"),
        ("aten::add", (B, B), ""),  # Scalar takes bools
        ("aten::add", (T, T, I, T), "out"),
        ("aten::add", (TensorType(f32, [2]), TensorType(f32, [2, 3]), I), "Tensor"),
        ("aten::__getitem__", (LIST_T, I), "t"),
        ("aten::__getitem__", (S, I), "str"),
        ("aten::__getitem__", (DictType(S, T), S), "Dict_str"),
        ("aten::__getitem__", (DictType(I, LIST_I), I), "Dict_int"),
        ("aten::size", (T,), ""),
        ("aten::size", (T, I), "int"),
        ("aten::max", (T,), ""),
        ("aten::max", (T, T), "other"),
        ("aten::max", (T, I, B), "dim"),
        ("aten::eq", (B, B), "bool"),
        ("aten::eq", (LIST_I, LIST_I), "int_list"),
        ("aten::eq", (T, I), "Scalar"),
        ("aten::len", (LIST_I,), "t"),
        ("aten::len", (T,), "Tensor"),
        ("aten::len", (DictType(S, T),), "Dict_str"),
        ("aten::sort", (LIST_I, B), "int"),
        ("aten::sort", (ListType(ListType(I)), B), "any"),
        ("aten::append", (LIST_T, TensorType(f32, [2])), "t"),
        ("aten::append", (ListType(OptionalType(I)), I), "t"),
        ("aten::clamp", (T, N, N), ""),
        ("aten::clamp", (T, T, N), "Tensor"),
        ("aten::cat", (LIST_T, I), ""),
        ("aten::format", (S, I, T, F), ""),
        ("aten::items", (DictType(S, T),), "str"),
        ("aten::Int", (T,), "Tensor"),
        ("aten::Int", (F,), "float"),
        ("aten::eq", (EnumType("__torch__.Color"), EnumType("__torch__.Color")), "enum"),
        ("prim::NumToTensor", (I,), "Scalar"),
        ("prim::NumToTensor", (B,), "bool"),
        ("aten::wait", (FutureType(T),), ""),
        ("aten::keys", (DictType(S, T),), "str"),
    ],
)
def test_resolve_overload(name, operands, overload):
    resolved = resolve_overload(name, operands)
    assert resolved is not None and resolved.overload_name == overload


@pytest.mark.parametrize(
    ("name", "operands"),
    [
        ("aten::add", (S, T)),
        ("aten::add", (LIST_I, LIST_F)),  # t cannot be int and float
        ("aten::append", (LIST_I, F)),
        ("aten::append", (LIST_I, N)),  # would need the list to be int?[]
        ("aten::size", ()),
        ("aten::size", (T, I, I)),
        ("aten::my_custom_op", (T,)),
        ("aten::__getitem__", (DictType(S, T), I)),
    ],
)
def test_resolve_overload_rejects(name, operands):
    assert resolve_overload(name, operands) is None


@pytest.mark.parametrize(
    ("operands", "overload"),
    [
        ((AnyType(), T, I), "Tensor"),
        ((OptionalType(T), T, I), "Tensor"),
        ((T, NumberType(), NumberType()), "Scalar"),
        ((UnionType([I, F]), I), ""),  # add(Scalar, Scalar) takes both members
        ((NumberType(), I), ""),
        ((UnionType([I, S]), I), "int"),
    ],
)
def test_gradually_typed_operands_match_loosely(operands, overload):
    resolved = resolve_overload("aten::add", operands)
    assert resolved is not None and resolved.overload_name == overload


def test_exact_match_beats_loose_match():
    # (Tensor, Tensor?) is loose for max.other; nothing else fits: still resolved.
    assert resolve_overload("aten::max", (T, OptionalType(T))) == schema("aten::max.other")
    # `Any` loosely fits add.Tensor's `other` and add.Scalar's; Number picks Scalar exactly.
    assert resolve_overload("aten::add", (T, NumberType(), I)) == schema("aten::add.Scalar")


def test_result_types_break_ties():
    # (Tensor, None, None): clamp(Scalar?...) and clamp.Tensor(Tensor?...) both fit.
    assert resolve_overload("aten::clamp", (T, N, N)) == schema("aten::clamp")
    operands = (AnyType(), AnyType())
    assert resolve_overload("aten::add", operands, (S,)) == schema("aten::add.str")
    assert resolve_overload("aten::add", operands, (LIST_I,)) == schema("aten::add.t")
    assert resolve_overload("aten::add", operands, (F,)) == schema("aten::add.float")


def test_resolution_is_cached():
    first = resolve_overload("aten::mul", (T, T))
    assert first is resolve_overload("aten::mul", [T, T])


def test_closest_overloads_for_messages():
    closest = closest_overloads("aten::add", (S, T))
    assert closest[0] == schema("aten::add.str")
    assert len(closest) == 3

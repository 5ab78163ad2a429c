"""The aten dialect: op classes generated from the schema table, their accessors,
verifier and memory effects, and how xDSL's CSE and DCE treat them."""

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import f32
from xdsl.dialects import test as test_dialect
from xdsl.ir import Block, Region
from xdsl.parser import Parser
from xdsl.traits import EffectInstance, MemoryEffectKind, get_effects
from xdsl.transforms.common_subexpression_elimination import cse
from xdsl.transforms.dead_code_elimination import region_dce
from xdsl.utils.exceptions import VerifyException

from tsjit.context import make_context
from tsjit.dialects.aten import OperatorOp, SchemaOp, create_op, op_class_for, schema_of
from tsjit.dialects.prim import TupleUnpackOp
from tsjit.dialects.types import (
    AnyType,
    BoolType,
    FloatType,
    IntType,
    ListType,
    NoneType,
    OptionalType,
    StrType,
    TensorType,
    TupleType,
)

T, I, F, B, S = TensorType(), IntType(), FloatType(), BoolType(), StrType()


def values(*types):
    """Fresh SSA values of these types (results of one `test.op`)."""
    return test_dialect.TestOp(result_types=types).results


def test_one_class_per_name():
    add = op_class_for("aten.add")
    assert add is op_class_for("aten.add")
    assert issubclass(add, SchemaOp) and add.name == "aten.add" and add.OPERATOR == "aten::add"
    assert issubclass(op_class_for("prim.dtype"), SchemaOp)
    assert issubclass(op_class_for("quantized.add"), SchemaOp)


def test_open_aten_namespace_only():
    custom = op_class_for("aten.my_custom_op")
    assert custom is not None and not issubclass(custom, SchemaOp) and issubclass(custom, OperatorOp)
    assert op_class_for("prim.foo") is None
    assert op_class_for("quantized.no_such_op") is None
    assert op_class_for("nonsense.add") is None
    assert op_class_for("aten.add.Tensor") is None  # nodes name operators, not overloads


def test_create_op_and_schema_of():
    x, y, one = values(T, TensorType(f32, [2]), I)
    op = create_op("aten.add", [x, y, one], [T])
    op.verify()
    assert op.schema is schema_of(op) and schema_of(op).qualified_name == "aten::add.Tensor"
    assert (op.self, op.other, op.alpha) == (x, y, one)
    with pytest.raises(ValueError, match="unknown operator 'prim.foo'"):
        create_op("prim.foo", [x], [T])


def test_schema_of_follows_the_types_of_each_op():
    a, b = values(I, I)
    x, y = values(F, F)
    ints = create_op("aten.add", [a, b], [I])
    floats = create_op("aten.add", [x, y], [F])  # one class, one operand count, other types
    assert schema_of(ints).qualified_name == "aten::add.int"
    assert schema_of(floats).qualified_name == "aten::add.float"
    ints.operands[0], ints.operands[1] = x, y  # the types an op was resolved for changed
    ints.results[0]._type = F  # pyright: ignore[reportPrivateUsage]
    assert schema_of(ints).qualified_name == "aten::add.float"


def test_create_op_prefers_hand_written_prim_ops():
    (pair,) = values(TupleType([I, T]))
    unpack = create_op("prim.TupleUnpack", [pair], [I, T])
    assert type(unpack) is TupleUnpackOp
    assert op_class_for("prim.TupleUnpack") is not TupleUnpackOp  # the table's, for the context's fallback


def test_bernoulli_in_place_writes_its_operand_and_the_generator():
    x, p = values(T, F)
    op = create_op("aten.bernoulli_", [x, p, *values(NoneType())], [T])
    assert get_effects(op) == {EffectInstance(MemoryEffectKind.WRITE, x), EffectInstance(MemoryEffectKind.WRITE)}


def test_accessor_for_an_argument_some_overloads_lack():
    a, b = values(I, I)
    op = create_op("aten.add", [a, b], [I])
    assert schema_of(op).qualified_name == "aten::add.int"
    assert (op.a, op.b) == (a, b)
    with pytest.raises(AttributeError, match="has no argument 'self'"):
        op.self  # noqa: B018


def test_argument_names_clashing_with_operation_members_get_an_underscore():
    load = op_class_for("debugprims.load_tensor")
    assert isinstance(load.name_, property) and load.name == "debugprims.load_tensor"
    enter = op_class_for("profiler._record_function_enter")
    assert isinstance(enter.args_, property)


def test_no_accessor_for_names_at_varying_positions():
    # aten::max's `other` is argument 1 of max.other; `dim` too in max.dim: both fixed.
    mx = op_class_for("aten.max")
    assert isinstance(mx.self, property) and isinstance(mx.dim, property)
    # aten::sort's `stable` sits at 1 (sort.stable) and nowhere else, `dim` at 1 and 2.
    sort = op_class_for("aten.sort")
    assert isinstance(sort.stable, property) and not hasattr(sort, "dim")


def test_zero_operands_and_zero_results():
    (message, level) = values(S, I)
    warn = create_op("aten.warn", [message, level], [])
    warn.verify()
    assert len(warn.results) == 0
    seed_op = create_op("aten.my_generator_probe", [], [I])
    seed_op.verify()
    assert len(seed_op.operands) == 0


def test_verifier_message():
    s, x = values(S, T)
    op = create_op("aten.add", [s, x], [T])
    with pytest.raises(VerifyException) as info:
        op.verify_()
    message = str(info.value)
    assert message.startswith(
        "'aten.add' op operands (!ts.str, !ts.tensor) match no schema of aten::add; "
        "candidates: aten::add.str(str a, str b) -> str; "
    )
    assert message.endswith("(and 13 more)") and "\n" not in message


@pytest.mark.parametrize(
    ("name", "types"),
    [
        ("aten.add", (AnyType(), T, I)),
        ("aten.add", (OptionalType(T), T, I)),
        ("aten.add", (TensorType(f32, [2]), TensorType(f32, [2]), I)),
        ("aten.format", (S, I, T, ListType(I))),
        ("aten.format", (S,)),
        ("prim.NumToTensor", (B,)),
        ("aten.my_custom_op", (S, S, S)),
    ],
)
def test_verifier_accepts_valid_graphs(name, types):
    create_op(name, list(values(*types)), [T]).verify()


def test_effects():
    x, y, one, s = values(T, T, I, S)
    assert get_effects(create_op("aten.add", [x, y, one], [T])) == {EffectInstance(MemoryEffectKind.READ)}
    assert get_effects(create_op("aten.add_", [x, y, one], [T])) == {EffectInstance(MemoryEffectKind.WRITE, x)}
    defaults = values(*[NoneType()] * 5)
    assert get_effects(create_op("aten.rand_like", [x, *defaults], [T])) == {EffectInstance(MemoryEffectKind.WRITE)}
    assert get_effects(create_op("aten.warn", [s, one], [])) is None
    assert get_effects(create_op("aten.my_custom_op", [x], [T])) is None
    assert get_effects(create_op("aten.add", [s, x], [T])) is None  # unresolved


PROGRAM = """
func.func @f(%x : !ts.tensor, %y : !ts.tensor, %one : !ts.int, %msg : !ts.str) -> (!ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor) {
  %a = aten.add %x, %y, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %a2 = aten.add %x, %y, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %w = aten.add_ %x, %y, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %b = aten.add %x, %y, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %unused = aten.tanh %x : (!ts.tensor) -> !ts.tensor
  %f = aten.dropout %x, %p, %true : (!ts.tensor, !ts.float, !ts.bool) -> !ts.tensor
  %f2 = aten.dropout %x, %p, %true : (!ts.tensor, !ts.float, !ts.bool) -> !ts.tensor
  aten.warn %msg, %one : (!ts.str, !ts.int) -> ()
  func.return %a2, %b, %f, %f2 : !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor
}
"""


def test_cse_and_dce_respect_the_effects():
    text = PROGRAM.replace(
        "-> (!ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor) {",
        "-> (!ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor) {\n"
        '  %p, %true = "test.op"() : () -> (!ts.float, !ts.bool)',
    )
    module = Parser(make_context(), text).parse_module()
    module.verify()
    cse(module)
    region_dce(module.body)
    names = [op.name for op in module.walk() if op.name.startswith("aten.")]
    # %a2 merges into %a; the write keeps %b apart; random ops never merge; the unused
    # read-only tanh goes; the warning stays.
    assert names == ["aten.add", "aten.add_", "aten.add", "aten.dropout", "aten.dropout", "aten.warn"]


def test_custom_syntax_round_trip():
    text = PROGRAM.replace("%p, %true", "%one, %one").replace("!ts.float, !ts.bool", "!ts.int, !ts.int")
    module = Parser(make_context(), text).parse_module()
    assert str(Parser(make_context(), str(module)).parse_module()) == str(module)


def test_ops_built_in_code_print_in_custom_syntax():
    block = Block(arg_types=[T, T, I])
    op = create_op("aten.add", list(block.args), [T])
    block.add_ops([op, func.ReturnOp(op.results[0])])
    function = func.FuncOp("g", ((T, T, I), (T,)), Region(block))
    assert "aten.add %0, %1, %2 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor" in str(function)

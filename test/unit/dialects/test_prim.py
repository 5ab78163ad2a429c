"""prim dialect: constants from and to Python values, folding and materialization,
effects, and the block-scoping check that xDSL's verifier lacks."""

import math
from io import StringIO

import numpy as np
import pytest
from xdsl.dialects.builtin import (
    ArrayAttr,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    NoneAttr,
    StringAttr,
    f32,
    f64,
    i1,
    i64,
)
from xdsl.ir import Block, Region
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, MemoryEffectKind, get_effects
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.utils.exceptions import VerifyException

from tsjit.context import make_context
from tsjit.dialects import prim
from tsjit.dialects.types import (
    BoolType,
    DeviceType,
    FloatType,
    IntType,
    ListType,
    NoneType,
    OptionalType,
    StrType,
    TensorType,
    TupleType,
)

SCALARS = [
    (3, IntType(), IntegerAttr(3, i64)),
    (-(2**63), IntType(), IntegerAttr(-(2**63), i64)),
    (2.5, FloatType(), FloatAttr(2.5, f64)),
    (True, BoolType(), IntegerAttr(1, i1)),
    (False, BoolType(), IntegerAttr(0, i1)),
    ("a\"b\né", StrType(), StringAttr("a\"b\né")),
    (None, NoneType(), None),
]


@pytest.mark.parametrize(("value", "ts_type", "attr"), SCALARS)
def test_scalar_constants_infer_their_type_and_read_back(value, ts_type, attr):
    op = prim.ConstantOp.from_value(value)
    op.verify()
    assert op.result.type == ts_type
    assert op.value == attr
    assert op.python_value == value
    assert type(op.python_value) is type(value)


def test_explicit_types_convert_or_refuse():
    assert prim.ConstantOp.from_value(2, FloatType()).python_value == 2.0
    assert prim.ConstantOp.from_value("cpu", DeviceType()).value == StringAttr("cpu")
    assert prim.ConstantOp.from_value(np.int64(7)).python_value == 7
    assert prim.ConstantOp.from_value(None, OptionalType(IntType())).value is None
    assert prim.ConstantOp.from_value(4, OptionalType(IntType())).python_value == 4
    with pytest.raises(prim.ConstantError, match=r"^true is not a constant of type !ts.int$"):
        prim.ConstantOp.from_value(True, IntType())
    with pytest.raises(prim.ConstantError, match=r"^1 is not a constant of type !ts.bool$"):
        prim.ConstantOp.from_value(1, BoolType())
    with pytest.raises(prim.ConstantError, match=r"^a constant of type !ts.float needs a value$"):
        prim.ConstantOp.from_value(None, FloatType())


def test_special_floats_round_trip_through_python():
    for value in (math.inf, -math.inf, 1e-300, 0.1):
        assert prim.ConstantOp.from_value(value).python_value == value
    assert math.isnan(prim.ConstantOp.from_value(math.nan).python_value)


def test_lists_and_tuples():
    ints = prim.ConstantOp.from_value([1, 2, 3])
    assert ints.result.type == ListType(IntType())
    assert ints.value == ArrayAttr([IntegerAttr(v, i64) for v in (1, 2, 3)])
    assert ints.python_value == [1, 2, 3]
    nested = prim.ConstantOp.from_value((1, "x", [2.5]))
    assert nested.result.type == TupleType([IntType(), StrType(), ListType(FloatType())])
    assert nested.python_value == (1, "x", [2.5])
    assert prim.ConstantOp.from_value([], ListType(BoolType())).python_value == []
    with pytest.raises(prim.ConstantError, match="the type of an empty list constant must be given"):
        prim.ConstantOp.from_value([])
    with pytest.raises(prim.ConstantError, match=r"^2.5 is not a constant of type !ts.int$"):
        prim.ConstantOp.from_value([1, 2.5])
    optional_ints = ListType(OptionalType(IntType()))
    with pytest.raises(prim.ConstantError, match=r"elements of type !ts.optional<!ts.int> cannot be None"):
        prim.ConstantOp.from_value([None], optional_ints)


@pytest.mark.parametrize(
    "array",
    [
        np.arange(6, dtype=np.float32).reshape(2, 3),
        np.array(2.5, dtype=np.float64),
        np.array([[True, False], [False, True]]),
        np.array([0, 255], dtype=np.uint8),
        np.array([-(2**63), 2**63 - 1], dtype=np.int64),
        np.array([1 + 2j, -3.5j], dtype=np.complex64),
        np.array([0.5, -1.0], dtype=np.float16),
        np.zeros((0, 4), dtype=np.int32),
    ],
    ids=["f32-matrix", "f64-scalar", "bool", "uint8", "int64-limits", "complex64", "f16", "empty"],
)
def test_tensor_constants_round_trip_numpy_arrays(array):
    op = prim.ConstantOp.from_value(array)
    op.verify()
    assert isinstance(op.result.type, TensorType)
    assert op.result.type.shape == array.shape
    back = op.python_value
    assert back.dtype == array.dtype and back.shape == array.shape
    np.testing.assert_array_equal(back, array)
    assert not back.flags.writeable


def test_tensor_constants_agree_with_parsed_dense_literals():
    parsed = _parse_op('%t = prim.Constant dense<[true, false]> : tensor<2xi1> : !ts.tensor<i1, [2]>')
    assert parsed.value == prim.ConstantOp.from_value(np.array([True, False])).value
    splat = _parse_op("%t = prim.Constant dense<1.5> : tensor<2x2xf32> : !ts.tensor<f32, [2, 2]>")
    np.testing.assert_array_equal(splat.python_value, np.full((2, 2), 1.5, dtype=np.float32))


@pytest.mark.parametrize(
    "array",
    [
        np.array([0.1, -0.0, np.inf, -np.inf, np.nan, 3.4028235e38, 1.2e-38], dtype=np.float32),
        np.array([0.1, np.inf, 65504.0, 6e-8], dtype=np.float16),
        np.array([[1 / 3, np.nan], [5e-324, -1e308]]),
        np.array([np.inf + 1j, np.nan - 0.5j], dtype=np.complex128),
        np.array([-128, 127], dtype=np.int8),
    ],
    ids=["f32", "f16", "f64", "complex", "int8"],
)
def test_dense_literals_print_and_parse_back_bit_exactly(array):
    op = prim.ConstantOp.from_value(array)
    text = StringIO()
    Printer(stream=text).print_op(op)
    assert _parse_op(text.getvalue()).value.data == op.value.data


def test_tensor_type_must_allow_the_value():
    with pytest.raises(prim.ConstantError, match=r"is not a constant of type !ts.tensor<f32, \[3\]>"):
        prim.ConstantOp.from_value(np.zeros(2, dtype=np.float32), TensorType(f32, [3]))
    partially_known = TensorType(sizes=[2, None], device="cpu")
    op = prim.ConstantOp.from_value(np.zeros((2, 3), dtype=np.float32), partially_known)
    op.verify()
    with pytest.raises(prim.ConstantError, match="has no TorchScript constant type"):
        prim.ConstantOp.from_value(np.array(["a"]))


def test_fold_exposes_the_value_and_none_as_none_attr():
    one = prim.ConstantOp.from_value(1)
    none = prim.ConstantOp.from_value(None)
    assert ConstantLike.get_constant_value(one.result) == IntegerAttr(1, i64)
    assert ConstantLike.get_constant_value(none.result) == NoneAttr()


def test_materialization_builds_constants_only_for_valid_values():
    materializer = prim.PrimConstantMaterialization()
    op = materializer.materialize_constant(IntegerAttr(5, i64), IntType())
    assert isinstance(op, prim.ConstantOp) and op.python_value == 5
    none = materializer.materialize_constant(NoneAttr(), OptionalType(IntType()))
    assert isinstance(none, prim.ConstantOp) and none.value is None
    assert materializer.materialize_constant(FloatAttr(1.0, f64), IntType()) is None


def test_canonicalize_drops_unused_constants_without_refolding_them():
    module = _parse(
        """
        func.func @f() -> !ts.int {
          %a = prim.Constant 7 : !ts.int
          %b = prim.Constant 7 : !ts.int
          %unused = prim.Constant "x" : !ts.str
          func.return %a : !ts.int
        }
        """
    )
    CanonicalizePass().apply(make_context(), module)
    constants = [op for op in module.walk() if isinstance(op, prim.ConstantOp)]
    assert [c.python_value for c in constants] == [7]


def test_effects():
    x = _value(TensorType())
    tup = prim.TupleConstructOp([x])
    lst = prim.ListConstructOp([x], ListType(TensorType()))
    assert get_effects(tup) == set()
    assert {(e.kind, e.value) for e in get_effects(lst)} == {(MemoryEffectKind.ALLOC, lst.result)}
    assert get_effects(prim.PrintOp(x)) == {_effect(MemoryEffectKind.WRITE)}
    assert get_effects(prim.CallFunctionOp(x, [], [])) is None


def test_values_defined_in_a_region_must_stay_inside():
    """Textual IR cannot express this (the parser scopes names by region), but a pass
    can: the region ops reject it."""
    cond = _value(BoolType())
    inner = prim.ConstantOp.from_value(1)
    then_block = Block([inner, prim.YieldOp()])
    if_op = prim.IfOp(cond, [], Region(then_block), Region(Block([prim.YieldOp()])))
    leak = prim.PrintOp(inner.result)
    module = ModuleOp([cond.owner, if_op, leak])
    message = r"^'prim.If' op a value defined in its then-region is used outside it by 'prim.Print'\n"
    with pytest.raises(VerifyException, match=message):
        if_op.verify()
    leak.detach()
    leak.erase()
    module.verify()


def test_builders_match_the_custom_syntax():
    n, c, x = _value(IntType()), _value(BoolType()), _value(TensorType())
    body = Block(arg_types=[IntType(), TensorType()])
    body.add_op(prim.YieldOp(c, body.args[1]))
    loop = prim.LoopOp(n, c, [x], [TensorType()], Region(body))
    loop.verify()
    chunk = prim.ConstantChunkOp(x, 2, 0)
    chunk.verify()
    assert len(chunk.outs) == 2
    assert prim.TupleUnpackOp(prim.TupleConstructOp([x, n])).outs.types == (TensorType(), IntType())
    sliced = prim.TupleSliceOp(prim.TupleConstructOp([x, n, c]), 1, 3)
    assert sliced.result.type == TupleType([IntType(), BoolType()])


# --------------------------------------------------------------------------------------


def _parse(text):
    from xdsl.parser import Parser

    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


def _parse_op(text):
    return next(op for op in _parse(text).walk() if isinstance(op, prim.ConstantOp))


def _value(type):
    from xdsl.dialects.test import TestOp

    return TestOp(result_types=[type]).results[0]


def _effect(kind):
    from xdsl.traits import EffectInstance

    return EffectInstance(kind)

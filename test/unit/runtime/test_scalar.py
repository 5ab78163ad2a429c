"""int/float/bool semantics of TorchScript (C++, not Python): division, modulo, pow, int64
wrap-around, conversions and the math module. Expected values are TorchScript's (PyTorch 2.13)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import lookup


def op(name):
    kernel = lookup(name)
    assert kernel is not None, name
    return kernel


def test_int_arithmetic_of_the_corpus_case():
    a, b = -7, 3
    assert op("aten::add.int")(a, b) == -4 and op("aten::mul.int")(a, b) == -21
    assert op("aten::floordiv.int")(a, b) == -3 and op("aten::remainder.int")(a, b) == 2
    assert op("aten::div.int")(a, b) == pytest.approx(-2.3333333333333335)
    assert op("aten::neg.int")(a) == 7
    result = op("aten::pow.int")(7, 2)
    assert type(result) is float and result == 49.0


def test_int64_wraps_around():
    assert op("aten::add.int")(2**63 - 1, 1) == -(2**63)
    assert op("aten::mul.int")(2**62, 4) == 0
    assert op("aten::neg.int")(-(2**63)) == -(2**63)
    assert op("aten::pow.int_to_int")(3, 41) == 3**41 - 2 * 2**64


def test_division_by_zero():
    with pytest.raises(TorchScriptError, match="division by 0"):
        op("aten::floordiv.int")(1, 0)
    assert op("aten::div.int")(1, 0) == math.inf and op("aten::div.int")(-1, 0) == -math.inf
    assert math.isnan(op("aten::div.float")(0.0, 0.0))
    assert op("aten::floordiv.float")(-7.0, 0.0) == -math.inf
    assert math.isnan(op("aten::remainder.float")(1.0, 0.0))
    assert math.isnan(op("aten::fmod.float")(5.0, 0.0))


def test_float_floordiv_and_modulo_signs():
    assert op("aten::floordiv.float")(-3.75, 0.5) == -8.0 and op("aten::floordiv.float")(0.1, -2.0) == -1.0
    assert op("aten::remainder.float")(-3.75, 0.5) == 0.25
    assert op("aten::remainder.float")(0.1, -2.0) == pytest.approx(-1.9)
    assert op("aten::remainder.int")(7, -3) == -2 and op("aten::fmod.int")(-7, 3) == -1.0
    assert op("aten::mathremainder.float")(5.0, 3.0) == -1.0


def test_pow():
    assert math.isnan(op("aten::pow.float")(-8.0, 1 / 3))
    assert op("aten::pow.float")(2.0, 10000.0) == math.inf
    assert op("aten::pow.float_int")(2.0, -2) == 0.25 and op("aten::pow.int")(2, -1) == 0.5
    with pytest.raises(TorchScriptError, match="0.0 cannot be raised to a negative power"):
        op("aten::pow.float")(0.0, -1.0)


def test_number_overloads_keep_int_arithmetic_for_ints():
    assert op("aten::add")(2, 3) == 5 and type(op("aten::add")(2, 3)) is int
    assert op("aten::add")(2, 0.5) == 2.5
    assert op("aten::floordiv")(7, 2) == 3 and op("aten::floordiv")(7.0, 2) == 3.0
    assert op("prim::max")(1, 2.5) == 2.5 and op("prim::min.float_int")(1.5, 1) == 1.0
    assert type(op("prim::min.float_int")(1.5, 1)) is float


def test_comparisons_and_logic():
    assert op("aten::lt.int_float")(1, 1.5) is True and op("aten::eq.int")(3, 3) is True
    assert op("aten::ne.bool")(True, False) is True
    assert op("aten::__and__.bool")(True, False) is False and op("aten::__xor__.int")(6, 3) == 5
    assert op("aten::__not__")(False) is True
    assert op("aten::__lshift__.int")(1, 63) == -(2**63)


def test_conversions():
    assert op("aten::Int.float")(-2.7) == -2 and op("aten::Int.float")(math.nan) == -(2**63)
    assert op("aten::Int.Tensor")(np.array([3.9], np.float32)) == 3
    assert op("aten::Float.Tensor")(np.array(2, np.int64)) == 2.0
    assert op("aten::Bool.Tensor")(np.array([0.5])) is True
    with pytest.raises(
        TorchScriptError, match="Boolean value of Tensor with more than one value is ambiguous"
    ):
        op("aten::Bool.Tensor")(np.zeros(2))
    with pytest.raises(TorchScriptError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        op("aten::Int.Tensor")(np.zeros(2))
    assert op("aten::Float.Scalar")(3) == 3.0 and op("aten::Bool.float")(0.0) is False
    for name, value in (("aten::Float.int", -2), ("aten::Float.bool", True), ("aten::Float.Scalar", 0.5)):
        assert type(op(name)(value)) is float and op(name)(value) == float(value)


@pytest.mark.parametrize(
    "text, expected",
    [("-12", -12), ("+7", 7), (" 7", 7)],
)
def test_int_from_str(text, expected):
    assert op("aten::Int.str")(text) == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("12x", "invalid literal for int() with base 10: '12x'"),
        (" 12 ", "invalid literal for int() with base 10: ' 12 '"),
        ("0x1f", "invalid literal for int() with base 10: '0x1f'"),
        ("abc", "stoll"),
    ],
)
def test_int_from_bad_str(text, message):
    with pytest.raises(TorchScriptError) as info:
        op("aten::Int.str")(text)
    assert info.value.message == message


def test_float_from_str():
    assert op("aten::Float.str")(" 1.5") == 1.5 and op("aten::Float.str")("1e3") == 1000.0
    assert op("aten::Float.str")("inf") == math.inf
    for text, message in (
        ("1.5x", "could not convert string to float: '1.5x'"),
        ("1_0", "could not convert string to float: '1_0'"),
        ("x", "stod"),
    ):
        with pytest.raises(TorchScriptError) as info:
            op("aten::Float.str")(text)
        assert info.value.message == message


def test_math_module_with_c_semantics():
    assert math.isnan(op("aten::sqrt.float")(-1.0)) and op("aten::sqrt.int")(4) == 2.0
    assert op("aten::log.float")(0.0) == -math.inf and math.isnan(op("aten::log.float")(-1.0))
    assert op("aten::exp.float")(1000.0) == math.inf and math.isnan(op("aten::asin.float")(2.0))
    assert op("aten::log.float_float")(8.0, 2.0) == 3.0 and op("aten::log.float_float")(8.0, 1.0) == math.inf
    assert op("aten::gamma.float")(0.0) == math.inf and math.isnan(op("aten::gamma.float")(-1.0))
    assert op("aten::lgamma.float")(0.0) == math.inf and op("aten::fabs.float")(-2.5) == 2.5
    assert op("aten::degrees.float")(math.pi) == 180.0 and op("aten::copysign.float")(1.0, -0.0) == -1.0
    assert op("aten::ldexp")(1.5, 3) == 12.0 and op("aten::atan2.float")(1.0, -1.0) == pytest.approx(
        2.356194490192345
    )


def test_floor_ceil_round():
    assert op("aten::floor.float")(-2.5) == -3 and type(op("aten::floor.float")(2.5)) is int
    assert op("aten::ceil.float")(2.1) == 3 and op("aten::floor.int")(4) == 4
    assert [op("aten::round.float")(v) for v in (2.5, 3.5, -2.5)] == [2.0, 4.0, -2.0]
    assert type(op("aten::round.int")(3)) is float
    with pytest.raises(TorchScriptError, match="Cannot convert float inf to integer"):
        op("aten::floor.float")(math.inf)
    with pytest.raises(TorchScriptError, match="Cannot convert float nan to integer"):
        op("aten::ceil.float")(math.nan)


def test_integer_helpers():
    assert op("aten::gcd.int")(-4, 6) == 2 and op("aten::factorial.int")(5) == 120
    with pytest.raises(TorchScriptError, match="factorial\\(\\) not defined for negative values"):
        op("aten::factorial.int")(-1)
    assert op("aten::__range_length")(0, 10, 3) == 4 and op("aten::__range_length")(10, 0, -3) == 4
    assert op("aten::__range_length")(5, 0, 1) == 0 and op("aten::__derive_index")(2, 10, 3) == 16
    with pytest.raises(TorchScriptError, match="range\\(\\) arg 3 must not be zero"):
        op("aten::__range_length")(0, 5, 0)
    assert op("aten::__round_to_zero_floordiv.int")(-7, 2) == -3


def test_dtype_queries_on_numbers():
    assert op("aten::promote_types")(4, 6) == 6 and op("aten::can_cast")(6, 4) is False
    assert op("aten::result_type.Scalar_Scalar")(1, 2.5) == 6


@pytest.mark.parametrize(
    ("overload", "x", "y", "expected"),
    [  # PyTorch 2.13's results (its formula differs from Python's at -0.0 and infinities)
        ("aten::divmod.int", 7, -2, (-4, -1)),
        ("aten::divmod.int", -7, 2, (-4, 1)),
        ("aten::divmod.int", -(2**63), -1, (-(2**63), 0)),  # the quotient wraps (PyTorch dies of SIGFPE)
        ("aten::divmod.float", 7.5, -2.0, (-4.0, -0.5)),
        ("aten::divmod.float", -0.0, 2.0, (0.0, -0.0)),
        ("aten::divmod.float", math.inf, 2.0, (math.nan, math.nan)),
        ("aten::divmod.float", 5.0, math.inf, (0.0, 5.0)),
        ("aten::divmod.float", -5.0, math.inf, (math.nan, math.inf)),
        ("aten::divmod.int_float", 7, 2.0, (3.0, 1.0)),
    ],
)
def test_divmod_is_torchscripts(overload: str, x: float, y: float, expected: tuple[float, float]):
    got = op(overload)(x, y)
    assert [type(v) for v in got] == [type(v) for v in expected]
    for value, want in zip(got, expected):
        if math.isnan(want):
            assert math.isnan(value)
        else:
            assert value == want and math.copysign(1, value) == math.copysign(1, want)


@pytest.mark.parametrize(
    ("overload", "x", "y", "message"),
    [
        ("aten::divmod.int", 7, 0, "ZeroDivisionError: integer division or modulo by zero"),
        ("aten::divmod.float", 1.0, 0.0, "ZeroDivisionError: float divmod()"),
        ("aten::divmod.int_float", 1, -0.0, "ZeroDivisionError: float divmod()"),
    ],
)
def test_divmod_by_zero_raises_zero_division_error(overload: str, x: float, y: float, message: str):
    with pytest.raises(TorchScriptError) as caught:
        op(overload)(x, y)
    assert (caught.value.kind, caught.value.message) == ("RuntimeError", message)

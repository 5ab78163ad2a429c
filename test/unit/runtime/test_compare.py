"""Comparisons, logical ops, where, masked_fill, isclose/equal."""

from __future__ import annotations

import numpy as np
import pytest

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import lookup

f32, i64 = np.float32, np.int64


def op(name):
    kernel = lookup(name)
    assert kernel is not None, name
    return kernel


def test_comparisons_promote_then_return_bool():
    ints = np.array([0, 1, 2], i64)
    result = op("aten::gt.Scalar")(ints, 0.5)
    assert result.dtype == np.bool_ and result.tolist() == [False, True, True]
    # 16777217 is not a float32: both sides round to 16777216 in the promoted dtype.
    assert op("aten::eq.Scalar")(np.array([16777217], i64), 16777217.0).tolist() == [True]
    assert op("aten::le.Tensor")(ints, np.array([2, 1, 0], i64)).tolist() == [True, True, False]
    assert op("aten::ne.Scalar")(np.array([np.nan], f32), 1.0).tolist() == [True]


def test_inplace_comparison_writes_ones_and_zeros_into_self():
    x = np.array([1.0, 5.0], f32)
    assert op("aten::lt_.Scalar")(x, 3) is x and x.tolist() == [1.0, 0.0]
    y = np.array([1, 5], i64)
    op("aten::eq_.Scalar")(y, 5.0)  # a float operand is fine: the result is bool
    assert y.tolist() == [0, 1]


def test_logical_ops_use_truthiness():
    a, b = np.array([0.0, 2.0, 3.0], f32), np.array([1, 0, 4], i64)
    assert op("aten::logical_and")(a, b).tolist() == [False, False, True]
    assert op("aten::logical_or")(a, b).tolist() == [True, True, True]
    assert op("aten::logical_xor")(a, b).tolist() == [True, True, False]


def test_where_promotes_its_branches():
    cond = np.array([True, False])
    result = op("aten::where.self")(cond, np.array([1, 2], i64), np.array([0.5, 0.5], f32))
    assert result.dtype == f32 and result.tolist() == [1.0, 0.5]
    scalars = op("aten::where.Scalar")(cond, 1.0, 0.0)
    assert scalars.dtype == f32 and scalars.tolist() == [1.0, 0.0]
    assert op("aten::where.ScalarOther")(cond, np.array([7, 8], i64), 0).dtype == i64
    with pytest.raises(TorchScriptError, match="where expected condition to be a boolean tensor"):
        op("aten::where.self")(np.array([1.0]), np.zeros(1), np.zeros(1))
    assert [i.tolist() for i in op("aten::where")(np.array([[True, False], [False, True]]))] == [
        [0, 1],
        [0, 1],
    ]


def test_masked_fill_casts_the_value_and_broadcasts():
    x = np.array([[1, 2], [3, 4]], i64)
    mask = np.array([True, False])
    result = op("aten::masked_fill.Scalar")(x, mask, 9.7)
    assert result.dtype == i64 and result.tolist() == [[9, 2], [9, 4]] and x[0, 0] == 1
    filled = op("aten::masked_fill_.Tensor")(x, mask, np.array(-1, i64))
    assert filled is x and x.tolist() == [[-1, 2], [-1, 4]]
    with pytest.raises(TorchScriptError, match="masked_fill_ only supports boolean masks"):
        op("aten::masked_fill.Scalar")(x, np.array([1, 0]), 0)
    with pytest.raises(TorchScriptError, match="0-dimensional value tensor"):
        op("aten::masked_fill.Tensor")(x, mask, np.zeros(2, i64))


def test_isclose_allclose_equal():
    a = np.array([1.0, np.nan, np.inf], f32)
    b = np.array([1.0 + 1e-6, np.nan, np.inf], f32)
    assert op("aten::isclose")(a, b, 1e-5, 1e-8, False).tolist() == [True, False, True]
    assert op("aten::allclose")(a, b, 1e-5, 1e-8, True) is True
    assert op("aten::equal")(np.array([1, 2]), np.array([1, 2])) is True
    assert op("aten::equal")(np.array([1, 2]), np.array([[1, 2]])) is False
    with pytest.raises(TorchScriptError, match="Float did not match Double"):
        op("aten::isclose")(a, a.astype(np.float64), 1e-5, 1e-8, False)

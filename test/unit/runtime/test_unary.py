"""Elementwise unary math and activations: result dtypes, values, in-place forms, erf accuracy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import lookup
from tsjit.runtime.kernels.special import erf, erfc, ndtr

f32, i64 = np.float32, np.int64
X = np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0], dtype=f32)


def op(name):
    kernel = lookup(name)
    assert kernel is not None, name
    return kernel


def test_float_ops_promote_integers_to_the_default_dtype():
    result = op("aten::exp")(np.array([0, 1], i64))
    assert result.dtype == f32
    np.testing.assert_allclose(result, [1.0, math.e], rtol=1e-6)
    assert op("aten::sqrt")(np.array([4, 9], np.int32)).tolist() == [2.0, 3.0]
    assert op("aten::reciprocal")(np.array([2], i64)).tolist() == [0.5]
    assert op("aten::sigmoid")(np.array([True])).dtype == f32
    assert op("aten::exp")(np.array([0.0], np.float64)).dtype == np.float64


def test_same_dtype_ops():
    assert op("aten::abs")(np.array([-3, 2], i64)).tolist() == [3, 2]
    assert op("aten::neg")(np.array([1.5], f32)).tolist() == [-1.5]
    assert op("aten::sign")(np.array([-2, 0, 5], i64)).tolist() == [-1, 0, 1]
    assert op("aten::square")(np.array([3], i64)).tolist() == [9]
    assert op("aten::relu")(np.array([-1, 2], i64)).tolist() == [0, 2]
    for dtype in (np.float16, np.float32, np.float64):  # -0.0 stays -0.0, NaN stays NaN, as in PyTorch
        out = op("aten::relu")(np.array([-0.0, np.nan, -1.0], dtype))
        assert np.signbit(out).tolist() == [True, False, False] and np.isnan(out[1]) and out.dtype == dtype
    assert op("aten::bitwise_not")(np.array([True, False])).tolist() == [False, True]


def test_rounding_is_identity_on_integers_and_half_even_on_floats():
    ints = np.array([3, -4], i64)
    floor = op("aten::floor")(ints)
    assert floor.dtype == i64 and floor.tolist() == [3, -4] and floor is not ints
    assert op("aten::round")(np.array([0.5, 1.5, 2.5, -2.5], f32)).tolist() == [0.0, 2.0, 2.0, -2.0]
    assert op("aten::round.decimals")(np.array([1.2345], np.float64), 2).tolist() == [1.23]
    assert op("aten::trunc")(np.array([-1.7], f32)).tolist() == [-1.0]
    assert op("aten::frac")(np.array([-1.75], f32)).tolist() == [-0.75]


def test_predicates_return_bool():
    x = np.array([1.0, np.nan, -np.inf], f32)
    assert op("aten::isnan")(x).tolist() == [False, True, False]
    assert op("aten::isinf")(x).tolist() == [False, False, True]
    assert op("aten::logical_not")(np.array([0, 2], i64)).tolist() == [True, False]


def test_negating_a_bool_tensor_fails_like_pytorch():
    with pytest.raises(
        TorchScriptError, match="Negation, the `-` operator, on a bool tensor is not supported"
    ):
        op("aten::neg")(np.array([True]))


def test_zero_dim_inputs_give_zero_dim_arrays():
    for name in ("aten::exp", "aten::abs", "aten::floor", "aten::isnan", "aten::sigmoid", "aten::erf"):
        result = op(name)(np.array(0.5, f32))
        assert type(result) is np.ndarray and result.shape == ()


def test_inplace_unary():
    x = np.array([-1.0, 4.0], f32)
    assert op("aten::relu_")(x) is x and x.tolist() == [0.0, 4.0]
    op("aten::sqrt_")(x)
    assert x.tolist() == [0.0, 2.0]
    with pytest.raises(
        TorchScriptError, match="result type Float can't be cast to the desired output type Long"
    ):
        op("aten::exp_")(np.array([1], i64))


def test_erf_matches_the_math_module():
    points = np.concatenate([np.linspace(-7, 7, 2801), [-30.0, 1e-300, 30.0]])
    expected = np.array([math.erf(v) for v in points])
    assert np.max(np.abs(erf(points) - expected)) < 1e-13
    expected_c = np.array([math.erfc(v) for v in points])
    assert np.max(np.abs(erfc(points) - expected_c) / np.maximum(expected_c, 1e-300)) < 1e-12
    edges = erf(np.array([np.inf, -np.inf, np.nan]))
    assert edges[0] == 1.0 and edges[1] == -1.0 and np.isnan(edges[2])


def test_ndtr_is_the_normal_cdf_on_both_sides_of_zero():
    points = np.linspace(-9, 9, 1801)
    expected = np.array([0.5 * math.erfc(-v / math.sqrt(2)) for v in points])
    assert np.max(np.abs(ndtr(points) - expected) / expected) < 1e-13


# Expected values: torch.nn.functional on X (PyTorch 2.13, float32).
ACTIVATIONS = {
    ("aten::gelu", "none"): [-0.00404987, -0.15865529, -0.15426879, 0.0, 0.3457312, 0.8413447, 2.9959502],
    ("aten::gelu", "tanh"): [-0.00363743, -0.15880799, -0.154286, 0.0, 0.345714, 0.841192, 2.9963627],
    ("aten::silu",): [-0.14227761, -0.26894143, -0.18877034, 0.0, 0.31122968, 0.7310586, 2.8577225],
    ("aten::elu", 1, 1, 1): [-0.95021296, -0.63212055, -0.39346933, 0.0, 0.5, 1.0, 3.0],
    ("aten::selu",): [-1.6705687, -1.1113307, -0.69175816, 0.0, 0.5253505, 1.050701, 3.152103],
    ("aten::celu", 2.0): [-1.5537397, -0.78693867, -0.44239843, 0.0, 0.5, 1.0, 3.0],
    ("aten::softplus", 1, 20): [0.04858735, 0.3132617, 0.474077, 0.6931472, 0.974077, 1.3132616, 3.0485873],
    ("aten::mish",): [-0.14564747, -0.30340144, -0.22074376, 0.0, 0.37524524, 0.86509836, 2.9865351],
    ("aten::hardswish",): [-0.0, -0.33333334, -0.20833333, 0.0, 0.29166666, 0.6666667, 3.0],
    ("aten::hardsigmoid",): [0.0, 0.33333334, 0.41666666, 0.5, 0.5833333, 0.6666667, 1.0],
    ("aten::log_sigmoid",): [
        -3.0485873,
        -1.3132617,
        -0.974077,
        -0.6931472,
        -0.474077,
        -0.31326169,
        -0.04858735,
    ],
    ("aten::leaky_relu", 0.1): [-0.3, -0.1, -0.05, 0.0, 0.5, 1.0, 3.0],
    ("aten::sigmoid",): [0.04742587, 0.26894143, 0.37754068, 0.5, 0.6224593, 0.7310586, 0.95257413],
    ("aten::hardtanh", -1, 1): [-1.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.0],
    ("aten::relu6",): [0.0, 0.0, 0.0, 0.0, 0.5, 1.0, 3.0],
    ("aten::threshold", 0.5, 9.0): [9.0, 9.0, 9.0, 9.0, 9.0, 1.0, 3.0],
}


@pytest.mark.parametrize("call", list(ACTIVATIONS), ids=lambda c: c[0] + str(c[1:]))
def test_activation_values(call):
    name, *args = call
    result = op(name)(X.copy(), *args)
    assert result.dtype == f32
    np.testing.assert_allclose(result, ACTIVATIONS[call], rtol=1e-5, atol=1e-6)


def test_activation_inplace_forms_write_into_self():
    x = X.copy()
    assert op("aten::gelu_")(x, "none") is x
    np.testing.assert_allclose(x, ACTIVATIONS[("aten::gelu", "none")], rtol=1e-5, atol=1e-6)


def test_float_only_activations_reject_integers():
    with pytest.raises(TorchScriptError, match="\"GeluKernelImpl\" not implemented for 'Long'"):
        op("aten::gelu")(np.array([1], i64), "none")
    with pytest.raises(TorchScriptError, match="approximate argument must be either none or tanh."):
        op("aten::gelu")(X, "fast")


def test_clamp_promotes_and_handles_missing_bounds():
    ints = np.array([-2, 0, 5], i64)
    assert op("aten::clamp")(ints, 0, 3).tolist() == [0, 0, 3]
    result = op("aten::clamp")(ints, 0.5, None)
    assert result.dtype == f32 and result.tolist() == [0.5, 0.5, 5.0]
    assert op("aten::clamp.Tensor")(X, np.zeros(7, f32), None).min() == 0.0
    assert op("aten::clamp")(np.array([1.0, np.nan], f32), 2, 1).tolist()[0] == 1.0  # min > max gives max
    with pytest.raises(TorchScriptError, match="At least one of 'min' or 'max' must not be None"):
        op("aten::clamp")(ints, None, None)
    with pytest.raises(TorchScriptError, match="result type Float can't be cast"):
        op("aten::clamp_")(ints, 0.5, None)


def test_glu_and_prelu():
    x = np.array([[1.0, 2.0, 0.0, 0.0]], f32)
    np.testing.assert_allclose(op("aten::glu")(x, -1), [[0.5, 1.0]])
    with pytest.raises(TorchScriptError, match="Halving dimension must be even, but dimension 1 is size 3"):
        op("aten::glu")(np.zeros((1, 3), f32), 1)
    y = np.array([[-1.0, -1.0], [2.0, -4.0]], f32)
    assert op("aten::prelu")(y, np.array([0.5, 0.25], f32)).tolist() == [[-0.5, -0.25], [2.0, -1.0]]

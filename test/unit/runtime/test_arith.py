"""Binary tensor arithmetic: values, result dtypes, alpha, rounding modes, in-place rules, errors."""

from __future__ import annotations

import numpy as np
import pytest

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import lookup

f32, f64, i64, i32, u8 = np.float32, np.float64, np.int64, np.int32, np.uint8


def op(name):
    kernel = lookup(name)
    assert kernel is not None, name
    return kernel


def arr(values, dtype):
    return np.array(values, dtype=dtype)


def test_add_sub_mul_values_and_alpha():
    x, y = arr([1.5, -2.0], f32), arr([0.5, 4.0], f32)
    assert op("aten::add.Tensor")(x, y, 1).tolist() == [2.0, 2.0]
    assert op("aten::add.Tensor")(x, y, 2).tolist() == [2.5, 6.0]
    assert op("aten::sub.Tensor")(x, y, 3).tolist() == [0.0, -14.0]
    assert op("aten::rsub.Scalar")(x, 1, 2).tolist() == [-2.0, 5.0]  # 1 - 2 * x
    assert op("aten::mul.Scalar")(x, 2).tolist() == [3.0, -4.0]


@pytest.mark.parametrize(
    "name, a, b, dtype",
    [
        ("aten::add.Scalar", arr([1, 2], i64), 1.5, f32),  # float scalar + int tensor -> default float
        ("aten::add.Scalar", arr([1, 2], f32), 3, f32),  # int scalar keeps float32
        ("aten::mul.Tensor", arr([1, 2], i32), arr(3, i64), i32),  # 0-dim does not win in its category
        ("aten::mul.Tensor", arr([1, 2], i32), arr(3.0, f64), f64),  # ... but a higher category does
        ("aten::add.Tensor", arr([True], bool), arr([True], bool), bool),
        ("aten::add.Scalar", arr([True], bool), 1, i64),
        ("aten::add.Scalar", arr([250], u8), 10, u8),
    ],
)
def test_result_dtypes(name, a, b, dtype):
    args = (a, b, 1) if "add" in name else (a, b)
    assert op(name)(*args).dtype == dtype


def test_uint8_wraps_like_cpp():
    assert op("aten::add.Scalar")(arr([250], u8), 10, 1).tolist() == [4]
    assert op("aten::add.Scalar")(arr([1], u8), 256, 1).tolist() == [1]


def test_integer_true_division_is_float32():
    result = op("aten::div.Tensor")(arr([7, -7], i64), arr([2, 2], i64))
    assert result.dtype == f32 and result.tolist() == [3.5, -3.5]
    assert op("aten::div.Scalar")(arr([1], i64), 0).tolist() == [np.inf]


def test_rounding_modes():
    a, b = arr([7, -7, 7, -7], i64), arr([2, 2, -2, -2], i64)
    assert op("aten::div.Tensor_mode")(a, b, "trunc").tolist() == [3, -3, -3, 3]
    assert op("aten::div.Tensor_mode")(a, b, "floor").tolist() == [3, -4, -4, 3]
    assert op("aten::div.Tensor_mode")(a, b, None).tolist() == [3.5, -3.5, -3.5, 3.5]
    assert op("aten::div.Scalar_mode")(arr([-7.5], f32), 2, "trunc").tolist() == [-3.0]
    with pytest.raises(TorchScriptError, match="rounding_mode to be one of None, 'trunc', or 'floor'"):
        op("aten::div.Tensor_mode")(a, b, "round")


def test_inplace_rounding_modes():
    x = arr([7.0, -7.0], f32)
    assert op("aten::div_.Tensor_mode")(x, arr([2.0, 2.0], f32), "floor") is x and x.tolist() == [3.0, -4.0]
    y = arr([7, -7], i64)
    assert op("aten::div_.Scalar_mode")(y, 2, "trunc") is y and y.tolist() == [3, -3]
    assert op("aten::div_.Tensor_mode")(x, arr([2.0, 2.0], f32), None).tolist() == [1.5, -2.0]
    with pytest.raises(
        TorchScriptError, match="result type Float can't be cast to the desired output type Long"
    ):
        op("aten::div_.Scalar_mode")(y, 2, None)
    with pytest.raises(TorchScriptError, match="rounding_mode to be one of None, 'trunc', or 'floor'"):
        op("aten::div_.Tensor_mode")(x, x, "round")


def test_sub_and_add_overloads_with_alpha():
    x = arr([5, 6], i64)
    assert op("aten::sub_.Scalar")(x, 1, 2) is x and x.tolist() == [3, 4]
    assert op("aten::subtract.Tensor")(x, arr([1, 1], i64), 3).tolist() == [0, 1]
    assert op("aten::subtract.Scalar")(x, 1, 1).tolist() == [2, 3]
    assert op("aten::add_.Tensor")(x, arr([1, 2], i64), -1) is x and x.tolist() == [2, 2]
    assert op("aten::add.Scalar")(arr([1.0], f32), 2, 0.5).tolist() == [2.0]
    with pytest.raises(TorchScriptError, match="alpha must not be a floating point number"):
        op("aten::sub_.Tensor")(x, x, 1.5)
    with pytest.raises(TorchScriptError, match="Subtraction, the `-` operator, with two bool tensors"):
        op("aten::sub.Tensor")(arr([True], bool), arr([False], bool), 1)


def test_floor_divide_remainder_fmod_signs():
    a, b = arr([7, -7, 7, -7], i64), arr([3, 3, -3, -3], i64)
    assert op("aten::floor_divide")(a, b).tolist() == [2, -3, -3, 2]
    assert op("aten::remainder.Tensor")(a, b).tolist() == [1, 2, -2, -1]  # sign of the divisor
    assert op("aten::fmod.Tensor")(a, b).tolist() == [1, -1, 1, -1]  # sign of the dividend
    assert op("aten::remainder.Scalar")(arr([-3.75], f32), 0.5).tolist() == [0.25]
    assert op("aten::remainder.Scalar_Tensor")(5, arr([3, -3], i64)).tolist() == [2, -1]


def test_integer_division_by_zero_raises():
    for name in ("aten::floor_divide.Scalar", "aten::remainder.Scalar", "aten::fmod.Scalar"):
        with pytest.raises(TorchScriptError, match="ZeroDivisionError"):
            op(name)(arr([1, 2], i64), 0)
    assert np.isnan(op("aten::fmod.Scalar")(arr([1.0], f32), 0)[0])


def test_pow_small_exponents_and_dtypes():
    x = arr([1.5, -2.0, 4.0], f32)
    assert op("aten::pow.Tensor_Scalar")(x, 2).tolist() == [2.25, 4.0, 16.0]
    assert op("aten::pow.Tensor_Scalar")(x, 3).tolist() == [3.375, -8.0, 64.0]
    assert op("aten::pow.Tensor_Scalar")(arr([4.0, 0.25], f32), 0.5).tolist() == [2.0, 0.5]
    assert op("aten::pow.Tensor_Scalar")(arr([4.0], f32), -0.5).tolist() == [0.5]
    assert op("aten::pow.Tensor_Scalar")(arr([4.0], f32), -1).tolist() == [0.25]
    assert op("aten::pow.Tensor_Scalar")(arr([2.0], f32), -2).tolist() == [0.25]
    assert op("aten::pow.Tensor_Scalar")(arr([2.0], f32), 10).tolist() == [1024.0]
    assert op("aten::pow.Tensor_Scalar")(arr([3], i64), 2).dtype == i64
    assert op("aten::pow.Tensor_Scalar")(arr([4], i64), 0.5).tolist() == [2.0]
    assert op("aten::pow.Scalar")(2, arr([3, 0], i64)).tolist() == [8, 1]
    assert op("aten::pow.Tensor_Tensor")(arr([2.0], f32), arr([0.5], f32)).tolist() == [np.float32(2**0.5)]
    with pytest.raises(TorchScriptError, match="Integers to negative integer powers are not allowed."):
        op("aten::pow.Tensor_Scalar")(arr([2], i64), -1)


def test_pow_of_bools_raises_as_in_pytorch():
    """PyTorch has no bool pow kernel: two bool tensors (or a bool base with a bool
    tensor exponent, even empty) raise; a bool tensor to a bool scalar power keeps bool."""
    flags = arr([True, False], bool)
    for name, base, exponent in [
        ("aten::pow.Tensor_Tensor", flags, flags),
        ("aten::pow.Tensor_Tensor", flags, arr(True, bool)),
        ("aten::pow.Tensor_Tensor", flags[:0], flags[:0]),
        ("aten::pow.Scalar", True, flags),
        ("aten::pow_.Tensor", flags.copy(), flags),
    ]:
        with pytest.raises(TorchScriptError, match="\"pow\" not implemented for 'Bool'"):
            op(name)(base, exponent)
    assert op("aten::pow.Tensor_Scalar")(flags, True).tolist() == [True, False]
    assert op("aten::pow.Tensor_Scalar")(flags, False).tolist() == [True, True]
    assert op("aten::pow.Tensor_Scalar")(flags, False).dtype == np.bool_
    assert op("aten::pow.Tensor_Tensor")(flags, arr([1, 2], i64)).tolist() == [1, 0]  # promoted to int64
    assert op("aten::pow.Tensor_Tensor")(arr([1, 2], i64), flags).tolist() == [1, 1]


def test_zero_dim_results_are_arrays():
    a, b = np.array(1.5, f32), np.array(2.0, f32)
    for name in ("aten::mul.Tensor", "aten::div.Tensor", "aten::pow.Tensor_Tensor", "aten::remainder.Tensor"):
        result = op(name)(a, b)
        assert type(result) is np.ndarray and result.shape == () and result.dtype == f32
    result = op("aten::add.Scalar")(a, 1, 1)
    assert type(result) is np.ndarray and result == 2.5


def test_bool_rules():
    t = arr([True, False], bool)
    assert op("aten::mul.Tensor")(t, t).tolist() == [True, False]
    with pytest.raises(TorchScriptError, match="Subtraction, the `-` operator, with two bool tensors"):
        op("aten::sub.Tensor")(t, t, 1)
    for other in (1, arr([1, 2], i64), arr([1.5], np.float32)):  # a bool tensor on either side, as PyTorch
        with pytest.raises(TorchScriptError, match="Subtraction, the `-` operator, with a bool tensor"):
            op("aten::sub.Scalar" if isinstance(other, int) else "aten::sub.Tensor")(t, other, 1)
    with pytest.raises(TorchScriptError, match="Subtraction, the `-` operator, with a bool tensor"):
        op("aten::sub.Tensor")(arr([1, 2], i64), t, 1)
    with pytest.raises(TorchScriptError, match="Boolean alpha only supported for Boolean results."):
        op("aten::add.Tensor")(t, t, 2)
    subtraction = "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying"
    with pytest.raises(TorchScriptError, match=subtraction):
        op("aten::rsub.Scalar")(t, 1, 1)  # eager and traced `1 - t`


def test_a_number_minus_a_bool_tensor_in_a_script_says_what_torchscript_says():
    """PyTorch 2.13 words `1 - t` for a bool `t` as eager code does ("Subtraction ...",
    aten::rsub above) but a script as TorchScript's builtin `sub(int, Tensor)` computes
    it, `neg(t) + 1`: "Negation ...". tsjit follows each."""
    import tsjit
    from tsjit.frontend.script import script_file_text

    source = "import torch\n\n\ndef forward(x: torch.Tensor):\n    return 1 - x\n"
    module = script_file_text(source, "program.py").module
    for backend, pipeline in (("interp", ()), ("llvm", None)):
        run = tsjit.compile(module, "forward", backend=backend, pipeline=pipeline)
        negation = "Negation, the `-` operator, on a bool tensor is not supported. If you are trying"
        with pytest.raises(TorchScriptError, match=negation):
            run(arr([True, False], bool))
    with pytest.raises(TorchScriptError, match="argument alpha must not be a floating point number"):
        op("aten::add.Tensor")(arr([1], i64), arr([1], i64), 0.5)


def test_bitwise_ops():
    assert op("aten::bitwise_and.Tensor")(arr([6], i64), arr([3], i64)).tolist() == [2]
    assert op("aten::__or__.Scalar")(arr([4], i32), 1).tolist() == [5]
    assert op("aten::__xor__.Tensor")(arr([True], bool), arr([True], bool)).tolist() == [False]
    assert op("aten::__lshift__.Scalar")(arr([1], i64), 4).tolist() == [16]
    with pytest.raises(TorchScriptError, match="\"bitwise_and_cpu\" not implemented for 'Float'"):
        op("aten::bitwise_and.Tensor")(arr([1.0], f32), arr([1.0], f32))


def test_broadcasting_and_its_error():
    a = np.ones((2, 3), f32)
    assert op("aten::add.Tensor")(a, arr([1, 2, 3], f32), 1)[1].tolist() == [2, 3, 4]
    with pytest.raises(
        TorchScriptError,
        match=r"The size of tensor a \(3\) must match the size of tensor b \(4\) "
        r"at non-singleton dimension 1",
    ):
        op("aten::add.Tensor")(a, np.ones(4, f32), 1)


def test_inplace_keeps_self_dtype_and_identity():
    x = arr([1, 2], i32)
    result = op("aten::add_.Scalar")(x, 5, 1)
    assert result is x and x.tolist() == [6, 7] and x.dtype == i32
    y = arr([1.0, 2.0], f32)
    op("aten::mul_.Tensor")(y, arr([2.0, 3.0], f64))
    assert y.dtype == f32 and y.tolist() == [2.0, 6.0]


def test_inplace_writes_through_views():
    base = np.zeros((2, 2), f32)
    row = base[1]
    op("aten::add_.Scalar")(row, 1.5, 1)
    assert base.tolist() == [[0, 0], [1.5, 1.5]]


def test_inplace_refuses_to_lower_the_category():
    with pytest.raises(
        TorchScriptError, match="result type Float can't be cast to the desired output type Long"
    ):
        op("aten::add_.Scalar")(arr([1, 2], i64), 1.5, 1)
    with pytest.raises(
        TorchScriptError, match="result type Float can't be cast to the desired output type Long"
    ):
        op("aten::div_.Scalar")(arr([4], i64), 2)


def test_inplace_cannot_broadcast_self():
    with pytest.raises(
        TorchScriptError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"
    ):
        op("aten::add_.Tensor")(np.zeros(3, f32), np.ones((2, 3), f32), 1)


def test_inplace_into_an_expanded_tensor_is_an_overlap_error():
    expanded = lookup("aten::expand")(np.zeros(3, f32), [2, 3])
    with pytest.raises(TorchScriptError, match="more than one element of the written-to tensor"):
        op("aten::add_.Scalar")(expanded, 1, 1)


def test_maximum_minimum_propagate_nan():
    a, b = arr([1.0, np.nan], f32), arr([2.0, 0.0], f32)
    assert op("aten::maximum")(a, b).tolist()[0] == 2.0 and np.isnan(op("aten::maximum")(a, b)[1])
    assert op("aten::fmax")(a, b).tolist() == [2.0, 0.0]
    assert op("aten::atan2")(arr([1], i64), arr([1], i64)).dtype == f32


# Values below were recorded from PyTorch 2.13 (torch.lerp / addcmul / addcdiv / sign).
def test_lerp_scalar_and_tensor_weights():
    a, b = np.array([1.0, 2.0], np.float32), np.array([3.0, 6.0], np.float32)
    np.testing.assert_array_equal(lookup("aten::lerp.Scalar")(a, b, 0.25), np.array([1.5, 3.0], np.float32))
    out = lookup("aten::lerp.Tensor")(a, b, np.array([0.5, 0.75], np.float32))
    np.testing.assert_array_equal(out, np.array([2.0, 5.0], np.float32))
    assert out.dtype == np.float32
    lookup("aten::lerp_.Scalar")(a, b, 1.0)
    np.testing.assert_array_equal(a, b)  # in place, exact at weight 1


def test_addcmul_and_addcdiv():
    s, t1 = np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32)
    np.testing.assert_allclose(
        lookup("aten::addcmul")(s, t1, np.array([5.0, 6.0], np.float32), 0.5), [8.5, 14.0], rtol=1e-7
    )
    np.testing.assert_allclose(lookup("aten::addcdiv")(s, t1, np.array([5.0, 8.0], np.float32), 2), [2.2, 3.0], rtol=1e-6)
    ints = lookup("aten::addcmul")(np.array([1, 2]), np.array([3, 4]), np.array([5, 6]), 2)
    np.testing.assert_array_equal(ints, [31, 50])
    assert ints.dtype == np.int64
    with pytest.raises(TorchScriptError, match="Integer division with addcdiv"):
        lookup("aten::addcdiv")(np.array([1]), np.array([3]), np.array([5]), 1)


def test_sign_of_nan_is_zero():
    out = lookup("aten::sign")(np.array([np.nan, -2.0, 0.0, 3.0], np.float32))
    np.testing.assert_array_equal(out, np.array([0.0, -1.0, 0.0, 1.0], np.float32))
    assert out.dtype == np.float32

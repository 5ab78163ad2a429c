"""Factories and random tensors: inferred dtypes, ranges, tensors from Python data, errors."""

from __future__ import annotations

import numpy as np
import pytest

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import lookup
from tsjit.runtime.values import CPU, Device

f32, f64, i64 = np.float32, np.float64, np.int64
NONE4 = (None, None, None, None)


def op(name):
    kernel = lookup(name)
    assert kernel is not None, name
    return kernel


def test_constant_factories():
    zeros = op("aten::zeros")([2, 3], *NONE4)
    assert zeros.dtype == f32 and zeros.shape == (2, 3) and not zeros.any()
    assert op("aten::ones")([2], 4, None, CPU, None).dtype == i64
    assert op("aten::full")([2, 2], 7.0, *NONE4).dtype == f32
    assert op("aten::full")([1], 7, *NONE4).dtype == i64  # the fill value's kind
    assert op("aten::full")([1], True, *NONE4).dtype == np.bool_
    assert op("aten::empty.memory_format")([0, 4], *NONE4, None).shape == (0, 4)
    assert op("aten::eye.m")(2, 3, *NONE4).tolist() == [[1, 0, 0], [0, 1, 0]]


def test_like_and_new_factories_follow_self():
    x = np.zeros((2, 1), f64)
    assert op("aten::zeros_like")(x, None, None, None, None, None).dtype == f64
    assert op("aten::ones_like")(x, 3, None, None, None, None).dtype == np.int32
    assert op("aten::full_like")(x, 2, None, None, None, None, None).tolist() == [[2.0], [2.0]]
    assert op("aten::new_zeros")(x, [3], *NONE4).dtype == f64
    assert op("aten::new_full")(x, [1], 5, *NONE4).tolist() == [5.0]


def test_size_errors():
    with pytest.raises(TorchScriptError, match="zeros: Dimension size must be non-negative."):
        op("aten::zeros")([2, -3], *NONE4)
    with pytest.raises(TorchScriptError, match=r"Trying to create tensor with negative dimension -1: \[-1\]"):
        op("aten::ones")([-1], *NONE4)
    with pytest.raises(TorchScriptError, match="Torch not compiled with CUDA enabled"):
        op("aten::zeros")([1], None, None, Device("cuda"), None)


def test_arange_dtypes_and_lengths():
    ints = op("aten::arange")(5, *NONE4)
    assert ints.dtype == i64 and ints.tolist() == [0, 1, 2, 3, 4]
    assert op("aten::arange.start_step")(5, 1, -2, *NONE4).tolist() == [5, 3]
    floats = op("aten::arange.start_step")(0, 1, 0.1, *NONE4)
    assert floats.dtype == f32 and len(floats) == 10 and floats[7] == np.float32(0.7)
    assert op("aten::arange.start")(1, 2.5, *NONE4).tolist() == [1.0, 2.0]
    assert op("aten::arange")(3, 7, None, None, None).dtype == f64
    with pytest.raises(TorchScriptError, match="upper bound and lower bound inconsistent with step sign"):
        op("aten::arange.start_step")(0, 5, -1, *NONE4)
    with pytest.raises(TorchScriptError, match="step must be nonzero"):
        op("aten::arange.start_step")(0, 5, 0, *NONE4)


def test_linspace_is_symmetric_like_pytorch():
    # PyTorch: [0.0, 0.16666667, 0.33333334, 0.5, 0.6666666, 0.8333333, 1.0]
    values = op("aten::linspace")(0, 1, 7, *NONE4)
    assert values.dtype == f32
    assert values.tolist() == [
        np.float32(v) for v in (0.0, 0.16666667, 0.33333334, 0.5, 0.6666666, 0.8333333, 1.0)
    ]
    assert op("aten::linspace")(-1, 1, 5, 4, None, None, None).tolist() == [-1, 0, 0, 0, 1]
    assert op("aten::linspace")(3, 9, 1, *NONE4).tolist() == [3.0]
    assert op("aten::logspace")(0, 2, 3, 10.0, *NONE4).tolist() == [1.0, 10.0, 100.0]
    with pytest.raises(TorchScriptError, match="number of steps must be non-negative"):
        op("aten::linspace")(0, 1, -1, *NONE4)


def test_tensor_from_python_data():
    nested = op("aten::tensor")([[1, 2], [3, 4]], None, None, False)
    assert nested.dtype == i64 and nested.shape == (2, 2)
    assert op("aten::tensor")([0.1, 0.2], None, None, False).dtype == f32
    assert op("aten::tensor")([], None, None, False).dtype == f32
    assert op("aten::tensor.float")(1.5, 7, None, False).dtype == f64
    scalar = op("aten::tensor.bool")(True, None, None, False)
    assert scalar.shape == () and scalar.dtype == np.bool_
    assert op("aten::scalar_tensor")(3, *NONE4).dtype == f32
    with pytest.raises(TorchScriptError, match=r"expected sequence of length 2 at dim 1 \(got 1\)"):
        op("aten::tensor")([[1, 2], [3]], None, None, False)


def test_random_factories_are_reproducible_after_manual_seed():
    op("aten::manual_seed")(3)
    first = op("aten::rand")([4], *NONE4)
    op("aten::manual_seed")(3)
    assert op("aten::rand")([4], *NONE4).tolist() == first.tolist()
    assert first.dtype == f32 and ((0 <= first) & (first < 1)).all()
    assert op("aten::randn_like")(np.zeros((2, 2), f64), None, None, None, None, None).dtype == f64
    ints = op("aten::randint.low")(-2, 3, [100], 4, None, None, None)
    assert ints.dtype == i64 and ints.min() >= -2 and ints.max() <= 2
    x = np.zeros(1000, f32)
    op("aten::normal_")(x, 5.0, 0.1, None)
    assert 4.9 < x.mean() < 5.1
    assert op("aten::normal.Tensor_float")(np.zeros(3, f32), 1.0, None).dtype == f32
    assert op("aten::normal.float_float")(0.0, 1.0, [2, 3], None, None, None, None, None).shape == (2, 3)
    assert op("aten::uniform")(np.zeros(4, f64), 2.0, 3.0, None).min() >= 2.0
    with pytest.raises(TorchScriptError, match="random_ expects 'from' to be less than 'to'"):
        op("aten::randint")(0, [2], 4, None, None, None)

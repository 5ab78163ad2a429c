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


def test_distribution_fills():
    x = np.zeros(20000, f64)
    op("aten::cauchy_")(x, 3.0, 0.5, None)
    assert 2.9 < np.median(x) < 3.1  # a Cauchy distribution has no mean: its median is `median`
    y = op("aten::log_normal")(np.zeros(20000, f32), 0.5, 0.25, None)
    assert y.dtype == f32 and (y > 0).all() and 0.48 < np.log(y).mean() < 0.52
    with pytest.raises(TorchScriptError, match="dtype must be a floating point"):
        op("aten::cauchy")(np.zeros(2, i64), 0.0, 1.0, None)
    with pytest.raises(TorchScriptError, match="log_normal_ expects std > 0.0"):
        op("aten::log_normal_")(np.zeros(2, f32), 0.0, 0.0, None)


X64 = np.zeros((2, 1), f64)
NONE5 = (*NONE4, None)
UNIT, NORMAL = "in [0, 1)", "finite"

# (overload, arguments, shape, dtype, values: a fill value, UNIT, NORMAL, a range, or None)
FACTORIES = [
    ("aten::zeros", ([2, 3], *NONE4), (2, 3), f32, 0),
    ("aten::ones", ([2], 4, None, None, None), (2,), i64, 1),
    ("aten::empty.memory_format", ([0, 4], *NONE5), (0, 4), f32, None),
    ("aten::empty_strided", ([2, 2], [2, 1], 7, None, None, None), (2, 2), f64, None),
    ("aten::full", ([2], 2.5, *NONE4), (2,), f32, 2.5),
    ("aten::zeros_like", (X64, *NONE5), (2, 1), f64, 0),
    ("aten::ones_like", (X64, 3, None, None, None, None), (2, 1), np.int32, 1),
    ("aten::empty_like", (X64, 6, None, None, None, None), (2, 1), f32, None),
    ("aten::full_like", (X64, 2, *NONE5), (2, 1), f64, 2),
    ("aten::new_zeros", (X64, [3], *NONE4), (3,), f64, 0),
    ("aten::new_ones", (X64, [3], 4, None, None, None), (3,), i64, 1),
    ("aten::new_empty", (X64, [1, 2], *NONE4), (1, 2), f64, None),
    ("aten::new_full", (X64, [1], 5, *NONE4), (1,), f64, 5),
    ("aten::rand", ([50], *NONE4), (50,), f32, UNIT),
    ("aten::rand.generator", ([50], None, 7, None, None, None), (50,), f64, UNIT),
    ("aten::randn", ([50], *NONE4), (50,), f32, NORMAL),
    ("aten::randn.generator", ([50], None, *NONE4), (50,), f32, NORMAL),
    ("aten::rand_like", (X64, *NONE5), (2, 1), f64, UNIT),
    ("aten::randn_like", (X64, 6, None, None, None, None), (2, 1), f32, NORMAL),
    ("aten::randint", (5, [50], 4, None, None, None), (50,), i64, range(5)),
    ("aten::randint.low", (-2, 3, [50], None, None, None, None), (50,), i64, range(-2, 3)),
    ("aten::randint_like", (X64, 4, *NONE5), (2, 1), f64, range(4)),
    ("aten::randint_like.low_dtype", (X64, 1, 3, 3, None, None, None, None), (2, 1), np.int32, range(1, 3)),
]


@pytest.mark.parametrize(
    ("name", "args", "shape", "dtype", "values"), FACTORIES, ids=[f[0] for f in FACTORIES]
)
def test_factory_shape_dtype_and_values(name, args, shape, dtype, values):
    result = op(name)(*args)
    assert type(result) is np.ndarray and result.shape == shape and result.dtype == dtype
    if values == UNIT:
        assert ((0 <= result) & (result < 1)).all()
    elif values == NORMAL:
        assert np.isfinite(result).all() and len(np.unique(result)) == result.size
    elif isinstance(values, range):
        assert set(result.reshape(-1).tolist()) <= set(values)
    elif values is not None:
        assert (result == values).all()


@pytest.mark.parametrize("name", [f[0] for f in FACTORIES])
def test_every_factory_refuses_cuda(name):
    args = next(f[1] for f in FACTORIES if f[0] == name)
    # The options end (dtype, layout, device, pin_memory[, memory_format]).
    with_memory_format = name.endswith(("_like", "_like.low_dtype", ".memory_format"))
    device_at = len(args) - (3 if with_memory_format else 2)
    assert args[device_at] is None
    with pytest.raises(TorchScriptError, match="Torch not compiled with CUDA enabled"):
        op(name)(*args[:device_at], Device("cuda"), *args[device_at + 1 :])


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("aten::empty_strided", ([-1], [1], *NONE4)),
        ("aten::new_empty", (X64, [2, -1], *NONE4)),
        ("aten::rand", ([-1], *NONE4)),
        ("aten::randn.generator", ([-1], None, *NONE4)),
        ("aten::randint.low", (0, 2, [-1], None, None, None, None)),
    ],
)
def test_negative_sizes_are_refused(name, args):
    with pytest.raises(TorchScriptError, match=r"Trying to create tensor with negative dimension -1"):
        op(name)(*args)

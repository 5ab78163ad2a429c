"""Indexing: select/slice (views, PyTorch's clamping), advanced indexing, index_put_, gather/scatter."""

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


def grid():
    return np.arange(12, dtype=f32).reshape(3, 4)


def test_select_gives_zero_dim_views():
    vector = np.arange(3, dtype=f32)
    element = op("aten::select.int")(vector, 0, -1)
    assert type(element) is np.ndarray and element.shape == () and element == 2.0
    element[...] = 9
    assert vector[2] == 9
    with pytest.raises(
        TorchScriptError, match=r"select\(\): index 5 out of range for tensor of size \[3\] at dimension 0"
    ):
        op("aten::select.int")(vector, 0, 5)
    with pytest.raises(TorchScriptError, match="select\\(\\) cannot be applied to a 0-dim tensor."):
        op("aten::select.int")(np.array(1.0), 0, 0)


@pytest.mark.parametrize(
    "start, end, step, expected",
    [
        (None, None, 1, [0, 1, 2, 3, 4]),
        (1, 3, 1, [1, 2]),
        (-2, None, 1, [3, 4]),
        (None, -10, 1, []),
        (3, 1, 1, []),
        (-100, 100, 2, [0, 2, 4]),
        (None, None, 2, [0, 2, 4]),
    ],
)
def test_slice_clamps_like_pytorch(start, end, step, expected):
    assert op("aten::slice.Tensor")(np.arange(5), 0, start, end, step).tolist() == expected


def test_slice_step_must_be_positive():
    with pytest.raises(TorchScriptError, match="slice step must be positive"):
        op("aten::slice.Tensor")(np.arange(5), 0, None, None, -1)


def test_index_with_tensors_masks_and_none():
    x = grid()
    rows = np.array([2, 0], i64)
    assert op("aten::index.Tensor")(x, [rows]).tolist() == [x[2].tolist(), x[0].tolist()]
    assert op("aten::index.Tensor")(x, [None, np.array([1, 3], i64)]).tolist() == [[1, 3], [5, 7], [9, 11]]
    assert op("aten::index.Tensor")(x, [x > 9]).tolist() == [10, 11]
    assert op("aten::index.Tensor")(x, [np.array([True, False, True])]).shape == (2, 4)
    picked = op("aten::index.Tensor")(x, [np.array(1, i64)])
    picked[...] = -1
    assert x.min() == 0  # the result is a copy, even for a 0-dim index


def test_index_errors():
    x = grid()
    with pytest.raises(TorchScriptError, match="index 5 is out of bounds for dimension 0 with size 3"):
        op("aten::index.Tensor")(x, [np.array([5], i64)])
    with pytest.raises(
        TorchScriptError, match="tensors used as indices must be long, int, byte or bool tensors"
    ):
        op("aten::index.Tensor")(x, [np.array([1.0])])
    with pytest.raises(TorchScriptError, match=r"The shape of the mask \[2\] at index 0 does not match"):
        op("aten::index.Tensor")(x, [np.array([True, False])])
    with pytest.raises(TorchScriptError, match="too many indices for tensor of dimension 2"):
        op("aten::index.Tensor")(x, [None, None, np.array([0], i64)])


def test_index_put():
    x = np.zeros(4, f32)
    indices = [np.array([0, 0, 2], i64)]
    assert op("aten::index_put_")(x, indices, np.array(1.5, f32), False) is x
    assert x.tolist() == [1.5, 0, 1.5, 0]
    op("aten::index_put_")(x, indices, np.array([1.0, 1.0, 1.0], f32), True)  # accumulate repeats
    assert x.tolist() == [3.5, 0, 2.5, 0]
    y = op("aten::index_put")(x, [x > 3], np.array(0.0, f32), False)
    assert y.tolist() == [0, 0, 2.5, 0] and x[0] == 3.5
    with pytest.raises(TorchScriptError, match="Index put requires the source and destination dtypes match"):
        op("aten::index_put_")(x, indices, np.array(1, i64), False)


def test_index_put_overloads_write_in_place_or_into_a_copy():
    x = np.zeros(3, f32)
    indices = [np.array([2], i64)]
    assert op("aten::_index_put_impl_")(x, indices, np.array(4.0, f32), False, True) is x
    assert op("aten::_index_put_impl_.hacked_twin")(x, indices, np.array(1.0, f32), True, False) is x
    assert op("aten::index_put_.hacked_twin")(x, indices, np.array(1.0, f32), True) is x
    assert x.tolist() == [0, 0, 6]
    copied = op("aten::_index_put_impl")(x, [np.array([0], i64)], np.array(2.0, f32), False, False)
    assert copied.tolist() == [2, 0, 6] and x.tolist() == [0, 0, 6]
    assert op("aten::index_put.hacked_twin")(x, indices, np.array(1.0, f32), True).tolist() == [0, 0, 7]
    assert x.tolist() == [0, 0, 6]
    with pytest.raises(TorchScriptError, match="index 3 is out of bounds for dimension 0 with size 3"):
        op("aten::index_put")(x, [np.array([3], i64)], np.array(1.0, f32), False)
    with pytest.raises(
        TorchScriptError, match=r"shape mismatch: value tensor of shape \[2\] cannot be broadcast"
    ):
        op("aten::_index_put_impl_")(x, indices, np.array([1.0, 2.0], f32), False, False)


def test_gather_and_scatter():
    x = np.array([[1, 2], [3, 4]], f32)
    index = np.array([[0, 0], [1, 0]], i64)
    assert op("aten::gather")(x, 1, index, False).tolist() == [[1, 1], [4, 3]]
    assert op("aten::gather")(x, 0, np.array([[1]], i64), False).tolist() == [[3]]
    scattered = op("aten::scatter.src")(np.zeros((2, 2), f32), 1, index, x)
    assert scattered.tolist() == [[2, 0], [4, 3]]
    assert op("aten::scatter.value")(np.zeros(3, f32), 0, np.array([2], i64), 5.0).tolist() == [0, 0, 5]
    added = op("aten::scatter_add")(np.zeros(2, f32), 0, np.array([0, 0, 1], i64), np.ones(3, f32))
    assert added.tolist() == [2, 1]
    with pytest.raises(TorchScriptError, match="index 2 is out of bounds for dimension 1 with size 2"):
        op("aten::gather")(x, 1, np.array([[2]], i64), False)


def test_index_copy_and_fill():
    x = np.zeros((3, 2), f32)
    copied = op("aten::index_copy")(x, 0, np.array([2, 0], i64), np.ones((2, 2), f32))
    assert copied.tolist() == [[1, 1], [0, 0], [1, 1]] and not x.any()
    assert op("aten::index_fill.int_Scalar")(x, 1, np.array([1], i64), 5.0).tolist() == [[0, 5]] * 3


def test_index_select_masked_select_nonzero():
    x = grid()
    assert op("aten::index_select")(x, 1, np.array([3, 0], i64)).tolist() == [[3, 0], [7, 4], [11, 8]]
    assert op("aten::masked_select")(x, np.array([True, False, False, True])).tolist() == [0, 3, 4, 7, 8, 11]
    assert op("aten::nonzero")(np.array([[0, 1], [2, 0]])).tolist() == [[0, 1], [1, 0]]
    with pytest.raises(TorchScriptError, match="index out of range in self"):
        op("aten::index_select")(x, 0, np.array([3], i64))


def test_item():
    value = op("aten::item")(np.array([[2.5]], f32))
    assert type(value) is float and value == 2.5
    assert type(op("aten::item")(np.array(3, i64))) is int and op("aten::item")(np.array(True)) is True
    with pytest.raises(TorchScriptError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        op("aten::item")(np.zeros(2))

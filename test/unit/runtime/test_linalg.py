"""Matrix products and triangular/diagonal ops: values, broadcasting, dtype and shape errors."""

from __future__ import annotations

import numpy as np
import pytest

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import lookup

f32, f64, i64 = np.float32, np.float64, np.int64
A = np.array([[1.0, 2.0], [3.0, 4.0]], f32)
B = np.array([[0.0, 1.0], [1.0, 0.0]], f32)


def op(name):
    kernel = lookup(name)
    assert kernel is not None, name
    return kernel


def test_mm_bmm_values():
    assert op("aten::mm")(A, B).tolist() == [[2, 1], [4, 3]]
    assert op("aten::bmm")(np.stack([A, B]), np.stack([B, A])).tolist() == [
        [[2, 1], [4, 3]],
        [[3, 4], [1, 2]],
    ]
    assert op("aten::mm")(np.array([[2]], i64), np.array([[3]], i64)).tolist() == [[6]]


def test_matmul_cases():
    v = np.array([1.0, 1.0], f32)
    dot = op("aten::matmul")(v, v)
    assert type(dot) is np.ndarray and dot.shape == () and dot == 2.0
    assert op("aten::matmul")(A, v).tolist() == [3.0, 7.0]
    assert op("aten::matmul")(v, A).tolist() == [4.0, 6.0]
    batched = op("aten::matmul")(np.stack([A, A, A]), B)
    assert batched.shape == (3, 2, 2) and batched[2].tolist() == [[2, 1], [4, 3]]
    assert op("aten::matmul")(np.zeros((4, 1, 2, 3), f32), np.zeros((5, 3, 6), f32)).shape == (4, 5, 2, 6)


def test_product_errors():
    with pytest.raises(TorchScriptError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x3\)"):
        op("aten::mm")(np.zeros((2, 3), f32), np.zeros((2, 3), f32))
    with pytest.raises(
        TorchScriptError, match="expected m1 and m2 to have the same dtype, but got: float != double"
    ):
        op("aten::mm")(np.zeros((2, 3), f32), np.zeros((3, 2), f64))
    with pytest.raises(
        TorchScriptError, match="both arguments to matmul need to be at least 1D, but they are 0D and 1D"
    ):
        op("aten::matmul")(np.array(1.0, f32), np.zeros(2, f32))
    with pytest.raises(
        TorchScriptError, match=r"inconsistent tensor size, expected tensor \[3\] and src \[4\]"
    ):
        op("aten::dot")(np.zeros(3, f32), np.zeros(4, f32))
    with pytest.raises(
        TorchScriptError,
        match=r"Expected size for first two dimensions of batch2 tensor to be: "
        r"\[2, 3\] but got: \[2, 4\].",
    ):
        op("aten::bmm")(np.zeros((2, 2, 3), f32), np.zeros((2, 4, 1), f32))
    with pytest.raises(TorchScriptError, match=r"mat1 and mat2 shapes cannot be multiplied \(6x3 and 4x5\)"):
        op("aten::matmul")(np.zeros((2, 3, 3), f32), np.zeros((4, 5), f32))


def test_linear_addmm_and_friends():
    x = np.array([[1.0, 2.0]], f32)
    assert op("aten::linear")(x, A, np.array([10.0, 20.0], f32)).tolist() == [[15.0, 31.0]]
    assert op("aten::linear")(x, A, None).tolist() == [[5.0, 11.0]]
    bias = np.array([1.0, np.nan], f32)
    assert op("aten::addmm")(bias, A, B, 0, 2).tolist() == [[4, 2], [8, 6]]  # beta=0 ignores nan
    assert op("aten::addmm")(np.ones(2, f32), A, B, 0.5, 1).tolist() == [[2.5, 1.5], [4.5, 3.5]]
    assert op("aten::addmv")(np.ones(2, f32), A, np.array([1.0, 0.0], f32), 1, 1).tolist() == [2.0, 4.0]
    assert op("aten::outer")(np.array([1, 2]), np.array([3, 4])).tolist() == [[3, 4], [6, 8]]
    assert op("aten::mv")(A, np.array([0.0, 1.0], f32)).tolist() == [2.0, 4.0]
    assert op("aten::einsum")("ij,jk->ik", [A, B], None).tolist() == [[2, 1], [4, 3]]


def test_triangles_and_diagonals():
    m = np.arange(9, dtype=f32).reshape(3, 3)
    assert op("aten::tril")(m, 0).tolist() == [[0, 0, 0], [3, 4, 0], [6, 7, 8]]
    assert op("aten::triu")(m, 1).tolist() == [[0, 1, 2], [0, 0, 5], [0, 0, 0]]
    assert op("aten::diag")(np.array([1, 2]), 0).tolist() == [[1, 0], [0, 2]]
    assert op("aten::trace")(np.arange(4).reshape(2, 2)).tolist() == 3
    upper = op("aten::diagonal")(m, 1, 0, 1)
    assert upper.tolist() == [1.0, 5.0]
    upper[...] = -1
    assert m[0, 1] == -1 and m[1, 2] == -1
    assert op("aten::diagonal")(np.zeros((2, 3, 3)), -1, 1, 2).shape == (2, 2)

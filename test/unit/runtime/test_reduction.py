"""Reductions: dims and keepdim, accumulation dtypes, max/min overloads, statistics, sorting."""

from __future__ import annotations

import numpy as np
import pytest

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import lookup

f32, f64, i64 = np.float32, np.float64, np.int64
M = np.array([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]], f32)


def op(name):
    kernel = lookup(name)
    assert kernel is not None, name
    return kernel


def test_sum_and_mean_with_dims():
    assert op("aten::sum")(M, None).tolist() == 21.0
    assert op("aten::sum.dim_IntList")(M, [1], False, None).tolist() == [9.0, 12.0]
    assert op("aten::sum.dim_IntList")(M, [0], True, None).shape == (1, 3)
    assert op("aten::sum.dim_IntList")(M, [], False, None).tolist() == 21.0  # [] means all dims
    assert op("aten::sum.dim_IntList")(M, [-1, 0], False, None).shape == ()
    assert op("aten::mean.dim")(M, [0], False, None).tolist() == [2.5, 3.5, 4.5]
    assert op("aten::mean")(M, None).dtype == f32


def test_integer_sums_accumulate_in_int64():
    assert op("aten::sum")(np.array([True, True, False]), None).tolist() == 2
    assert op("aten::sum")(np.array([2**30, 2**30], np.int32), None).dtype == i64
    assert op("aten::sum")(np.array([1, 2], np.int32), 7).dtype == f64  # explicit dtype (Double)
    assert op("aten::prod.dim_int")(np.array([[2, 3], [4, 5]], np.int8), 1, False, None).tolist() == [6, 20]
    assert op("aten::cumsum")(np.array([1, 2, 3], np.int32), 0, None).tolist() == [1, 3, 6]


def test_mean_of_integers_is_an_error():
    with pytest.raises(TorchScriptError, match=r"mean\(\): could not infer output dtype. .* Got: Long"):
        op("aten::mean")(np.array([1, 2], i64), None)


def test_dim_errors():
    with pytest.raises(
        TorchScriptError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"
    ):
        op("aten::sum.dim_IntList")(M, [2], False, None)
    with pytest.raises(TorchScriptError, match="dim 0 appears multiple times in the list of dims"):
        op("aten::sum.dim_IntList")(M, [0, -2], False, None)
    with pytest.raises(TorchScriptError, match=r"\[-2, 1\], but got -3\)"):
        op("aten::mean.dim")(M, [-3], True, None)
    with pytest.raises(TorchScriptError, match=r"\[-1, 0\], but got 1\)"):
        op("aten::sum.dim_IntList")(np.array(3.0, f32), [1], False, None)


def test_one_dim_reductions_wrap_negative_dims():
    assert op("aten::sum.dim_IntList")(M, [-1], True, None).tolist() == [[9.0], [12.0]]
    assert op("aten::mean.dim")(M, [-2], False, None).tolist() == [2.5, 3.5, 4.5]
    assert op("aten::mean.dim")(M, [0, 1], False, None).tolist() == 3.5


def test_zero_dim_tensors_reduce_over_dim_zero():
    x = np.array(3.0, f32)
    assert op("aten::sum.dim_IntList")(x, [0], False, None).tolist() == 3.0
    assert op("aten::mean.dim")(x, [-1], True, None).tolist() == 3.0
    values, indices = op("aten::max.dim")(x, -1, False)
    assert values.tolist() == 3.0 and indices.tolist() == 0


def test_max_min_overloads():
    assert op("aten::max")(M).tolist() == 6.0 and op("aten::min")(M).shape == ()
    values, indices = op("aten::max.dim")(M, 1, False)
    assert values.tolist() == [5.0, 6.0] and indices.tolist() == [1, 2] and indices.dtype == i64
    values, indices = op("aten::min.dim")(M, 0, True)
    assert values.tolist() == [[1.0, 2.0, 3.0]] and indices.tolist() == [[0, 1, 0]]
    ties = np.array([1, 3, 3], i64)
    assert op("aten::max.dim")(ties, 0, False)[1].tolist() == 1  # first occurrence
    assert op("aten::max.other")(np.array([1, 5]), np.array([4, 2])).tolist() == [4, 5]
    with pytest.raises(TorchScriptError, match="max\\(\\): Expected reduction dim to be specified"):
        op("aten::max")(np.zeros(0, f32))
    with pytest.raises(TorchScriptError, match="max\\(\\): Expected reduction dim 1 to have non-zero size."):
        op("aten::max.dim")(np.zeros((2, 0), f32), 1, False)


def test_argmax_argmin():
    assert op("aten::argmax")(M, None, False).tolist() == 5
    assert op("aten::argmax")(M, None, True).shape == (1, 1)
    assert op("aten::argmin")(M, 1, False).tolist() == [0, 1]
    assert op("aten::argmax")(np.array([1.0, np.nan, 2.0], f32), None, False).tolist() == 1  # NaN is the max


def test_amax_any_all():
    assert op("aten::amax")(M, [0], False).tolist() == [4.0, 5.0, 6.0]
    assert op("aten::amin")(M, [], False).tolist() == 1.0
    assert op("aten::all.dim")(np.array([[1, 0], [1, 1]]), 1, False).tolist() == [False, True]
    assert op("aten::any")(np.array([0.0, 0.5])).tolist() is True
    assert op("aten::all")(np.array([1, 2], np.uint8)).dtype == np.uint8


def test_variance_and_std():
    x = np.array([1.0, 2.0, 3.0, 4.0], f32)
    assert op("aten::var")(x, True).tolist() == pytest.approx(5 / 3)
    assert op("aten::var.dim")(x, [0], False, False).tolist() == pytest.approx(1.25)
    assert op("aten::std.correction")(x, None, 0, False).tolist() == pytest.approx(1.25**0.5)
    std, mean = op("aten::std_mean.dim")(x.reshape(2, 2), [1], True, True)
    assert std.shape == (2, 1) and mean.tolist() == [[1.5], [3.5]]
    with pytest.raises(TorchScriptError, match="std and var only support floating point"):
        op("aten::std")(np.array([1, 2], i64), True)


@pytest.mark.parametrize("keepdim", [False, True])
def test_statistics_overloads_against_numpy(keepdim):
    x = np.array([[1.0, 2.0, 4.0], [3.0, 7.0, 5.0]], f64)
    for op_name, with_mean in (("var", False), ("std", False), ("var_mean", True), ("std_mean", True)):
        numpy_stat = np.var if op_name.startswith("var") else np.std
        cases = [
            (op(f"aten::{op_name}")(x, False), numpy_stat(x, ddof=0), np.mean(x)),
            (
                op(f"aten::{op_name}.dim")(x, [1], True, keepdim),
                numpy_stat(x, axis=1, ddof=1, keepdims=keepdim),
                np.mean(x, axis=1, keepdims=keepdim),
            ),
            (
                op(f"aten::{op_name}.correction")(x, [0], 0, keepdim),
                numpy_stat(x, axis=0, ddof=0, keepdims=keepdim),
                np.mean(x, axis=0, keepdims=keepdim),
            ),
            (op(f"aten::{op_name}.correction")(x, None, None, False), numpy_stat(x, ddof=1), np.mean(x)),
        ]
        for result, statistic, mean in cases:
            if with_mean:
                result, result_mean = result
                np.testing.assert_allclose(result_mean, mean)
            assert type(result) is np.ndarray
            np.testing.assert_allclose(result, statistic)


def test_prod_overloads():
    x = np.array([[1, 2], [3, 4]], np.int32)
    assert op("aten::prod")(x, None).tolist() == 24 and op("aten::prod")(x, None).dtype == i64
    assert op("aten::prod.dim_int")(x, 1, False, None).tolist() == [2, 12]
    assert op("aten::prod.dim_int")(x, -2, True, 6).tolist() == [[3.0, 8.0]]
    with pytest.raises(TorchScriptError, match="Dimension out of range"):
        op("aten::prod.dim_int")(x, 2, False, None)


def test_norms():
    x = np.array([[3.0, -4.0], [0.0, 0.0]], f32)
    assert op("aten::norm.Scalar")(x, 2).tolist() == 5.0
    assert op("aten::norm.ScalarOpt_dim")(x, 1, [1], False).tolist() == [7.0, 0.0]
    assert op("aten::linalg_vector_norm")(x, float("inf"), None, False, None).tolist() == 4.0
    assert op("aten::linalg_vector_norm")(x, 0, [1], True, None).tolist() == [[2.0], [0.0]]
    assert op("aten::norm.Scalar")(x, 3).tolist() == pytest.approx((27 + 64) ** (1 / 3), rel=1e-6)
    with pytest.raises(
        TorchScriptError, match="linalg.vector_norm: Expected a floating point or complex tensor"
    ):
        op("aten::norm.Scalar")(np.array([1, 2]), 2)


def test_logsumexp_is_stable():
    x = np.array([[1000.0, 1000.0], [-np.inf, 0.0]], f32)
    result = op("aten::logsumexp")(x, [1], False)
    np.testing.assert_allclose(result, [1000.0 + np.log(2.0), 0.0], rtol=1e-6)


def test_cumulative_ops():
    assert op("aten::cumsum")(M, 1, None).tolist() == [[1, 6, 9], [4, 6, 12]]
    assert op("aten::cumprod")(np.array([1.0, 2.0, 3.0], f32), -1, None).tolist() == [1, 2, 6]
    x = np.array([1, 2, 3], i64)
    assert op("aten::cumsum_")(x, 0, None) is x and x.tolist() == [1, 3, 6]


def test_sort_topk_kthvalue_median():
    values, indices = op("aten::sort")(np.array([1, 2, 2, 1], i64), -1, True)
    assert values.tolist() == [2, 2, 1, 1] and indices.tolist() == [1, 2, 0, 3]  # stable, like PyTorch
    values, indices = op("aten::sort")(np.array([1.0, np.nan, 2.0], f32), 0, True)
    assert np.isnan(values[0]) and indices.tolist() == [1, 2, 0]
    values, indices = op("aten::topk")(np.array([5, 1, 4, 2], i64), 2, -1, True, True)
    assert values.tolist() == [5, 4] and indices.tolist() == [0, 2]
    assert op("aten::kthvalue")(np.array([5, 1, 4], i64), 2, -1, False)[0].tolist() == 4
    assert op("aten::median")(np.array([4.0, 1.0, 3.0, 2.0], f32)).tolist() == 2.0  # the lower middle
    values, indices = op("aten::median.dim")(M, 1, False)
    assert values.tolist() == [3.0, 4.0] and indices.tolist() == [2, 0]
    values, indices = op("aten::median.dim")(np.array([[1.0, np.nan, 2.0]], f32), 1, False)
    assert np.isnan(values[0]) and indices.tolist() == [1]
    with pytest.raises(TorchScriptError, match="selected index k out of range"):
        op("aten::topk")(np.array([1, 2]), 3, -1, True, True)


def test_kthvalue_ties_and_nan_as_pytorch():
    """NaN sorts as the largest value (kthvalue is no median: a NaN in the slice does not
    win), and among tied values the index is the one PyTorch 2.13's quickselect leaves at
    the k-th place (recorded from torch.kthvalue)."""
    x = np.array([[3.0, 1.0, 3.0, 1.0, 2.0, 1.0], [1.0, np.nan, 1.0, 1.0, 0.0, 1.0]], f64)
    values, indices = op("aten::kthvalue")(x, 3, 1, True)
    assert values.tolist() == [[1.0], [1.0]] and indices.tolist() == [[1], [0]]
    x[1, 3] = np.nan
    values, indices = op("aten::kthvalue")(x.T.copy(), 5, 0, False)
    assert values[0] == 3.0 and np.isnan(values[1]) and indices.tolist() == [0, 3]
    values, indices = op("aten::kthvalue")(np.array([3, 1, 3, 1, 2, 1], i64), 2, -1, False)
    assert values.tolist() == 1 and indices.tolist() == 3
